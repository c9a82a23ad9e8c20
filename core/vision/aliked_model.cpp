#include "core/vision/aliked_model_impl.h"

#include <sstream>

#include "core/util/error.h"
#include "core/vision/aliked_fused_ops.h"
#include "core/vision/cuda_graph_impl.h"

namespace skytrace::vision::aliked {
namespace {

constexpr int64_t kPadMultiple = 32;

at::Tensor upsampleTo(const at::Tensor& x, int64_t height, int64_t width) {
  // nn.Upsample(scale_factor=s, mode='bilinear', align_corners=True): with
  // align_corners the sampling depends only on the input and output sizes.
  return at::upsample_bilinear2d(x, {height, width}, /*align_corners=*/true);
}

// InputPadder: pad to a multiple of 32, split floor/ceil (left, right, top, bottom).
std::array<int64_t, 4> paddingOf(int64_t height, int64_t width) {
  const int64_t pad_h = ((height / kPadMultiple + 1) * kPadMultiple - height) % kPadMultiple;
  const int64_t pad_w = ((width / kPadMultiple + 1) * kPadMultiple - width) % kPadMultiple;
  return {pad_w / 2, pad_w - pad_w / 2, pad_h / 2, pad_h - pad_h / 2};
}

at::Tensor replicationPadded(const at::Tensor& image, const std::array<int64_t, 4>& pad) {
  const bool any = pad[0] || pad[1] || pad[2] || pad[3];
  return any ? at::replication_pad2d(image, {pad[0], pad[1], pad[2], pad[3]}) : image;
}

bool fusedKernelsOn(const at::Device& device) { return device.is_cuda() && aliked::fused::built(); }

// The first `n` keypoint rows of a fixed-count output (forward's host-side narrowing).
AlikedOutput leadingRows(const AlikedOutput& fixed, int64_t n) {
  AlikedOutput out;
  out.keypoints = fixed.keypoints.narrow(0, 0, n);
  out.keypoints_px = fixed.keypoints_px.narrow(0, 0, n);
  out.scores = fixed.scores.narrow(0, 0, n);
  out.dispersity = fixed.dispersity.narrow(0, 0, n);
  out.descriptors = fixed.descriptors.narrow(0, 0, n);
  out.offsets = fixed.offsets.narrow(0, 0, n);
  out.score_map = fixed.score_map;
  return out;
}

}  // namespace

AlikedModel::AlikedModel(const AlikedConfig& config, const StateDict& weights, at::Device device)
    : config_(config),
      device_(device),
      fused_kernels_(fusedKernelsOn(device)),
      graphs_("ALIKED " + config.name) {
  StateDictBinder binder(weights, config.name, at::TensorOptions().dtype(at::kFloat).device(device));
  const int64_t c1 = config.c1, c2 = config.c2, c3 = config.c3, c4 = config.c4;
  const int64_t dim = config.dim;
  block1_.bind(binder, "block1", 3, c1, /*use_dcn=*/false);
  block2_.bind(binder, "block2", c1, c2, false);
  block3_.bind(binder, "block3", c2, c3, true);
  block4_.bind(binder, "block4", c3, c4, true);
  conv1_.bind(binder, "conv1", c1, dim / 4, 1, 0, false);
  conv2_.bind(binder, "conv2", c2, dim / 4, 1, 0, false);
  conv3_.bind(binder, "conv3", c3, dim / 4, 1, 0, false);
  conv4_.bind(binder, "conv4", dim, dim / 4, 1, 0, false);
  score_head_[0].bind(binder, "score_head.0", dim, 8, 1, 0, false);
  score_head_[1].bind(binder, "score_head.2", 8, 4, 3, 1, false);
  score_head_[2].bind(binder, "score_head.4", 4, 4, 3, 1, false);
  score_head_[3].bind(binder, "score_head.6", 4, 1, 3, 1, false);
  sddh_.bind(binder, "desc_head", dim, config.kernel_size, config.sample_count);
  binder.finish();
  sddh_.prepare();
  for (BatchNorm2d* bn : {&block1_.bn1, &block1_.bn2, &block2_.bn1, &block2_.bn2, &block3_.bn1,
                          &block3_.bn2, &block4_.bn1, &block4_.bn2})
    bn->prepare();
}

void AlikedModel::checkImage(const at::Tensor& image) {
  if (image.dim() != 4 || image.size(0) != 1 || image.size(1) != 3)
    throw InvalidArgument("ALIKED expects a [1,3,H,W] RGB image tensor, got " +
                          shapeToString(image.sizes()));
}

EncodedLevels AlikedModel::encode(const at::Tensor& image, DenseTrace* trace) const {
  checkImage(image);
  EncodedLevels out;
  const int64_t h = image.size(2), w = image.size(3);
  out.pad_lrtb = paddingOf(h, w);
  const auto& pad = out.pad_lrtb;
  const at::Tensor padded = replicationPadded(half_precision_ ? image.to(at::kHalf) : image, pad);
  out.height = h;
  out.width = w;
  out.padded_height = padded.size(2);
  out.padded_width = padded.size(3);

  // Encoder.
  const at::Tensor x1 = block1_(padded);                              // c1 x H x W
  const at::Tensor x2 = block2_(at::avg_pool2d(x1, {2, 2}, {2, 2}));  // c2 x H/2
  const at::Tensor x3 = block3_(at::avg_pool2d(x2, {4, 4}, {4, 4}));  // c3 x H/8
  const at::Tensor x4 = block4_(at::avg_pool2d(x3, {4, 4}, {4, 4}));  // c4 x H/32
  // Aggregation: 1x1 projections to dim/4 channels, then the SELU gate.
  out.levels = {conv1_(x1), conv2_(x2), conv3_(x3), conv4_(x4)};
  if (trace) {
    trace->blocks = {x1, x2, x3, x4};
    for (int i = 0; i < 4; ++i) trace->projections[i] = out.levels[i].clone();
    trace->pad_lrtb = pad;
  }
  for (auto& level : out.levels) seluInPlace(level);
  return out;
}

DenseMaps AlikedModel::extractDenseMap(const at::Tensor& image, DenseTrace* trace) const {
  const EncodedLevels encoded = encode(image, trace);
  const at::Tensor x1234 = concatenatedLevels(encoded);
  at::Tensor s = seluInPlace(score_head_[0](x1234));
  s = seluInPlace(score_head_[1](s));
  s = seluInPlace(score_head_[2](s));
  s = score_head_[3](s);
  if (trace) trace->score_logits = s.clone();

  DenseMaps maps;
  const auto& pad = encoded.pad_lrtb;
  maps.score_map =
      at::sigmoid(s).narrow(2, pad[2], encoded.height).narrow(3, pad[0], encoded.width).to(at::kFloat);
  maps.feature_map = (x1234 / at::linalg_vector_norm(x1234, 2, {1}, true).clamp_min(1e-12))
                         .narrow(2, pad[2], encoded.height)
                         .narrow(3, pad[0], encoded.width)
                         .to(at::kFloat);
  return maps;
}

at::Tensor AlikedModel::concatenatedLevels(const EncodedLevels& encoded) {
  const int64_t hp = encoded.padded_height, wp = encoded.padded_width;
  return at::cat({encoded.levels[0], upsampleTo(encoded.levels[1], hp, wp),
                  upsampleTo(encoded.levels[2], hp, wp), upsampleTo(encoded.levels[3], hp, wp)},
                 1);
}

at::Tensor AlikedModel::denseFeatureMap(const EncodedLevels& encoded) {
  const auto& pad = encoded.pad_lrtb;
  const at::Tensor x1234 = concatenatedLevels(encoded)
                               .narrow(2, pad[2], encoded.height)
                               .narrow(3, pad[0], encoded.width)
                               .to(at::kFloat);  // no-op unless the levels are float16
  return (x1234 / at::linalg_vector_norm(x1234, 2, {1}, true).clamp_min(1e-12)).contiguous();
}

at::Tensor AlikedModel::scoreMap(const EncodedLevels& encoded) const {
  const int64_t hp = encoded.padded_height, wp = encoded.padded_width;
  const int64_t quarter = config_.dim / 4;
  const at::Tensor& head0 = score_head_[0].weight;  // [8, dim, 1, 1]
  at::Tensor s = at::conv2d(encoded.levels[0], head0.narrow(1, 0, quarter));
  for (int i = 1; i < 4; ++i)
    s.add_(upsampleTo(at::conv2d(encoded.levels[i], head0.narrow(1, i * quarter, quarter)), hp, wp));
  s = seluInPlace(s);
  s = seluInPlace(score_head_[1](s));
  s = seluInPlace(score_head_[2](s));
  s = score_head_[3](s);
  const auto& pad = encoded.pad_lrtb;
  return at::sigmoid(s.narrow(2, pad[2], encoded.height).narrow(3, pad[0], encoded.width).to(at::kFloat))
      .contiguous();
}

namespace {

// The dense descriptor map of the original (cat of the upsampled levels, normalised),
// evaluated at the requested pixels only. Upsampling replicates
// upsample_bilinear2d(align_corners=True): source = ((in-1)/(out-1)) * dst.
class AggregatedFeatureLookup final : public FeatureLookup {
 public:
  explicit AggregatedFeatureLookup(const EncodedLevels& encoded) : e_(encoded) {
    // Channels-last copies [h*w, c]: a pixel's channels are contiguous for the gathers.
    for (int i = 0; i < 4; ++i) {
      const at::Tensor& level = encoded.levels[i][0];  // [c, h, w]
      rows_[i] = level.permute({1, 2, 0}).reshape({-1, level.size(0)}).contiguous();
      sizes_[i] = {level.size(1), level.size(2)};
    }
  }
  int64_t channels() const override { return 4 * e_.levels[0].size(1); }
  int64_t height() const override { return e_.height; }
  int64_t width() const override { return e_.width; }
  at::TensorOptions options() const override { return e_.levels[0].options(); }

  at::Tensor gather(const at::Tensor& flat_index) const override {
    const at::Tensor y = flat_index.div(e_.width, "trunc") + e_.pad_lrtb[2];  // padded frame
    const at::Tensor x = flat_index.remainder(e_.width) + e_.pad_lrtb[0];
    const at::Tensor values =
        at::cat({rows_[0].index_select(0, y * e_.padded_width + x), upsampledAt(1, y, x),
                 upsampledAt(2, y, x), upsampledAt(3, y, x)},
                1);  // [P, C]
    return values / at::linalg_vector_norm(values, 2, {1}, true).clamp_min(1e-12);
  }

 private:
  // Bilinear (align_corners=True) upsampling of level i to the padded frame, evaluated
  // at padded pixels (y, x). Returns [P, c].
  at::Tensor upsampledAt(int i, const at::Tensor& y, const at::Tensor& x) const {
    const int64_t h = sizes_[i][0], w = sizes_[i][1];
    const auto axis = [](const at::Tensor& dst, int64_t in, int64_t out) {
      const float scale = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
      const at::Tensor src = dst.to(at::kFloat) * scale;
      const at::Tensor i0 = src.to(at::kLong);  // truncation, src >= 0
      const at::Tensor lambda1 = (src - i0).clamp(0, 1).unsqueeze(1);
      const at::Tensor i1 = i0 + (i0 < in - 1).to(at::kLong);
      return std::make_tuple(i0, i1, 1 - lambda1, lambda1);
    };
    const auto [y0, y1, ly0, ly1] = axis(y, h, e_.padded_height);
    const auto [x0, x1, lx0, lx1] = axis(x, w, e_.padded_width);
    const auto v = [&](const at::Tensor& yy, const at::Tensor& xx) {
      return rows_[i].index_select(0, yy * w + xx);
    };
    return ly0 * (lx0 * v(y0, x0) + lx1 * v(y0, x1)) + ly1 * (lx0 * v(y1, x0) + lx1 * v(y1, x1));
  }

  const EncodedLevels& e_;
  std::array<at::Tensor, 4> rows_;
  std::array<std::array<int64_t, 2>, 4> sizes_{};
};

}  // namespace

AlikedOutput AlikedModel::describe(const at::Tensor& image, const EncodedLevels& encoded,
                                   const at::Tensor& score_map, DkdResult detected,
                                   SddhTrace* sddh_trace) const {
  // On the CPU the descriptor map is evaluated only where SDDH reads it; on a GPU it is
  // cheaper to materialise it (a few bandwidth-bound kernels) than to run the many small
  // kernels of the sparse evaluation, even inside a CUDA graph (H100, 640x480, 1024
  // keypoints: extraction 2.6 ms dense vs 3.6 ms sparse, docs/benchmarks.md). The sparse
  // path reads float32 levels only (the CPU has no float16 mode).
  SddhResult described =
      encoded.levels[0].is_cuda()
          ? sddh_(DenseFeatureLookup(denseFeatureMap(encoded)), detected.keypoints, sddh_trace)
          : sddh_(AggregatedFeatureLookup(encoded), detected.keypoints, sddh_trace);

  AlikedOutput out;
  const int64_t h = image.size(2), w = image.size(3);
  const at::Tensor wh = longPair(w - 1, h - 1, detected.keypoints.options());
  out.keypoints_px = wh * (detected.keypoints + 1) / 2;
  out.keypoints = std::move(detected.keypoints);
  out.scores = std::move(detected.scores);
  out.dispersity = std::move(detected.dispersity);
  out.descriptors = std::move(described.descriptors);
  out.offsets = std::move(described.offsets);
  out.score_map = score_map;
  return out;
}

AlikedOutput AlikedModel::forward(const at::Tensor& image, const DkdOptions& detection,
                                  SddhTrace* sddh_trace) const {
  checkImage(image);
  if (!sddh_trace && hasFixedPeakCount(detection) && image.is_cuda()) {
    // The fast path on CUDA: the whole extraction as one graph replay per input shape,
    // then one host synchronisation for the peak count. Threshold mode runs as top-k of
    // n_limit whose leading rows above the threshold are kept (the same set); none above
    // it means the original's fallback to the mean: the eager path below.
    std::ostringstream key;
    key << "top_k=" << detection.top_k << " threshold=" << detection.scores_threshold
        << " n_limit=" << detection.n_limit << " radius=" << detection.radius
        << " nms=" << detection.nms_radius << " temperature=" << detection.temperature;
    const auto outputs = graphs_->run(
        key.str(), {image}, [this, detection](const std::vector<at::Tensor>& inputs) {
          at::Tensor peak_count;
          const AlikedOutput o = forwardFixedCount(inputs[0], detection, &peak_count);
          return std::vector<at::Tensor>{o.keypoints, o.keypoints_px, o.scores, o.dispersity,
                                         o.descriptors, o.offsets, o.score_map, peak_count};
        });
    if (outputs) {
      const auto& t = *outputs;
      AlikedOutput fixed;
      fixed.keypoints = t[0];
      fixed.keypoints_px = t[1];
      fixed.scores = t[2];
      fixed.dispersity = t[3];
      fixed.descriptors = t[4];
      fixed.offsets = t[5];
      fixed.score_map = t[6];
      const int64_t kept = t[7].item<int64_t>();
      if (kept > 0 || detection.top_k > 0) return leadingRows(fixed, kept);
    }
  }
  if (!sddh_trace && usesFusedKernels(image, detection)) {
    at::Tensor peak_count;
    const AlikedOutput fixed = forwardFusedFixedCount(image, detection, &peak_count);
    const int64_t kept = peak_count.item<int64_t>();
    if (kept > 0 || detection.top_k > 0) return leadingRows(fixed, kept);
  }
  const EncodedLevels encoded = encode(image);
  const at::Tensor score_map = scoreMap(encoded);
  return describe(image, encoded, score_map, detectKeypoints(score_map, detection), sddh_trace);
}

AlikedOutput AlikedModel::forwardFixedCount(const at::Tensor& image, const DkdOptions& detection,
                                            at::Tensor* peak_count) const {
  checkImage(image);
  if (usesFusedKernels(image, detection)) return forwardFusedFixedCount(image, detection, peak_count);
  const EncodedLevels encoded = encode(image);
  const at::Tensor score_map = scoreMap(encoded);
  return describe(image, encoded, score_map,
                  detectTopKPeaksFixed(score_map, detection, peak_count), nullptr);
}

bool AlikedModel::usesFusedKernels(const at::Tensor& image, const DkdOptions& detection) const {
  return fused_kernels_ && image.is_cuda() && image.scalar_type() == at::kFloat && !half_precision_ &&
         hasFixedPeakCount(detection) && detection.radius >= 1 && detection.radius <= 4 && config_.dim / 4 <= 32;
}

AlikedOutput AlikedModel::forwardFusedFixedCount(const at::Tensor& image, const DkdOptions& detection,
                                                 at::Tensor* peak_count) const {
  const int64_t h = image.size(2), w = image.size(3);
  const std::array<int64_t, 4> pad = paddingOf(h, w);
  // Encoder: each BatchNorm + SELU (+ residual) is one pass, deformable sampling one kernel.
  const at::Tensor x1 = block1_.forwardFused(replicationPadded(image, pad));
  const at::Tensor x2 = block2_.forwardFused(at::avg_pool2d(x1, {2, 2}, {2, 2}));
  const at::Tensor x3 = block3_.forwardFused(at::avg_pool2d(x2, {4, 4}, {4, 4}));
  const at::Tensor x4 = block4_.forwardFused(at::avg_pool2d(x3, {4, 4}, {4, 4}));
  fused::Levels levels;
  levels.channels_last = {fused::seluChannelsLast(conv1_(x1)), fused::seluChannelsLast(conv2_(x2)),
                          fused::seluChannelsLast(conv3_(x3)), fused::seluChannelsLast(conv4_(x4))};
  levels.pad_left = pad[0];
  levels.pad_top = pad[2];
  levels.height = h;
  levels.width = w;
  const at::Tensor score_map = fused::scoreMap(
      levels, {score_head_[0].weight, score_head_[1].weight, score_head_[2].weight, score_head_[3].weight});
  const DkdResult detected = detectTopKPeaksFused(score_map, detection, peak_count);
  SddhResult described = sddh_.forwardFused(levels, detected.keypoints);

  AlikedOutput out;
  out.keypoints = detected.keypoints;
  out.keypoints_px = detected.keypoints_px;
  out.scores = detected.scores;
  out.dispersity = detected.dispersity;
  out.descriptors = std::move(described.descriptors);
  out.offsets = std::move(described.offsets);
  out.score_map = score_map;
  return out;
}

void AlikedModel::setFusedKernelsEnabled(bool enabled) {
  if (enabled && !fused::built())
    throw InvalidArgument("ALIKED fused CUDA kernels are not built into this binary");
  if (enabled == fused_kernels_) return;
  fused_kernels_ = enabled;
  graphs_.reset();  // captured with the other path
}

void AlikedModel::setHalfPrecision(bool enabled) {
  if (enabled == half_precision_) return;
  if (enabled && !device_.is_cuda())
    throw InvalidArgument("ALIKED half precision needs a CUDA device (model on " + device_.str() + ")");
  const at::ScalarType type = enabled ? at::kHalf : at::kFloat;
  block1_.castTo(type);
  block2_.castTo(type);
  block3_.castTo(type);
  block4_.castTo(type);
  for (Conv2d* conv : {&conv1_, &conv2_, &conv3_, &conv4_}) conv->castTo(type);
  for (Conv2d& conv : score_head_) conv.castTo(type);
  half_precision_ = enabled;
  graphs_.reset();  // captured with the other weights
}

void AlikedModel::setCudaGraphsEnabled(bool enabled) { graphs_->setEnabled(enabled); }

bool AlikedModel::cudaGraphsEnabled() const { return graphs_->enabled(); }

int AlikedModel::failedCudaGraphCaptures() const { return graphs_->failedCaptures(); }

AlikedModel loadAlikedModel(const std::string& variant, const std::string& weights_path,
                            at::Device device) {
  const AlikedConfig& config = alikedConfig(variant);
  const StateDict weights = loadStateDict(weights_path);
  return AlikedModel(config, weights, device);
}

}  // namespace skytrace::vision::aliked

namespace skytrace::vision {

bool alikedFusedKernelsBuilt() { return aliked::fused::built(); }

}  // namespace skytrace::vision
