// Input conversion as the original demo (SuperGlue frame2tensor): 8-bit grayscale
// (BGR converted with OpenCV's BGR2GRAY), float32 / 255, [1,1,H,W]. Device frames are
// converted on the device with OpenCV's fixed-point formula, so both give the same bytes.
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

// OpenCV's BGR2GRAY for 8-bit pixels: Y = (1868 B + 9617 G + 4899 R + 2^13) >> 14, so a
// frame converted on the device equals one converted by cv::cvtColor on the host.
at::Tensor bgrToGray(const at::Tensor& bgr_hwc_u8) {
  const at::Tensor bgr = bgr_hwc_u8.to(at::kInt);
  const at::Tensor y = (bgr.select(2, 0) * 1868 + bgr.select(2, 1) * 9617 + bgr.select(2, 2) * 4899 + 8192)
                           .div(16384, "floor");
  return y.to(at::kByte);
}

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

  using FeatureExtractor::extract;
  FeatureSet extract(const Image& image) override {
    if (image.empty()) throw InvalidArgument("superpoint: empty image");
    if (image.width() < 8 || image.height() < 8)
      throw InvalidArgument("superpoint: image of " + std::to_string(image.width()) + "x" +
                            std::to_string(image.height()) + " is too small (at least 8x8)");
    c10::InferenceMode inference;
    at::Tensor gray;  // [H,W] uint8 on the model's device
    if (image.onHost()) {
      const cv::Mat pixels = image.hostPixels();
      cv::Mat host_gray;
      if (pixels.channels() == 3)
        cv::cvtColor(pixels, host_gray, cv::COLOR_BGR2GRAY);
      else
        host_gray = pixels;
      const Image host_image = Image::fromHost(host_gray);
      gray = imageTensorOn(host_image, device_, &transfers_).squeeze(2);
    } else {
      const at::Tensor pixels = imageTensorOn(image, device_, &transfers_);
      gray = pixels.size(2) == 3 ? bgrToGray(pixels) : pixels.squeeze(2);
    }
    const at::Tensor input = gray.to(at::kFloat).div(255).reshape({1, 1, image.height(), image.width()});
    const superpoint::SuperPointOutput out = model_.forward(input, config_);
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
