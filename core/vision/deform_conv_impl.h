// Internal (torch allowed): deformable 2-D convolution (DCNv1, and DCNv2 with a
// modulation mask) with the exact semantics of torchvision.ops.deform_conv2d, written
// with ATen ops so it runs on any device. No torchvision dependency.
//
// Semantics: output (b, o, oy, ox) = bias[o] + sum_{c,i,j} weight[o,c,i,j] *
//   mask[b,k,oy,ox] * bilinear(input[b,c], y, x), k = i*kw + j, with
//   y = oy*stride_h - pad_h + i*dil_h + offset[b, 2k,   oy, ox]
//   x = ox*stride_w - pad_w + j*dil_w + offset[b, 2k+1, oy, ox]
// and bilinear() zero outside the image: a tap whose centre lies at or beyond one pixel
// outside (y <= -1, y >= H, ...) is 0, and each of its four corners outside is 0.
// One offset group, one weight group (what ALIKED uses).
#pragma once

#include <ATen/ATen.h>

#include <optional>

namespace skytrace::vision {

struct DeformConvGeometry {
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 1, pad_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
};

// input [B, C, H, W]; offset [B, 2*kh*kw, Ho, Wo] (dy, dx per tap); weight
// [O, C, kh, kw]; bias [O] or undefined; mask [B, kh*kw, Ho, Wo] or undefined.
// Returns [B, O, Ho, Wo]. Works in bounded memory: the sampled columns are built for
// at most `max_column_elements` values at a time (rows of the output per chunk).
at::Tensor deformConv2d(const at::Tensor& input, const at::Tensor& offset,
                        const at::Tensor& weight, const at::Tensor& bias,
                        const DeformConvGeometry& geometry = {},
                        const at::Tensor& mask = at::Tensor(),
                        int64_t max_column_elements = int64_t{16} << 20);

}  // namespace skytrace::vision
