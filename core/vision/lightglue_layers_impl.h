// Internal (torch allowed): the building blocks of LightGlue (cvg/LightGlue
// lightglue/lightglue.py, commit 1fd587b) as plain ATen computations over tensors bound
// from the release checkpoints by their original names ("self_attn.0.Wqkv.weight", ...).
// Inference only, batch size 1: descriptors are [N,D] matrices (no batch dimension),
// attention heads [H,N,head_dim]. All tensors float32 on one device.
// No OpenCV here (also built by the GPU-only configuration).
// Thread: const methods may run concurrently; bind() before first use.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <utility>

#include "core/vision/checkpoint_impl.h"

namespace skytrace::vision::lightglue {

// a @ b^T over the last two dimensions: [..., M, K] x [..., N, K] -> [..., M, N]; same
// leading dimensions. One (batched) matmul: cuBLAS on CUDA, the system BLAS on the CPU
// (OpenBLAS per scripts/debian-packages.txt; measured here it beats oneDNN inner
// products for these shapes, e.g. 4 heads of 1024x1024x64: 23 ms vs 87 ms).
at::Tensor matmulTransposed(const at::Tensor& a, const at::Tensor& b);

// nn.Linear: y = x W^T + b over the last dimension, any leading dimensions.
struct Linear {
  at::Tensor weight;  // [out, in]
  at::Tensor bias;    // [out] or undefined

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
            bool with_bias = true);
  at::Tensor operator()(const at::Tensor& x) const;
};

// nn.LayerNorm (eps 1e-5, elementwise affine).
struct LayerNorm {
  at::Tensor weight, bias;
  int64_t dim = 0;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t channels);
  at::Tensor operator()(const at::Tensor& x) const;
};

// The blocks' ffn: Linear(2D,2D) -> LayerNorm -> GELU (erf) -> Linear(2D,D), keys
// ffn.0, ffn.1, ffn.3. update(x, message) = x + ffn(cat[x, message]).
struct FeedForward {
  Linear fc0, fc3;
  LayerNorm norm;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim);
  at::Tensor update(const at::Tensor& x, const at::Tensor& message) const;
};

// Multi-head attention softmax(q k^T / sqrt(hd)) v for q [H,M,hd], k/v [H,N,hd].
// With `half` on CUDA with LibTorch >= 2: fused scaled_dot_product_attention on inputs
// cast to float16, as the original's flash branch (result cast back). Otherwise (float32,
// every device) the explicit softmax(q k^T * scale) v, the original's non-flash math.
at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                     bool half = false);

// t * cos + rotate_half(t) * sin; encoding [2,N,hd] (cos, sin), t [H,N,hd].
at::Tensor applyRotaryEncoding(const at::Tensor& encoding, const at::Tensor& t);

// SelfBlock: rotary-encoded self attention + ffn. Keys Wqkv, out_proj, ffn.*.
// The Wqkv rows are reordered once after binding from the original's (head, dim, qkv)
// interleaving to (qkv, head, dim), so q, k and v are contiguous slices (same values).
struct SelfBlock {
  Linear qkv, out_proj;
  FeedForward ffn;
  int64_t heads = 0, head_dim = 0;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim, int64_t num_heads);
  void prepare();  // after StateDictBinder::finish()
  at::Tensor operator()(const at::Tensor& x, const at::Tensor& encoding,
                        bool half_attention = false) const;
};

// CrossBlock (non-flash branch: one similarity matrix, softmax over rows for 0->1 and
// over columns for 1->0). Keys to_qk, to_v, to_out, ffn.*.
struct CrossBlock {
  Linear to_qk, to_v, to_out;
  FeedForward ffn;
  int64_t heads = 0, head_dim = 0;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim, int64_t num_heads);
  std::pair<at::Tensor, at::Tensor> operator()(const at::Tensor& x0, const at::Tensor& x1,
                                               bool half_attention = false) const;
};

// MatchAssignment: keys matchability, final_proj.
struct MatchAssignment {
  Linear matchability, final_proj;
  Linear matchability64, final_proj64;  // float64 copies (prepare())

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim);
  void prepare();  // after StateDictBinder::finish()
  // Log assignment matrix [M+1,N+1] float32 (sigmoid_log_double_softmax); last
  // row/column: log sigmoid(-z), the log probability of being unmatched. With
  // `in_float64` the projection, similarity and softmaxes run in float64 (see
  // LightGlueOptions::float64_assignment) and only the result is rounded to float32.
  at::Tensor logAssignment(const at::Tensor& desc0, const at::Tensor& desc1,
                           bool in_float64 = false) const;
  at::Tensor matchabilityOf(const at::Tensor& desc) const;  // sigmoid(z) [N]
};

// TokenConfidence: sigmoid(Linear(D,1)) per point; key token.0.
struct TokenConfidence {
  Linear token;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim);
  at::Tensor operator()(const at::Tensor& desc) const;  // [N]
};

// filter_matches on a log assignment [M+1,N+1]: mutual nearest neighbours in the
// [M,N] block, scores exp(row max) for mutual pairs (0 otherwise), matches kept when
// the score exceeds `threshold`.
struct FilteredMatches {
  at::Tensor matches0;  // [M] int64, index into set 1 or -1
  at::Tensor matches1;  // [N] int64, index into set 0 or -1
  at::Tensor scores0;   // [M] float32
  at::Tensor scores1;   // [N] float32
};
FilteredMatches filterMatches(const at::Tensor& log_assignment, float threshold);

}  // namespace skytrace::vision::lightglue
