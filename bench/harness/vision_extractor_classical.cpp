// Classical extractors (ORB, SIFT: OpenCV, CPU) behind the engine's TensorExtractor:
// pixels come to the host, features go back to the payload's device.
#include <ATen/ATen.h>

#include <opencv2/core.hpp>

#include "bench/harness/vision_extractor_impl.h"
#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/features.h"

namespace skytrace::engine {

namespace {
class ClassicalTensorExtractor final : public TensorExtractor {
 public:
  ClassicalTensorExtractor(const std::string& model, int keypoints, const vision::DeviceSpec& device)
      : device_(device) {
    vision::ExtractorOptions options;
    options.model = model;
    options.max_keypoints = keypoints;
    options.device = device;
    extractor_ = vision::createFeatureExtractor(options);
  }
  TensorFeatures extract(const at::Tensor& bgr) override {
    const at::Tensor host = bgr.to(at::kCPU).contiguous();
    const cv::Mat image(static_cast<int>(host.size(0)), static_cast<int>(host.size(1)), CV_8UC3,
                        host.data_ptr<std::uint8_t>());
    const vision::FeatureSet features = extractor_->extract(image);
    return {features.impl().keypoints_px, features.impl().descriptors};
  }

 private:
  vision::DeviceSpec device_;
  std::unique_ptr<vision::FeatureExtractor> extractor_;
};
}  // namespace

std::unique_ptr<TensorExtractor> createClassicalTensorExtractor(const std::string& model,
                                                                int keypoints,
                                                                const vision::DeviceSpec& device) {
  return std::make_unique<ClassicalTensorExtractor>(model, keypoints, device);
}

}  // namespace skytrace::engine
