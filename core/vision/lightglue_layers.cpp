#include "core/vision/lightglue_layers_impl.h"

#include <torch/version.h>

#include <cmath>
#include <vector>

#include "core/vision/fused_ops.h"

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

void Linear::castTo(at::ScalarType type) {
  weight = weight.to(type);
  if (bias.defined()) bias = bias.to(type);
}

at::Tensor Linear::operator()(const at::Tensor& x) const { return at::linear(x, weight, bias); }

void LayerNorm::bind(StateDictBinder& binder, const std::string& prefix, int64_t channels) {
  dim = channels;
  binder.bind(prefix + ".weight", {channels}, &weight);
  binder.bind(prefix + ".bias", {channels}, &bias);
}

void LayerNorm::castTo(at::ScalarType type) {
  weight = weight.to(type);
  bias = bias.to(type);
}

at::Tensor LayerNorm::operator()(const at::Tensor& x) const {
  return at::layer_norm(x, {dim}, weight, bias, 1e-5);
}

void FeedForward::bind(StateDictBinder& binder, const std::string& prefix, int64_t dim) {
  fc0.bind(binder, prefix + ".0", 2 * dim, 2 * dim);
  norm.bind(binder, prefix + ".1", 2 * dim);
  fc3.bind(binder, prefix + ".3", 2 * dim, dim);
}

void FeedForward::castTo(at::ScalarType type) {
  fc0.castTo(type);
  norm.castTo(type);
  fc3.castTo(type);
  if (fc0_folded.weight.defined()) fc0_folded.castTo(type);
}

void FeedForward::foldProjection(const Linear& projection) {
  const int64_t dim = projection.weight.size(0);
  const at::Tensor w0 = fc0.weight.to(at::kDouble), b0 = fc0.bias.to(at::kDouble);
  const at::Tensor wp = projection.weight.to(at::kDouble), bp = projection.bias.to(at::kDouble);
  const at::Tensor wa = w0.narrow(1, 0, dim), wb = w0.narrow(1, dim, dim);
  fc0_folded.weight = at::cat({wa, at::matmul(wb, wp)}, 1).to(fc0.weight.scalar_type()).contiguous();
  fc0_folded.bias = (b0 + at::matmul(wb, bp)).to(fc0.bias.scalar_type());
}

at::Tensor FeedForward::residual(const at::Tensor& x, const at::Tensor& hidden) const {
  if (fused_kernels && hidden.is_cuda() && hidden.scalar_type() == at::kHalf)
    return x + fc3(fused::layerNormGelu(hidden, norm.weight, norm.bias, 1e-5));
  return x + fc3(at::gelu(norm(hidden)));
}

at::Tensor FeedForward::updateFolded(const at::Tensor& x, const at::Tensor& context) const {
  return residual(x, fc0_folded(at::cat({x, context}, -1)));
}

at::Tensor FeedForward::update(const at::Tensor& x, const at::Tensor& message) const {
  return residual(x, fc0(at::cat({x, message}, -1)));
}

// --- attention -------------------------------------------------------------------------

at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool half) {
  if (q.size(-2) == 0 || k.size(-2) == 0)
    return at::zeros(withLast(q.sizes(), 1, {v.size(-1)}), q.options());
#if TORCH_VERSION_MAJOR >= 2
  if (q.is_cuda() && (half || q.scalar_type() == at::kHalf)) {
    // float16: the fused (flash) kernel, as the original's CUDA default. In float32 the
    // explicit product below is faster at LightGlue's sizes: PyTorch's only fused float32
    // kernel (memory-efficient attention) measured 112 us per 4x1024x1024 head set on an
    // H100 (docs/benchmarks.md), about twice two batched GEMMs and a softmax.
    // The fused kernels take [B,H,L,E] only: a missing batch dimension is added.
    const bool batched = q.dim() == 4;
    const auto as4 = [&](const at::Tensor& t) {
      const at::Tensor h = t.to(at::kHalf);  // no copy when already float16
      return batched ? h : h.unsqueeze(0);
    };
    const at::Tensor out = at::scaled_dot_product_attention(as4(q), as4(k), as4(v));
    return (batched ? out : out.squeeze(0)).to(q.scalar_type());
  }
#else
  (void)half;
#endif
  const double scale = std::pow(static_cast<double>(q.size(-1)), -0.5);
  const at::Tensor weights = at::softmax(matmulTransposed(q, k) * scale, -1);
  return matmulTransposed(weights, v.transpose(-2, -1));
}

at::Tensor rotaryTables(const at::Tensor& encoding) {
  // -1, +1, -1, ... made on the device (no host copy: this runs inside CUDA graphs).
  const at::Tensor sign = at::arange(encoding.size(-1), encoding.options()).remainder(2) * 2 - 1;
  return at::stack({encoding.select(-3, 0), encoding.select(-3, 1) * sign}, -3);
}

at::Tensor applyRotaryTables(const at::Tensor& tables, const at::Tensor& t) {
  // swap_pairs: (t[2i], t[2i+1]) -> (t[2i+1], t[2i]); with the sign in the table it is
  // rotate_half. Tables [(B,)1,N,hd] broadcast over the heads (and whatever leads t).
  const at::Tensor swapped = t.reshape(withLast(t.sizes(), 1, {t.size(-1) / 2, 2})).flip(-1).flatten(-2);
  const at::Tensor cos = tables.select(-3, 0).unsqueeze(-3);
  const at::Tensor signed_sin = tables.select(-3, 1).unsqueeze(-3);
  return at::addcmul(t * cos, swapped, signed_sin);
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

void SelfBlock::castTo(at::ScalarType type) {
  qkv.castTo(type);
  out_proj.castTo(type);
  ffn.castTo(type);
}

void SelfBlock::foldOutputProjection() {
  ffn.foldProjection(out_proj);
  folded = true;
}

void SelfBlock::useFusedKernels(bool enabled) {
  fused_kernels = enabled;
  ffn.fused_kernels = enabled;
}

at::Tensor SelfBlock::operator()(const at::Tensor& x, const at::Tensor& rotary,
                                 bool half_attention) const {
  // [(B,)N,D] -> [(B,)N,3,H,hd] -> [3,(B,)H,N,hd]
  const bool batched = x.dim() == 3;
  const at::Tensor projected = qkv(x);
  const at::Tensor qkv_heads =
      projected.view(withLast(x.sizes(), 1, {3, heads, head_dim}))
          .permute(batched ? std::vector<int64_t>{2, 0, 3, 1, 4} : std::vector<int64_t>{1, 2, 0, 3});
  // q and k encoded together (one kernel fused, else one set of elementwise kernels); v as
  // a strided view (the kernels need only its last dimension contiguous).
  const at::Tensor qk = fused_kernels && projected.is_cuda() && projected.scalar_type() == at::kHalf
                            ? fused::rotaryQk(projected, rotary, heads)
                            : applyRotaryTables(rotary, qkv_heads.narrow(0, 0, 2));
  const at::Tensor context = attention(qk[0], qk[1], qkv_heads[2], half_attention);
  // [(B,)H,N,hd] -> [(B,)N,H*hd]
  const at::Tensor merged = context.transpose(-3, -2).reshape(withLast(x.sizes(), 1, {heads * head_dim}));
  return folded ? ffn.updateFolded(x, merged) : ffn.update(x, out_proj(merged));
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

void CrossBlock::prepare() {
  to_qkv.weight = at::cat({to_qk.weight, to_v.weight}, 0).contiguous();
  to_qkv.bias = at::cat({to_qk.bias, to_v.bias}, 0).contiguous();
}

void CrossBlock::castTo(at::ScalarType type) {
  to_qk.castTo(type);
  to_v.castTo(type);
  to_qkv.castTo(type);
  to_out.castTo(type);
  ffn.castTo(type);
}

void CrossBlock::foldOutputProjection() {
  ffn.foldProjection(to_out);
  folded = true;
}

std::pair<at::Tensor, at::Tensor> CrossBlock::operator()(const at::Tensor& x0, const at::Tensor& x1,
                                                         bool half_attention) const {
  const auto split_heads = [&](const at::Tensor& t) {
    return t.view({t.size(0), heads, head_dim}).transpose(0, 1);  // [H,N,hd]
  };
  const at::Tensor v0 = split_heads(to_v(x0)), v1 = split_heads(to_v(x1));
  at::Tensor m0, m1;
#if TORCH_VERSION_MAJOR >= 2
  if (x0.is_cuda() && (half_attention || x0.scalar_type() == at::kHalf)) {
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
  if (folded) return {ffn.updateFolded(x0, merge_heads(m0)), ffn.updateFolded(x1, merge_heads(m1))};
  return {ffn.update(x0, to_out(merge_heads(m0))), ffn.update(x1, to_out(merge_heads(m1)))};
}

at::Tensor CrossBlock::pair(const at::Tensor& x, bool half_attention) const {
  // [2,N,D] -> [2,N,2D] (qk | v, one product) -> [2,2,H,N,hd]; image i attends to image
  // 1 - i: the other image's keys and values are the flipped batch (one copy for both).
  const int64_t b = x.size(0), n = x.size(1);
  const at::Tensor qkv = to_qkv(x).view({b, n, 2, heads, head_dim}).permute({0, 2, 3, 1, 4});
  const at::Tensor other = qkv.flip(0);
  const at::Tensor qk = qkv.select(1, 0);
  const at::Tensor other_qk = other.select(1, 0), other_v = other.select(1, 1);
  at::Tensor message;
#if TORCH_VERSION_MAJOR >= 2
  if (x.is_cuda() && (half_attention || x.scalar_type() == at::kHalf))
    message = attention(qk, other_qk, other_v, true);  // the original's flash branch
#endif
  if (!message.defined()) {
    // The non-flash math: q and k each scaled by hd^-1/4; sim[1] = sim[0]^T.
    const double scale = std::pow(std::pow(static_cast<double>(head_dim), -0.5), 0.5);
    const at::Tensor sim = matmulTransposed(qk * scale, other_qk * scale);  // [2,H,N,N]
    message = matmulTransposed(at::softmax(sim, -1), other_v.transpose(-2, -1));
  }
  const at::Tensor merged = message.transpose(1, 2).reshape({x.size(0), x.size(1), heads * head_dim});
  return folded ? ffn.updateFolded(x, merged) : ffn.update(x, to_out(merged));
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
