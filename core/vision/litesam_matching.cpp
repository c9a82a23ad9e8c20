// LiteSAM coarse matching, fine preprocessing and the two-stage fine refinement.
#include <cmath>

#include "core/vision/fused_ops.h"
#include "core/vision/litesam_modules_impl.h"

namespace skytrace::vision::litesam {
namespace {

// Cells at least `border` cells away from every edge of an h x w grid: [h*w] bool.
at::Tensor innerCells(int64_t h, int64_t w, int64_t border, const at::TensorOptions& options) {
  const at::Tensor cells = at::arange(h * w, options.dtype(at::kLong));
  const at::Tensor row = cells.div(w, "floor");
  const at::Tensor col = cells.remainder(w);
  return (row >= border) & (row < h - border) & (col >= border) & (col < w - border);
}

// Mutual nearest: a row's maximum that is also its column's maximum (maxima over all
// cells, border included), above the threshold, both cells inside the border. Equal to
// the original's full boolean mask except for exactly tied row maxima.
CoarseCandidates mutualNearest(const at::Tensor& row_max, const at::Tensor& row_arg, const at::Tensor& col_max,
                               std::array<int64_t, 2> hw0_c, std::array<int64_t, 2> hw1_c,
                               const CoarseMatchOptions& options) {
  const at::TensorOptions opts = row_max.options();
  const at::Tensor inner0 = innerCells(hw0_c[0], hw0_c[1], options.border_cells, opts);
  const at::Tensor inner1 = innerCells(hw1_c[0], hw1_c[1], options.border_cells, opts);
  CoarseCandidates out;
  out.valid = (row_max > options.threshold) & inner0 & inner1.index_select(0, row_arg) &
              (row_max == col_max.index_select(0, row_arg));
  out.row_max = row_max;
  out.row_arg = row_arg;
  return out;
}

}  // namespace

at::Tensor coarseCellCorners(const at::Tensor& cells, int64_t grid_w, double scale) {
  // get_coarse_match: no +0.5 centring.
  return at::stack({cells.remainder(grid_w), cells.div(grid_w, "floor")}, 1) * scale;
}

CoarseMatches matchCoarse(const at::Tensor& f0, const at::Tensor& f1,
                          std::array<int64_t, 2> hw0_c, std::array<int64_t, 2> hw1_c,
                          double scale, const CoarseMatchOptions& options, bool keep_conf_matrix) {
  return selectCoarseMatches(coarseCandidates(f0, f1, hw0_c, hw1_c, options, keep_conf_matrix), hw0_c, hw1_c,
                             scale);
}

CoarseCandidates coarseCandidates(const at::Tensor& f0, const at::Tensor& f1, std::array<int64_t, 2> hw0_c,
                                  std::array<int64_t, 2> hw1_c, const CoarseMatchOptions& options,
                                  bool keep_conf_matrix) {
  const double norm = std::sqrt(static_cast<double>(f0.size(-1)));
  const at::Tensor sim = at::matmul(f0 / norm, (f1 / norm).transpose(1, 2)) / options.temperature;
  // Softmax over dim 1 on CUDA through the last-dimension kernel on a transposed copy:
  // ATen's kernel for an inner dimension (cunn_SpatialSoftMaxForward) took ~5 ms for
  // 4096 x 4096 cells on an H100, the copy and the row kernel well under 0.1 ms. Same
  // values up to float rounding; the CPU keeps the original's call.
  const at::Tensor column_softmax =
      sim.is_cuda() ? at::softmax(sim.transpose(1, 2).contiguous(), 2).transpose(1, 2)
                    : at::softmax(sim, 1);
  const at::Tensor conf = column_softmax * at::softmax(sim, 2);  // [1, L, S]

  const auto [row_max, row_arg] = conf[0].max(1);  // [L]
  CoarseCandidates out =
      mutualNearest(row_max, row_arg, std::get<0>(conf[0].max(0)), hw0_c, hw1_c, options);
  if (keep_conf_matrix) out.conf_matrix = conf;
  return out;
}

CoarseCandidates coarseCandidatesFused(const at::Tensor& f0, const at::Tensor& f1, std::array<int64_t, 2> hw0_c,
                                       std::array<int64_t, 2> hw1_c, const CoarseMatchOptions& options) {
  const double norm = std::sqrt(static_cast<double>(f0.size(-1)));
  const fused::DualSoftmaxMaxima maxima =
      fused::dualSoftmaxMaxima(at::matmul(f0 / norm, (f1 / norm).transpose(1, 2)), 1.0 / options.temperature);
  return mutualNearest(maxima.row_max, maxima.row_arg, maxima.col_max, hw0_c, hw1_c, options);
}

CoarseMatches selectCoarseMatches(const CoarseCandidates& candidates, std::array<int64_t, 2> hw0_c,
                                  std::array<int64_t, 2> hw1_c, double scale) {
  CoarseMatches out;
  out.i_ids = at::nonzero(candidates.valid).squeeze(1);  // ascending; the one host sync of this stage
  out.j_ids = candidates.row_arg.index_select(0, out.i_ids);
  out.mconf = candidates.row_max.index_select(0, out.i_ids);
  out.mkpts0_c = coarseCellCorners(out.i_ids, hw0_c[1], scale);
  out.mkpts1_c = coarseCellCorners(out.j_ids, hw1_c[1], scale);
  out.conf_matrix = candidates.conf_matrix;
  return out;
}

void FinePreprocess::bind(StateDictBinder& binder, const std::string& prefix) {
  // block_dims [64, 128, 256]; conv1x1/conv3x3 without bias.
  layer3_outconv.bind(binder, prefix + ".layer3_outconv", 256, 256, 1, 1, 0, 1, false);
  layer2_outconv.bind(binder, prefix + ".layer2_outconv", 128, 256, 1, 1, 0, 1, false);
  layer2_conv_a.bind(binder, prefix + ".layer2_outconv2.0", 256, 256, 3, 1, 1, 1, false);
  layer2_bn.bind(binder, prefix + ".layer2_outconv2.1", 256);
  layer2_conv_b.bind(binder, prefix + ".layer2_outconv2.3", 256, 128, 3, 1, 1, 1, false);
  layer1_outconv.bind(binder, prefix + ".layer1_outconv", 64, 128, 1, 1, 0, 1, false);
  layer1_conv_a.bind(binder, prefix + ".layer1_outconv2.0", 128, 128, 3, 1, 1, 1, false);
  layer1_bn.bind(binder, prefix + ".layer1_outconv2.1", 128);
  layer1_conv_b.bind(binder, prefix + ".layer1_outconv2.3", 128, 64, 3, 1, 1, 1, false);
}

void FinePreprocess::castTo(at::ScalarType type) {
  for (Conv2d* conv : {&layer3_outconv, &layer2_outconv, &layer1_outconv, &layer2_conv_a, &layer2_conv_b,
                       &layer1_conv_a, &layer1_conv_b})
    conv->castTo(type);
}

at::Tensor FinePreprocess::interFpn(const at::Tensor& feat_c, const at::Tensor& x2,
                                    const at::Tensor& x1) const {
  constexpr double kLeakySlope = 0.01;  // nn.LeakyReLU()
  const at::Tensor c = upsampleBilinear(layer3_outconv(feat_c), 2);
  at::Tensor y2 = layer2_outconv(x2);
  y2 = layer2_conv_b(at::leaky_relu(layer2_bn(layer2_conv_a(y2 + c)), kLeakySlope));
  y2 = upsampleBilinear(y2, 2);
  at::Tensor y1 = layer1_outconv(x1);
  y1 = layer1_conv_b(at::leaky_relu(layer1_bn(layer1_conv_a(y1 + y2)), kLeakySlope));
  return upsampleBilinear(y1, 2);
}

at::Tensor gatherWindows(const at::Tensor& fine, const at::Tensor& cell_ids, int64_t window,
                         int64_t padding) {
  constexpr int64_t kStride = 8;
  const int64_t channels = fine.size(1), height = fine.size(2), width = fine.size(3);
  const int64_t grid_w = (width + 2 * padding - window) / kStride + 1;  // unfold's column count
  const at::TensorOptions longs = cell_ids.options();
  const at::Tensor offsets = at::arange(window, longs);
  // Window pixel (dy, dx) of cell (r, c) sits at (r*8 - pad + dy, c*8 - pad + dx).
  const at::Tensor top = cell_ids.div(grid_w, "floor") * kStride - padding;  // [M]
  const at::Tensor left = cell_ids.remainder(grid_w) * kStride - padding;
  const at::Tensor rows = (top.view({-1, 1, 1}) + offsets.view({1, -1, 1})).expand({-1, window, window});
  const at::Tensor cols = (left.view({-1, 1, 1}) + offsets.view({1, 1, -1})).expand({-1, window, window});
  const at::Tensor inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width);
  const at::Tensor flat = (rows.clamp(0, height - 1) * width + cols.clamp(0, width - 1)).reshape(-1);
  const at::Tensor values = fine[0].reshape({channels, height * width}).index_select(1, flat);
  const int64_t m = cell_ids.size(0);
  // Zero padding outside the map; layout [M, window*window, C] as 'n (c ww) l -> n l ww c'.
  return (values.view({channels, m, window * window}) *
          inside.view({1, m, window * window}).to(values.scalar_type()))
      .permute({1, 2, 0})
      .contiguous();
}

void MinGruOffsetHead::bind(StateDictBinder& binder, const std::string& prefix) {
  constexpr int64_t kDim = 9, kHidden = 16;
  for (int64_t i = 0; i < kIterations; ++i) {
    const std::string n = std::to_string(i);
    feature_extractors[i].bind(binder, prefix + ".feature_extractors." + n, kDim, kDim, true);
    to_hidden_and_gate[i].bind(binder, prefix + ".grus." + n + ".to_hidden_and_gate", kDim,
                               2 * kHidden, false);
    // minGRU.to_out is evaluated by the original but its result is discarded.
    binder.expect(prefix + ".grus." + n + ".to_out.weight", {kDim, kHidden});
    fc1s[i].bind(binder, prefix + ".fc1s." + n, kHidden, kHidden, true);
  }
  fc2.bind(binder, prefix + ".fc2", kHidden, 2, true);
}

at::Tensor MinGruOffsetHead::operator()(const at::Tensor& heatmap) const {
  at::Tensor x = heatmap.view({heatmap.size(0), 1, 9});
  at::Tensor prev;
  for (int64_t i = 0; i < kIterations; ++i) {
    x = feature_extractors[i](x);
    const at::Tensor hidden_gate = to_hidden_and_gate[i](x);
    const int64_t half = hidden_gate.size(-1) / 2;
    at::Tensor hidden = hidden_gate.narrow(-1, 0, half);
    const at::Tensor gate = at::sigmoid(hidden_gate.narrow(-1, half, half));
    hidden = at::where(hidden >= 0, hidden + 0.5, at::sigmoid(hidden));  // g(x)
    const at::Tensor out = prev.defined() ? at::lerp(prev, hidden, gate) : hidden * gate;
    prev = fc1s[i](out);
  }
  return at::tanh(fc2(at::leaky_relu(prev, 0.1).squeeze(1)));
}

void FineMatching::bind(StateDictBinder& binder, const std::string& prefix) {
  update_block.bind(binder, prefix + ".update_block");
}

FineResult FineMatching::operator()(const at::Tensor& f0, const at::Tensor& f1,
                                    const at::Tensor& mkpts0_c, const at::Tensor& mkpts1_c,
                                    FineTrace* trace) const {
  const Choice choice = choose(f0, f1);
  if (trace) trace->softmax_matrix_f = choice.softmax_f.view({f0.size(0), kWindow * kWindow, kWindow * kWindow});
  return refine(choice.idx, choice.heatmap, mkpts0_c, mkpts1_c, trace);
}

FineMatching::Choice FineMatching::choose(const at::Tensor& f0, const at::Tensor& f1) const {
  const int64_t m = f0.size(0), c = f0.size(2);
  const int64_t ww = kWindow * kWindow, wp = kWindow + 2;
  const double norm = std::sqrt(static_cast<double>(c));
  const at::Tensor feat_f0 = f0.narrow(2, 0, c - kRegressDim) / norm;
  const at::Tensor feat_f1 = f1.narrow(2, 0, c - kRegressDim) / norm;
  const at::Tensor feat_ff0 = f0.narrow(2, c - kRegressDim, kRegressDim);
  const at::Tensor feat_ff1 =
      f1.narrow(2, c - kRegressDim, kRegressDim) / std::sqrt(static_cast<double>(kRegressDim));
  const at::Tensor conf_f = at::bmm(feat_f0, feat_f1.transpose(1, 2));     // [M, 64, 100]
  const at::Tensor conf_ff = at::bmm(feat_ff0, feat_ff1.transpose(1, 2));  // [M, 64, 100]

  // Dual softmax over the full windows, then image1's 10x10 cropped to its inner 8x8.
  Choice out;
  out.softmax_f = (at::softmax(conf_f, 1) * at::softmax(conf_f, 2))
                      .view({m, ww, wp, wp})
                      .slice(2, 1, wp - 1)
                      .slice(3, 1, wp - 1)
                      .reshape({m, ww * ww});
  out.idx = std::get<1>(out.softmax_f.max(1)).unsqueeze(1);  // [M, 1]

  // 3x3 of conf_ff [M, 64, 10, 10] at [m, idx_l, r + dy, c + dx], (r, c) the INNER 8x8
  // position used as a padded-window position; index -1 wraps to 9 as in PyTorch.
  const at::Tensor idx_l = out.idx.div(ww, "floor");
  const at::Tensor idx_r = out.idx.remainder(ww);
  const at::TensorOptions longs = out.idx.options();
  const at::Tensor delta = at::arange(-1, 2, longs);
  const at::Tensor r = idx_r.div(kWindow, "floor").view({m, 1, 1}) + delta.view({1, 3, 1});
  const at::Tensor col = idx_r.remainder(kWindow).view({m, 1, 1}) + delta.view({1, 1, 3});
  const at::Tensor flat = idx_l.view({m, 1, 1}) * (wp * wp) + (r + wp).remainder(wp) * wp +
                          (col + wp).remainder(wp);  // [M, 3, 3]
  out.heatmap = conf_ff.reshape({m, ww * wp * wp}).gather(1, flat.reshape({m, 9}));
  return out;
}

FineResult FineMatching::refine(const at::Tensor& idx, const at::Tensor& heatmap, const at::Tensor& mkpts0_c,
                                const at::Tensor& mkpts1_c, FineTrace* trace) const {
  const int64_t ww = kWindow * kWindow;
  const at::Tensor idx_l = idx.div(ww, "floor");
  const at::Tensor idx_r = idx.remainder(ww);

  // get_fine_ds_match: grid(k) = (k % 8 - 3.5, k / 8 - 3.5), scale 1 (resolution (8, 1)).
  const auto grid = [&](const at::Tensor& k) {
    const double centre = static_cast<double>(kWindow / 2) - 0.5;
    return at::cat({k.remainder(kWindow), k.div(kWindow, "floor")}, 1).to(at::kFloat) - centre;
  };
  FineResult out;
  out.mkpts0_c = mkpts0_c + grid(idx_l);
  out.mkpts1_c = mkpts1_c + grid(idx_r);
  const at::Tensor offset = update_block(heatmap);  // [M, 2]
  out.mkpts0_f = out.mkpts0_c;
  out.mkpts1_f = out.mkpts1_c + offset;  // offset * (3 // 2) * scale1, scale1 = 1

  if (trace) {
    trace->heatmap_3x3 = heatmap;
    trace->offset_xy = offset;
    trace->idx_l = idx_l;
    trace->idx_r = idx_r;
  }
  return out;
}

}  // namespace skytrace::vision::litesam
