// Internal (torch allowed): DINOv2's DinoVisionTransformer (facebookresearch/dinov2
// dinov2/models/vision_transformer.py, commit b48308a; HEAD b8931f7 has the same model
// file) for inference with the published weights, loaded unchanged by their original
// names (cls_token, pos_embed, register_tokens, mask_token, patch_embed.proj.*,
// blocks.{i}.*, norm.*). Input: ImageNet-normalised RGB [B,3,H,W] with H and W
// multiples of 14. Tokens: CLS, then the register tokens (if any), then the patches in
// row-major order (index = row * grid_w + col).
// Thread: create and use on one thread; forward() is const (its positional-embedding
// cache is mutex-protected) and returns tensors on the model's device.
#pragma once

#include <ATen/ATen.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/vision/checkpoint_impl.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/dinov2_layers_impl.h"

namespace skytrace::vision::dinov2 {

// forward_features() of the original (final LayerNorm applied to every token).
struct Dinov2Output {
  at::Tensor cls_token;        // x_norm_clstoken    [B, C]
  at::Tensor register_tokens;  // x_norm_regtokens   [B, R, C] (R = 0: empty)
  at::Tensor patch_tokens;     // x_norm_patchtokens [B, grid_h * grid_w, C]
  at::Tensor prenorm;          // x_prenorm, last block output [B, 1 + R + h*w, C]
  int64_t grid_h = 0, grid_w = 0;
};

// Intermediate tensors for parity tests.
struct Dinov2Trace {
  at::Tensor patch_embed_out;              // [B, h*w, C] PatchEmbed output
  at::Tensor pos_embed_interp;             // [1, 1 + h*w, C] interpolate_pos_encoding()
  std::vector<at::Tensor> block_outputs;   // output of every block [B, 1 + R + h*w, C]
};

class Dinov2Model {
 public:
  // Builds the transformer of `config` and binds `weights` strictly (every key of the
  // published checkpoint, every shape; unknown keys are errors). `dtype` is the compute
  // precision: float32 (exact), or float16/bfloat16 (CUDA; the positional-embedding
  // interpolation stays float32 as in the original). Throws ModelError naming the file,
  // the keys and expected vs found shapes.
  Dinov2Model(const Dinov2Config& config, const StateDict& weights, at::Device device,
              at::ScalarType dtype = at::kFloat);

  const Dinov2Config& config() const { return config_; }
  at::Device device() const { return device_; }
  at::ScalarType dtype() const { return dtype_; }

  // kReference by default (the fixture's math); kFused selects scaled_dot_product_attention
  // where LibTorch has it. Call before use.
  void setAttentionKernel(AttentionKernel kernel) { attention_kernel_ = kernel; }

  // image: [B,3,H,W] floating, ImageNet-normalised RGB, on device(); H, W multiples of 14
  // (InvalidArgument otherwise). Runs in dtype().
  // On CUDA without a trace: replayed as a CUDA graph per input shape/dtype and attention
  // kernel (cuda_graph_impl.h; setCudaGraphsEnabled(false) switches it off), on the
  // caller's current stream; outputs are fresh tensors.
  Dinov2Output forward(const at::Tensor& image, Dinov2Trace* trace = nullptr) const;

  void setCudaGraphsEnabled(bool enabled);
  bool cudaGraphsEnabled() const;

  // interpolate_pos_encoding() for an input of height_px x width_px: [1, 1 + h*w, C],
  // float32 on device(). The 37 x 37 table itself when the input is 518 x 518.
  at::Tensor positionalEmbedding(int64_t height_px, int64_t width_px) const;

 private:
  at::Tensor interpolatePositionalEmbedding(int64_t height_px, int64_t width_px) const;
  void checkImage(const at::Tensor& image) const;  // throws InvalidArgument
  Dinov2Output forwardEager(const at::Tensor& image, Dinov2Trace* trace) const;

  Dinov2Config config_;
  at::Device device_;
  at::ScalarType dtype_;
  AttentionKernel attention_kernel_ = AttentionKernel::kReference;
  at::Tensor cls_token_;        // [1, 1, C]
  at::Tensor pos_embed_;        // [1, 1 + 37*37, C] float32
  at::Tensor register_tokens_;  // [1, R, C] or undefined
  at::Tensor patch_weight_, patch_bias_;  // patch_embed.proj: [C, 3, 14, 14], [C]
  std::vector<Block> blocks_;
  LayerNorm norm_;

  ModelGraphs graphs_{"DINOv2"};
  mutable std::mutex pos_cache_mutex_;
  mutable std::map<std::pair<int64_t, int64_t>, at::Tensor> pos_cache_;  // by (H, W) px
};

// Random weights in the published layout of `config` (the keys and shapes of the
// official checkpoint; Linear weights N(0, 0.02^2), biases 0, LayerNorm and LayerScale 1,
// pos_embed N(0, 0.02^2)), float32 on the CPU, for benchmarks and tests: speed does not
// depend on the values.
StateDict randomDinov2Weights(const Dinov2Config& config, uint64_t seed);

// Loads `weights_path` (.pth or .safetensors, plain state dict as published) into a model
// of `config` on `device`.
std::unique_ptr<Dinov2Model> loadDinov2Model(const Dinov2Config& config,
                                             const std::string& weights_path, at::Device device,
                                             at::ScalarType dtype = at::kFloat);

}  // namespace skytrace::vision::dinov2
