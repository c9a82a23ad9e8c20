#include "bench/harness/vision_payload_models_impl.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <filesystem>

#include "core/engine/engine_frame_impl.h"
#include "core/util/error.h"
#include "core/vision/aliked_config.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/dinov2_descriptor_impl.h"
#include "core/vision/dinov2_layers_impl.h"
#include "core/vision/dinov2_model_impl.h"
#include "core/vision/lightglue_model_impl.h"
#include "core/vision/litesam_model_impl.h"
#include "core/vision/model_paths.h"
#include "core/vision/superpoint_model_impl.h"

namespace skytrace::engine {

std::string payloadWeightsPath(const std::string& model_label, const std::string& weights_dir,
                               const std::string& published_file,
                               const std::string& where_published) {
  if (weights_dir.empty())
    return vision::resolveWeightsPath(model_label, "", published_file, where_published);
  const std::filesystem::path path = std::filesystem::path(weights_dir) / published_file;
  std::error_code error;
  if (std::filesystem::is_regular_file(path, error)) return path.string();
  throw ModelError(model_label + ": weights not found: " + path.string() +
                   " (the weights directory must hold the published file " + published_file +
                   "; the authors publish it at " + where_published + ")");
}

at::Tensor grayFloatImage(const at::Tensor& bgr_hwc_u8) {
  // OpenCV's 8-bit BGR2GRAY (RGB2Gray<uchar>, gray_shift 15):
  // Y = (3735 B + 19235 G + 9798 R + 2^14) >> 15.
  const at::Tensor bgr = bgr_hwc_u8.to(at::kInt);
  const at::Tensor gray = (bgr.select(2, 0) * 3735 + bgr.select(2, 1) * 19235 +
                           bgr.select(2, 2) * 9798 + 16384)
                              .div(32768, "floor");
  return gray.to(at::kFloat).div_(255.0f).unsqueeze(0).unsqueeze(0).contiguous();
}

at::Tensor resizeSquare(const at::Tensor& image, int size_px) {
  const int64_t h = image.size(2), w = image.size(3);
  if (h == size_px && w == size_px) return image;
  if (h >= size_px && w >= size_px) return at::adaptive_avg_pool2d(image, {size_px, size_px});
  return at::upsample_bilinear2d(image, {size_px, size_px}, /*align_corners=*/false);
}

// --- SuperPoint ----------------------------------------------------------------------

namespace {

class SuperPointTensorExtractor final : public TensorExtractor {
 public:
  SuperPointTensorExtractor(int keypoints, const std::string& weights_path,
                            const vision::DeviceSpec& device)
      : model_(vision::superpoint::loadSuperPointModel(weights_path, atDevice(device))) {
    config_.max_keypoints = keypoints;
  }
  TensorFeatures extract(const at::Tensor& bgr) override {
    const vision::superpoint::SuperPointOutput out = model_.forward(grayFloatImage(bgr), config_);
    return {out.keypoints_px, out.descriptors};
  }

 private:
  vision::superpoint::SuperPointModel model_;
  vision::superpoint::SuperPointConfig config_;  // the original's defaults otherwise
};

}  // namespace

std::unique_ptr<TensorExtractor> createPayloadExtractor(const std::string& model, int keypoints,
                                                        const std::string& weights_dir,
                                                        const vision::DeviceSpec& device,
                                                        bool aliked_float16) {
  if (model != "superpoint")
    return createTensorExtractor(model, keypoints, weights_dir, device, aliked_float16);
  if (keypoints < 1) throw InvalidArgument("keypoint budget must be >= 1");
  const std::string path =
      payloadWeightsPath("superpoint", weights_dir, vision::superpoint::kSuperPointPublishedFile,
                         vision::superpoint::kSuperPointWeightsUrl);
  return std::make_unique<SuperPointTensorExtractor>(keypoints, path, device);
}

// --- pair matchers -------------------------------------------------------------------

namespace {

class MnnPairMatcher final : public TensorPairMatcher {
 public:
  vision::MatchTensors match(const ImageFeatures& a, const ImageFeatures& b) override {
    return vision::matchMutualNearestNeighbours(a.features.descriptors, b.features.descriptors,
                                                vision::MatchOptions{});
  }
};

class LightGluePairMatcher final : public TensorPairMatcher {
 public:
  LightGluePairMatcher(const std::string& features, const std::string& weights_path,
                       bool adaptive, const vision::DeviceSpec& device)
      : model_(vision::lightglue::loadLightGlueModel(features, weights_path, atDevice(device))) {
    if (!adaptive) {
      options_.depth_confidence = -1.0;  // the original's "disabled"
      options_.width_confidence = -1.0;
    }
    options_.check();
  }

  vision::MatchTensors match(const ImageFeatures& a, const ImageFeatures& b) override {
    const at::Tensor& kp_a = a.features.keypoints_px;
    const at::Tensor& kp_b = b.features.keypoints_px;
    if (kp_a.size(0) == 0 || kp_b.size(0) == 0) {
      const at::Tensor none = at::empty({0}, kp_a.options().dtype(at::kLong));
      return {none, none, at::empty({0}, kp_a.options())};
    }
    const vision::lightglue::LightGlueOutput out = model_.forward(
        {kp_a, a.features.descriptors, a.width_px, a.height_px},
        {kp_b, b.features.descriptors, b.width_px, b.height_px}, options_);
    return {out.matches.select(1, 0), out.matches.select(1, 1), out.match_scores};
  }

 private:
  vision::lightglue::LightGlueModel model_;
  vision::lightglue::LightGlueOptions options_;
};

}  // namespace

std::string lightGlueFamily(const std::string& features) {
  if (features == "superpoint") return "superpoint";
  if (features.rfind("aliked", 0) == 0 &&
      vision::alikedConfig(features).dim == vision::lightglue::lightGlueConfig("aliked").input_dim)
    return "aliked";
  return "";
}

std::unique_ptr<TensorPairMatcher> createPairMatcher(const FeatureMatchingModel& model,
                                                     const std::string& weights_dir,
                                                     bool adaptive,
                                                     const vision::DeviceSpec& device) {
  if (model.matcher == "mnn") return std::make_unique<MnnPairMatcher>();
  if (model.matcher != "lightglue")
    throw InvalidArgument("unknown matcher '" + model.matcher + "' (mnn, lightglue)");
  const std::string family = lightGlueFamily(model.features);
  if (family.empty())
    throw InvalidArgument("LightGlue has no published weights for " + model.features +
                          " (superpoint, aliked-n16, aliked-n16rot, aliked-n32)");
  const vision::lightglue::LightGlueConfig config = vision::lightglue::lightGlueConfig(family);
  const std::string path = payloadWeightsPath("lightglue (" + family + ")", weights_dir,
                                              config.published_file,
                                              vision::lightglue::kLightGlueWeightsUrl);
  return std::make_unique<LightGluePairMatcher>(family, path, adaptive, device);
}

// --- DINOv2 retrieval ----------------------------------------------------------------

struct TileRetrieval::Model {
  Model(const vision::Dinov2Config& config, const std::string& path, at::Device device)
      : normalize(device), net(vision::dinov2::loadDinov2Model(config, path, device, at::kFloat)) {
    net->setAttentionKernel(vision::dinov2::fusedAttentionAvailable()
                                ? vision::dinov2::AttentionKernel::kFused
                                : vision::dinov2::AttentionKernel::kReference);
  }
  vision::dinov2::ImageNetNormalization normalize;
  std::unique_ptr<vision::dinov2::Dinov2Model> net;
};

TileRetrieval::TileRetrieval(const std::string& model, const std::string& weights_dir,
                             int crop_px, const vision::DeviceSpec& device)
    : crop_px_(crop_px) {
  const vision::Dinov2Config& config = vision::dinov2Config(model);
  if (crop_px < config.patch_size_px || crop_px % config.patch_size_px != 0)
    throw InvalidArgument(model + ": the retrieval crop must be a multiple of " +
                          std::to_string(config.patch_size_px) + " px, got " +
                          std::to_string(crop_px));
  const std::string path =
      payloadWeightsPath(model, weights_dir, config.published_file, vision::kDinov2WeightsUrl);
  model_ = std::make_unique<Model>(config, path, atDevice(device));
}

TileRetrieval::~TileRetrieval() = default;

at::Tensor TileRetrieval::crop(const at::Tensor& bgr) const {
  const int64_t h = bgr.size(0), w = bgr.size(1), side = std::min(h, w);
  const at::Tensor square = bgr.narrow(0, (h - side) / 2, side).narrow(1, (w - side) / 2, side);
  const at::Tensor rgb = square.flip({2}).permute({2, 0, 1}).unsqueeze(0).to(at::kFloat);
  return resizeSquare(rgb, crop_px_).round_().clamp_(0, 255).to(at::kByte)[0].permute({1, 2, 0});
}

at::Tensor TileRetrieval::describe(const at::Tensor& bgr) { return describeBatch({bgr})[0]; }

at::Tensor TileRetrieval::describeBatch(const std::vector<at::Tensor>& bgr_images) {
  std::vector<at::Tensor> crops;
  crops.reserve(bgr_images.size());
  for (const at::Tensor& image : bgr_images) crops.push_back(crop(image));
  const vision::dinov2::Dinov2Output out = model_->net->forward(model_->normalize(at::stack(crops)));
  return vision::dinov2::poolDescriptor(out.cls_token, out.patch_tokens, "cls+gem", 3.0);
}

// --- LiteSAM -------------------------------------------------------------------------

struct DenseTileMatcher::Model {
  explicit Model(vision::litesam::LiteSamModel loaded) : net(std::move(loaded)) {}
  vision::litesam::LiteSamModel net;
};

DenseTileMatcher::DenseTileMatcher(const std::string& model, const std::string& weights_dir,
                                   int size_px, const vision::DeviceSpec& device)
    : size_px_(size_px) {
  if (model != "litesam") throw InvalidArgument("unknown dense matcher '" + model + "' (litesam)");
  if (size_px < 32 || size_px % 32 != 0)
    throw InvalidArgument("litesam: the pair size must be a multiple of 32 px, got " +
                          std::to_string(size_px));
  const std::string path =
      payloadWeightsPath("litesam", weights_dir, kLiteSamCheckpointFile, kLiteSamCheckpointUrl);
  model_ = std::make_unique<Model>(vision::litesam::loadLiteSamModel(path, atDevice(device)));
  model_->net.reparameterizeBackbone();
}

DenseTileMatcher::~DenseTileMatcher() = default;

DenseTileMatcher::Input DenseTileMatcher::prepare(const at::Tensor& bgr) const {
  Input input;
  input.gray = resizeSquare(grayFloatImage(bgr), size_px_);
  input.scale_x = static_cast<double>(bgr.size(1)) / size_px_;
  input.scale_y = static_cast<double>(bgr.size(0)) / size_px_;
  return input;
}

DenseTileMatcher::Result DenseTileMatcher::match(const Input& a, const Input& b) const {
  const vision::litesam::LiteSamOutput out = model_->net.forward(a.gray, b.gray);
  const auto scaled = [](const at::Tensor& points, const Input& input) {
    return at::stack({points.select(1, 0) * input.scale_x, points.select(1, 1) * input.scale_y}, 1);
  };
  return {scaled(out.mkpts0_f, a), scaled(out.mkpts1_f, b)};
}

}  // namespace skytrace::engine
