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
namespace dinov2 {

at::Tensor normalizeImageNet(const at::Tensor& rgb_u8) {
  const auto options = at::TensorOptions().dtype(at::kFloat).device(rgb_u8.device());
  const at::Tensor mean = at::tensor({0.485f, 0.456f, 0.406f}, options).view({1, 3, 1, 1});
  const at::Tensor std = at::tensor({0.229f, 0.224f, 0.225f}, options).view({1, 3, 1, 1});
  return rgb_u8.permute({0, 3, 1, 2}).contiguous().to(at::kFloat).div(255).sub_(mean).div_(std);
}

at::Tensor generalizedMeanPool(const at::Tensor& tokens, double p) {
  return tokens.to(at::kFloat).clamp_min(1e-6).pow(p).mean(1).pow(1.0 / p);
}

namespace {

at::Tensor l2Normalized(const at::Tensor& rows) {
  return rows / rows.norm(2, {-1}, /*keepdim=*/true).clamp_min(1e-12);
}

}  // namespace

at::Tensor poolDescriptor(const at::Tensor& cls_token, const at::Tensor& patch_tokens,
                          const std::string& pooling, double gem_p) {
  if (pooling == "cls") return l2Normalized(cls_token.to(at::kFloat));
  if (pooling == "gem") return l2Normalized(generalizedMeanPool(patch_tokens, gem_p));
  if (pooling == "cls+gem") {
    return l2Normalized(at::cat({l2Normalized(cls_token.to(at::kFloat)),
                                 l2Normalized(generalizedMeanPool(patch_tokens, gem_p))},
                                1));
  }
  throw InvalidArgument("unknown pooling '" + pooling + "' (known: cls, gem, cls+gem)");
}

}  // namespace dinov2

namespace {

constexpr size_t kMaxBatch = 16;

class Dinov2DescriptorExtractor final : public GlobalDescriptorExtractor {
 public:
  Dinov2DescriptorExtractor(const GlobalDescriptorOptions& options, const Dinov2Config& config)
      : options_(options), device_(toAtDevice(options.device)) {
    options.check();
    requireDeviceAvailable(options.device);
    const std::string path = resolveWeightsPath(config.name, options.weights_path,
                                                config.published_file, kDinov2WeightsUrl);
    const at::ScalarType dtype = options.precision == "float16" ? at::kHalf : at::kFloat;
    model_ = dinov2::loadDinov2Model(config, path, device_, dtype);
    model_->setAttentionKernel(options.fused_attention ? dinov2::AttentionKernel::kFused
                                                       : dinov2::AttentionKernel::kReference);
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
    std::vector<cv::Mat> inputs;
    inputs.reserve(images.size());
    for (const cv::Mat& image : images) inputs.push_back(preprocess(image));
    std::vector<GlobalDescriptor> out;
    out.reserve(images.size());
    c10::InferenceMode inference;
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
    at::Tensor host = at::empty({batch, rows, cols, 3}, at::kByte);
    for (size_t i = begin; i < end; ++i) {
      const cv::Mat& rgb = inputs[i];
      const at::Tensor view =
          at::from_blob(rgb.data, {rows, cols, 3}, {static_cast<int64_t>(rgb.step), 3, 1},
                        at::kByte);
      host[static_cast<int64_t>(i - begin)].copy_(view);
    }
    const at::Tensor image = dinov2::normalizeImageNet(host.to(device_));
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
