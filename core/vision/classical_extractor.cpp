#include "core/vision/classical_extractor.h"

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/keypoint_distribution.h"

namespace skytrace::vision {
namespace {

constexpr int kMinImageSidePx = 32;

cv::Mat toGray(const cv::Mat& image) {
  if (image.empty()) throw InvalidArgument("feature extraction: the image is empty");
  if (image.depth() != CV_8U)
    throw InvalidArgument("feature extraction: expected an 8-bit image, got depth " +
                          std::to_string(image.depth()));
  if (image.channels() == 1) return image;
  cv::Mat gray;
  if (image.channels() == 3) {
    cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
  } else if (image.channels() == 4) {
    cv::cvtColor(image, gray, cv::COLOR_BGRA2GRAY);
  } else {
    throw InvalidArgument("feature extraction: expected 1, 3 or 4 channels, got " +
                          std::to_string(image.channels()));
  }
  return gray;
}

class ClassicalExtractor final : public FeatureExtractor {
 public:
  ClassicalExtractor(const ExtractorOptions& options, const ClassicalExtractorOptions& classical)
      : options_(options), classical_(classical) {
    const int candidates = classical_.spread_keypoints
                               ? static_cast<int>(options_.max_keypoints *
                                                  classical_.candidate_factor)
                               : options_.max_keypoints;
    if (options_.model == "orb") {
      // A low FAST threshold so that weakly textured areas (fields, water) still offer
      // candidates; the grid selection then decides.
      detector_ = cv::ORB::create(candidates, 1.2f, 8, 31, 0, 2, cv::ORB::HARRIS_SCORE, 31,
                                  classical_.spread_keypoints ? 10 : 20);
    } else {
      detector_ = cv::SIFT::create(classical_.spread_keypoints ? 0 : candidates, 3,
                                   classical_.spread_keypoints ? 0.02 : 0.04);
    }
  }

  std::string name() const override { return options_.model; }
  bool rotationInvariant() const override { return true; }
  bool classical() const override { return true; }

  using FeatureExtractor::extract;
  // Runs on the host: a device image is downloaded (counted in transfers()).
  FeatureSet extract(const Image& input) override {
    if (input.empty()) throw InvalidArgument(options_.model + ": empty image");
    const cv::Mat image = input.hostPixels(&transfers_);
    // ORB's pyramid and SIFT's octaves need room around each keypoint.
    if (image.cols < kMinImageSidePx || image.rows < kMinImageSidePx)
      throw InvalidArgument(options_.model + ": image of " + std::to_string(image.cols) + "x" +
                            std::to_string(image.rows) + " is too small (at least " +
                            std::to_string(kMinImageSidePx) + "x" + std::to_string(kMinImageSidePx) + ")");
    const cv::Mat gray = toGray(image);
    std::vector<cv::KeyPoint> keypoints;
    detector_->detect(gray, keypoints);
    if (classical_.spread_keypoints) {
      const double area = static_cast<double>(gray.cols) * gray.rows;
      const int cell_px = std::max(
          8, static_cast<int>(std::lround(std::sqrt(area * classical_.keypoints_per_cell /
                                                    options_.max_keypoints))));
      const std::vector<int> chosen =
          selectByGrid(keypoints, gray.size(), options_.max_keypoints, cell_px);
      std::vector<cv::KeyPoint> spread;
      spread.reserve(chosen.size());
      for (int index : chosen) spread.push_back(keypoints[index]);
      keypoints.swap(spread);
    } else if (static_cast<int>(keypoints.size()) > options_.max_keypoints) {
      cv::KeyPointsFilter::retainBest(keypoints, options_.max_keypoints);
      keypoints.resize(options_.max_keypoints);
    }
    cv::Mat raw;
    detector_->compute(gray, keypoints, raw);  // may drop keypoints near the border
    cv::Mat rows = options_.model == "orb" ? orbBitsToUnitFloat(raw) : siftToRootSift(raw);

    std::vector<cv::Point2f> points;
    std::vector<float> scores;
    points.reserve(keypoints.size());
    scores.reserve(keypoints.size());
    for (const auto& kp : keypoints) {
      points.push_back(kp.pt);
      scores.push_back(kp.response);
    }
    if (points.empty()) rows = cv::Mat(0, options_.model == "orb" ? 256 : 128, CV_32F);
    return makeFeatureSetFromHost(points, scores, rows, gray.cols, gray.rows, options_.device);
  }

 private:
  ExtractorOptions options_;
  ClassicalExtractorOptions classical_;
  cv::Ptr<cv::Feature2D> detector_;
};

}  // namespace

void ClassicalExtractorOptions::check() const {
  checkArgument(candidate_factor >= 1.0 && candidate_factor <= 64.0,
                "candidate_factor must be in [1, 64], got " + std::to_string(candidate_factor));
  checkArgument(keypoints_per_cell >= 1.0 && keypoints_per_cell <= 1000.0,
                "keypoints_per_cell must be in [1, 1000], got " +
                    std::to_string(keypoints_per_cell));
}

std::unique_ptr<FeatureExtractor> createClassicalExtractor(
    const ExtractorOptions& options, const ClassicalExtractorOptions& classical) {
  options.check();
  classical.check();
  checkArgument(options.model == "orb" || options.model == "sift",
                "classical extractor: model must be orb or sift, got '" + options.model + "'");
  return std::make_unique<ClassicalExtractor>(options, classical);
}

cv::Mat orbBitsToUnitFloat(const cv::Mat& orb_descriptors) {
  if (orb_descriptors.empty()) return cv::Mat(0, 256, CV_32F);
  checkArgument(orb_descriptors.type() == CV_8U && orb_descriptors.cols == 32,
                "ORB descriptors must be N x 32 CV_8U");
  cv::Mat rows(orb_descriptors.rows, 256, CV_32F);
  constexpr float kUnit = 1.0f / 16.0f;  // 1 / sqrt(256)
  for (int r = 0; r < orb_descriptors.rows; ++r) {
    const uchar* bytes = orb_descriptors.ptr<uchar>(r);
    float* out = rows.ptr<float>(r);
    for (int b = 0; b < 256; ++b) out[b] = ((bytes[b >> 3] >> (b & 7)) & 1) ? kUnit : -kUnit;
  }
  return rows;
}

cv::Mat siftToRootSift(const cv::Mat& sift_descriptors) {
  if (sift_descriptors.empty()) return cv::Mat(0, 128, CV_32F);
  checkArgument(sift_descriptors.type() == CV_32F, "SIFT descriptors must be CV_32F");
  cv::Mat rows = sift_descriptors.clone();
  for (int r = 0; r < rows.rows; ++r) {
    cv::Mat row = rows.row(r);
    const double l1 = cv::norm(row, cv::NORM_L1);
    if (l1 > 0) row /= l1;
    cv::sqrt(row, row);
  }
  return rows;
}

}  // namespace skytrace::vision
