#include <ATen/ATen.h>

#include "core/engine/engine_frame_impl.h"
#include "bench/harness/vision_extractor_impl.h"
#include "core/util/error.h"
#include "core/vision/aliked_config.h"
#include "core/vision/aliked_model_impl.h"
#include "core/vision/model_paths.h"

namespace skytrace::engine {

namespace {
class AlikedTensorExtractor final : public TensorExtractor {
 public:
  AlikedTensorExtractor(const std::string& variant, int keypoints, const std::string& weights_path,
                        const vision::DeviceSpec& device, bool float16)
      : model_(vision::aliked::loadAlikedModel(variant, weights_path, atDevice(device))) {
    detection_.top_k = keypoints;
    if (float16) model_.setHalfPrecision(true);
  }
  TensorFeatures extract(const at::Tensor& bgr) override {
    const vision::aliked::AlikedOutput out = model_.forward(rgbFloatImage(bgr), detection_);
    return {out.keypoints_px, out.descriptors};
  }

 private:
  vision::aliked::AlikedModel model_;
  vision::aliked::DkdOptions detection_;
};
}  // namespace

std::unique_ptr<TensorExtractor> createTensorExtractor(const std::string& model, int keypoints,
                                                       const std::string& weights_dir,
                                                       const vision::DeviceSpec& device,
                                                       bool aliked_float16) {
  if (keypoints < 1) throw InvalidArgument("keypoint budget must be >= 1");
  if (model.rfind("aliked", 0) == 0) {
    const vision::AlikedConfig& config = vision::alikedConfig(model);
    const std::string path =
        weights_dir.empty()
            ? vision::resolveWeightsPath(model, "", config.published_file, vision::kAlikedWeightsUrl)
            : weights_dir + "/" + config.published_file;
    return std::make_unique<AlikedTensorExtractor>(model, keypoints, path, device, aliked_float16);
  }
  return createClassicalTensorExtractor(model, keypoints, device);
}

}  // namespace skytrace::engine
