#include "core/vision/homography_pipeline.h"

#include <opencv2/imgproc.hpp>

#include <chrono>
#include <fstream>
#include <sstream>

#include "core/util/error.h"

namespace skytrace::vision {
namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

cv::Mat toBgr(const cv::Mat& image) {
  cv::Mat bgr;
  if (image.channels() == 1) {
    cv::cvtColor(image, bgr, cv::COLOR_GRAY2BGR);
  } else if (image.channels() == 4) {
    cv::cvtColor(image, bgr, cv::COLOR_BGRA2BGR);
  } else {
    bgr = image.clone();
  }
  return bgr;
}

}  // namespace

ImagePairHomography estimateImagePairHomography(FeatureExtractor& extractor, Matcher& matcher,
                                                const cv::Mat& image_a, const cv::Mat& image_b,
                                                RansacOptions options, RobustEstimator estimator) {
  options.model = GeometricModelType::Homography;
  ImagePairHomography result;
  auto start = std::chrono::steady_clock::now();
  result.features_a = extractor.extract(image_a);
  result.features_b = extractor.extract(image_b);
  result.extract_ms = millisecondsSince(start);

  start = std::chrono::steady_clock::now();
  result.matches = matcher.match(result.features_a, result.features_b);
  result.match_ms = millisecondsSince(start);

  const std::vector<cv::Point2f> keypoints_a = result.features_a.keypoints();
  const std::vector<cv::Point2f> keypoints_b = result.features_b.keypoints();
  for (int k = 0; k < result.matches.size(); ++k) {
    const cv::Point2f& a = keypoints_a[result.matches.index_a[k]];
    const cv::Point2f& b = keypoints_b[result.matches.index_b[k]];
    result.points_a.push_back({a.x, a.y});
    result.points_b.push_back({b.x, b.y});
  }
  start = std::chrono::steady_clock::now();
  result.ransac = estimateHomography(result.points_a, result.points_b, options, estimator);
  result.ransac_ms = millisecondsSince(start);
  return result;
}

Matrix3d readHomographyFile(const std::string& path) {
  std::ifstream probe(path);
  if (!probe) throw IoError(path + ": cannot open the homography file");
  std::stringstream text;
  text << probe.rdbuf();
  const std::string content = text.str();
  Matrix3d m{};
  if (content.find("opencv-matrix") != std::string::npos || content.rfind("%YAML", 0) == 0) {
    cv::Mat matrix;
    try {
      cv::FileStorage storage(path, cv::FileStorage::READ);
      for (auto it = storage.root().begin(); it != storage.root().end(); ++it) {
        (*it) >> matrix;
        if (!matrix.empty()) break;
      }
    } catch (const cv::Exception& e) {
      throw FormatError(path + ": not a readable OpenCV matrix file (" + e.what() + ")");
    }
    if (matrix.rows != 3 || matrix.cols != 3)
      throw FormatError(path + ": expected a 3x3 matrix, found " + std::to_string(matrix.rows) +
                        "x" + std::to_string(matrix.cols));
    matrix.convertTo(matrix, CV_64F);
    for (int i = 0; i < 9; ++i) m[i] = matrix.at<double>(i / 3, i % 3);
  } else {
    std::istringstream numbers(content);
    for (int i = 0; i < 9; ++i) {
      if (!(numbers >> m[i]))
        throw FormatError(path + ": expected 9 numbers (a row-major 3x3 homography)");
    }
  }
  if (m[8] == 0.0) throw FormatError(path + ": homography has H(2,2) = 0");
  return m;
}

cv::Mat drawMatches(const cv::Mat& image_a, const cv::Mat& image_b,
                    const ImagePairHomography& result, bool draw_outliers) {
  const cv::Mat a = toBgr(image_a), b = toBgr(image_b);
  cv::Mat canvas(std::max(a.rows, b.rows), a.cols + b.cols, CV_8UC3, cv::Scalar::all(0));
  a.copyTo(canvas(cv::Rect(0, 0, a.cols, a.rows)));
  b.copyTo(canvas(cv::Rect(a.cols, 0, b.cols, b.rows)));
  const cv::Point2f offset(static_cast<float>(a.cols), 0.f);
  for (size_t k = 0; k < result.points_a.size(); ++k) {
    const bool inlier = k < result.ransac.inlier_mask.size() && result.ransac.inlier_mask[k];
    if (!inlier && !draw_outliers) continue;
    const cv::Scalar color = inlier ? cv::Scalar(60, 220, 60) : cv::Scalar(40, 40, 230);
    const cv::Point2f pa(static_cast<float>(result.points_a[k].x),
                         static_cast<float>(result.points_a[k].y));
    const cv::Point2f pb(static_cast<float>(result.points_b[k].x),
                         static_cast<float>(result.points_b[k].y));
    cv::line(canvas, pa, pb + offset, color, 1, cv::LINE_AA);
    cv::circle(canvas, pa, 2, color, -1, cv::LINE_AA);
    cv::circle(canvas, pb + offset, 2, color, -1, cv::LINE_AA);
  }
  return canvas;
}

cv::Mat drawKeypoints(const cv::Mat& image, const FeatureSet& features) {
  cv::Mat canvas = toBgr(image);
  const std::vector<cv::Point2f> points = features.keypoints();
  for (const auto& p : points) {
    cv::circle(canvas, p, 3, cv::Scalar(0, 255, 255), 1, cv::LINE_AA);
    cv::circle(canvas, p, 1, cv::Scalar(0, 0, 255), -1, cv::LINE_AA);
  }
  return canvas;
}

}  // namespace skytrace::vision
