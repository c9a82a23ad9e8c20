// Image pair -> homography: features on both images, descriptor matches, robust
// homography (b_from_a), with the time of each step. Used by `skytrace-cli match`, the
// vision benchmark and the real-data tests. Thread: the caller's (the extractor and
// matcher must belong to it).
#pragma once

#include <opencv2/core.hpp>

#include <string>

#include "core/vision/features.h"
#include "core/vision/matcher.h"
#include "core/vision/robust_homography.h"

namespace skytrace::vision {

struct ImagePairHomography {
  FeatureSet features_a, features_b;
  Matches matches;
  std::vector<Point2d> points_a, points_b;  // matched keypoints, in match order
  RansacResult ransac;                      // ransac.inlier_mask is per match
  double extract_ms = 0.0;                  // both images
  double match_ms = 0.0;
  double ransac_ms = 0.0;
};

// Runs the three steps (the robust fit through robust_homography.h's `estimator`).
// options.model is forced to Homography. Throws skytrace::Error.
ImagePairHomography estimateImagePairHomography(FeatureExtractor& extractor, Matcher& matcher,
                                                const cv::Mat& image_a, const cv::Mat& image_b,
                                                RansacOptions options,
                                                RobustEstimator estimator = RobustEstimator::Auto);

// Reads a 3x3 matrix from an OpenCV FileStorage file (XML/YAML; the first matrix
// node, e.g. H1to3p.xml of the OpenCV samples) or a plain text file of 9 numbers.
// Throws IoError / FormatError naming the file.
Matrix3d readHomographyFile(const std::string& path);

// Draws the two images side by side with lines between inlier matches (green) and,
// when `draw_outliers`, outliers (red). BGR output.
cv::Mat drawMatches(const cv::Mat& image_a, const cv::Mat& image_b,
                    const ImagePairHomography& result, bool draw_outliers = false);

// Draws each keypoint as a small circle. BGR output.
cv::Mat drawKeypoints(const cv::Mat& image, const FeatureSet& features);

}  // namespace skytrace::vision
