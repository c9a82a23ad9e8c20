#include "core/vision/deform_conv_impl.h"

#include <algorithm>

#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"

namespace skytrace::vision {
namespace {

// Bilinear samples of `image` [C, H*W] at (y, x) [K, R, Wo] (pixel units, any device),
// zero outside as torchvision's bilinear_interpolate. Returns [C, K*R*Wo].
at::Tensor sampleBilinearZero(const at::Tensor& image, int64_t height, int64_t width,
                              const at::Tensor& y, const at::Tensor& x) {
  const at::Tensor inside = (y > -1) & (y < height) & (x > -1) & (x < width);
  const at::Tensor y_low_f = at::floor(y);
  const at::Tensor x_low_f = at::floor(x);
  const at::Tensor ly = y - y_low_f;
  const at::Tensor lx = x - x_low_f;
  const at::Tensor hy = 1 - ly;
  const at::Tensor hx = 1 - lx;
  const at::Tensor y_low = y_low_f.to(at::kLong);
  const at::Tensor x_low = x_low_f.to(at::kLong);
  const at::Tensor y_high = y_low + 1;
  const at::Tensor x_high = x_low + 1;

  const auto corner = [&](const at::Tensor& yy, const at::Tensor& xx, const at::Tensor& weight) {
    const at::Tensor valid = inside & (yy >= 0) & (yy <= height - 1) & (xx >= 0) & (xx <= width - 1);
    const at::Tensor index =
        (yy.clamp(0, height - 1) * width + xx.clamp(0, width - 1)).reshape({-1});
    const at::Tensor values = image.index_select(1, index);                 // [C, P]
    const at::Tensor w = at::where(valid, weight, at::zeros_like(weight));  // [K, R, Wo]
    return std::make_pair(values, w.reshape({1, -1}));
  };
  // Same products and summation order as torchvision: w1*v1 + w2*v2 + w3*v3 + w4*v4.
  auto [v1, w1] = corner(y_low, x_low, hy * hx);
  auto [v2, w2] = corner(y_low, x_high, hy * lx);
  auto [v3, w3] = corner(y_high, x_low, ly * hx);
  auto [v4, w4] = corner(y_high, x_high, ly * lx);
  at::Tensor value = w1 * v1;
  value.add_(w2 * v2).add_(w3 * v3).add_(w4 * v4);
  return value;
}

}  // namespace

at::Tensor deformConv2d(const at::Tensor& input, const at::Tensor& offset,
                        const at::Tensor& weight, const at::Tensor& bias,
                        const DeformConvGeometry& g, const at::Tensor& mask,
                        int64_t max_column_elements) {
  if (input.dim() != 4 || offset.dim() != 4 || weight.dim() != 4)
    throw InvalidArgument("deformConv2d: input, offset and weight must be 4-D");
  const int64_t batch = input.size(0), channels = input.size(1);
  const int64_t height = input.size(2), width = input.size(3);
  const int64_t out_channels = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  const int64_t taps = kh * kw;
  const int64_t out_h = (height + 2 * g.pad_h - (g.dilation_h * (kh - 1) + 1)) / g.stride_h + 1;
  const int64_t out_w = (width + 2 * g.pad_w - (g.dilation_w * (kw - 1) + 1)) / g.stride_w + 1;
  if (weight.size(1) != channels)
    throw InvalidArgument("deformConv2d: weight " + shapeToString(weight.sizes()) +
                          " does not fit input " + shapeToString(input.sizes()));
  if (offset.size(0) != batch || offset.size(1) != 2 * taps || offset.size(2) != out_h ||
      offset.size(3) != out_w)
    throw InvalidArgument("deformConv2d: offset " + shapeToString(offset.sizes()) + ", expected [" +
                          std::to_string(batch) + ", " + std::to_string(2 * taps) + ", " +
                          std::to_string(out_h) + ", " + std::to_string(out_w) + "]");
  if (mask.defined() && (mask.size(0) != batch || mask.size(1) != taps ||
                         mask.size(2) != out_h || mask.size(3) != out_w))
    throw InvalidArgument("deformConv2d: mask " + shapeToString(mask.sizes()) +
                          " does not fit the offsets");

  // Sampling positions in float32 at least (a float16 backbone would otherwise round
  // pixel coordinates to 1/16 px and worse); the grid is cast to the input's type only
  // for grid_sampler.
  const at::ScalarType position_type = input.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const auto float_options = input.options().dtype(position_type);
  // Tap positions relative to the output pixel: i*dil - pad (rows), j*dil - pad (cols).
  // (repeat_interleave(kw) written as an expand: no host round trip, capturable in a CUDA graph)
  const at::Tensor tap_i =
      at::arange(kh, float_options).view({kh, 1}).expand({kh, kw}).reshape({-1});  // [K]
  const at::Tensor tap_j = at::arange(kw, float_options).repeat({kh});           // [K]

  at::Tensor output = at::empty({batch, out_channels, out_h, out_w}, input.options());
  // Rows of output per chunk, so that the columns [C*K, rows*Wo] stay bounded.
  const int64_t per_row = std::max<int64_t>(1, channels * taps * out_w);
  const int64_t chunk_rows = std::clamp<int64_t>(max_column_elements / per_row, 1, out_h);

  for (int64_t b = 0; b < batch; ++b) {
    const at::Tensor image = input[b].reshape({channels, height * width});
    for (int64_t row0 = 0; row0 < out_h; row0 += chunk_rows) {
      const int64_t rows = std::min(chunk_rows, out_h - row0);
      const at::Tensor offsets =
          offset[b].narrow(1, row0, rows).reshape({taps, 2, rows, out_w}).to(position_type);
      const at::Tensor oy = (at::arange(row0, row0 + rows, float_options) * g.stride_h - g.pad_h)
                                .view({1, rows, 1});
      const at::Tensor ox = (at::arange(out_w, float_options) * g.stride_w - g.pad_w)
                                .view({1, 1, out_w});
      // Same association as torchvision: (base + tap*dil) + offset.
      const at::Tensor y = (oy + (tap_i * g.dilation_h).view({taps, 1, 1})) + offsets.select(1, 0);
      const at::Tensor x = (ox + (tap_j * g.dilation_w).view({taps, 1, 1})) + offsets.select(1, 1);
      at::Tensor columns;  // [C, K*rows*Wo]
      if (input.is_cuda() && height > 1 && width > 1) {
        // One fused kernel: grid_sample (zeros, align_corners) has the same zero-outside
        // semantics; only the pixel -> [-1,1] -> pixel round trip differs (float ulps).
        const at::Tensor grid = at::stack({x * (2.0 / (width - 1)) - 1, y * (2.0 / (height - 1)) - 1}, -1)
                                    .view({1, taps * rows, out_w, 2})
                                    .to(input.scalar_type());
        columns = at::grid_sampler(input.narrow(0, b, 1), grid, /*bilinear*/ 0, /*zeros*/ 0,
                                   /*align_corners=*/true)
                      .view({channels, taps * rows * out_w});
      } else {
        columns = sampleBilinearZero(image, height, width, y, x);
      }
      if (mask.defined())
        columns = mask[b].narrow(1, row0, rows).reshape({1, -1}) * columns;
      // Contract over (channel, tap). As a kh x kw convolution with stride (kh, kw) over
      // the taps laid out as blocks: the same sums as columns^T * weight, but it runs
      // through the convolution backend (oneDNN on CPU, cuDNN on CUDA), not plain BLAS.
      const at::Tensor blocks = columns.view({1, channels, kh, kw, rows, out_w})
                                    .permute({0, 1, 4, 2, 5, 3})
                                    .reshape({1, channels, rows * kh, out_w * kw});
      const at::Tensor out = at::conv2d(blocks, weight, bias, {kh, kw});  // [1, O, rows, Wo]
      output[b].narrow(1, row0, rows).copy_(out[0]);
    }
  }
  return output;
}

}  // namespace skytrace::vision
