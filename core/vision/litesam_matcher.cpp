// LiteSAM as a DenseMatcher: grayscale conversion, resizing as the original data loaders
// do (long side to resize_long_side_px, each side floored to a multiple of 32, bilinear),
// the model, and the points scaled back per axis (mkpts * [w / w_new, h / h_new], as the
// original's evaluation does).
#include "core/vision/litesam_matcher.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/litesam_model_impl.h"
#include "core/vision/model_paths.h"

namespace skytrace::vision {
namespace {

constexpr int kSizeMultiple = 32;

struct PreparedImage {
  at::Tensor tensor;       // [1, 1, H', W'] float32 in [0, 1] on the device
  double scale_x = 1.0;    // original pixels per model pixel
  double scale_y = 1.0;
};

class LiteSamMatcher final : public DenseMatcher {
 public:
  explicit LiteSamMatcher(const DenseMatcherOptions& options)
      : options_(options), device_(toAtDevice(options.device)) {
    const std::string path = resolveWeightsPath("litesam", options.weights_path,
                                                kLiteSamPublishedFile, kLiteSamWeightsUrl);
    litesam::LiteSamConfig config;
    config.coarse.threshold = options.coarse_threshold;
    model_ = std::make_unique<litesam::LiteSamModel>(
        litesam::loadLiteSamModel(path, device_, config));
    if (options.reparameterize_backbone) model_->reparameterizeBackbone();
    if (!options.use_cuda_graphs) model_->setCudaGraphsEnabled(false);
    if (!options.fused_kernels) model_->setFusedKernelsEnabled(false);
    if (options.half_precision) model_->setHalfPrecision(true);  // throws off CUDA
  }

  std::string name() const override { return options_.model; }

  DenseMatches match(const cv::Mat& a, const cv::Mat& b) override {
    c10::InferenceMode inference;
    const PreparedImage image0 = prepare(a, "first image");
    const PreparedImage image1 = prepare(b, "second image");
    const litesam::LiteSamOutput out = model_->forward(image0.tensor, image1.tensor);

    // One device->host copy of [M, 5] (points of both images + confidence), then the
    // per-axis scale back to the original pixels on the host.
    const at::Tensor host =
        at::cat({out.mkpts0_f, out.mkpts1_f, out.mconf.unsqueeze(1)}, 1).to(at::kCPU).contiguous();
    DenseMatches matches;
    const int64_t n = host.size(0);
    const float* row = host.data_ptr<float>();
    matches.points_a.reserve(n);
    matches.points_b.reserve(n);
    matches.confidence.reserve(n);
    for (int64_t k = 0; k < n; ++k, row += 5) {
      matches.points_a.emplace_back(static_cast<float>(row[0] * image0.scale_x),
                                    static_cast<float>(row[1] * image0.scale_y));
      matches.points_b.emplace_back(static_cast<float>(row[2] * image1.scale_x),
                                    static_cast<float>(row[3] * image1.scale_y));
      matches.confidence.push_back(row[4]);
    }
    return matches;
  }

 private:
  PreparedImage prepare(const cv::Mat& image, const char* which) const {
    if (image.empty()) throw InvalidArgument("litesam: the " + std::string(which) + " is empty");
    if (image.depth() != CV_8U || (image.channels() != 3 && image.channels() != 1))
      throw InvalidArgument("litesam: the " + std::string(which) +
                            " must be an 8-bit BGR or grayscale image");
    cv::Mat gray;
    if (image.channels() == 3) cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
    else gray = image;

    // get_resized_wh + get_divisible_wh of the original loaders.
    int width = gray.cols, height = gray.rows;
    if (options_.resize_long_side_px > 0) {
      const double s = static_cast<double>(options_.resize_long_side_px) / std::max(width, height);
      width = static_cast<int>(std::lround(gray.cols * s));
      height = static_cast<int>(std::lround(gray.rows * s));
    }
    width = width / kSizeMultiple * kSizeMultiple;
    height = height / kSizeMultiple * kSizeMultiple;
    if (width < kSizeMultiple || height < kSizeMultiple)
      throw InvalidArgument("litesam: the " + std::string(which) + " (" +
                            std::to_string(image.cols) + "x" + std::to_string(image.rows) +
                            ") becomes smaller than 32x32 after resizing");
    cv::Mat resized = gray;
    if (width != gray.cols || height != gray.rows)
      cv::resize(gray, resized, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
    if (!resized.isContinuous()) resized = resized.clone();

    PreparedImage prepared;
    prepared.scale_x = static_cast<double>(gray.cols) / width;
    prepared.scale_y = static_cast<double>(gray.rows) / height;
    const at::Tensor host = at::from_blob(resized.data, {1, 1, height, width}, at::kByte);
    prepared.tensor = host.to(device_).to(at::kFloat).div(255);
    return prepared;
  }

  DenseMatcherOptions options_;
  at::Device device_;
  std::unique_ptr<litesam::LiteSamModel> model_;
};

}  // namespace

std::unique_ptr<DenseMatcher> createLiteSamMatcher(const DenseMatcherOptions& options) {
  return std::make_unique<LiteSamMatcher>(options);
}

}  // namespace skytrace::vision
