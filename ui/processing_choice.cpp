#include "ui/processing_choice.h"

#include <functional>

#include "core/nav/model_choice.h"
#include "core/util/error.h"
#include "core/vision/aliked_config.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/lightglue_matcher.h"
#include "core/vision/litesam_matcher.h"
#include "core/vision/model_paths.h"
#include "core/vision/superpoint_extractor.h"

namespace skytrace::ui {
namespace {

bool isAliked(const std::string& model) { return model.rfind("aliked", 0) == 0; }

// Resolves the weights file of a learned local-feature model as its extractor would
// (classical models need none). Throws ModelError when it is missing.
void resolveFeatureWeights(const vision::ExtractorOptions& features) {
  if (isAliked(features.model))
    vision::resolveWeightsPath(features.model, features.weights_path,
                               vision::alikedConfig(features.model).published_file,
                               vision::kAlikedWeightsUrl);
  else if (features.model == "superpoint")
    vision::superPointWeightsPath(features);
}

void check(const char* stage, bool falls_back, const std::function<void()>& resolve,
           std::vector<MissingWeights>* out) {
  try {
    resolve();
  } catch (const ModelError& e) {
    out->push_back({stage, e.what(), falls_back});
  }
}

}  // namespace

std::string placementDeviceName(const std::string& device) {
  return device == "auto" ? std::string() : device;
}

ProcessingChoice processingChoiceFor(const io::Project& project, int cuda_device_count) {
  ProcessingChoice choice;
  choice.overlapped = project.processing_mode != "sequential";
  choice.keyframe_policy = project.register_every_keyframe ? engine::KeyframePolicy::EveryKeyframe
                                                           : engine::KeyframePolicy::LatestWins;
  choice.placement = engine::resolveDevicePlacement(
      std::string(), placementDeviceName(project.effectiveVoDevice()),
      placementDeviceName(project.effectiveSatelliteDevice()), cuda_device_count);
  nav::NavigationOptions& options = choice.options;
  // As `process --model`: both stages' local features, then the per-stage specs.
  nav::applyVisualOdometryModel(project.feature_model, options);
  options.registration.features = options.vo_features;
  options.registration.features.max_keypoints = 2048;
  if (!project.vo_model.empty()) nav::applyVisualOdometryModel(project.vo_model, options);
  if (!project.satellite_model.empty()) nav::applySatelliteModel(project.satellite_model, options.registration);
  options.vo_features.device = choice.placement.vo;
  options.vo.device = choice.placement.vo;
  options.vo_match.device = choice.placement.vo;
  options.registration.features.device = choice.placement.satellite;  // the whole stage's device
  options.check();
  return choice;
}

std::vector<MissingWeights> missingWeights(const nav::NavigationOptions& options) {
  std::vector<MissingWeights> missing;
  const char* vo = "visual odometry";
  const char* satellite = "satellite";
  check(vo, true, [&] { resolveFeatureWeights(options.vo_features); }, &missing);
  if (options.vo_matcher == "lightglue")
    check(vo, false, [&] { vision::lightGlueWeightsPath(options.vo_match); }, &missing);
  if (!options.registration_enabled) return missing;
  const nav::RegistrationOptions& registration = options.registration;
  const bool uses_features = registration.fine_matching == nav::FineMatching::kLocalFeatures ||
                             registration.retrieval == nav::RetrievalMethod::kVlad;
  if (uses_features)
    check(satellite, registration.features_fallback, [&] { resolveFeatureWeights(registration.features); },
          &missing);
  if (registration.retrieval == nav::RetrievalMethod::kGlobalDescriptor) {
    const vision::GlobalDescriptorOptions& descriptor = registration.retrieval_descriptor;
    check(satellite, false, [&] {
      vision::resolveWeightsPath(descriptor.model, descriptor.weights_path,
                                 vision::dinov2Config(descriptor.model).published_file,
                                 vision::kDinov2WeightsUrl);
    }, &missing);
  }
  if (registration.fine_matching == nav::FineMatching::kDenseMatcher &&
      registration.dense_matcher.model == "litesam") {
    const vision::DenseMatcherOptions& dense = registration.dense_matcher;
    check(satellite, false, [&] {
      vision::resolveWeightsPath("litesam", dense.weights_path, vision::kLiteSamPublishedFile,
                                 vision::kLiteSamWeightsUrl);
    }, &missing);
  }
  return missing;
}

}  // namespace skytrace::ui
