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

#include "core/vision/aliked_layers_impl.h"

namespace skytrace::vision::aliked {

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

  // feature_map: [1, C, H, W] (unpadded, L2-normalised dense map); keypoints: [N,2] in
  // [-1,1] (align_corners=True).
  SddhResult operator()(const at::Tensor& feature_map, const at::Tensor& keypoints,
                        SddhTrace* trace = nullptr) const;

 private:
  at::Tensor patchesAt(const at::Tensor& map, const at::Tensor& pixel) const;

  int64_t kernel_size_ = 3;
  int64_t sample_count_ = 16;
  Conv2d offset_conv0_, offset_conv2_, sf_conv_;
  at::Tensor agg_weights_;  // [M, C, C]
};

}  // namespace skytrace::vision::aliked
