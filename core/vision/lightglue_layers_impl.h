// Internal (torch allowed): the building blocks of LightGlue (cvg/LightGlue
// lightglue/lightglue.py, commit 1fd587b) as plain ATen computations over tensors bound
// from the release checkpoints by their original names ("self_attn.0.Wqkv.weight", ...).
// Inference only, batch size 1: descriptors are [N,D] matrices (no batch dimension),
// attention heads [H,N,head_dim]. The blocks also take both images of a pair stacked as
// one batch ([2,N,D], equal point counts), which halves the kernel launches on a GPU.
// All tensors float32 on one device, or all float16 on CUDA after castTo(kHalf).
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
  void castTo(at::ScalarType type);
  at::Tensor operator()(const at::Tensor& x) const;
};

// nn.LayerNorm (eps 1e-5, elementwise affine).
struct LayerNorm {
  at::Tensor weight, bias;
  int64_t dim = 0;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t channels);
  void castTo(at::ScalarType type);
  at::Tensor operator()(const at::Tensor& x) const;
};

// The blocks' ffn: Linear(2D,2D) -> LayerNorm -> GELU (erf) -> Linear(2D,D), keys
// ffn.0, ffn.1, ffn.3. update(x, message) = x + ffn(cat[x, message]).
struct FeedForward {
  Linear fc0, fc3;
  LayerNorm norm;
  // float16 on CUDA: norm + GELU as one fused operator (fused::layerNormGelu).
  bool fused_kernels = false;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim);
  void castTo(at::ScalarType type);
  at::Tensor update(const at::Tensor& x, const at::Tensor& message) const;
  // update(x, project(context)) with the projection folded into fc0 (foldProjection): the
  // same function with one matrix product fewer.
  at::Tensor updateFolded(const at::Tensor& x, const at::Tensor& context) const;
  // fc0(cat[x, Wp c + bp]) = [Wa | Wb Wp] cat[x, c] + (b0 + Wb bp) with fc0 = [Wa | Wb]:
  // computes the folded fc0 (in float64, rounded to fc0's type) for updateFolded.
  void foldProjection(const Linear& projection);
  Linear fc0_folded;  // defined after foldProjection()

 private:
  // x + fc3(gelu(norm(hidden))): the tail both updates share, hidden = fc0(...).
  at::Tensor residual(const at::Tensor& x, const at::Tensor& hidden) const;
};

// Multi-head attention softmax(q k^T / sqrt(hd)) v for q [(B,)H,M,hd], k/v [(B,)H,N,hd].
// With `half` (or float16 inputs) on CUDA with LibTorch >= 2: fused
// scaled_dot_product_attention in float16, as the original's flash branch (the result in
// q's type). Otherwise (float32, every device) the explicit softmax(q k^T * scale) v, the
// original's non-flash math.
at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                     bool half = false);

// The rotary encoding in the form the blocks apply it: [(B,)2,N,hd] (cos, s * sin) with
// s = -1 on even and +1 on odd features, so that the original's rotate_half(t) * sin is
// swap_pairs(t) * (s * sin). Computed once per forward, outside the layers.
at::Tensor rotaryTables(const at::Tensor& encoding);

// The original's apply_cached_rotary_emb, t * cos + rotate_half(t) * sin, through the
// tables: t * cos + swap_pairs(t) * (s * sin) in three kernels (a pair swap, a product, a
// fused multiply-add). Tables [(B,)2,N,hd], t [...,(B,)H,N,hd] (leading dimensions of t
// broadcast, e.g. q and k stacked).
at::Tensor applyRotaryTables(const at::Tensor& tables, const at::Tensor& t);

// SelfBlock: rotary-encoded self attention + ffn. Keys Wqkv, out_proj, ffn.*.
// The Wqkv rows are reordered once after binding from the original's (head, dim, qkv)
// interleaving to (qkv, head, dim), so q, k and v are contiguous slices (same values).
struct SelfBlock {
  Linear qkv, out_proj;
  FeedForward ffn;
  int64_t heads = 0, head_dim = 0;
  bool folded = false;  // out_proj folded into ffn's fc0 (foldOutputProjection)
  // float16 on CUDA: q and k encoded straight from the qkv product (fused::rotaryQk), the
  // ffn's norm + GELU fused. Set by useFusedKernels (needs fused::built()).
  bool fused_kernels = false;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim, int64_t num_heads);
  void prepare();  // after StateDictBinder::finish()
  void castTo(at::ScalarType type);
  void foldOutputProjection();  // before castTo: folds in float32/64 precision
  void useFusedKernels(bool enabled);
  // x [N,D] with rotary tables [2,N,hd] (rotaryTables), or a stacked pair x [2,N,D] with
  // tables [2,2,N,hd].
  at::Tensor operator()(const at::Tensor& x, const at::Tensor& rotary,
                        bool half_attention = false) const;
};

// CrossBlock (non-flash branch: one similarity matrix, softmax over rows for 0->1 and
// over columns for 1->0). Keys to_qk, to_v, to_out, ffn.*.
struct CrossBlock {
  Linear to_qk, to_v, to_out;
  Linear to_qkv;  // to_qk and to_v as one product (prepare()): [qk | v] per point
  FeedForward ffn;
  int64_t heads = 0, head_dim = 0;
  bool folded = false;  // to_out folded into ffn's fc0 (foldOutputProjection)

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t dim, int64_t num_heads);
  void prepare();  // after StateDictBinder::finish()
  void castTo(at::ScalarType type);
  void foldOutputProjection();  // before castTo: folds in float32/64 precision
  void useFusedKernels(bool enabled) { ffn.fused_kernels = enabled; }  // the ffn's norm + GELU
  std::pair<at::Tensor, at::Tensor> operator()(const at::Tensor& x0, const at::Tensor& x1,
                                               bool half_attention = false) const;
  // Both images stacked, x [2,N,D] (equal counts): the same result as operator() on
  // x[0], x[1] up to float rounding, as one batch (each image attends to the other).
  at::Tensor pair(const at::Tensor& x, bool half_attention = false) const;
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
