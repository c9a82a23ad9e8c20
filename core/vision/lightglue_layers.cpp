#include "core/vision/lightglue_layers_impl.h"

#include <torch/version.h>

#include <cmath>
#include <vector>

namespace skytrace::vision::lightglue {
namespace {

std::vector<int64_t> withLast(at::IntArrayRef sizes, int64_t drop, std::vector<int64_t> last) {
  std::vector<int64_t> out(sizes.begin(), sizes.end() - drop);
  out.insert(out.end(), last.begin(), last.end());
  return out;
}

}  // namespace

at::Tensor matmulTransposed(const at::Tensor& a, const at::Tensor& b) {
  return at::matmul(a, b.transpose(-2, -1));
}

// --- Linear, LayerNorm, FeedForward ----------------------------------------------------

void Linear::bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
                  bool with_bias) {
  binder.bind(prefix + ".weight", {out, in}, &weight);
  if (with_bias) binder.bind(prefix + ".bias", {out}, &bias);
}

at::Tensor Linear::operator()(const at::Tensor& x) const { return at::linear(x, weight, bias); }

void LayerNorm::bind(StateDictBinder& binder, const std::string& prefix, int64_t channels) {
  dim = channels;
  binder.bind(prefix + ".weight", {channels}, &weight);
  binder.bind(prefix + ".bias", {channels}, &bias);
}

at::Tensor LayerNorm::operator()(const at::Tensor& x) const {
  return at::layer_norm(x, {dim}, weight, bias, 1e-5);
}

void FeedForward::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim) {
  fc0.bind(binder, prefix + ".0", 2 * dim, 2 * dim);
  norm.bind(binder, prefix + ".1", 2 * dim);
  fc3.bind(binder, prefix + ".3", 2 * dim, dim);
}

at::Tensor FeedForward::update(const at::Tensor& x, const at::Tensor& message) const {
  return x + fc3(at::gelu(norm(fc0(at::cat({x, message}, -1)))));
}

// --- attention -------------------------------------------------------------------------

at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool half) {
  if (q.size(-2) == 0 || k.size(-2) == 0)
    return at::zeros(withLast(q.sizes(), 1, {v.size(-1)}), q.options());
#if TORCH_VERSION_MAJOR >= 2
  if (q.is_cuda() && half) {
    // float16: the fused (flash) kernel, as the original's CUDA default. In float32 the
    // explicit product below is faster at LightGlue's sizes: PyTorch's only fused float32
    // kernel (memory-efficient attention) measured 112 us per 4x1024x1024 head set on an
    // H100 (docs/benchmarks.md), about twice two batched GEMMs and a softmax.
    // The fused kernels take [B,H,L,E] only: add the batch dimension.
    const auto fused = [&](const at::Tensor& q4, const at::Tensor& k4, const at::Tensor& v4) {
      return at::scaled_dot_product_attention(q4.unsqueeze(0), k4.unsqueeze(0), v4.unsqueeze(0))
          .squeeze(0);
    };
    return fused(q.to(at::kHalf), k.to(at::kHalf), v.to(at::kHalf)).to(q.scalar_type());
  }
#else
  (void)half;
#endif
  const double scale = std::pow(static_cast<double>(q.size(-1)), -0.5);
  const at::Tensor weights = at::softmax(matmulTransposed(q, k) * scale, -1);
  return matmulTransposed(weights, v.transpose(-2, -1));
}

at::Tensor applyRotaryEncoding(const at::Tensor& encoding, const at::Tensor& t) {
  // rotate_half: pairs (t[2i], t[2i+1]) -> (-t[2i+1], t[2i]).
  const at::Tensor pairs = t.reshape(withLast(t.sizes(), 1, {t.size(-1) / 2, 2}));
  const at::Tensor rotated =
      at::stack({pairs.select(-1, 1).neg(), pairs.select(-1, 0)}, -1).flatten(-2);
  return t * encoding[0] + rotated * encoding[1];
}

// --- SelfBlock -------------------------------------------------------------------------

void SelfBlock::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim,
                     int64_t num_heads) {
  heads = num_heads;
  head_dim = dim / num_heads;
  qkv.bind(binder, prefix + ".Wqkv", dim, 3 * dim);
  out_proj.bind(binder, prefix + ".out_proj", dim, dim);
  ffn.bind(binder, prefix + ".ffn", dim);
}

void SelfBlock::prepare() {
  // Original output feature f = (h * head_dim + d) * 3 + j (unflatten (H, -1, 3)); we
  // want f' = (j * H + h) * head_dim + d.
  const int64_t dim = qkv.weight.size(1);
  qkv.weight =
      qkv.weight.view({heads, head_dim, 3, dim}).permute({2, 0, 1, 3}).reshape({-1, dim}).contiguous();
  qkv.bias = qkv.bias.view({heads, head_dim, 3}).permute({2, 0, 1}).reshape({-1}).contiguous();
}

at::Tensor SelfBlock::operator()(const at::Tensor& x, const at::Tensor& encoding,
                                 bool half_attention) const {
  const int64_t n = x.size(0);
  const at::Tensor qkv_heads =
      qkv(x).view({n, 3, heads, head_dim}).permute({1, 2, 0, 3});  // [3,H,N,hd]
  const at::Tensor q = applyRotaryEncoding(encoding, qkv_heads[0]);
  const at::Tensor k = applyRotaryEncoding(encoding, qkv_heads[1]);
  const at::Tensor context = attention(q, k, qkv_heads[2].contiguous(), half_attention);
  const at::Tensor message = out_proj(context.transpose(0, 1).reshape({n, heads * head_dim}));
  return ffn.update(x, message);
}

// --- CrossBlock ------------------------------------------------------------------------

void CrossBlock::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim,
                      int64_t num_heads) {
  heads = num_heads;
  head_dim = dim / num_heads;
  to_qk.bind(binder, prefix + ".to_qk", dim, dim);
  to_v.bind(binder, prefix + ".to_v", dim, dim);
  to_out.bind(binder, prefix + ".to_out", dim, dim);
  ffn.bind(binder, prefix + ".ffn", dim);
}

std::pair<at::Tensor, at::Tensor> CrossBlock::operator()(const at::Tensor& x0, const at::Tensor& x1,
                                                         bool half_attention) const {
  const auto split_heads = [&](const at::Tensor& t) {
    return t.view({t.size(0), heads, head_dim}).transpose(0, 1);  // [H,N,hd]
  };
  const at::Tensor v0 = split_heads(to_v(x0)), v1 = split_heads(to_v(x1));
  at::Tensor m0, m1;
#if TORCH_VERSION_MAJOR >= 2
  if (x0.is_cuda() && half_attention) {
    // The original's flash branch: two fused float16 attentions (scale 1/sqrt(hd)).
    // float32 on CUDA takes the shared-similarity path below, as the CPU (faster there
    // than two float32 fused attentions, see attention()).
    const at::Tensor qk0 = split_heads(to_qk(x0)), qk1 = split_heads(to_qk(x1));
    m0 = attention(qk0, qk1, v1, half_attention);
    m1 = attention(qk1, qk0, v0, half_attention);
  }
#else
  (void)half_attention;
#endif
  if (!m0.defined()) {
    // q and k each scaled by hd^-1/4 (python: (hd ** -0.5) ** 0.5), one similarity.
    const double scale = std::pow(std::pow(static_cast<double>(head_dim), -0.5), 0.5);
    const at::Tensor qk0 = split_heads(to_qk(x0)) * scale;
    const at::Tensor qk1 = split_heads(to_qk(x1)) * scale;
    const at::Tensor sim = matmulTransposed(qk0, qk1);  // [H,M,N]
    const at::Tensor attn01 = at::softmax(sim, -1);
    const at::Tensor attn10 = at::softmax(sim.transpose(-2, -1).contiguous(), -1);  // [H,N,M]
    m0 = matmulTransposed(attn01, v1.transpose(-2, -1));
    m1 = matmulTransposed(attn10, v0.transpose(-2, -1));
  }
  const auto merge_heads = [&](const at::Tensor& t) {
    return t.transpose(0, 1).reshape({t.size(1), heads * head_dim});
  };
  return {ffn.update(x0, to_out(merge_heads(m0))), ffn.update(x1, to_out(merge_heads(m1)))};
}

// --- MatchAssignment, TokenConfidence, filter_matches -----------------------------------

void MatchAssignment::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim) {
  matchability.bind(binder, prefix + ".matchability", dim, 1);
  final_proj.bind(binder, prefix + ".final_proj", dim, dim);
}

void MatchAssignment::prepare() {
  const auto to64 = [](const Linear& layer) {
    return Linear{layer.weight.to(at::kDouble), layer.bias.to(at::kDouble)};
  };
  final_proj64 = to64(final_proj);
  matchability64 = to64(matchability);
}

at::Tensor MatchAssignment::logAssignment(const at::Tensor& desc0_in, const at::Tensor& desc1_in,
                                          bool in_float64) const {
  const Linear& project = in_float64 ? final_proj64 : final_proj;
  const Linear& matchable = in_float64 ? matchability64 : matchability;
  const at::Tensor desc0 = in_float64 ? desc0_in.to(at::kDouble) : desc0_in;
  const at::Tensor desc1 = in_float64 ? desc1_in.to(at::kDouble) : desc1_in;
  const double norm = std::pow(static_cast<double>(desc0.size(-1)), 0.25);
  const at::Tensor mdesc0 = project(desc0) / norm;
  const at::Tensor mdesc1 = project(desc1) / norm;
  const at::Tensor sim = matmulTransposed(mdesc0, mdesc1);  // [M,N]
  const at::Tensor z0 = matchable(desc0);                  // [M,1]
  const at::Tensor z1 = matchable(desc1);                  // [N,1]
  const int64_t m = sim.size(0), n = sim.size(1);
  // sigmoid_log_double_softmax
  const at::Tensor certainties = at::log_sigmoid(z0) + at::log_sigmoid(z1).t();
  const at::Tensor scores0 = at::log_softmax(sim, 1);
  const at::Tensor scores1 = at::log_softmax(sim.t().contiguous(), 1).t();
  at::Tensor scores = at::zeros({m + 1, n + 1}, sim.options());
  scores.narrow(0, 0, m).narrow(1, 0, n).copy_(scores0 + scores1 + certainties);
  scores.narrow(0, 0, m).select(1, n).copy_(at::log_sigmoid(-z0.squeeze(-1)));
  scores.select(0, m).narrow(0, 0, n).copy_(at::log_sigmoid(-z1.squeeze(-1)));
  return scores.to(at::kFloat);
}

at::Tensor MatchAssignment::matchabilityOf(const at::Tensor& desc) const {
  return at::sigmoid(matchability(desc)).squeeze(-1);
}

void TokenConfidence::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim) {
  token.bind(binder, prefix + ".token.0", dim, 1);
}

at::Tensor TokenConfidence::operator()(const at::Tensor& desc) const {
  return at::sigmoid(token(desc)).squeeze(-1);
}

FilteredMatches filterMatches(const at::Tensor& log_assignment, float threshold) {
  const int64_t m = log_assignment.size(0) - 1, n = log_assignment.size(1) - 1;
  const at::Tensor block = log_assignment.narrow(0, 0, m).narrow(1, 0, n);
  const auto [max0_values, m0] = block.max(1);  // [M]
  const auto [max1_values, m1] = block.max(0);  // [N]
  (void)max1_values;
  const auto long_options = m0.options();
  const at::Tensor mutual0 = at::arange(m, long_options) == m1.index_select(0, m0);
  const at::Tensor mutual1 = at::arange(n, long_options) == m0.index_select(0, m1);
  const at::Tensor zero = at::zeros({}, max0_values.options());
  FilteredMatches out;
  out.scores0 = at::where(mutual0, max0_values.exp(), zero);
  out.scores1 = at::where(mutual1, out.scores0.index_select(0, m1), zero);
  const at::Tensor valid0 = mutual0 & (out.scores0 > threshold);
  const at::Tensor valid1 = mutual1 & valid0.index_select(0, m1);
  const at::Tensor none = at::full({}, -1, long_options);
  out.matches0 = at::where(valid0, m0, none);
  out.matches1 = at::where(valid1, m1, none);
  return out;
}

}  // namespace skytrace::vision::lightglue
