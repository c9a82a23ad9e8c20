#include "core/vision/superpoint_model_impl.h"

#include <algorithm>
#include <sstream>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/cuda_graph_impl.h"

namespace skytrace::vision::superpoint {
namespace {

constexpr int64_t kCell = 8;  // the encoder's total stride

at::Tensor maxPool(const at::Tensor& x, int radius) {
  const int64_t window = 2 * radius + 1;
  return at::max_pool2d(x, {window, window}, {1, 1}, {radius, radius});
}

}  // namespace

void SuperPointConfig::check() const {
  checkArgument(descriptor_dim > 0, "superpoint: descriptor_dim must be positive");
  checkArgument(nms_radius >= 0 && nms_radius <= 32,
                "superpoint: nms_radius must be in 0..32, got " + std::to_string(nms_radius));
  checkArgument(keypoint_threshold >= 0.0f && keypoint_threshold < 1.0f,
                "superpoint: keypoint_threshold must be in [0, 1), got " +
                    std::to_string(keypoint_threshold));
  checkArgument(max_keypoints == -1 || max_keypoints > 0,
                "superpoint: max_keypoints must be positive or -1, got " +
                    std::to_string(max_keypoints));
  checkArgument(remove_borders >= 0,
                "superpoint: remove_borders must be >= 0, got " + std::to_string(remove_borders));
}

at::Tensor heatmapFromLogits(const at::Tensor& semi) {
  const int64_t h = semi.size(2), w = semi.size(3);
  const at::Tensor probabilities = at::softmax(semi, 1).narrow(1, 0, kCell * kCell);  // [1,64,h,w]
  return probabilities.permute({0, 2, 3, 1})
      .reshape({1, h, w, kCell, kCell})
      .permute({0, 1, 3, 2, 4})
      .reshape({1, h * kCell, w * kCell});
}

at::Tensor simpleNms(const at::Tensor& scores, int nms_radius) {
  const at::Tensor zeros = at::zeros_like(scores);
  at::Tensor max_mask = scores == maxPool(scores, nms_radius);
  for (int round = 0; round < 2; ++round) {
    const at::Tensor suppressed = maxPool(max_mask.to(at::kFloat), nms_radius) > 0;
    const at::Tensor suppressed_scores = at::where(suppressed, zeros, scores);
    const at::Tensor new_max_mask = suppressed_scores == maxPool(suppressed_scores, nms_radius);
    max_mask = max_mask | (new_max_mask & suppressed.logical_not());
  }
  return at::where(max_mask, scores, zeros);
}

std::pair<at::Tensor, at::Tensor> selectKeypoints(const at::Tensor& heatmap_nms,
                                                  const SuperPointConfig& config) {
  const at::Tensor map = heatmap_nms.select(0, 0);  // [H,W]
  const int64_t height = map.size(0), width = map.size(1);
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(map.device());
  // Threshold and border removal in one mask: the same set, in the same row-major
  // order, as torch.nonzero followed by the original's remove_borders.
  const int64_t border = config.remove_borders;
  const at::Tensor rows = at::arange(height, long_options).unsqueeze(1);
  const at::Tensor cols = at::arange(width, long_options).unsqueeze(0);
  const at::Tensor inside = (rows >= border) & (rows < height - border) & (cols >= border) &
                            (cols < width - border);
  const at::Tensor row_col = at::nonzero((map > config.keypoint_threshold) & inside);  // [K,2]
  at::Tensor scores = map.reshape({-1}).index_select(
      0, row_col.select(1, 0) * width + row_col.select(1, 1));
  at::Tensor selected = row_col;
  if (config.max_keypoints >= 0 && config.max_keypoints < row_col.size(0)) {
    auto [top_scores, top_indices] = at::topk(scores, config.max_keypoints, 0);
    scores = top_scores;
    selected = row_col.index_select(0, top_indices);
  }
  return {selected.flip({1}).to(at::kFloat), scores};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> selectKeypointsFixed(
    const at::Tensor& heatmap_nms, const SuperPointConfig& config) {
  checkArgument(config.max_keypoints > 0, "superpoint: the fixed-count selection needs max_keypoints > 0");
  const at::Tensor map = heatmap_nms.select(0, 0);  // [H,W]
  const int64_t height = map.size(0), width = map.size(1);
  const int64_t pixels = height * width;
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(map.device());
  const int64_t border = config.remove_borders;
  const at::Tensor rows = at::arange(height, long_options).unsqueeze(1);
  const at::Tensor cols = at::arange(width, long_options).unsqueeze(0);
  const at::Tensor inside = (rows >= border) & (rows < height - border) & (cols >= border) &
                            (cols < width - border);
  const at::Tensor candidate = ((map > config.keypoint_threshold) & inside).reshape({-1});
  const at::Tensor flat_map = map.reshape({-1});
  const int64_t k = std::min<int64_t>(config.max_keypoints, pixels);
  // Candidates first (scores > threshold >= 0), by descending score.
  const at::Tensor top_index =
      std::get<1>(at::topk(at::where(candidate, flat_map, at::full({}, -1.0f, map.options())), k));
  const at::Tensor candidates = candidate.sum();
  // At most k candidates: the original keeps them all in row-major order.
  const at::Tensor is_candidate = candidate.index_select(0, top_index);
  const at::Tensor row_major =
      std::get<0>(at::where(is_candidate, top_index, at::full({}, pixels, long_options)).sort(0));
  const at::Tensor index =
      at::where(candidates > k, top_index, row_major.clamp_max(pixels - 1));
  const at::Tensor keypoints =
      at::stack({index.remainder(width), index.div(width, "trunc")}, 1).to(at::kFloat);
  return {keypoints, flat_map.index_select(0, index), candidates.clamp_max(k)};
}

at::Tensor sampleDescriptors(const at::Tensor& keypoints_px, const at::Tensor& descriptors) {
  const int64_t channels = descriptors.size(1), h = descriptors.size(2), w = descriptors.size(3);
  if (keypoints_px.size(0) == 0) return at::empty({0, channels}, descriptors.options());
  const double s = static_cast<double>(kCell);
  const float scale_x = static_cast<float>(w * s - s / 2 - 0.5);
  const float scale_y = static_cast<float>(h * s - s / 2 - 0.5);
  // The original's operation order (float32); the divisors are scalars rather than a
  // small tensor, which would cost a host-to-device copy (and a sync) on a GPU.
  const at::Tensor shifted = (keypoints_px - s / 2) + 0.5;
  const at::Tensor grid =
      at::stack({shifted.select(1, 0) / scale_x, shifted.select(1, 1) / scale_y}, 1) * 2 - 1;
  const at::Tensor sampled =
      at::grid_sampler(descriptors, grid.view({1, 1, -1, 2}), /*bilinear*/ 0, /*zeros*/ 0,
                       /*align_corners=*/true);  // [1,D,1,N]
  const at::Tensor rows = sampled.reshape({channels, -1}).t();  // [N,D]
  return rows / at::linalg_vector_norm(rows, 2, {1}, true).clamp_min(1e-12);
}

// --- SuperPointModel -----------------------------------------------------------------

at::Tensor SuperPointModel::Conv::operator()(const at::Tensor& x) const {
  return at::conv2d(x, weight, bias, {1, 1}, {padding, padding});
}

void SuperPointModel::bindConv(StateDictBinder& binder, const std::string& name, int64_t in,
                               int64_t out, int64_t kernel, Conv* conv) {
  conv->padding = kernel / 2;
  binder.bind(name + ".weight", {out, in, kernel, kernel}, &conv->weight);
  binder.bind(name + ".bias", {out}, &conv->bias);
}

SuperPointModel::SuperPointModel(const StateDict& weights, at::Device device, int descriptor_dim)
    : device_(device), descriptor_dim_(descriptor_dim) {
  StateDictBinder binder(weights, "SuperPoint",
                         at::TensorOptions().dtype(at::kFloat).device(device));
  constexpr int64_t c1 = 64, c2 = 64, c3 = 128, c4 = 128, c5 = 256;
  bindConv(binder, "conv1a", 1, c1, 3, &conv1a_);
  bindConv(binder, "conv1b", c1, c1, 3, &conv1b_);
  bindConv(binder, "conv2a", c1, c2, 3, &conv2a_);
  bindConv(binder, "conv2b", c2, c2, 3, &conv2b_);
  bindConv(binder, "conv3a", c2, c3, 3, &conv3a_);
  bindConv(binder, "conv3b", c3, c3, 3, &conv3b_);
  bindConv(binder, "conv4a", c3, c4, 3, &conv4a_);
  bindConv(binder, "conv4b", c4, c4, 3, &conv4b_);
  bindConv(binder, "convPa", c4, c5, 3, &convPa_);
  bindConv(binder, "convPb", c5, kCell * kCell + 1, 1, &convPb_);
  bindConv(binder, "convDa", c4, c5, 3, &convDa_);
  bindConv(binder, "convDb", c5, descriptor_dim, 1, &convDb_);
  binder.finish();
}

void SuperPointModel::checkImage(const at::Tensor& image) const {
  if (image.dim() != 4 || image.size(0) != 1 || image.size(1) != 1 ||
      image.scalar_type() != at::kFloat)
    throw InvalidArgument("SuperPoint expects a [1,1,H,W] float32 grayscale tensor, got " +
                          shapeToString(image.sizes()));
  if (image.size(2) < kCell || image.size(3) < kCell)
    throw InvalidArgument("SuperPoint: image of " + std::to_string(image.size(3)) + "x" +
                          std::to_string(image.size(2)) + " is too small (at least 8x8)");
  if (image.device() != device_)
    throw InvalidArgument("SuperPoint: image on " + image.device().str() + ", model on " +
                          device_.str());
}

DenseOutput SuperPointModel::dense(const at::Tensor& image, DenseTrace* trace) const {
  checkImage(image);
  // conv -> (pre-ReLU copy for the trace) -> ReLU in place.
  const auto convRelu = [&](const Conv& conv, const at::Tensor& x, at::Tensor* traced) {
    at::Tensor y = conv(x);
    if (trace && traced) *traced = y.clone();
    return y.relu_();
  };
  const auto pool = [](const at::Tensor& x) { return at::max_pool2d(x, {2, 2}, {2, 2}); };
  DenseTrace* t = trace;
  at::Tensor x = convRelu(conv1a_, image, t ? &t->conv1a : nullptr);
  x = pool(convRelu(conv1b_, x, t ? &t->conv1b : nullptr));
  x = convRelu(conv2a_, x, nullptr);
  x = pool(convRelu(conv2b_, x, t ? &t->conv2b : nullptr));
  x = convRelu(conv3a_, x, nullptr);
  x = pool(convRelu(conv3b_, x, t ? &t->conv3b : nullptr));
  x = convRelu(conv4a_, x, nullptr);
  x = convRelu(conv4b_, x, t ? &t->conv4b : nullptr);

  DenseOutput out;
  out.semi = convPb_(convRelu(convPa_, x, t ? &t->convPa : nullptr));
  const at::Tensor raw = convDb_(convRelu(convDa_, x, t ? &t->convDa : nullptr));
  if (trace) trace->descriptors_raw = raw;
  out.descriptors = raw / at::linalg_vector_norm(raw, 2, {1}, true).clamp_min(1e-12);
  return out;
}

void SuperPointModel::checkInputs(const at::Tensor& image, const SuperPointConfig& config) const {
  config.check();
  if (config.descriptor_dim != descriptor_dim_)
    throw InvalidArgument("SuperPoint: config asks for " + std::to_string(config.descriptor_dim) +
                          "-D descriptors, the weights give " + std::to_string(descriptor_dim_));
  checkImage(image);
}

SuperPointOutput SuperPointModel::forward(const at::Tensor& image,
                                          const SuperPointConfig& config) const {
  checkInputs(image, config);
  if (config.max_keypoints > 0 && image.is_cuda()) {
    // The fast path on CUDA: one graph replay per input shape, then one host
    // synchronisation for the keypoint count.
    std::ostringstream key;
    key << "max_keypoints=" << config.max_keypoints << " nms=" << config.nms_radius
        << " threshold=" << config.keypoint_threshold << " border=" << config.remove_borders;
    const auto outputs = graphs_->run(
        key.str(), {image}, [this, config](const std::vector<at::Tensor>& inputs) {
          at::Tensor count;
          const SuperPointOutput o = forwardFixedCount(inputs[0], config, &count);
          return std::vector<at::Tensor>{o.keypoints_px, o.scores, o.descriptors, count};
        });
    if (outputs) {
      const auto& t = *outputs;
      const int64_t n = t[3].item<int64_t>();
      return {t[0].narrow(0, 0, n), t[1].narrow(0, 0, n), t[2].narrow(0, 0, n)};
    }
  }
  const DenseOutput maps = dense(image);
  const at::Tensor heatmap = simpleNms(heatmapFromLogits(maps.semi), config.nms_radius);
  auto [keypoints, scores] = selectKeypoints(heatmap, config);
  SuperPointOutput out;
  out.descriptors = sampleDescriptors(keypoints, maps.descriptors);
  out.keypoints_px = std::move(keypoints);
  out.scores = std::move(scores);
  return out;
}

SuperPointOutput SuperPointModel::forwardFixedCount(const at::Tensor& image,
                                                    const SuperPointConfig& config,
                                                    at::Tensor* count) const {
  checkInputs(image, config);
  const DenseOutput maps = dense(image);
  const at::Tensor heatmap = simpleNms(heatmapFromLogits(maps.semi), config.nms_radius);
  auto [keypoints, scores, selected] = selectKeypointsFixed(heatmap, config);
  *count = selected;
  SuperPointOutput out;
  out.descriptors = sampleDescriptors(keypoints, maps.descriptors);
  out.keypoints_px = std::move(keypoints);
  out.scores = std::move(scores);
  return out;
}

void SuperPointModel::setCudaGraphsEnabled(bool enabled) { graphs_->setEnabled(enabled); }

bool SuperPointModel::cudaGraphsEnabled() const { return graphs_->enabled(); }

int SuperPointModel::failedCudaGraphCaptures() const { return graphs_->failedCaptures(); }

SuperPointModel loadSuperPointModel(const std::string& weights_path, at::Device device,
                                    int descriptor_dim) {
  return SuperPointModel(loadStateDict(weights_path), device, descriptor_dim);
}

}  // namespace skytrace::vision::superpoint
