// Internal (torch allowed): ALIKED's sparse deformable descriptor head (blocks.py SDDH,
// conv2D=False, mask=False), inference only. For each keypoint: the KxK patch of the
// dense feature map at the truncated pixel position (zero outside, as the compiled
// get_patches op), a small conv net predicting M sample offsets (clamped to
// +-max(H,W)/4 px), bilinear samples at keypoint + offset (grid_sample,
// align_corners=True, zeros outside), a 1x1 conv + SELU, and a per-position linear
// aggregation (agg_weights [M, C, C]) to one L2-normalised descriptor.
// Thread: const methods may run concurrently.
#pragma once

#include <ATen/ATen.h>

#include "core/vision/aliked_fused_ops.h"
#include "core/vision/aliked_layers_impl.h"

namespace skytrace::vision::aliked {

// Read access to the dense descriptor map (C channels over an HxW unpadded image) at
// integer pixels, so that the map need not be materialised at full resolution.
class FeatureLookup {
 public:
  virtual ~FeatureLookup() = default;
  virtual int64_t channels() const = 0;
  virtual int64_t height() const = 0;
  virtual int64_t width() const = 0;
  virtual at::TensorOptions options() const = 0;
  // flat_index: [P] long, y*W + x, all inside the image. Returns [P, C] (one row per
  // pixel: gathers read contiguous channel vectors).
  virtual at::Tensor gather(const at::Tensor& flat_index) const = 0;
  // The whole map [1, C, H, W] when it is materialised (then sampled with grid_sample
  // directly), else undefined.
  virtual at::Tensor denseMap() const { return {}; }
};

// A materialised map [1, C, H, W].
class DenseFeatureLookup final : public FeatureLookup {
 public:
  explicit DenseFeatureLookup(const at::Tensor& map);
  int64_t channels() const override { return map_.size(0); }
  int64_t height() const override { return map_.size(1); }
  int64_t width() const override { return map_.size(2); }
  at::TensorOptions options() const override { return map_.options(); }
  at::Tensor gather(const at::Tensor& flat_index) const override;
  at::Tensor denseMap() const override { return map_.unsqueeze(0); }

 private:
  at::Tensor map_;  // [C, H, W]
};

// Optional intermediate results, for parity tests.
struct SddhTrace {
  at::Tensor patches;  // [N, C, K, K] input of offset_conv
  at::Tensor sampled;  // [N, C, M, 1] grid_sample output, before sf_conv
};

struct SddhResult {
  at::Tensor descriptors;  // [N, C] L2-normalised rows
  at::Tensor offsets;      // [N, M, 2] pixels (x, y), after the clamp
};

class Sddh {
 public:
  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dims,
            int64_t kernel_size, int64_t sample_count);
  // Derives the inference layout of the bound weights; call after binder.finish().
  void prepare();

  // features: the unpadded, L2-normalised dense map; keypoints: [N,2] in [-1,1]
  // (align_corners=True).
  SddhResult operator()(const FeatureLookup& features, const at::Tensor& keypoints,
                        SddhTrace* trace = nullptr) const;
  // The same with the fused CUDA operators, reading the normalised map from the gated
  // levels (aliked_fused_ops.h); the two contractions run as matrix products.
  SddhResult forwardFused(const fused::Levels& levels, const at::Tensor& keypoints) const;

 private:
  at::Tensor patchesAt(const FeatureLookup& features, const at::Tensor& pixel) const;

  int64_t kernel_size_ = 3;
  int64_t sample_count_ = 16;
  Conv2d offset_conv0_, offset_conv2_, sf_conv_;
  at::Tensor agg_weights_;  // [M, C, C]
  at::Tensor agg_kernel_;   // [C, M*C, 1, 1]
};

}  // namespace skytrace::vision::aliked
