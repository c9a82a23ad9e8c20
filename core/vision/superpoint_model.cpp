#include "core/vision/superpoint_model_impl.h"

#include <algorithm>
#include <sstream>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/fused_ops.h"

namespace skytrace::vision::superpoint {
namespace {

constexpr int64_t kCell = 8;  // the encoder's total stride
// Half precision: the gray input as this many channels (the first the image, the rest
// zeros, as conv1a's padded weights), so that conv1a runs on tensor cores in the
// channels-last layout the later layers read, instead of a one-channel kernel and a
// layout copy of its 64-channel output.
constexpr int64_t kHalfInputChannels = 8;

// The original's max_pool2d(kernel 2r+1, stride 1, padding r) as two one-dimensional
// pools (a maximum is separable; the padding counts as -inf in both): the same values
// with 2(2r+1) instead of (2r+1)^2 reads per pixel (r = 4: 18 instead of 81).
at::Tensor maxPool(const at::Tensor& x, int radius) {
  const int64_t window = 2 * radius + 1;
  const at::Tensor rows = at::max_pool2d(x, {window, 1}, {1, 1}, {radius, 0});
  return at::max_pool2d(rows, {1, window}, {1, 1}, {0, radius});
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
  // Softmax over the 65 channels as the last dimension (channels-last maps, as the
  // float16 path makes them, need no copy for it); the dustbin dropped after it.
  const at::Tensor probabilities =
      at::softmax(semi.permute({0, 2, 3, 1}), -1).narrow(-1, 0, kCell * kCell);  // [1,h,w,64]
  return probabilities.reshape({1, h, w, kCell, kCell})
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

at::Tensor SuperPointModel::Conv::withRelu(const at::Tensor& x) const {
  if (fused_relu) return at::cudnn_convolution_relu(x, weight, bias, {1, 1}, {padding, padding}, {1, 1}, 1);
  return (*this)(x).relu_();
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
  fused_kernels_ = device_.is_cuda() && fused::built();
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
    if (!trace) return conv.withRelu(x);
    at::Tensor y = conv(x);
    if (trace && traced) *traced = y.to(at::kFloat).clone();
    return y.relu_();
  };
  const auto pool = [&](const at::Tensor& x) {
    if (fused_kernels_ && half_precision_ && x.size(1) % 8 == 0 && x.is_contiguous(at::MemoryFormat::ChannelsLast))
      return fused::maxPool2x2(x);  // no index output (ATen's writes 4x the values' bytes)
    return at::max_pool2d(x, {2, 2}, {2, 2});
  };
  DenseTrace* t = trace;
  at::Tensor input = image;
  if (half_precision_) {
    input = at::zeros({1, kHalfInputChannels, image.size(2), image.size(3)}, conv1a_.weight.options())
                .contiguous(at::MemoryFormat::ChannelsLast);
    input.narrow(1, 0, 1).copy_(image);
  }
  at::Tensor x = convRelu(conv1a_, input, t ? &t->conv1a : nullptr);
  x = pool(convRelu(conv1b_, x, t ? &t->conv1b : nullptr));
  x = convRelu(conv2a_, x, nullptr);
  x = pool(convRelu(conv2b_, x, t ? &t->conv2b : nullptr));
  x = convRelu(conv3a_, x, nullptr);
  x = pool(convRelu(conv3b_, x, t ? &t->conv3b : nullptr));
  x = convRelu(conv4a_, x, nullptr);
  x = convRelu(conv4b_, x, t ? &t->conv4b : nullptr);

  DenseOutput out;
  out.semi = convPb_(convRelu(convPa_, x, t ? &t->convPa : nullptr)).to(at::kFloat);
  const at::Tensor raw = convDb_(convRelu(convDa_, x, t ? &t->convDa : nullptr)).to(at::kFloat);
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

at::Tensor SuperPointModel::inputFromPixels(const at::Tensor& pixels) {
  checkArgument(pixels.scalar_type() == at::kByte &&
                    (pixels.dim() == 2 || (pixels.dim() == 3 && (pixels.size(2) == 1 || pixels.size(2) == 3))),
                "SuperPoint: pixels must be [H,W] or [H,W,1] gray or [H,W,3] BGR uint8, got " +
                    shapeToString(pixels.sizes()));
  at::Tensor gray;
  if (pixels.dim() == 3 && pixels.size(2) == 3) {
    // OpenCV's BGR2GRAY for 8-bit pixels (4.6, the 15-bit coefficients of 0.114, 0.587,
    // 0.299): Y = (3735 B + 19235 G + 9798 R + 2^14) >> 15, equal to cv::cvtColor on every
    // one of 2^20 random pixels (14-bit coefficients differ on 0.2 % of them).
    const at::Tensor bgr = pixels.to(at::kInt);
    gray = (bgr.select(2, 0) * 3735 + bgr.select(2, 1) * 19235 + bgr.select(2, 2) * 9798 + 16384).div(32768, "floor");
  } else {
    gray = pixels.dim() == 3 ? pixels.select(2, 0) : pixels;
  }
  return gray.to(at::kFloat).div(255).reshape({1, 1, pixels.size(0), pixels.size(1)});
}

SuperPointOutput SuperPointModel::forward(const at::Tensor& image,
                                          const SuperPointConfig& config) const {
  checkInputs(image, config);
  return forwardFrom(image, config, /*pixels=*/false);
}

SuperPointOutput SuperPointModel::forwardPixels(const at::Tensor& pixels,
                                                const SuperPointConfig& config) const {
  config.check();
  checkArgument(pixels.defined() && pixels.device() == device_,
                "SuperPoint: pixels must be on the model's device (" + device_.str() + ")");
  checkArgument(pixels.dim() >= 2 && pixels.size(0) >= kCell && pixels.size(1) >= kCell,
                "SuperPoint: image too small (at least 8x8)");
  return forwardFrom(pixels, config, /*pixels=*/true);
}

SuperPointOutput SuperPointModel::forwardFrom(const at::Tensor& input, const SuperPointConfig& config,
                                              bool pixels) const {
  if (config.max_keypoints > 0 && input.is_cuda()) {
    // The fast path on CUDA: one graph replay per input shape, then one host
    // synchronisation for the keypoint count.
    std::ostringstream key;
    key << "max_keypoints=" << config.max_keypoints << " nms=" << config.nms_radius
        << " threshold=" << config.keypoint_threshold << " border=" << config.remove_borders
        << " pixels=" << pixels;
    const auto outputs = graphs_->run(
        key.str(), {input}, [this, config, pixels](const std::vector<at::Tensor>& inputs) {
          at::Tensor count;
          const at::Tensor image = pixels ? inputFromPixels(inputs[0]) : inputs[0];
          const SuperPointOutput o = forwardFixedCount(image, config, &count);
          return std::vector<at::Tensor>{o.keypoints_px, o.scores, o.descriptors, count};
        });
    if (outputs) {
      const auto& t = *outputs;
      const int64_t n = t[3].item<int64_t>();
      return {t[0].narrow(0, 0, n), t[1].narrow(0, 0, n), t[2].narrow(0, 0, n)};
    }
  }
  const at::Tensor image = pixels ? inputFromPixels(input) : input;
  checkImage(image);
  const DenseOutput maps = dense(image);
  const at::Tensor heatmap = nms(heatmapFromLogits(maps.semi), config.nms_radius);
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
  const at::Tensor heatmap = nms(heatmapFromLogits(maps.semi), config.nms_radius);
  auto [keypoints, scores, selected] = selectKeypointsFixed(heatmap, config);
  *count = selected;
  SuperPointOutput out;
  out.descriptors = sampleDescriptors(keypoints, maps.descriptors);
  out.keypoints_px = std::move(keypoints);
  out.scores = std::move(scores);
  return out;
}

at::Tensor SuperPointModel::nms(const at::Tensor& heatmap, int nms_radius) const {
  // The border stays: selectKeypoints applies the original's remove_borders.
  if (fused_kernels_ && heatmap.is_cuda())
    return fused::nmsScores(heatmap.contiguous(), nms_radius, /*border=*/0).view(heatmap.sizes());
  return simpleNms(heatmap, nms_radius);
}

void SuperPointModel::setFusedKernelsEnabled(bool enabled) {
  if (enabled && !(device_.is_cuda() && fused::built()))
    throw InvalidArgument("SuperPoint fused kernels need a CUDA device and a build with them");
  if (enabled == fused_kernels_) return;
  fused_kernels_ = enabled;
  graphs_.reset();  // captured with the other NMS
}

void SuperPointModel::setHalfPrecision(bool enabled) {
  if (enabled == half_precision_) return;
  if (enabled && !device_.is_cuda())
    throw InvalidArgument("SuperPoint half precision needs a CUDA device (model on " + device_.str() + ")");
  // conv1a reads kHalfInputChannels channels in half precision: zero weights beyond the first.
  conv1a_.weight = enabled ? at::constant_pad_nd(conv1a_.weight, {0, 0, 0, 0, 0, kHalfInputChannels - 1})
                           : conv1a_.weight.narrow(1, 0, 1);
  for (Conv* conv : {&conv1a_, &conv1b_, &conv2a_, &conv2b_, &conv3a_, &conv3b_, &conv4a_, &conv4b_,
                     &convPa_, &convPb_, &convDa_, &convDb_}) {
    conv->weight = enabled ? conv->weight.to(at::kHalf).contiguous(at::MemoryFormat::ChannelsLast)
                           : conv->weight.to(at::kFloat).contiguous();
    conv->bias = conv->bias.to(enabled ? at::kHalf : at::kFloat);
    conv->fused_relu = false;
    if (!enabled) continue;
    // cuDNN's fused convolution + bias + ReLU, where it takes this layer's shape: a
    // probe on a small input (an unsupported configuration throws here, not in a run).
    try {
      const at::Tensor probe =
          at::rand({1, conv->weight.size(1), 16, 16}, conv->weight.options()).contiguous(at::MemoryFormat::ChannelsLast);
      const at::Tensor fused =
          at::cudnn_convolution_relu(probe, conv->weight, conv->bias, {1, 1}, {conv->padding, conv->padding}, {1, 1}, 1);
      const at::Tensor plain = at::conv2d(probe, conv->weight, conv->bias, {1, 1}, {conv->padding, conv->padding}).relu_();
      conv->fused_relu = (fused - plain).abs().max().item<double>() < 1e-2;
    } catch (const std::exception&) {
      conv->fused_relu = false;
    }
  }
  half_precision_ = enabled;
  graphs_.reset();  // captured with the other weights
}

void SuperPointModel::setCudaGraphsEnabled(bool enabled) { graphs_->setEnabled(enabled); }

bool SuperPointModel::cudaGraphsEnabled() const { return graphs_->enabled(); }

int SuperPointModel::failedCudaGraphCaptures() const { return graphs_->failedCaptures(); }

SuperPointModel loadSuperPointModel(const std::string& weights_path, at::Device device,
                                    int descriptor_dim) {
  return SuperPointModel(loadStateDict(weights_path), device, descriptor_dim);
}

}  // namespace skytrace::vision::superpoint
