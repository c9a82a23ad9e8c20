#include "core/vision/dinov2_descriptor.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "core/util/error.h"
#include "core/vision/dinov2_descriptor_impl.h"
#include "core/vision/dinov2_model_impl.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/model_paths.h"

namespace skytrace::vision {
namespace {

constexpr size_t kMaxBatch = 16;

// Validates before anything touches the device (clear InvalidArgument, not a torch error).
const GlobalDescriptorOptions& checked(const GlobalDescriptorOptions& options) {
  options.check();
  requireDeviceAvailable(options.device);
  return options;
}

class Dinov2DescriptorExtractor final : public GlobalDescriptorExtractor {
 public:
  Dinov2DescriptorExtractor(const GlobalDescriptorOptions& options, const Dinov2Config& config)
      : options_(checked(options)), device_(toAtDevice(options.device)), normalize_(device_) {
    const std::string path = resolveWeightsPath(config.name, options.weights_path,
                                                config.published_file, kDinov2WeightsUrl);
    const at::ScalarType dtype = options.precision == "float16" ? at::kHalf : at::kFloat;
    model_ = dinov2::loadDinov2Model(config, path, device_, dtype);
    model_->setAttentionKernel(options.fused_attention ? dinov2::AttentionKernel::kFused
                                                       : dinov2::AttentionKernel::kReference);
    if (!options.use_cuda_graphs) model_->setCudaGraphsEnabled(false);
  }

  std::string name() const override { return options_.model; }

  int dimension() const override {
    const int dim = model_->config().embed_dim;
    return options_.pooling == "cls+gem" ? 2 * dim : dim;
  }

  GlobalDescriptor describe(const cv::Mat& image) override {
    return describeBatch({image}).front();
  }

  std::vector<GlobalDescriptor> describeBatch(const std::vector<cv::Mat>& images) override {
    c10::InferenceMode inference;
    std::vector<cv::Mat> inputs;
    inputs.reserve(images.size());
    for (const cv::Mat& image : images) inputs.push_back(preprocess(image));
    std::vector<GlobalDescriptor> out;
    out.reserve(images.size());
    size_t begin = 0;
    while (begin < inputs.size()) {
      size_t end = begin + 1;
      while (end < inputs.size() && end - begin < kMaxBatch &&
             inputs[end].size() == inputs[begin].size())
        ++end;
      describeRun(inputs, begin, end, &out);
      begin = end;
    }
    return out;
  }

 private:
  // RGB uint8, resized so that the shorter side is input_size_px and both sides are
  // multiples of the patch size.
  cv::Mat preprocess(const cv::Mat& image) const {
    if (image.empty()) throw InvalidArgument(options_.model + ": empty image");
    if (image.depth() != CV_8U ||
        (image.channels() != 1 && image.channels() != 3 && image.channels() != 4))
      throw InvalidArgument(options_.model + ": expected an 8-bit BGR, BGRA or grayscale image");
    cv::Mat rgb;
    const int code = image.channels() == 1   ? cv::COLOR_GRAY2RGB
                     : image.channels() == 4 ? cv::COLOR_BGRA2RGB
                                             : cv::COLOR_BGR2RGB;
    cv::cvtColor(image, rgb, code);
    const int patch = model_->config().patch_size_px;
    const double scale =
        static_cast<double>(options_.input_size_px) / std::min(image.cols, image.rows);
    const auto snap = [&](int side) {
      return std::max(patch, static_cast<int>(std::lround(side * scale / patch)) * patch);
    };
    const cv::Size size(snap(image.cols), snap(image.rows));
    if (size == rgb.size()) return rgb;
    cv::Mat resized;
    cv::resize(rgb, resized, size, 0, 0, scale < 1.0 ? cv::INTER_AREA : cv::INTER_CUBIC);
    return resized;
  }

  void describeRun(const std::vector<cv::Mat>& inputs, size_t begin, size_t end,
                   std::vector<GlobalDescriptor>* out) const {
    const int rows = inputs[begin].rows, cols = inputs[begin].cols;
    const int64_t batch = static_cast<int64_t>(end - begin);
    // Page-locked staging on CUDA, so that the upload is asynchronous.
    const auto staging = at::TensorOptions().dtype(at::kByte).pinned_memory(device_.is_cuda());
    at::Tensor host = at::empty({batch, rows, cols, 3}, staging);
    for (size_t i = begin; i < end; ++i) {
      const cv::Mat& rgb = inputs[i];
      const at::Tensor view =
          at::from_blob(rgb.data, {rows, cols, 3}, {static_cast<int64_t>(rgb.step), 3, 1},
                        at::kByte);
      host[static_cast<int64_t>(i - begin)].copy_(view);
    }
    const at::Tensor image = normalize_(host.to(device_, /*non_blocking=*/true));
    const dinov2::Dinov2Output features = model_->forward(image);
    const at::Tensor descriptors =
        dinov2::poolDescriptor(features.cls_token, features.patch_tokens, options_.pooling,
                               options_.gem_p)
            .to(at::kCPU)
            .contiguous();
    const int64_t dim = descriptors.size(1);
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = descriptors[b].data_ptr<float>();
      out->push_back(GlobalDescriptor{std::vector<float>(row, row + dim)});
    }
  }

  GlobalDescriptorOptions options_;
  at::Device device_;
  dinov2::ImageNetNormalization normalize_;
  std::unique_ptr<dinov2::Dinov2Model> model_;
};

}  // namespace

std::unique_ptr<GlobalDescriptorExtractor> createDinov2DescriptorExtractor(
    const GlobalDescriptorOptions& options, const Dinov2Config& config) {
  return std::make_unique<Dinov2DescriptorExtractor>(options, config);
}

std::unique_ptr<GlobalDescriptorExtractor> createDinov2DescriptorExtractor(
    const GlobalDescriptorOptions& options) {
  return createDinov2DescriptorExtractor(options, dinov2Config(options.model));
}

}  // namespace skytrace::vision
