// Internal (torch allowed; core/vision sources, tests, bench): the LightGlue matcher
// (cvg/LightGlue lightglue/lightglue.py, commit 1fd587b), ported to ATen for inference
// with the release checkpoints (v0.1_arxiv: superpoint_lightglue.pth,
// aliked_lightglue.pth), loaded unchanged by their key names (posenc.Wr.weight,
// self_attn.{i}.*, cross_attn.{i}.*, log_assignment.{i}.*, token_confidence.{i}.*,
// input_proj.* where the descriptor dimension differs).
//
// Batch size 1. Inputs per image: keypoints [N,2] float32 pixels (x, y), descriptors
// [N,D] float32, the image size (W, H) used to normalise the keypoints as the original
// ((k - size/2) / (max(W,H)/2)). Adaptive depth (early exit when enough points are
// confident) and width (pruning of confidently unmatchable points) follow the original
// and are switched by LightGlueOptions; each costs one host synchronisation per layer
// (the original's Python control flow does the same).
// No OpenCV here: part of the tensor-only target core_vision_tensor.
// Thread: create and use on one thread; forward() is const and holds no per-call state.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/vision/checkpoint_impl.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/lightglue_layers_impl.h"

namespace skytrace::vision::lightglue {

// One published configuration (LightGlue.features + default_conf).
struct LightGlueConfig {
  std::string features;        // "superpoint", "aliked"
  int input_dim = 256;         // descriptor dimension of the features
  int descriptor_dim = 256;    // internal width
  int num_heads = 4;
  int n_layers = 9;
  std::string published_file;  // "superpoint_lightglue.pth"
};

// The configuration for a feature type; throws InvalidArgument naming the known ones.
LightGlueConfig lightGlueConfig(const std::string& features);
std::vector<std::string> lightGlueFeatureNames();

inline constexpr const char* kLightGlueWeightsUrl =
    "https://github.com/cvg/LightGlue/releases (v0.1_arxiv)";

// Run-time switches (LightGlue default_conf). A confidence <= 0 disables the feature
// (the original's -1).
struct LightGlueOptions {
  // Doubles, as the original's Python floats (1 - 0.99 is formed in double precision).
  double depth_confidence = 0.95;  // early exit: stop when this fraction is confident
  double width_confidence = 0.99;  // pruning: drop points with matchability <= 1 - this
  double filter_threshold = 0.1;   // minimum match score (exclusive)
  // Prune only while a set has more points than this. Unset: the original's per-device
  // rule (CPU: always; CUDA: 1024, or 1536 where fused attention is used).
  std::optional<int> pruning_min_keypoints;
  // The final assignment head (projection, similarity, double softmax) in float64, the
  // rest in float32. With large similarities (|S| ~ 500 in the parity fixture) float32
  // rounding alone moves match scores by ~1e-4 (the original's float32 output is 5e-5
  // from its own float64 re-run); float64 here keeps a port within that. Costs one
  // M x N x D float64 product per pair (cheap on CPUs and data-centre GPUs).
  bool float64_assignment = true;
  // CUDA with LibTorch >= 2 only (ignored elsewhere): attention in float16 as the
  // original's default CUDA path (flash=True casts q, k, v to half); faster, not exact:
  // benchmarks using it report the deviation from the float32 result.
  bool half_precision_attention = false;
  // Adaptivity off and equal point counts: both images run as one stacked batch through
  // every block (half the kernel launches; equal up to float summation order). Unset: on
  // CUDA, off on the CPU (no gain there: 455 vs 443 ms for a 1024 x 1024 pair on 2 cores).
  std::optional<bool> batch_pairs;

  void check() const;  // throws InvalidArgument
};

// One image's input.
struct LightGlueInput {
  at::Tensor keypoints_px;  // [N,2] float32
  at::Tensor descriptors;   // [N,input_dim] float32
  double image_width = 0, image_height = 0;
};

// Intermediate tensors for parity tests (filled when a trace is passed).
struct LightGlueTrace {
  at::Tensor keypoints_normalized[2];  // [N,2]
  at::Tensor encoding[2];              // [2,N,head_dim] (cos, sin), pairs repeated
  at::Tensor self_block0[2];           // after transformers[0].self_attn [N,D]
  std::vector<at::Tensor> descriptors[2];  // after each layer that ran [N_kept,D]
  at::Tensor log_assignment;           // [M'+1,N'+1] of the last layer (kept points)
};

struct LightGlueOutput {
  at::Tensor matches0;      // [M] int64, index into image 1 or -1
  at::Tensor matches1;      // [N] int64, index into image 0 or -1
  at::Tensor scores0;       // [M] float32 (non-zero for mutual nearest neighbours)
  at::Tensor scores1;       // [N] float32
  at::Tensor matches;       // [S,2] int64 (i0, i1), i0 ascending
  at::Tensor match_scores;  // [S] float32
  at::Tensor prune0;        // [M] int64: layers a point took part in (n_layers if no pruning)
  at::Tensor prune1;        // [N] int64
  int layers_run = 0;       // the original's "stop"
};

class LightGlueModel {
 public:
  // Builds config.n_layers layers and binds `weights` by the release key names
  // (strict: every key and shape; unexpected keys are errors too).
  LightGlueModel(const LightGlueConfig& config, const StateDict& weights, at::Device device);

  const LightGlueConfig& config() const { return config_; }
  at::Device device() const { return device_; }

  // Throws InvalidArgument on shape/device mismatches. Without a trace and with
  // adaptivity off (depth and width confidence <= 0) every layer runs as one body (both
  // images stacked where options.batch_pairs allows); on CUDA it is replayed as a CUDA
  // graph per point counts and image sizes (cuda_graph_impl.h; setCudaGraphsEnabled(false)
  // switches it off), the match list built after it.
  LightGlueOutput forward(const LightGlueInput& image0, const LightGlueInput& image1,
                          const LightGlueOptions& options, LightGlueTrace* trace = nullptr) const;

  void setCudaGraphsEnabled(bool enabled);
  bool cudaGraphsEnabled() const;
  int failedCudaGraphCaptures() const;

  // CUDA only: the transformer layers (weights and activations, attention through the
  // fused float16 kernel) in float16, as the original's mixed-precision mode (mp=True)
  // runs its products, each block's output projection folded into its feed-forward
  // product (one product fewer, FeedForward::foldProjection); the input projection,
  // positional encoding, confidence heads and the assignment stay float32 (the
  // float64_assignment option is ignored: it buys nothing over float16 layers). Faster,
  // not exact: the deviations on the parity fixture are stated in docs/gpu.md. Throws
  // InvalidArgument on another device. The float32 blocks stay for setHalfPrecision(false).
  void setHalfPrecision(bool enabled);
  bool halfPrecision() const { return half_precision_; }

  // float16 layers in a build with the fused kernels (fused_ops.h): the rotary encoding
  // of q and k and each feed-forward's LayerNorm + GELU as one kernel each (float16
  // rounding as the ATen chains). On by default where built; false keeps the ATen chains
  // (for comparisons). No effect in float32. Drops captured graphs.
  void setFusedKernelsEnabled(bool enabled);
  bool fusedKernelsEnabled() const { return fused_kernels_; }

  // The original's normalize_keypoints and posenc, exposed for tests.
  static at::Tensor normalizeKeypoints(const at::Tensor& keypoints_px, double width,
                                       double height);
  at::Tensor positionalEncoding(const at::Tensor& keypoints_normalized) const;  // [2,N,hd]

 private:
  float confidenceThreshold(int layer) const;
  // What the first layer takes from one image, or from a stacked pair (leading dimension
  // 2): the descriptors after the input projection ([(B,)N,D]), the rotary encoding
  // ([(B,)2,N,hd], float32, the original's) and the tables the blocks apply
  // (rotaryTables; float16 in half precision, as the descriptors).
  struct EncodedInputs {
    at::Tensor desc, encoding, rotary;
  };
  EncodedInputs encodeInputs(const at::Tensor& keypoints_normalized, const at::Tensor& descriptors) const;
  // Both images' keypoints normalised to [-1, 1] ([N,2] each) and encodeInputs of each.
  struct LayerInputs {
    at::Tensor keypoints0, keypoints1;
    EncodedInputs image0, image1;
  };
  LayerInputs layerInputs(const LightGlueInput& image0, const LightGlueInput& image1) const;
  // Every layer, the last assignment and the match filter, without host synchronisation
  // (the graph body of forward() with adaptivity off). Both sets non-empty.
  FilteredMatches fullDepthMatches(const LightGlueInput& image0, const LightGlueInput& image1,
                                   const LightGlueOptions& options) const;
  int pruningMinKeypoints(const LightGlueOptions& options) const;
  bool float64Assignment(const LightGlueOptions& options) const {
    return options.float64_assignment && !half_precision_;
  }
  const std::vector<SelfBlock>& selfBlocks() const { return half_precision_ ? half_self_blocks_ : self_blocks_; }
  const std::vector<CrossBlock>& crossBlocks() const { return half_precision_ ? half_cross_blocks_ : cross_blocks_; }
  // forward()'s result from full-depth matches (every point took part in every layer).
  LightGlueOutput fullDepthOutput(const FilteredMatches& filtered, int64_t m, int64_t n) const;

  LightGlueConfig config_;
  at::Device device_;
  std::optional<Linear> input_proj_;  // absent when input_dim == descriptor_dim
  Linear posenc_;                     // posenc.Wr, [head_dim/2, 2], no bias
  std::vector<SelfBlock> self_blocks_;
  std::vector<CrossBlock> cross_blocks_;
  std::vector<MatchAssignment> log_assignment_;
  std::vector<TokenConfidence> token_confidence_;  // n_layers - 1
  bool half_precision_ = false;
  bool fused_kernels_ = false;  // set in the constructor: CUDA and fused::built()
  std::vector<SelfBlock> half_self_blocks_;    // float16, folded (setHalfPrecision)
  std::vector<CrossBlock> half_cross_blocks_;
  ModelGraphs graphs_;  // a copy starts with an empty cache
};

// Number of transformer layers in a checkpoint: the self_attn.{i} (or
// transformers.{i}.self_attn) blocks it holds (9 in the release files). 0 if none.
int layerCountOf(const StateDict& weights);

// Loads a checkpoint (.pth or .safetensors) onto `device` with `config` as given.
LightGlueModel loadLightGlueModel(const LightGlueConfig& config, const std::string& weights_path,
                                  at::Device device);

// Loads the checkpoint for `features` with as many layers as it holds
// (lightGlueConfig(features) with n_layers = layerCountOf). ModelError if it holds none.
LightGlueModel loadLightGlueModel(const std::string& features, const std::string& weights_path,
                                  at::Device device);

}  // namespace skytrace::vision::lightglue
