#include "core/vision/aliked_model_impl.h"

#include "core/util/error.h"

namespace skytrace::vision::aliked {
namespace {

constexpr int64_t kPadMultiple = 32;

at::Tensor upsampleTo(const at::Tensor& x, int64_t height, int64_t width) {
  // nn.Upsample(scale_factor=s, mode='bilinear', align_corners=True): with
  // align_corners the sampling depends only on the input and output sizes.
  return at::upsample_bilinear2d(x, {height, width}, /*align_corners=*/true);
}

}  // namespace

AlikedModel::AlikedModel(const AlikedConfig& config, const StateDict& weights, at::Device device)
    : config_(config), device_(device) {
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
}

DenseMaps AlikedModel::extractDenseMap(const at::Tensor& image, DenseTrace* trace) const {
  if (image.dim() != 4 || image.size(0) != 1 || image.size(1) != 3)
    throw InvalidArgument("ALIKED expects a [1,3,H,W] RGB image tensor, got " +
                          shapeToString(image.sizes()));
  const int64_t h = image.size(2), w = image.size(3);
  // InputPadder: pad to a multiple of 32, split floor/ceil, replicate.
  const int64_t pad_h = ((h / kPadMultiple + 1) * kPadMultiple - h) % kPadMultiple;
  const int64_t pad_w = ((w / kPadMultiple + 1) * kPadMultiple - w) % kPadMultiple;
  const std::array<int64_t, 4> pad = {pad_w / 2, pad_w - pad_w / 2, pad_h / 2, pad_h - pad_h / 2};
  const at::Tensor padded =
      (pad_h || pad_w) ? at::replication_pad2d(image, {pad[0], pad[1], pad[2], pad[3]}) : image;
  const int64_t hp = padded.size(2), wp = padded.size(3);

  // Encoder.
  at::Tensor x1 = block1_(padded);                                // c1 x H x W
  at::Tensor x2 = block2_(at::avg_pool2d(x1, {2, 2}, {2, 2}));    // c2 x H/2
  at::Tensor x3 = block3_(at::avg_pool2d(x2, {4, 4}, {4, 4}));    // c3 x H/8
  at::Tensor x4 = block4_(at::avg_pool2d(x3, {4, 4}, {4, 4}));    // c4 x H/32
  // Aggregation.
  at::Tensor p1 = conv1_(x1), p2 = conv2_(x2), p3 = conv3_(x3), p4 = conv4_(x4);
  if (trace) {
    trace->blocks = {x1, x2, x3, x4};
    trace->projections = {p1.clone(), p2.clone(), p3.clone(), p4.clone()};
    trace->pad_lrtb = pad;
  }
  p1 = seluInPlace(p1);
  p2 = upsampleTo(seluInPlace(p2), hp, wp);
  p3 = upsampleTo(seluInPlace(p3), hp, wp);
  p4 = upsampleTo(seluInPlace(p4), hp, wp);
  const at::Tensor x1234 = at::cat({p1, p2, p3, p4}, 1);
  x1.reset();
  x2.reset();
  // Score head.
  at::Tensor s = seluInPlace(score_head_[0](x1234));
  s = seluInPlace(score_head_[1](s));
  s = seluInPlace(score_head_[2](s));
  s = score_head_[3](s);
  if (trace) trace->score_logits = s.clone();

  DenseMaps maps;
  maps.score_map = at::sigmoid(s);
  maps.feature_map = x1234 / at::linalg_vector_norm(x1234, 2, {1}, true).clamp_min(1e-12);
  if (pad_h || pad_w) {
    maps.score_map = maps.score_map.narrow(2, pad[2], h).narrow(3, pad[0], w);
    maps.feature_map = maps.feature_map.narrow(2, pad[2], h).narrow(3, pad[0], w);
  }
  return maps;
}

AlikedOutput AlikedModel::forward(const at::Tensor& image, const DkdOptions& detection,
                                  SddhTrace* sddh_trace) const {
  const DenseMaps maps = extractDenseMap(image);
  const at::Tensor feature_map = maps.feature_map.contiguous();
  const at::Tensor score_map = maps.score_map.contiguous();
  DkdResult detected = detectKeypoints(score_map, detection);
  SddhResult described = sddh_(feature_map, detected.keypoints, sddh_trace);

  AlikedOutput out;
  const int64_t h = image.size(2), w = image.size(3);
  const at::Tensor wh = at::tensor({w - 1, h - 1}, detected.keypoints.options().dtype(at::kLong));
  out.keypoints_px = wh * (detected.keypoints + 1) / 2;
  out.keypoints = std::move(detected.keypoints);
  out.scores = std::move(detected.scores);
  out.dispersity = std::move(detected.dispersity);
  out.descriptors = std::move(described.descriptors);
  out.offsets = std::move(described.offsets);
  out.score_map = score_map;
  return out;
}

AlikedModel loadAlikedModel(const std::string& variant, const std::string& weights_path,
                            at::Device device) {
  const AlikedConfig& config = alikedConfig(variant);
  const StateDict weights = loadStateDict(weights_path);
  return AlikedModel(config, weights, device);
}

}  // namespace skytrace::vision::aliked
