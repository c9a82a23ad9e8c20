#include "core/vision/aliked_dkd_impl.h"

#include "core/util/error.h"
#include "core/vision/aliked_fused_ops.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/fused_ops.h"

namespace skytrace::vision::aliked {

at::Tensor simpleNms(const at::Tensor& scores, int nms_radius) {
  const int64_t k = 2 * nms_radius + 1;
  // A kxk max-pool (stride 1, -inf padding) as two 1-D pools: the same maxima, fewer
  // comparisons.
  const auto max_pool = [&](const at::Tensor& x) {
    return at::max_pool2d(at::max_pool2d(x, {1, k}, {1, 1}, {0, nms_radius}), {k, 1}, {1, 1},
                          {nms_radius, 0});
  };
  const at::Tensor zeros = at::zeros_like(scores);
  at::Tensor max_mask = scores == max_pool(scores);
  for (int round = 0; round < 2; ++round) {
    const at::Tensor supp_mask = max_pool(max_mask.to(scores.scalar_type())) > 0;
    const at::Tensor supp_scores = at::where(supp_mask, zeros, scores);
    const at::Tensor new_max_mask = supp_scores == max_pool(supp_scores);
    max_mask = max_mask | (new_max_mask & supp_mask.logical_not());
  }
  return at::where(max_mask, scores, zeros);
}

namespace {

void checkScoreMap(const at::Tensor& score_map, const DkdOptions& options) {
  if (score_map.dim() != 4 || score_map.size(0) != 1 || score_map.size(1) != 1)
    throw InvalidArgument("ALIKED DKD expects a [1,1,H,W] score map");
  const int64_t r = options.radius;
  const int64_t h = score_map.size(2), w = score_map.size(3);
  if (h < 2 * r + 1 || w < 2 * r + 1)
    throw InvalidArgument("ALIKED DKD: score map of " + std::to_string(w) + "x" +
                          std::to_string(h) + " is smaller than the detection window");
}

// NMS scores with the border (radius r) zeroed, flattened [H*W].
at::Tensor flatNmsScores(const at::Tensor& score_map, const DkdOptions& options) {
  const int64_t r = options.radius;
  const int64_t h = score_map.size(2), w = score_map.size(3);
  at::Tensor nms_scores = simpleNms(score_map, options.nms_radius);
  // Remove borders (the window must fit inside the image).
  nms_scores.narrow(2, 0, r).zero_();
  nms_scores.narrow(3, 0, r).zero_();
  nms_scores.narrow(2, h - r, r).zero_();
  nms_scores.narrow(3, w - r, r).zero_();
  return nms_scores.reshape({-1});
}

// Soft-argmax over the (2r+1)^2 window around each peak (flat pixel indices [N] long),
// zero outside the map as nn.Unfold. Device work only (no host synchronisation).
DkdResult refinePeaks(const at::Tensor& score_map, const at::Tensor& indices,
                      const DkdOptions& options) {
  const int64_t r = options.radius;
  const int64_t h = score_map.size(2), w = score_map.size(3);
  const int64_t window = 2 * r + 1;
  const auto long_options = indices.options();
  const at::Tensor padded = at::constant_pad_nd(score_map[0][0], {r, r, r, r}, 0);
  const at::Tensor peak_x = indices.remainder(w);
  const at::Tensor peak_y = indices.div(w, "trunc");
  const at::Tensor steps = at::arange(window, long_options);
  const at::Tensor rows = peak_y.view({-1, 1, 1}) + steps.view({1, window, 1});
  const at::Tensor cols = peak_x.view({-1, 1, 1}) + steps.view({1, 1, window});
  const at::Tensor flat_window = (rows * (w + 2 * r) + cols).reshape({-1, window * window});
  const at::Tensor patch_scores = padded.reshape({-1}).index({flat_window});  // [N, K*K]

  // Window offsets (dx, dy), row-major over the window: the original's hw_grid
  // (dy is repeat_interleave(window), written as an expand: no host round trip).
  const at::Tensor offsets_1d = at::linspace(-r, r, window, score_map.options());
  const at::Tensor hw_grid = at::stack(
      {offsets_1d.repeat({window}), offsets_1d.view({window, 1}).expand({window, window}).reshape({-1})},
      1);

  const at::Tensor max_v = std::get<0>(patch_scores.max(1)).unsqueeze(1);
  const at::Tensor x_exp = ((patch_scores - max_v) / options.temperature).exp();
  const at::Tensor x_sum = x_exp.sum(1);
  const at::Tensor xy_residual = x_exp.matmul(hw_grid) / x_sum.unsqueeze(1);  // [N,2]
  const at::Tensor dist2 =
      at::linalg_vector_norm((hw_grid.unsqueeze(0) - xy_residual.unsqueeze(1)) / r, 2, {-1})
          .pow(2);
  DkdResult result;
  result.dispersity = (x_exp * dist2).sum(1) / x_sum;

  const at::Tensor peak_xy = at::stack({peak_x, peak_y}, 1);  // [N,2] long
  const at::Tensor wh = longPair(w - 1, h - 1, long_options);
  result.keypoints = (peak_xy + xy_residual) / wh * 2 - 1;
  result.scores = at::grid_sampler(score_map, result.keypoints.view({1, 1, -1, 2}),
                                   /*bilinear*/ 0, /*zeros*/ 0, /*align_corners=*/true)[0][0][0];
  return result;
}

// The fixed-count selection of the graph-capturable paths: the indices of the top
// min(fixedPeakCount(options), H*W) flat NMS scores, in topk order (best first), and
// *peak_count (int64 scalar on the device) = how many of them are kept: NMS peaks
// (score > 0) in top-k mode, peaks above scores_threshold in threshold mode. Threshold
// mode keeps the same set as detectKeypoints: its peaks above the threshold, at most
// n_limit of the best; they are the leading rows here, best first (detectKeypoints
// lists them in raster order when there are at most n_limit). A count of 0 in threshold
// mode means "use the mean instead", which only detectKeypoints does. No host sync.
at::Tensor fixedCountPeaks(const at::Tensor& flat_nms, const DkdOptions& options, at::Tensor* peak_count) {
  if (!hasFixedPeakCount(options))
    throw InvalidArgument("ALIKED DKD: the fixed-count path needs top_k > 0, or a threshold > 0 and n_limit > 0");
  const int64_t k = std::min<int64_t>(fixedPeakCount(options), flat_nms.numel());
  auto [values, top] = at::topk(flat_nms, k);
  *peak_count = (values > (options.top_k > 0 ? 0.0f : options.scores_threshold)).sum();
  return top;
}

}  // namespace

bool hasFixedPeakCount(const DkdOptions& options) {
  return options.top_k > 0 || (options.scores_threshold > 0 && options.n_limit > 0);
}

int fixedPeakCount(const DkdOptions& options) { return options.top_k > 0 ? options.top_k : options.n_limit; }

DkdResult detectKeypoints(const at::Tensor& score_map, const DkdOptions& options) {
  checkScoreMap(score_map, options);
  const at::Tensor flat_nms = flatNmsScores(score_map, options);

  at::Tensor indices;
  if (options.top_k > 0) {
    const int64_t k = std::min<int64_t>(options.top_k, flat_nms.numel());
    auto [values, top] = at::topk(flat_nms, k);
    // Deviation from the original: when the image has fewer than top_k peaks, torch.topk
    // fills up with suppressed pixels (NMS score 0); those are dropped here.
    const int64_t peaks = (values > 0).sum().item<int64_t>();
    indices = top.narrow(0, 0, peaks);
  } else {
    const at::Tensor flat_scores = score_map.reshape({-1});
    at::Tensor mask = flat_nms > options.scores_threshold;
    if (options.scores_threshold <= 0 || mask.sum().item<int64_t>() == 0)
      mask = flat_nms > flat_scores.mean();
    indices = mask.nonzero().select(1, 0);
    if (indices.size(0) > options.n_limit) {
      const at::Tensor order = std::get<1>(flat_scores.index_select(0, indices).sort(0, true));
      indices = indices.index_select(0, order.narrow(0, 0, options.n_limit));
    }
  }
  return refinePeaks(score_map, indices, options);
}

DkdResult detectTopKPeaksFixed(const at::Tensor& score_map, const DkdOptions& options,
                               at::Tensor* peak_count) {
  checkScoreMap(score_map, options);
  const at::Tensor top = fixedCountPeaks(flatNmsScores(score_map, options), options, peak_count);
  return refinePeaks(score_map, top, options);
}

DkdResult detectTopKPeaksFused(const at::Tensor& score_map, const DkdOptions& options,
                               at::Tensor* peak_count) {
  checkScoreMap(score_map, options);
  const at::Tensor top =
      fixedCountPeaks(vision::fused::nmsScores(score_map, options.nms_radius, options.radius), options, peak_count);
  fused::RefinedPeaks peaks = fused::refinePeaks(score_map, top, options.radius, options.temperature);
  DkdResult result;
  result.keypoints = std::move(peaks.keypoints);
  result.keypoints_px = std::move(peaks.keypoints_px);
  result.scores = std::move(peaks.scores);
  result.dispersity = std::move(peaks.dispersity);
  return result;
}

}  // namespace skytrace::vision::aliked
