// Internal (torch allowed): the layers of DINOv2's vision transformer
// (facebookresearch/dinov2 dinov2/layers: attention.py, block.py, mlp.py,
// layer_scale.py) as plain ATen computations over tensors bound from the published
// state dict by their original names ("blocks.3.attn.qkv.weight", ...). Inference only.
// Tokens are [B, N, C] on one device, in the model's compute dtype (float32, or
// float16/bfloat16 on CUDA).
// CPU float32: matrix products go through oneDNN (inner product), because Debian's
// LibTorch sends at::linear/at::matmul to the reference netlib BLAS (measured here:
// [257,384] x [384,1152]: 85 ms vs 2.7 ms; per-head q k^T: 12.8 ms vs 0.7 ms). Values
// agree with the BLAS path up to float summation order (~1e-6 relative).
// Thread: const methods may run concurrently; prepare() once after binding.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "core/vision/checkpoint_impl.h"

namespace skytrace::vision::dinov2 {

// How attention is evaluated.
enum class AttentionKernel {
  kReference,  // softmax((q * scale) @ k^T) @ v, the math of the fixture's commit
  kFused,      // at::scaled_dot_product_attention where this LibTorch has it (>= 2.0),
               // else kReference
};

// True when this build's LibTorch provides at::scaled_dot_product_attention.
bool fusedAttentionAvailable();

// nn.Linear: y = x W^T + b over the last dimension of any-rank x.
struct Linear {
  at::Tensor weight, bias;  // [out, in], [out]

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out);
  // Converts to `dtype` and, for float32 on the CPU with oneDNN, keeps prepacked copies.
  void prepare(at::ScalarType dtype);
  at::Tensor operator()(const at::Tensor& x) const;

 private:
  at::Tensor weight_mkldnn_, bias_mkldnn_;  // defined only on the CPU oneDNN path
};

// nn.LayerNorm(dim, eps) over the last dimension.
struct LayerNorm {
  at::Tensor weight, bias;
  double eps = 1e-6;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim, double epsilon);
  void prepare(at::ScalarType dtype);
  at::Tensor operator()(const at::Tensor& x) const;
};

// attention.py Attention (MemEffAttention without xFormers falls back to it):
// qkv Linear, heads of dim C/H, scale head_dim^-0.5, proj Linear.
struct Attention {
  Linear qkv, proj;
  int64_t num_heads = 0;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim, int64_t heads);
  void prepare(at::ScalarType dtype);
  at::Tensor operator()(const at::Tensor& x, AttentionKernel kernel) const;
};

// block.py Block in eval mode with LayerScale and the MLP FFN (exact erf GELU):
// x = x + ls1 * attn(norm1(x)); x = x + ls2 * mlp(norm2(x)).
struct Block {
  LayerNorm norm1, norm2;
  Attention attn;
  at::Tensor ls1_gamma, ls2_gamma;  // [C]
  Linear fc1, fc2;                  // mlp.fc1, mlp.fc2

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim, int64_t heads,
            int64_t hidden, double eps);
  void prepare(at::ScalarType dtype);
  at::Tensor operator()(const at::Tensor& x, AttentionKernel kernel) const;
};

}  // namespace skytrace::vision::dinov2
