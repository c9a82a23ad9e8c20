// Internal (torch allowed; core/vision sources only): the plain layers LiteSAM is made
// of (boyagesmile/LiteSAM 8b49e8d, src/loftr), as ATen computations over tensors bound
// from the published state dict by their original names. Inference only: BatchNorm uses
// running statistics (eval()). All tensors float32 on one device, NCHW unless stated; on
// CUDA optionally float16 after castTo(kHalf) (BatchNorm keeps float32 statistics, which
// ATen's CUDA kernels take beside float16 inputs).
// Thread: const methods may run concurrently; bind() before first use.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "core/vision/checkpoint_impl.h"

namespace skytrace::vision::litesam {

// nn.Conv2d (dilation 1).
struct Conv2d {
  at::Tensor weight, bias;  // [O, I/groups, k, k], [O] or undefined
  int64_t stride = 1, padding = 0, groups = 1;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
            int64_t kernel, int64_t stride_px, int64_t padding_px, int64_t group_count,
            bool with_bias);
  void castTo(at::ScalarType type);
  at::Tensor operator()(const at::Tensor& x) const;
};

// nn.BatchNorm2d / nn.SyncBatchNorm in eval mode (eps 1e-5).
struct BatchNorm2d {
  static constexpr double kEps = 1e-5;
  at::Tensor weight, bias, running_mean, running_var;  // [C] each

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t channels);
  at::Tensor operator()(const at::Tensor& x) const;
};

// nn.LayerNorm over the last dimension (eps 1e-5).
struct LayerNorm {
  at::Tensor weight, bias;  // [C]

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t channels);
  void castTo(at::ScalarType type);
  at::Tensor operator()(const at::Tensor& x) const;
};

// nn.Linear over the last dimension.
struct Linear {
  at::Tensor weight, bias;  // [O, I], [O] or undefined

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
            bool with_bias);
  void castTo(at::ScalarType type);
  at::Tensor operator()(const at::Tensor& x) const;
};

// MobileOneBlock (src/loftr/backbone/mobileone.py) with one conv branch and no SE:
// ReLU(rbr_skip(x) + rbr_scale(x) + rbr_conv.0(x)) in its training-time multi-branch
// form, as the checkpoint stores it. rbr_conv = conv (no bias) + BN; rbr_scale = 1x1
// conv with the same stride and groups + BN (only for kernel > 1); rbr_skip = BN (only
// when in == out and stride 1).
// reparameterize() folds the branches into one conv with bias exactly as the original's
// reparameterize() (BN-folded kernels summed; 1x1 zero-padded; identity as a centred
// delta): equal up to float rounding (the parity test bounds the difference).
struct MobileOneBlock {
  int64_t in_channels = 0, out_channels = 0, kernel = 1, stride = 1, groups = 1;
  Conv2d conv;
  BatchNorm2d conv_bn;
  bool has_scale = false;
  Conv2d scale;
  BatchNorm2d scale_bn;
  bool has_skip = false;
  BatchNorm2d skip;
  bool fused = false;
  Conv2d fused_conv;  // valid once fused

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
            int64_t kernel_size, int64_t stride_px, int64_t group_count);
  void reparameterize();
  void castTo(at::ScalarType type);  // the convolutions (BatchNorm stays float32)
  at::Tensor operator()(const at::Tensor& x) const;
};

// F.interpolate(x, scale_factor=s, mode='bilinear', align_corners=False) for an integer s.
at::Tensor upsampleBilinear(const at::Tensor& x, int64_t factor);

}  // namespace skytrace::vision::litesam
