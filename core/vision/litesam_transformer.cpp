// LiteSAM's coarse transformer: AG_RoPE_EncoderLayer x 8 (self/cross alternating).
#include <cmath>
#include <vector>

#include <torch/version.h>

#include "core/util/error.h"
#include "core/vision/litesam_modules_impl.h"

namespace skytrace::vision::litesam {

RopeTables makeRopeTables(int64_t grid_h, int64_t grid_w, int64_t d_model,
                          const std::array<int64_t, 4>& npe, const at::TensorOptions& options) {
  // The original builds 256 x 256 tables and slices them; it cannot index beyond.
  constexpr int64_t kMaxGrid = 256;
  if (grid_h > kMaxGrid || grid_w > kMaxGrid)
    throw InvalidArgument("LiteSAM: input too large for the RoPE tables (aggregated grid " +
                          std::to_string(grid_h) + "x" + std::to_string(grid_w) +
                          ", at most 256x256, i.e. 8192 px)");
  const at::TensorOptions f32 = options.dtype(at::kFloat);
  const int64_t quarter = d_model / 4;
  // Positions are 1-based (ones.cumsum), scaled (pos * train_res) / test_res in float32.
  const at::Tensor i_position =
      (at::arange(1, grid_h + 1, f32).unsqueeze(-1) * npe[0]) / npe[2];  // [h, 1]
  const at::Tensor j_position =
      (at::arange(1, grid_w + 1, f32).unsqueeze(-1) * npe[1]) / npe[3];  // [w, 1]
  const at::Tensor div_term =
      at::exp(at::arange(0, quarter, 1, f32) * (-std::log(10000.0) / static_cast<double>(quarter)))
          .unsqueeze(0);  // [1, C/4]
  // sin/cos computed in float32, rounded to float16 (ropefp16=True), used as float32.
  const auto half = [](const at::Tensor& t) { return t.to(at::kHalf).to(at::kFloat); };
  const auto table = [&](const at::Tensor& along_i, const at::Tensor& along_j) {
    // Slots 2k: row position, 2k+1: column position (frequency k); then repeat_interleave(2).
    const at::Tensor rows = along_i.unsqueeze(1).expand({grid_h, grid_w, quarter});
    const at::Tensor cols = along_j.unsqueeze(0).expand({grid_h, grid_w, quarter});
    const at::Tensor slots = at::stack({rows, cols}, -1).reshape({grid_h, grid_w, 2 * quarter});
    // (repeat_interleave(2) written as an expand: no host round trip, capturable)
    return slots.unsqueeze(-1).expand({grid_h, grid_w, 2 * quarter, 2}).reshape({1, grid_h, grid_w, 4 * quarter});  // [1, h, w, C]
  };
  RopeTables t;
  t.sin = table(half(at::sin(i_position * div_term)), half(at::sin(j_position * div_term)));
  t.cos = table(half(at::cos(i_position * div_term)), half(at::cos(j_position * div_term)));
  return t;
}

namespace {

// rotate_half: pairs (x_2t, x_2t+1) -> (-x_2t+1, x_2t).
at::Tensor rotateHalf(const at::Tensor& x) {
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() /= 2;
  shape.push_back(2);
  const at::Tensor pairs = x.reshape(shape);
  return at::stack({-pairs.select(-1, 1), pairs.select(-1, 0)}, -1).flatten(-2);
}

at::Tensor applyRope(const at::Tensor& x, const RopeTables& rope) {
  return x * rope.cos + rotateHalf(x) * rope.sin;
}

}  // namespace

void AggregatedAttentionLayer::bind(StateDictBinder& binder, const std::string& prefix,
                                    int64_t channels) {
  d_model = channels;
  const int64_t c = channels;
  aggregate.bind(binder, prefix + ".aggregate", c, c, kAgg, kAgg, 0, c, false);
  q_proj.bind(binder, prefix + ".q_proj", c, c, false);
  k_proj.bind(binder, prefix + ".k_proj", c, c, false);
  v_proj.bind(binder, prefix + ".v_proj", c, c, false);
  merge.bind(binder, prefix + ".merge", c, c, false);
  local_mixer.bind(binder, prefix + ".local_mixer", c, c, 3, 1, 1, c, false);
  mixer.bind(binder, prefix + ".mixer", c, c, 1, 1, 0, 1, true);
  // ConvFFN(2C -> C hidden -> C): fc1 1x1, GELU, h + dwconv3x3(h), SyncBN, fc2 1x1.
  mlp_fc1.bind(binder, prefix + ".mlp.fc1", 2 * c, c, 1, 1, 0, 1, true);
  mlp_dwconv.bind(binder, prefix + ".mlp.dwconv", c, c, 3, 1, 1, c, true);
  mlp_bn.bind(binder, prefix + ".mlp.bn", c);
  mlp_fc2.bind(binder, prefix + ".mlp.fc2", c, c, 1, 1, 0, 1, true);
  norm1.bind(binder, prefix + ".norm1", c);
}

void AggregatedAttentionLayer::castTo(at::ScalarType type) {
  for (Conv2d* conv : {&aggregate, &local_mixer, &mixer, &mlp_fc1, &mlp_dwconv, &mlp_fc2}) conv->castTo(type);
  for (Linear* linear : {&q_proj, &k_proj, &v_proj, &merge}) linear->castTo(type);
  norm1.castTo(type);
}

at::Tensor AggregatedAttentionLayer::operator()(const at::Tensor& x, const at::Tensor& source,
                                                const RopeTables* rope_q,
                                                const RopeTables* rope_k) const {
  const int64_t n = x.size(0), h0 = x.size(2), w0 = x.size(3);
  const int64_t head_dim = d_model / kHeads;
  // Aggregation: [N, h, w, C] after the shared LayerNorm.
  const at::Tensor query_in = norm1(aggregate(x).permute({0, 2, 3, 1}));
  const at::Tensor source_in =
      norm1(at::max_pool2d(source, {kAgg, kAgg}, {kAgg, kAgg}).permute({0, 2, 3, 1}));
  at::Tensor query = q_proj(query_in);
  at::Tensor key = k_proj(source_in);
  const at::Tensor value = v_proj(source_in);
  const at::Tensor query_local = query.permute({0, 3, 1, 2});  // before RoPE
  if (rope_q) query = applyRope(query, *rope_q);
  if (rope_k) key = applyRope(key, *rope_k);

  // Full softmax attention, 8 heads: softmax(QK^T / sqrt(32)) V.
  const auto heads = [&](const at::Tensor& t) {
    return t.reshape({n, -1, kHeads, head_dim}).permute({0, 2, 1, 3});  // [N, H, L, D]
  };
  at::Tensor attended;  // [N, H, L, D]
#if TORCH_VERSION_MAJOR >= 2
  if (query.is_cuda() && query.scalar_type() == at::kHalf)
    attended = at::scaled_dot_product_attention(heads(query), heads(key), heads(value));
#endif
  if (!attended.defined()) {
    const at::Tensor scores =
        at::matmul(heads(query), heads(key).transpose(-1, -2)) * (1.0 / std::sqrt(double(head_dim)));
    attended = at::matmul(at::softmax(scores, -1), heads(value));
  }
  const at::Tensor merged = merge(attended.permute({0, 2, 1, 3}).reshape({n, -1, d_model}));
  const at::Tensor global_feat =
      merged.reshape({n, h0 / kAgg, w0 / kAgg, d_model}).permute({0, 3, 1, 2});  // [N, C, h, w]

  at::Tensor local_feat = local_mixer(query_local);
  local_feat = local_feat * at::sigmoid(local_feat);
  local_feat = local_feat * at::sigmoid(global_feat);
  at::Tensor m = mixer(local_feat * global_feat);
  m = upsampleBilinear(m, kAgg);  // [N, C, H0, W0]

  at::Tensor hidden = at::gelu(mlp_fc1(at::cat({x, m}, 1)));
  hidden = hidden + mlp_dwconv(hidden);
  hidden = mlp_fc2(mlp_bn(hidden));
  return x + hidden;
}

void CoarseTransformer::castTo(at::ScalarType type) {
  for (auto& layer : layers) layer.castTo(type);
}

void CoarseTransformer::bind(StateDictBinder& binder, const std::string& prefix, int64_t d_model) {
  constexpr int kLayers = 8;
  layers.resize(kLayers);  // before bind: the binder keeps pointers
  is_self.resize(kLayers);
  for (int i = 0; i < kLayers; ++i) {
    layers[i].bind(binder, prefix + ".layers." + std::to_string(i), d_model);
    is_self[i] = i % 2 == 0 ? 1 : 0;
  }
}

std::array<at::Tensor, 2> CoarseTransformer::operator()(at::Tensor feat0, at::Tensor feat1,
                                                        const std::array<int64_t, 4>& npe,
                                                        TransformerTrace* trace) const {
  const int64_t agg = AggregatedAttentionLayer::kAgg;
  const int64_t d_model = feat0.size(1);
  // The tables hold float16-rounded values (ropefp16): exact in float16 layers too.
  const auto inType = [&](RopeTables t) {
    t.sin = t.sin.to(feat0.scalar_type());
    t.cos = t.cos.to(feat0.scalar_type());
    return t;
  };
  const RopeTables rope0 =
      inType(makeRopeTables(feat0.size(2) / agg, feat0.size(3) / agg, d_model, npe, feat0.options()));
  const bool same_grid = feat0.sizes() == feat1.sizes();
  const RopeTables rope1 =
      same_grid ? rope0
                : inType(makeRopeTables(feat1.size(2) / agg, feat1.size(3) / agg, d_model, npe,
                                        feat1.options()));
  const bool batch_self_layers = same_grid && feat0.is_cuda() && !trace;
  for (size_t i = 0; i < layers.size(); ++i) {
    const AggregatedAttentionLayer& layer = layers[i];
    if (is_self[i] && batch_self_layers) {
      const at::Tensor both = at::cat({feat0, feat1}, 0);
      const at::Tensor out = layer(both, both, &rope0, &rope0);
      feat0 = out.narrow(0, 0, 1);
      feat1 = out.narrow(0, 1, 1);
    } else if (is_self[i]) {
      feat0 = layer(feat0, feat0, &rope0, &rope0);
      feat1 = layer(feat1, feat1, &rope1, &rope1);
    } else {
      feat0 = layer(feat0, feat1, nullptr, nullptr);
      feat1 = layer(feat1, feat0, nullptr, nullptr);
    }
    if (trace) trace->layer_outputs.push_back({feat0, feat1});
  }
  return {feat0, feat1};
}

}  // namespace skytrace::vision::litesam
