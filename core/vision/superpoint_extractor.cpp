// Input conversion as the original demo (SuperGlue frame2tensor): 8-bit grayscale
// (BGR converted with OpenCV's BGR2GRAY), float32 / 255, [1,1,H,W]. Host frames are
// converted by OpenCV, device frames by the model with OpenCV's fixed-point formula
// (SuperPointModel::inputFromPixels, inside its CUDA graph), so both give the same bytes.
#include "core/vision/superpoint_extractor.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <opencv2/imgproc.hpp>

#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/image_impl.h"
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
    if (!options.fused_kernels && model_.fusedKernelsEnabled()) model_.setFusedKernelsEnabled(false);
    if (options.half_precision) model_.setHalfPrecision(true);  // throws off CUDA
  }

  std::string name() const override { return "superpoint"; }

  using FeatureExtractor::extract;
  FeatureSet extract(const Image& image) override {
    if (image.empty()) throw InvalidArgument("superpoint: empty image");
    if (image.width() < 8 || image.height() < 8)
      throw InvalidArgument("superpoint: image of " + std::to_string(image.width()) + "x" +
                            std::to_string(image.height()) + " is too small (at least 8x8)");
    c10::InferenceMode inference;
    // 8-bit pixels on the model's device; the model makes its float input from them.
    at::Tensor pixels;
    if (image.onHost()) {
      const cv::Mat host = image.hostPixels();
      cv::Mat host_gray;
      if (host.channels() == 3)
        cv::cvtColor(host, host_gray, cv::COLOR_BGR2GRAY);
      else
        host_gray = host;
      pixels = imageTensorOn(Image::fromHost(host_gray), device_, &transfers_);
    } else {
      pixels = imageTensorOn(image, device_, &transfers_);
    }
    const superpoint::SuperPointOutput out = model_.forwardPixels(pixels, config_);
    return makeFeatureSet(out.keypoints_px, out.scores, out.descriptors, image.width(), image.height(),
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
