// Internal (torch allowed): the layers of ALIKED's encoder (nets/blocks.py), as plain
// ATen computations over tensors bound from the published state dict by their
// original names ("block3.conv1.offset_conv.weight", ...). Inference only (BatchNorm
// uses running statistics, as in eval()). All tensors NCHW float32 on one device, or
// float16 on CUDA after castTo(at::kHalf) (AlikedModel's half-precision backbone).
// forwardFused(): the same computation through the fused CUDA operators of
// aliked_fused_ops.h (float32 CUDA tensors only; AlikedModel decides when).
// Thread: const methods may run concurrently; bind() before first use.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "core/vision/checkpoint_impl.h"

namespace skytrace::vision::aliked {

// SELU applied in place (the original's nn.SELU(inplace=True)); returns the same tensor.
inline at::Tensor seluInPlace(at::Tensor x) {
  at::selu_(x);
  return x;
}

// nn.Conv2d (groups 1, dilation 1).
struct Conv2d {
  at::Tensor weight, bias;  // [O, I, k, k], [O] or undefined
  int64_t stride = 1, padding = 0;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
            int64_t kernel, int64_t padding_px, bool with_bias);
  at::Tensor operator()(const at::Tensor& x) const;
  void castTo(at::ScalarType type);  // weights (and bias) to `type`
};

// nn.BatchNorm2d in eval mode (eps 1e-5). On the CPU through at::batch_norm (the parity
// path); on CUDA as one fused x * scale + shift with the per-channel affine map folded
// from the statistics (cuDNN's NCHW inference kernel took ~80 us per full-resolution call
// on an H100, 5x the memory-bound time; equal up to float rounding).
struct BatchNorm2d {
  at::Tensor weight, bias, running_mean, running_var;
  at::Tensor scale, shift;  // [1,C,1,1]: weight / sqrt(var + eps), bias - mean * scale

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t channels);
  // Derives scale/shift; call after binder.finish().
  void prepare();
  at::Tensor operator()(const at::Tensor& x) const;
  void castTo(at::ScalarType type);  // scale/shift to `type` (the CUDA path's parameters)
};

// blocks.py DeformableConv2d without mask: a 3x3 conv predicts 2*9 offsets per pixel,
// clamped to +-max(H, W)/4, then deform_conv2d with regular_conv's weight (no bias).
struct DeformableConv2d {
  Conv2d offset_conv;   // keys <prefix>.offset_conv.{weight,bias}
  at::Tensor weight;    // <prefix>.regular_conv.weight [O, I, 3, 3]

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out);
  at::Tensor operator()(const at::Tensor& x) const;
  at::Tensor forwardFused(const at::Tensor& x) const;  // sampled columns in one kernel
  void castTo(at::ScalarType type);
};

// A 3x3 convolution, plain or deformable (blocks.py get_conv, padding 1, no bias).
struct Conv3x3 {
  bool deformable = false;
  Conv2d plain;
  DeformableConv2d dcn;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
            bool use_dcn);
  at::Tensor operator()(const at::Tensor& x) const;
  at::Tensor forwardFused(const at::Tensor& x) const;
  void castTo(at::ScalarType type);
};

// blocks.py ConvBlock: SELU(BN(conv(SELU(BN(conv(x)))))).
struct ConvBlock {
  Conv3x3 conv1, conv2;
  BatchNorm2d bn1, bn2;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
            bool use_dcn);
  at::Tensor operator()(const at::Tensor& x) const;
  at::Tensor forwardFused(const at::Tensor& x) const;  // BN + SELU in one pass
  void castTo(at::ScalarType type);
};

// blocks.py ResBlock (stride 1) with a 1x1 conv (with bias) as downsample/projection.
struct ResBlock {
  Conv3x3 conv1, conv2;
  BatchNorm2d bn1, bn2;
  Conv2d downsample;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
            bool use_dcn);
  at::Tensor operator()(const at::Tensor& x) const;
  at::Tensor forwardFused(const at::Tensor& x) const;  // BN + residual + SELU in one pass
  void castTo(at::ScalarType type);
};

}  // namespace skytrace::vision::aliked
