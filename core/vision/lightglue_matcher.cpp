#include "core/vision/lightglue_matcher.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/lightglue_model_impl.h"
#include "core/vision/model_paths.h"

namespace skytrace::vision {
namespace {

lightglue::LightGlueOptions modelOptions(const MatchOptions& options) {
  lightglue::LightGlueOptions model;
  model.depth_confidence = options.depth_confidence;
  model.width_confidence = options.width_confidence;
  model.filter_threshold = options.filter_threshold;
  model.check();
  return model;
}

class LightGlueMatcher final : public Matcher {
 public:
  explicit LightGlueMatcher(const MatchOptions& options)
      : options_(modelOptions(options)),
        device_(options.device),
        model_(lightglue::loadLightGlueModel(options.features, lightGlueWeightsPath(options),
                                             toAtDevice(options.device))) {
    if (!options.use_cuda_graphs) model_.setCudaGraphsEnabled(false);
    if (!options.fused_kernels && model_.fusedKernelsEnabled()) model_.setFusedKernelsEnabled(false);
    if (options.half_precision) model_.setHalfPrecision(true);  // throws off CUDA
  }

  std::string name() const override { return "lightglue"; }

  Matches match(const FeatureSet& a, const FeatureSet& b) override {
    if (a.empty() || b.empty()) return {};
    for (const FeatureSet* set : {&a, &b}) {
      if (set->device().toString() != device_.toString())
        throw InvalidArgument("lightglue: features are on " + set->device().toString() +
                              ", the matcher runs on " + device_.toString());
      if (set->descriptorDim() != model_.config().input_dim)
        throw InvalidArgument("lightglue (" + model_.config().features + "): expects " +
                              std::to_string(model_.config().input_dim) +
                              "-D descriptors, got " + std::to_string(set->descriptorDim()) +
                              " (choose the LightGlue weights that fit the feature model)");
    }
    c10::InferenceMode inference;
    const auto input = [](const FeatureSet& f) {
      return lightglue::LightGlueInput{f.impl().keypoints_px, f.impl().descriptors,
                                       static_cast<double>(f.imageWidth()),
                                       static_cast<double>(f.imageHeight())};
    };
    const lightglue::LightGlueOutput out = model_.forward(input(a), input(b), options_);
    const at::Tensor pairs = out.matches.to(at::kCPU, at::kInt).contiguous();
    const at::Tensor scores = out.match_scores.to(at::kCPU, at::kFloat).contiguous();
    Matches host;
    const int count = static_cast<int>(pairs.size(0));
    host.index_a.resize(count);
    host.index_b.resize(count);
    host.scores.assign(scores.data_ptr<float>(), scores.data_ptr<float>() + count);
    const int* ij = pairs.data_ptr<int>();
    for (int k = 0; k < count; ++k) {
      host.index_a[k] = ij[2 * k];
      host.index_b[k] = ij[2 * k + 1];
    }
    return host;
  }

 private:
  lightglue::LightGlueOptions options_;
  DeviceSpec device_;
  lightglue::LightGlueModel model_;
};

}  // namespace

std::string lightGlueWeightsPath(const MatchOptions& options) {
  const lightglue::LightGlueConfig config = lightglue::lightGlueConfig(options.features);
  return resolveWeightsPath("lightglue (" + options.features + ")", options.weights_path,
                            config.published_file, lightglue::kLightGlueWeightsUrl);
}

std::unique_ptr<Matcher> createLightGlueMatcher(const MatchOptions& options) {
  requireDeviceAvailable(options.device);
  return std::make_unique<LightGlueMatcher>(options);
}

}  // namespace skytrace::vision
