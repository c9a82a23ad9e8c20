// Internal (torch allowed): the ALIKED network (Shiaoming/ALIKED nets/aliked.py, commit
// 683d7c6), ported to ATen for inference with the published weights, loaded unchanged
// by their original names. Input: RGB float32 [1,3,H,W] in [0,1] (ToTensor, no mean/std).
// Optionally (setHalfPrecision, CUDA) the dense part runs in float16.
// The image is replicate-padded to a multiple of 32 (split floor/ceil) and the dense
// maps are cropped back to HxW before detection.
// Thread: create and use on one thread (tensors live on the device chosen at load);
// forward() is const and holds no per-call state.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <memory>
#include <string>

#include "core/vision/aliked_config.h"
#include "core/vision/aliked_dkd_impl.h"
#include "core/vision/aliked_layers_impl.h"
#include "core/vision/aliked_sddh_impl.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/cuda_graph_impl.h"

namespace skytrace::vision::aliked {

// Intermediate tensors of the dense part, for parity tests (padded frame).
struct DenseTrace {
  std::array<at::Tensor, 4> blocks;       // blockK output after its last SELU
  std::array<at::Tensor, 4> projections;  // convK (1x1) output before the SELU gate
  at::Tensor score_logits;                // score head output before sigmoid [1,1,Hp,Wp]
  std::array<int64_t, 4> pad_lrtb{};      // replicate padding (left, right, top, bottom)
};

// The four aggregated levels (after the SELU gate, padded frame): dim/4 channels each
// at 1, 1/2, 1/8 and 1/32 resolution. The dense descriptor map is their upsampled
// concatenation, L2-normalised; forward() evaluates it only where SDDH reads it.
struct EncodedLevels {
  std::array<at::Tensor, 4> levels;  // [1, dim/4, Hp/s, Wp/s]
  std::array<int64_t, 4> pad_lrtb{};
  int64_t height = 0, width = 0;                // unpadded
  int64_t padded_height = 0, padded_width = 0;
};

struct DenseMaps {
  at::Tensor feature_map;  // [1, dim, H, W] L2-normalised over channels (unpadded)
  at::Tensor score_map;    // [1, 1, H, W] in (0,1) (unpadded)
};

struct AlikedOutput {
  at::Tensor keypoints;    // [N,2] (x,y) in [-1,1] over the unpadded image (align_corners)
  at::Tensor keypoints_px; // [N,2] pixels, (k+1)/2 * (W-1, H-1) as ALIKED.run()
  at::Tensor scores;       // [N]
  at::Tensor dispersity;   // [N]
  at::Tensor descriptors;  // [N, dim] L2-normalised
  at::Tensor offsets;      // [N, M, 2] SDDH sample offsets (pixels)
  at::Tensor score_map;    // [1,1,H,W]
};

class AlikedModel {
 public:
  // Builds the variant's layers and binds `weights` (strict: every key, every shape).
  // Throws ModelError naming the file, the key and expected vs found shapes.
  AlikedModel(const AlikedConfig& config, const StateDict& weights, at::Device device);

  const AlikedConfig& config() const { return config_; }
  at::Device device() const { return device_; }

  // image: [1,3,H,W] float32 RGB in [0,1] on device(). Throws InvalidArgument on shape.
  EncodedLevels encode(const at::Tensor& image, DenseTrace* trace = nullptr) const;

  // The original's extract_dense_map, materialising the full-resolution descriptor map
  // (reference path for tests and visualisation; forward() avoids it).
  DenseMaps extractDenseMap(const at::Tensor& image, DenseTrace* trace = nullptr) const;

  // Score map [1,1,H,W] from the levels, the score head's first 1x1 convolution applied
  // per level before upsampling (equal to the original up to float rounding, as both
  // are linear), so that no full-resolution dim-channel map is built.
  at::Tensor scoreMap(const EncodedLevels& encoded) const;

  // On CUDA with a fixed peak count (top_k > 0, or threshold mode with n_limit:
  // hasFixedPeakCount) and no trace, forward() replays the whole
  // extraction as a CUDA graph captured per input shape and detection options (see
  // cuda_graph_impl.h; setCudaGraphsEnabled(false) switches it off), on the caller's
  // current stream, with one host synchronisation (the peak count) at the end; the eager path otherwise, or when the capture failed (logged
  // once). Threshold mode keeps the same keypoints as the eager path, best first; with
  // no peak above the threshold it runs the eager path (the fallback to the mean).
  // Outputs are fresh tensors in both cases.
  AlikedOutput forward(const at::Tensor& image, const DkdOptions& detection,
                       SddhTrace* sddh_trace = nullptr) const;

  // The graph body: like forward() with a fixed peak count, without host
  // synchronisation. Always min(fixedPeakCount, H*W) keypoint rows; *peak_count (int64
  // scalar on the device) says how many leading rows forward() keeps.
  AlikedOutput forwardFixedCount(const at::Tensor& image, const DkdOptions& detection,
                                 at::Tensor* peak_count) const;

  void setCudaGraphsEnabled(bool enabled);
  bool cudaGraphsEnabled() const;
  int failedCudaGraphCaptures() const;

  // CUDA, float32, top_k > 0, no traces: forward() and forwardFixedCount() run the fused
  // CUDA operators of aliked_fused_ops.h (BatchNorm + SELU in one pass, deformable
  // sampling, score head, NMS, refinement and SDDH's reads of the descriptor map in a
  // few kernels; the full-resolution descriptor map is never built) instead of the ATen
  // operator chains: the same results up to float rounding. On by default where built
  // (fused::built()); setFusedKernelsEnabled(false) switches it off (for comparisons).
  // Drops captured graphs. Thread: as setHalfPrecision.
  void setFusedKernelsEnabled(bool enabled);
  bool fusedKernelsEnabled() const { return fused_kernels_; }

  // CUDA only: the encoder, the level projections and the score head (the convolutions,
  // BatchNorms and SELUs over full-resolution maps: most of the time) run in float16 on
  // tensor cores; the input, the score map, the descriptor map and everything from
  // detection on (DKD, SDDH, outputs) stay float32, as do deformable sampling positions.
  // Outputs deviate from float32 (keypoints by a few hundredths of a pixel, descriptors by
  // ~1e-3; measured by tests/vision/test_vision_cuda.cpp). Throws InvalidArgument on the CPU.
  // Drops captured graphs. Thread: before forward() calls on other threads, like any setter.
  void setHalfPrecision(bool enabled);
  bool halfPrecision() const { return half_precision_; }

  const Sddh& descriptorHead() const { return sddh_; }

  // The dense descriptor map [1, dim, H, W] (unpadded, L2-normalised) from the levels.
  static at::Tensor denseFeatureMap(const EncodedLevels& encoded);

 private:
  static at::Tensor concatenatedLevels(const EncodedLevels& encoded);  // padded frame
  static void checkImage(const at::Tensor& image);  // throws InvalidArgument
  AlikedOutput describe(const at::Tensor& image, const EncodedLevels& encoded,
                        const at::Tensor& score_map, DkdResult detected,
                        SddhTrace* sddh_trace) const;
  // Whether forward()/forwardFixedCount() take the fused path for this input.
  bool usesFusedKernels(const at::Tensor& image, const DkdOptions& detection) const;
  AlikedOutput forwardFusedFixedCount(const at::Tensor& image, const DkdOptions& detection,
                                      at::Tensor* peak_count) const;

  AlikedConfig config_;
  at::Device device_;
  ConvBlock block1_;
  ResBlock block2_, block3_, block4_;
  Conv2d conv1_, conv2_, conv3_, conv4_;
  std::array<Conv2d, 4> score_head_;  // score_head.{0,2,4,6}
  Sddh sddh_;
  bool half_precision_ = false;
  bool fused_kernels_ = false;  // see setFusedKernelsEnabled
  // Per instance: a copy starts with an empty cache (see ModelGraphs).
  ModelGraphs graphs_;
};

// Loads weights from `weights_path` (.pth or .safetensors) into a model on `device`.
AlikedModel loadAlikedModel(const std::string& variant, const std::string& weights_path,
                            at::Device device);

}  // namespace skytrace::vision::aliked
