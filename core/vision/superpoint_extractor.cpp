// Input conversion as the original demo (SuperGlue frame2tensor): 8-bit grayscale
// (BGR converted with OpenCV's BGR2GRAY), float32 / 255, [1,1,H,W].
#include "core/vision/superpoint_extractor.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <opencv2/imgproc.hpp>

#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/model_paths.h"
#include "core/vision/superpoint_model_impl.h"

namespace skytrace::vision {
namespace {

class SuperPointExtractor final : public FeatureExtractor {
 public:
  SuperPointExtractor(const ExtractorOptions& options, const SuperPointDetection& detection)
      : options_(options),
        device_(toAtDevice(options.device)),
        model_(superpoint::loadSuperPointModel(superPointWeightsPath(options), device_)) {
    config_.max_keypoints = options.max_keypoints;
    config_.keypoint_threshold = detection.keypoint_threshold;
    config_.nms_radius = detection.nms_radius_px;
    config_.remove_borders = detection.remove_borders_px;
    config_.check();
    if (!options.use_cuda_graphs) model_.setCudaGraphsEnabled(false);
  }

  std::string name() const override { return "superpoint"; }

  FeatureSet extract(const cv::Mat& image) override {
    if (image.empty()) throw InvalidArgument("superpoint: empty image");
    if (image.depth() != CV_8U || (image.channels() != 3 && image.channels() != 1))
      throw InvalidArgument("superpoint: expected an 8-bit BGR or grayscale image");
    if (image.cols < 8 || image.rows < 8)
      throw InvalidArgument("superpoint: image of " + std::to_string(image.cols) + "x" +
                            std::to_string(image.rows) + " is too small (at least 8x8)");
    cv::Mat gray;
    if (image.channels() == 3)
      cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
    else
      gray = image;

    c10::InferenceMode inference;
    const at::Tensor host = at::from_blob(gray.data, {gray.rows, gray.cols},
                                          {static_cast<int64_t>(gray.step), 1}, at::kByte);
    const at::Tensor input = host.to(device_).to(at::kFloat).div(255).reshape({1, 1, gray.rows, gray.cols});
    const superpoint::SuperPointOutput out = model_.forward(input, config_);
    return makeFeatureSet(out.keypoints_px, out.scores, out.descriptors, image.cols, image.rows,
                          options_.device);
  }

 private:
  ExtractorOptions options_;
  at::Device device_;
  superpoint::SuperPointModel model_;
  superpoint::SuperPointConfig config_;
};

}  // namespace

std::string superPointWeightsPath(const ExtractorOptions& options) {
  return resolveWeightsPath("superpoint", options.weights_path,
                            superpoint::kSuperPointPublishedFile,
                            superpoint::kSuperPointWeightsUrl);
}

std::unique_ptr<FeatureExtractor> createSuperPointExtractor(const ExtractorOptions& options,
                                                            const SuperPointDetection& detection) {
  return std::make_unique<SuperPointExtractor>(options, detection);
}

}  // namespace skytrace::vision
