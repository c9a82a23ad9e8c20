#include "core/nav/model_choice.h"

#include <algorithm>

#include "core/util/error.h"
#include "core/vision/dense_matcher.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/features.h"

namespace skytrace::nav {
namespace {

constexpr const char* kDefaultDinov2 = "dinov2-vits14";

std::string joined(const std::vector<std::string>& names, const std::string& separator = ", ") {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : separator) + name;
  return out;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool isFeatureModel(const std::string& name) {
  return contains(vision::availableFeatureModels(), name);
}

bool isDenseMatcher(const std::string& name) {
  return contains(vision::availableDenseMatcherModels(), name);
}

// "dinov2" -> "dinov2-vits14"; a published variant name -> itself; else "".
std::string dinov2Model(const std::string& name) {
  if (name == "dinov2") return kDefaultDinov2;
  return contains(vision::dinov2ModelNames(), name) ? name : std::string();
}

// The LightGlue weights family of a feature model ("" when LightGlue has none).
std::string lightGlueFamily(const std::string& features) {
  if (features == "superpoint") return "superpoint";
  if (features.rfind("aliked", 0) == 0) return "aliked";
  return "";
}

std::pair<std::string, std::string> splitAtPlus(const std::string& spec) {
  const std::size_t plus = spec.find('+');
  if (plus == std::string::npos) return {spec, ""};
  return {spec.substr(0, plus), spec.substr(plus + 1)};
}

}  // namespace

void applyVisualOdometryModel(const std::string& spec, NavigationOptions& options) {
  const auto [features, matcher] = splitAtPlus(spec);
  const std::string what = "visual odometry model '" + spec + "'";
  if (!isFeatureModel(features)) {
    throw InvalidArgument(what + ": unknown features '" + features +
                          "' (available: " + joined(vision::availableFeatureModels()) + ")");
  }
  const std::string chosen_matcher = matcher.empty() ? "mnn" : matcher;
  if (chosen_matcher != "mnn" && chosen_matcher != "lightglue") {
    throw InvalidArgument(what + ": unknown matcher '" + matcher + "' (available: mnn, lightglue)");
  }
  const std::string family = lightGlueFamily(features);
  if (chosen_matcher == "lightglue" && family.empty()) {
    throw InvalidArgument(what + ": LightGlue has published weights for superpoint and aliked "
                                 "features only, not for '" + features + "'");
  }
  options.vo_features.model = features;
  options.vo_matcher = chosen_matcher;
  options.vo_match.features = family.empty() ? "superpoint" : family;
}

void applySatelliteModel(const std::string& spec, RegistrationOptions& options) {
  const auto [first, second] = splitAtPlus(spec);
  const std::string what = "satellite model '" + spec + "'";
  if (second.empty()) {
    if (!isFeatureModel(first)) {
      std::string hint;
      if (!dinov2Model(first).empty() || first == "vlad")
        hint = " (a retrieval needs a fine matcher, e.g. " + first + "+litesam)";
      if (isDenseMatcher(first))
        hint = " (a dense matcher needs a retrieval: dinov2+" + first + " or vlad+" + first + ")";
      throw InvalidArgument(what + ": expected FEATURES or RETRIEVAL+FINE, '" + first +
                            "' is no feature model" + hint + "; " + satelliteModelSyntax());
    }
    options.retrieval = RetrievalMethod::kVlad;
    options.fine_matching = FineMatching::kLocalFeatures;
    options.features.model = first;
    options.features_fallback = false;
    return;
  }
  // RETRIEVAL+FINE
  const std::string dinov2 = dinov2Model(first);
  if (first != "vlad" && dinov2.empty()) {
    throw InvalidArgument(what + ": unknown retrieval '" + first + "' (available: vlad, dinov2, " +
                          joined(vision::dinov2ModelNames()) + ")");
  }
  const bool dense = isDenseMatcher(second);
  if (!dense && !isFeatureModel(second)) {
    throw InvalidArgument(what + ": unknown fine matcher '" + second + "' (available: " +
                          joined(vision::availableDenseMatcherModels()) + ", or features: " +
                          joined(vision::availableFeatureModels()) + ")");
  }
  if (dinov2.empty()) {
    options.retrieval = RetrievalMethod::kVlad;
  } else {
    options.retrieval = RetrievalMethod::kGlobalDescriptor;
    options.retrieval_descriptor.model = dinov2;
  }
  if (dense) {
    options.fine_matching = FineMatching::kDenseMatcher;
    options.dense_matcher.model = second;
  } else {
    options.fine_matching = FineMatching::kLocalFeatures;
    options.features.model = second;
    options.features_fallback = false;
  }
}

void setSatelliteWeights(const std::string& fine_weights, const std::string& retrieval_weights,
                         RegistrationOptions& options) {
  if (!fine_weights.empty()) {
    if (options.fine_matching == FineMatching::kDenseMatcher)
      options.dense_matcher.weights_path = fine_weights;
    else
      options.features.weights_path = fine_weights;
  }
  if (!retrieval_weights.empty()) options.retrieval_descriptor.weights_path = retrieval_weights;
}

void setGpuExecution(bool cuda_graphs, bool fused_kernels, NavigationOptions& options) {
  for (vision::ExtractorOptions* features : {&options.vo_features, &options.registration.features}) {
    features->use_cuda_graphs = cuda_graphs;
    features->fused_kernels = fused_kernels;
  }
  options.vo_match.use_cuda_graphs = cuda_graphs;
  options.vo_match.fused_kernels = fused_kernels;
  options.registration.retrieval_descriptor.use_cuda_graphs = cuda_graphs;
  options.registration.dense_matcher.use_cuda_graphs = cuda_graphs;
  options.registration.dense_matcher.fused_kernels = fused_kernels;
}

void setHalfPrecision(bool enabled, NavigationOptions& options) {
  const auto has_float16 = [](const vision::ExtractorOptions& features) {
    return features.model == "superpoint";
  };
  for (vision::ExtractorOptions* features : {&options.vo_features, &options.registration.features})
    features->half_precision = enabled && features->device.cuda && has_float16(*features);
  options.vo_match.half_precision = enabled && options.vo_match.device.cuda;
  // The registration stage runs on its features' device (the whole stage's).
  const bool satellite_on_gpu = options.registration.features.device.cuda;
  options.registration.retrieval_descriptor.precision =
      enabled && satellite_on_gpu ? "float16" : "float32";
  options.registration.dense_matcher.half_precision = enabled && satellite_on_gpu;
}

std::string visualOdometryModelName(const NavigationOptions& options) {
  return options.vo_features.model + "+" + options.vo_matcher;
}

std::string satelliteModelName(const RegistrationOptions& options) {
  const std::string retrieval = options.retrieval == RetrievalMethod::kGlobalDescriptor
                                    ? options.retrieval_descriptor.model
                                    : std::string("vlad");
  const std::string fine = options.fine_matching == FineMatching::kDenseMatcher
                               ? options.dense_matcher.model
                               : options.features.model;
  return retrieval + "+" + fine;
}

std::vector<std::string> visualOdometryModelChoices() {
  std::vector<std::string> choices = {"aliked-n16rot", "orb", "sift", "superpoint+lightglue",
                                      "aliked-n16rot+lightglue"};
  for (const auto& name : vision::availableFeatureModels())
    if (!contains(choices, name)) choices.push_back(name);
  return choices;
}

std::vector<std::string> satelliteModelChoices() {
  std::vector<std::string> choices = {"aliked-n16rot", "orb", "sift", "dinov2+litesam",
                                      "dinov2+aliked-n16rot", "vlad+litesam"};
  for (const auto& variant : vision::dinov2ModelNames())
    if (variant != kDefaultDinov2) choices.push_back(variant + "+litesam");
  for (const auto& name : vision::availableFeatureModels())
    if (!contains(choices, name)) choices.push_back(name);
  return choices;
}

std::string satelliteModelSyntax() {
  return "FEATURES (VLAD retrieval + FEATURES matching) or RETRIEVAL+FINE with RETRIEVAL "
         "vlad|dinov2|" + joined(vision::dinov2ModelNames(), "|") + " and FINE " +
         joined(vision::availableDenseMatcherModels(), "|") + "|FEATURES (e.g. dinov2+litesam)";
}

}  // namespace skytrace::nav
