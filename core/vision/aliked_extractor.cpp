// ALIKED behind the FeatureExtractor interface.
// Options mapping (as LightGlue's ALIKED wrapper does):
//   detection_threshold > 0: threshold mode, peaks with score > threshold, at most
//                            max_keypoints (highest scores first);
//   detection_threshold == 0: top-k mode, exactly the max_keypoints strongest NMS peaks
//                            (the original's top_k configuration, used by the parity
//                            fixtures).
//   nms_radius_px: radius of the max-pool NMS (the original uses 2).
#include "core/vision/aliked_extractor.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "core/util/error.h"
#include "core/vision/aliked_config.h"
#include "core/vision/aliked_model_impl.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/image_impl.h"
#include "core/vision/model_paths.h"

namespace skytrace::vision {
namespace {

class AlikedExtractor final : public FeatureExtractor {
 public:
  explicit AlikedExtractor(const ExtractorOptions& options)
      : options_(options), device_(toAtDevice(options.device)) {
    const AlikedConfig& config = alikedConfig(options.model);
    const std::string path = resolveWeightsPath(options.model, options.weights_path,
                                                config.published_file, kAlikedWeightsUrl);
    model_ = std::make_unique<aliked::AlikedModel>(
        aliked::loadAlikedModel(options.model, path, device_));
    if (!options.use_cuda_graphs) model_->setCudaGraphsEnabled(false);
    if (!options.fused_kernels) model_->setFusedKernelsEnabled(false);
    if (options.half_precision) model_->setHalfPrecision(true);  // throws off CUDA
    detection_.nms_radius = options.nms_radius_px;
    if (options.detection_threshold > 0) {
      detection_.top_k = 0;
      detection_.scores_threshold = options.detection_threshold;
      detection_.n_limit = options.max_keypoints;
    } else {
      detection_.top_k = options.max_keypoints;
    }
  }

  std::string name() const override { return options_.model; }

  using FeatureExtractor::extract;
  FeatureSet extract(const Image& image) override {
    if (image.empty()) throw InvalidArgument(options_.model + ": empty image");
    if (image.width() < 8 || image.height() < 8)
      throw InvalidArgument(options_.model + ": image of " + std::to_string(image.width()) + "x" +
                            std::to_string(image.height()) + " is too small (at least 8x8)");

    c10::InferenceMode inference;
    // ToTensor of the RGB image: HWC uint8 -> CHW float32 / 255, on the model's device
    // (a device frame is used where it is).
    const at::Tensor pixels = imageTensorOn(image, device_, &transfers_);
    const at::Tensor rgb = pixels.size(2) == 3 ? pixels.flip({2}) : pixels.expand({-1, -1, 3});
    const at::Tensor input = rgb.permute({2, 0, 1}).unsqueeze(0).to(at::kFloat).div(255).contiguous();
    const aliked::AlikedOutput out = model_->forward(input, detection_);
    return makeFeatureSet(out.keypoints_px, out.scores, out.descriptors, image.width(), image.height(),
                          options_.device);
  }

 private:
  ExtractorOptions options_;
  at::Device device_;
  aliked::DkdOptions detection_;
  std::unique_ptr<aliked::AlikedModel> model_;
};

}  // namespace

std::unique_ptr<FeatureExtractor> createAlikedExtractor(const ExtractorOptions& options) {
  return std::make_unique<AlikedExtractor>(options);
}

}  // namespace skytrace::vision
