#include "core/vision/features.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cstring>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/log.h"
#include "core/vision/aliked_config.h"
#include "core/vision/aliked_extractor.h"
#include "core/vision/classical_extractor.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/model_paths.h"
#include "core/vision/superpoint_extractor.h"

namespace skytrace::vision {
namespace {

const std::vector<std::string>& alikedModels() {
  static const std::vector<std::string> names = {"aliked-t16", "aliked-n16", "aliked-n16rot",
                                                 "aliked-n32"};
  return names;
}

bool isAlikedModel(const std::string& name) {
  const auto& names = alikedModels();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool isClassicalModel(const std::string& name) { return name == "orb" || name == "sift"; }

std::shared_ptr<const FeatureSet::Impl> emptyImpl() {
  static const auto impl = [] {
    auto empty = std::make_shared<FeatureSet::Impl>();
    empty->keypoints_px = at::zeros({0, 2}, at::kFloat);
    empty->scores = at::zeros({0}, at::kFloat);
    empty->descriptors = at::zeros({0, 0}, at::kFloat);
    return std::shared_ptr<const FeatureSet::Impl>(std::move(empty));
  }();
  return impl;
}

std::string shapeText(const at::Tensor& t) {
  std::string text = "[";
  for (int64_t i = 0; i < t.dim(); ++i) text += (i ? "," : "") + std::to_string(t.size(i));
  return text + "]";
}

}  // namespace

// --- FeatureSet ------------------------------------------------------------------

FeatureSet::FeatureSet() : impl_(emptyImpl()) {}

FeatureSet::FeatureSet(std::shared_ptr<const Impl> impl)
    : impl_(impl ? std::move(impl) : emptyImpl()) {}

int FeatureSet::size() const { return static_cast<int>(impl_->keypoints_px.size(0)); }

int FeatureSet::descriptorDim() const {
  return size() == 0 ? 0 : static_cast<int>(impl_->descriptors.size(1));
}

int FeatureSet::imageWidth() const { return impl_->image_width; }
int FeatureSet::imageHeight() const { return impl_->image_height; }
DeviceSpec FeatureSet::device() const { return impl_->device; }

std::vector<cv::Point2f> FeatureSet::keypoints() const {
  c10::InferenceMode inference;
  const at::Tensor host = impl_->keypoints_px.to(at::kCPU).contiguous();
  const float* xy = host.data_ptr<float>();
  std::vector<cv::Point2f> points(static_cast<size_t>(host.size(0)));
  for (size_t i = 0; i < points.size(); ++i) points[i] = {xy[2 * i], xy[2 * i + 1]};
  return points;
}

std::vector<float> FeatureSet::scores() const {
  c10::InferenceMode inference;
  const at::Tensor host = impl_->scores.to(at::kCPU).contiguous();
  return std::vector<float>(host.data_ptr<float>(), host.data_ptr<float>() + host.numel());
}

cv::Mat FeatureSet::descriptors() const {
  if (size() == 0) return cv::Mat(0, 0, CV_32F);
  c10::InferenceMode inference;
  const at::Tensor host = impl_->descriptors.to(at::kCPU).contiguous();
  cv::Mat rows(static_cast<int>(host.size(0)), static_cast<int>(host.size(1)), CV_32F);
  std::memcpy(rows.data, host.data_ptr<float>(), host.numel() * sizeof(float));
  return rows;
}

// --- construction helpers (feature_set_impl.h) -------------------------------------

at::Device toAtDevice(const DeviceSpec& device) {
  return device.cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device.index))
                     : at::Device(at::kCPU);
}

FeatureSet makeFeatureSet(at::Tensor keypoints_px, at::Tensor scores, at::Tensor descriptors,
                          int image_width, int image_height, const DeviceSpec& device) {
  const int64_t n = keypoints_px.dim() == 2 ? keypoints_px.size(0) : -1;
  checkArgument(keypoints_px.dim() == 2 && keypoints_px.size(1) == 2,
                "feature set: keypoints must be [N,2], got " + shapeText(keypoints_px));
  checkArgument(scores.dim() == 1 && scores.size(0) == n,
                "feature set: scores must be [" + std::to_string(n) + "], got " +
                    shapeText(scores));
  checkArgument(descriptors.dim() == 2 && descriptors.size(0) == n,
                "feature set: descriptors must be [" + std::to_string(n) + ",D], got " +
                    shapeText(descriptors));
  checkArgument(image_width > 0 && image_height > 0,
                "feature set: image size must be positive, got " + std::to_string(image_width) +
                    "x" + std::to_string(image_height));
  c10::InferenceMode inference;
  const at::Device target = toAtDevice(device);
  auto impl = std::make_shared<FeatureSet::Impl>();
  impl->keypoints_px = keypoints_px.to(target, at::kFloat).contiguous();
  impl->scores = scores.to(target, at::kFloat).contiguous();
  impl->descriptors = descriptors.to(target, at::kFloat).contiguous();
  impl->image_width = image_width;
  impl->image_height = image_height;
  impl->device = device;
  return FeatureSet(std::move(impl));
}

FeatureSet makeFeatureSetFromHost(const std::vector<cv::Point2f>& keypoints_px,
                                  const std::vector<float>& scores, const cv::Mat& descriptors,
                                  int image_width, int image_height, const DeviceSpec& device) {
  const auto n = static_cast<int64_t>(keypoints_px.size());
  checkArgument(static_cast<int64_t>(scores.size()) == n,
                "feature set: " + std::to_string(scores.size()) + " scores for " +
                    std::to_string(n) + " keypoints");
  checkArgument(n == 0 || (descriptors.type() == CV_32F && descriptors.rows == n),
                "feature set: descriptors must be an N x D CV_32F matrix with N = " +
                    std::to_string(n));
  c10::InferenceMode inference;
  at::Tensor points = at::empty({n, 2}, at::kFloat);
  at::Tensor weights = at::empty({n}, at::kFloat);
  const int64_t dim = n == 0 ? 0 : descriptors.cols;
  at::Tensor rows = at::empty({n, dim}, at::kFloat);
  if (n > 0) {
    float* xy = points.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) {
      xy[2 * i] = keypoints_px[i].x;
      xy[2 * i + 1] = keypoints_px[i].y;
    }
    std::memcpy(weights.data_ptr<float>(), scores.data(), n * sizeof(float));
    const cv::Mat dense = descriptors.isContinuous() ? descriptors : descriptors.clone();
    std::memcpy(rows.data_ptr<float>(), dense.ptr<float>(), n * dim * sizeof(float));
    rows = rows / rows.norm(2, 1, true).clamp_min(1e-12);
  }
  return makeFeatureSet(points, weights, rows, image_width, image_height, device);
}

FeatureSet featuresOnDevice(const FeatureSet& features, const DeviceSpec& device) {
  if (features.device() == device || features.empty()) return features;
  const FeatureSet::Impl& impl = features.impl();
  return makeFeatureSet(impl.keypoints_px, impl.scores, impl.descriptors, impl.image_width, impl.image_height,
                        device);
}

FeatureSet selectFeatures(const FeatureSet& features, const std::vector<int>& indices) {
  const int n = features.size();
  for (int i : indices)
    checkArgument(i >= 0 && i < n, "select features: index " + std::to_string(i) + " outside [0, " +
                                       std::to_string(n) + ")");
  if (features.empty() && indices.empty()) return features;
  c10::InferenceMode inference;
  const FeatureSet::Impl& impl = features.impl();
  const at::Tensor rows =
      at::tensor(std::vector<int64_t>(indices.begin(), indices.end()), at::kLong).to(impl.keypoints_px.device());
  return makeFeatureSet(impl.keypoints_px.index_select(0, rows), impl.scores.index_select(0, rows),
                        impl.descriptors.index_select(0, rows), impl.image_width, impl.image_height, impl.device);
}

FeatureSet gatherFeatures(const std::vector<FeatureSet>& parts, const std::vector<std::vector<int>>& rows,
                          const std::vector<cv::Point2f>& keypoints_px, cv::Size image_size) {
  checkArgument(parts.size() == rows.size(), "gather features: " + std::to_string(parts.size()) + " parts but " +
                                                 std::to_string(rows.size()) + " row lists");
  checkArgument(image_size.width > 0 && image_size.height > 0, "gather features: the size must be positive");
  c10::InferenceMode inference;
  std::vector<at::Tensor> scores, descriptors;
  const FeatureSet::Impl* first = nullptr;
  std::size_t gathered = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (rows[k].empty()) continue;
    const FeatureSet::Impl& impl = parts[k].impl();
    const int n = parts[k].size();
    for (int i : rows[k])
      checkArgument(i >= 0 && i < n, "gather features: row " + std::to_string(i) + " outside [0, " +
                                         std::to_string(n) + ")");
    if (!first) first = &impl;
    checkArgument(impl.device == first->device && impl.descriptors.size(1) == first->descriptors.size(1),
                  "gather features: parts on different devices or with different descriptor sizes");
    const at::Tensor index = at::tensor(std::vector<int64_t>(rows[k].begin(), rows[k].end()), at::kLong)
                                 .to(impl.descriptors.device());
    scores.push_back(impl.scores.index_select(0, index));
    descriptors.push_back(impl.descriptors.index_select(0, index));
    gathered += rows[k].size();
  }
  checkArgument(keypoints_px.size() == gathered, "gather features: " + std::to_string(keypoints_px.size()) +
                                                     " keypoints for " + std::to_string(gathered) + " rows");
  if (!first) return FeatureSet();
  at::Tensor points = at::empty({static_cast<int64_t>(gathered), 2}, at::kFloat);
  std::memcpy(points.data_ptr<float>(), keypoints_px.data(), gathered * 2 * sizeof(float));
  return makeFeatureSet(points, at::cat(scores), at::cat(descriptors), image_size.width, image_size.height,
                        first->device);
}

// --- options and factory -----------------------------------------------------------

void ExtractorOptions::check() const {
  const auto models = availableFeatureModels();
  std::string list;
  for (const auto& name : models) list += (list.empty() ? "" : ", ") + name;
  checkArgument(std::find(models.begin(), models.end(), model) != models.end(),
                "unknown feature model '" + model + "' (available: " + list + ")");
  checkArgument(max_keypoints > 0 && max_keypoints <= 100000,
                "max_keypoints must be in 1..100000, got " + std::to_string(max_keypoints));
  checkArgument(detection_threshold >= 0.0f && detection_threshold <= 1.0f,
                "detection_threshold must be in [0, 1], got " +
                    std::to_string(detection_threshold));
  checkArgument(nms_radius_px >= 0 && nms_radius_px <= 32,
                "nms_radius_px must be in 0..32, got " + std::to_string(nms_radius_px));
  checkArgument(!device.cuda || device.index >= 0, "device index must be >= 0");
  checkArgument(!half_precision || model.rfind("aliked", 0) == 0 || model == "superpoint",
                "half precision is an ALIKED and SuperPoint option (model '" + model + "')");
}

std::unique_ptr<FeatureExtractor> createFeatureExtractor(const ExtractorOptions& options) {
  options.check();
  requireDeviceAvailable(options.device);
  if (isClassicalModel(options.model)) return createClassicalExtractor(options);
  if (isAlikedModel(options.model)) return createAlikedExtractor(options);
  if (options.model == "superpoint") return createSuperPointExtractor(options);
  throw InvalidArgument("unknown feature model '" + options.model + "'");
}

std::unique_ptr<FeatureExtractor> createFeatureExtractorOrFallback(
    const ExtractorOptions& options, const std::string& fallback_model,
    std::string* fallback_reason) {
  if (fallback_reason) fallback_reason->clear();
  options.check();
  checkArgument(isClassicalModel(fallback_model),
                "fallback model must be orb or sift, got '" + fallback_model + "'");
  if (isAlikedModel(options.model) || options.model == "superpoint") {
    try {
      if (options.model == "superpoint")
        superPointWeightsPath(options);
      else
        resolveWeightsPath(options.model, options.weights_path,
                           alikedConfig(options.model).published_file, kAlikedWeightsUrl);
    } catch (const ModelError& missing) {
      ExtractorOptions classical = options;
      classical.model = fallback_model;
      SKYTRACE_LOG(Warning, "vision.features")
          << "using " << fallback_model << " instead of " << options.model << ": "
          << missing.what();
      if (fallback_reason) *fallback_reason = missing.what();
      return createFeatureExtractor(classical);
    }
  }
  return createFeatureExtractor(options);
}

std::vector<std::string> availableFeatureModels() {
  std::vector<std::string> names = {"orb", "sift"};
  names.insert(names.end(), alikedModels().begin(), alikedModels().end());
  names.push_back("superpoint");
  return names;
}

}  // namespace skytrace::vision
