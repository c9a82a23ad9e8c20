#include "core/vision/dinov2_layers_impl.h"

#include <ATen/Context.h>

#include <cmath>
#include <vector>

// at::scaled_dot_product_attention exists from LibTorch 2.0 on (Debian's 1.13 has only
// the private _scaled_dot_product_attention); detect the public operator's header.
#if __has_include(<ATen/ops/scaled_dot_product_attention.h>)
#include <ATen/ops/scaled_dot_product_attention.h>
#define SKYTRACE_HAS_SDPA 1
#else
#define SKYTRACE_HAS_SDPA 0
#endif

namespace skytrace::vision::dinov2 {
namespace {

bool useOneDnn(const at::Tensor& x) {
  return x.is_cpu() && x.scalar_type() == at::kFloat && at::hasMKLDNN();
}

// a [N, K] @ b[M, K]^T -> [N, M] through oneDNN's inner product (CPU float32).
at::Tensor oneDnnProductTransposed(const at::Tensor& a, const at::Tensor& b) {
  return at::mkldnn_linear(a.contiguous().to_mkldnn(), b.contiguous().to_mkldnn(), {})
      .to_dense();
}

// softmax((q * scale) @ k^T) @ v for q, k, v [B, H, N, d], as attention.py at the
// fixture's commit. On the CPU one head at a time through oneDNN.
at::Tensor referenceAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  const at::Tensor q_scaled = q * scale;
  if (!useOneDnn(q)) {
    return at::matmul(q_scaled, k.transpose(-2, -1)).softmax(-1).matmul(v);
  }
  at::Tensor out = at::empty_like(q, at::MemoryFormat::Contiguous);
  for (int64_t b = 0; b < q.size(0); ++b) {
    for (int64_t h = 0; h < q.size(1); ++h) {
      const at::Tensor weights = oneDnnProductTransposed(q_scaled[b][h], k[b][h]).softmax(-1);
      out[b][h].copy_(oneDnnProductTransposed(weights, v[b][h].t()));
    }
  }
  return out;
}

}  // namespace

bool fusedAttentionAvailable() { return SKYTRACE_HAS_SDPA != 0; }

void Linear::bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out) {
  binder.bind(prefix + ".weight", {out, in}, &weight);
  binder.bind(prefix + ".bias", {out}, &bias);
}

void Linear::prepare(at::ScalarType dtype) {
  weight = weight.to(dtype).contiguous();
  bias = bias.to(dtype).contiguous();
  if (useOneDnn(weight)) {
    weight_mkldnn_ = weight.to_mkldnn();
    bias_mkldnn_ = bias.to_mkldnn();
  } else {
    weight_mkldnn_ = at::Tensor();
    bias_mkldnn_ = at::Tensor();
  }
}

at::Tensor Linear::operator()(const at::Tensor& x) const {
  if (weight_mkldnn_.defined() && useOneDnn(x)) {
    std::vector<int64_t> sizes = x.sizes().vec();
    const at::Tensor rows = x.reshape({-1, weight.size(1)}).contiguous();
    sizes.back() = weight.size(0);
    return at::mkldnn_linear(rows.to_mkldnn(), weight_mkldnn_, bias_mkldnn_)
        .to_dense()
        .view(sizes);
  }
  return at::linear(x, weight, bias);
}

void LayerNorm::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim,
                     double epsilon) {
  eps = epsilon;
  binder.bind(prefix + ".weight", {dim}, &weight);
  binder.bind(prefix + ".bias", {dim}, &bias);
}

void LayerNorm::prepare(at::ScalarType dtype) {
  weight = weight.to(dtype);
  bias = bias.to(dtype);
}

at::Tensor LayerNorm::operator()(const at::Tensor& x) const {
  return at::layer_norm(x, {weight.size(0)}, weight, bias, eps);
}

void Attention::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim,
                     int64_t heads) {
  num_heads = heads;
  qkv.bind(binder, prefix + ".qkv", dim, 3 * dim);
  proj.bind(binder, prefix + ".proj", dim, dim);
}

void Attention::prepare(at::ScalarType dtype) {
  qkv.prepare(dtype);
  proj.prepare(dtype);
}

at::Tensor Attention::operator()(const at::Tensor& x, AttentionKernel kernel) const {
  const int64_t batch = x.size(0), tokens = x.size(1), channels = x.size(2);
  // [B, N, 3, H, d] -> [3, B, H, N, d]
  const at::Tensor qkv_heads = qkv(x)
                                   .reshape({batch, tokens, 3, num_heads, channels / num_heads})
                                   .permute({2, 0, 3, 1, 4});
  const at::Tensor q = qkv_heads[0], k = qkv_heads[1], v = qkv_heads[2];
  at::Tensor heads;
#if SKYTRACE_HAS_SDPA
  if (kernel == AttentionKernel::kFused) heads = at::scaled_dot_product_attention(q, k, v);
#else
  (void)kernel;
#endif
  if (!heads.defined()) heads = referenceAttention(q, k, v);
  return proj(heads.transpose(1, 2).reshape({batch, tokens, channels}));
}

void Block::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim, int64_t heads,
                 int64_t hidden, double eps) {
  norm1.bind(binder, prefix + ".norm1", dim, eps);
  attn.bind(binder, prefix + ".attn", dim, heads);
  binder.bind(prefix + ".ls1.gamma", {dim}, &ls1_gamma);
  norm2.bind(binder, prefix + ".norm2", dim, eps);
  fc1.bind(binder, prefix + ".mlp.fc1", dim, hidden);
  fc2.bind(binder, prefix + ".mlp.fc2", hidden, dim);
  binder.bind(prefix + ".ls2.gamma", {dim}, &ls2_gamma);
}

void Block::prepare(at::ScalarType dtype) {
  norm1.prepare(dtype);
  attn.prepare(dtype);
  norm2.prepare(dtype);
  fc1.prepare(dtype);
  fc2.prepare(dtype);
  ls1_gamma = ls1_gamma.to(dtype);
  ls2_gamma = ls2_gamma.to(dtype);
}

at::Tensor Block::operator()(const at::Tensor& x, AttentionKernel kernel) const {
  // x + ls1(attn(norm1(x))): addcmul is x + a * gamma in one pass.
  at::Tensor out = at::addcmul(x, attn(norm1(x), kernel), ls1_gamma);
  const at::Tensor hidden = at::gelu(fc1(norm2(out)));  // exact (erf) GELU, as nn.GELU()
  return out.addcmul_(fc2(hidden), ls2_gamma);
}

}  // namespace skytrace::vision::dinov2
