// Internal (torch allowed; core/vision sources only): the LiteSAM matcher
// (boyagesmile/LiteSAM 8b49e8d, class LoFTR in src/loftr/loftr.py, default.py config:
// MobileOne-S3, RESOLUTION (8, 1), window 8, [self, cross] x 4, THR 0.2, BORDER_RM 2,
// temperature 0.1, slice dim 8), inference in float32, batch = one image pair.
// Weights: the bare LoFTR state-dict keys (backbone.*, loftr_coarse.*, fine_preprocess.*,
// fine_matching.*); release checkpoints (PyTorch Lightning) keep them under
// ["state_dict"] with the prefix "matcher.", which loadLiteSamModel strips.
// Thread: create and use on one thread; forward() is const and keeps no per-call state.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/vision/checkpoint_impl.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/litesam_modules_impl.h"

namespace skytrace::vision::litesam {

struct LiteSamConfig {
  CoarseMatchOptions coarse;
  // RoPE NPE = [832, 832, test_h, test_w]; rope_test_size_px 0 = the long side of the
  // larger input (default.py's recommendation; the fixture uses 480 for 480x480).
  int64_t rope_train_size_px = 832;
  int64_t rope_test_size_px = 0;
};

// Intermediates for parity tests. Image0 first, image1 second in every pair.
struct LiteSamTrace {
  BackboneFeatures backbone0, backbone1;   // per image (batch 1 each)
  TransformerTrace transformer;
  std::array<at::Tensor, 2> transformer_out;  // [1, 256, h, w] before any / sqrt(C)
  at::Tensor conf_matrix;                     // [1, L, S]
  std::array<at::Tensor, 2> fpn;              // [1, 64, H, W] inter_fpn outputs
  at::Tensor feat_f0_unfold, feat_f1_unfold;  // [M, 64, 64], [M, 100, 64]
  at::Tensor mkpts0_c_pre_fine, mkpts1_c_pre_fine;  // [M, 2]
  FineTrace fine;
};

// Matches of one pair, in the model input's pixel coordinates (x, y).
struct LiteSamOutput {
  at::Tensor i_ids, j_ids;        // [M] int64 coarse cells
  at::Tensor mconf;               // [M] float32 coarse confidence
  at::Tensor mkpts0_c, mkpts1_c;  // [M, 2] after the fine stage's first step
  at::Tensor mkpts0_f, mkpts1_f;  // [M, 2] final keypoints
};

// Called after each stage with the stage's name ("backbone", "transformer",
// "coarse_matching", "fine_preprocess", "fine_matching") and one of its output tensors,
// e.g. for a benchmark to synchronise the device and take a time. Same thread as forward().
using LiteSamStageCallback = std::function<void(const char* stage, const at::Tensor& output)>;

class LiteSamModel {
 public:
  // Binds every key and shape of `weights` (bare keys; strict). Throws ModelError.
  LiteSamModel(const StateDict& weights, at::Device device, LiteSamConfig config = {});

  at::Device device() const { return device_; }
  const LiteSamConfig& config() const { return config_; }

  // Folds MobileOne's branches into single convolutions (the original's reparameterize();
  // outputs equal up to float rounding). Idempotent.
  void reparameterizeBackbone();
  bool backboneReparameterized() const { return backbone_.stage0.fused; }

  // CUDA only: the backbone, the coarse transformer (attention through the fused float16
  // kernel) and the FPN in float16, as the original's mixed-precision inference runs its
  // convolutions and products; their outputs come back as float32 before the coarse and
  // fine matching, which stay float32. Faster, not exact: the deviations on the parity
  // fixture are stated in docs/gpu.md. Throws InvalidArgument on another device. The
  // float32 modules stay for setHalfPrecision(false). Drops captured graphs.
  void setHalfPrecision(bool enabled);
  bool halfPrecision() const { return half_precision_; }

  // The matching steps through Skytrace's fused CUDA kernels (fused_ops.h): the coarse
  // dual softmax reduced to its maxima without forming the [L, S] confidence matrix, and
  // the fine stage's window products, softmaxes and argmax read straight from the fine
  // maps. The same matches as the ATen chains up to float summation order. On by default
  // on CUDA where built (fused::built()); a forward() with a trace runs the ATen chains
  // (their intermediates are the trace). Drops captured graphs.
  void setFusedKernelsEnabled(bool enabled);
  bool fusedKernelsEnabled() const { return fused_kernels_; }

  // CUDA graphs for the dense stages (see forward()).
  void setCudaGraphsEnabled(bool enabled);
  bool cudaGraphsEnabled() const;
  int failedCudaGraphCaptures() const;

  // image0/1: [1, 1, H, W] float32 grayscale in [0, 1] on device(), H and W multiples of
  // 32 (the sizes may differ between the two). Throws InvalidArgument on shapes.
  // On CUDA with equal sizes of at most 4096 coarse cells (512x512) and neither trace nor
  // stage callback, the whole pass replays as one CUDA graph per size
  // (cuda_graph_impl.h; setCudaGraphsEnabled(false) switches it off): the coarse matching
  // up to its match mask, and the fine stage on every cell of image 0 with its best cell
  // of image 1 (each row independent: the same per-match result as the eager pass, up to
  // float summation order); the matches are selected after it (one host
  // synchronisation).
  LiteSamOutput forward(const at::Tensor& image0, const at::Tensor& image1,
                        LiteSamTrace* trace = nullptr,
                        const LiteSamStageCallback& on_stage = nullptr) const;

 private:
  // forward() as one CUDA graph replay (see forward()); nullopt where it does not apply
  // (too many cells, graphs off or a failed capture).
  std::optional<LiteSamOutput> forwardGraphed(const at::Tensor& image0, const at::Tensor& image1) const;
  // The fine stage for cell pairs (cells0 of image 0 with cells1 of image 1) of the fine
  // maps fine0, fine1 [1, 64, H, W]: through fused::fineWindowChoice where the fused
  // kernels run, else gathered windows and FineMatching's ATen chain.
  FineResult matchFine(const at::Tensor& fine0, const at::Tensor& fine1, const at::Tensor& cells0,
                       const at::Tensor& cells1, const at::Tensor& mkpts0_c, const at::Tensor& mkpts1_c) const;
  // RoPE's NPE [train H, train W, test H, test W] for a pair.
  std::array<int64_t, 4> ropeExtent(const at::Tensor& image0, const at::Tensor& image1) const;
  // The float16 copies of the dense modules from the float32 ones (setHalfPrecision,
  // reparameterizeBackbone).
  void makeHalfModules();
  // The dense modules forward() runs: float16 copies in half precision.
  const MobileOneS3Backbone& backbone() const { return half_precision_ ? half_backbone_ : backbone_; }
  const CoarseTransformer& transformer() const { return half_precision_ ? half_transformer_ : transformer_; }
  const FinePreprocess& finePreprocess() const { return half_precision_ ? half_fine_preprocess_ : fine_preprocess_; }

  LiteSamConfig config_;
  at::Device device_;
  MobileOneS3Backbone backbone_;
  CoarseTransformer transformer_;
  FinePreprocess fine_preprocess_;
  FineMatching fine_matching_;
  bool half_precision_ = false;
  bool fused_kernels_ = false;  // see setFusedKernelsEnabled
  MobileOneS3Backbone half_backbone_;
  CoarseTransformer half_transformer_;
  FinePreprocess half_fine_preprocess_;
  ModelGraphs graphs_{"LiteSAM"};  // a copy starts with an empty cache
};

// Loads a LiteSAM checkpoint (.ckpt/.pth/.safetensors; a Lightning "state_dict" with
// "matcher." keys or a bare state dict) onto `device`.
LiteSamModel loadLiteSamModel(const std::string& weights_path, at::Device device,
                              LiteSamConfig config = {});

}  // namespace skytrace::vision::litesam
