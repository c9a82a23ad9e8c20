// Classical feature extractors (OpenCV ORB and SIFT) behind FeatureExtractor: the
// default when no learned weights are present. Keypoints are spread over the image by
// grid bucketing (keypoint_distribution.h) from an over-complete candidate set.
//
// Descriptors are float rows so that one cosine-similarity matcher serves every model:
// - "orb": the 256 BRIEF bits b_i become (2 b_i - 1) / 16, a unit vector whose dot
//   product with another is 1 - 2 * hamming / 256 (cosine ranking == Hamming ranking).
// - "sift": RootSIFT (L1-normalise, square root), which is L2-normalised by construction;
//   dot products are the Hellinger kernel of the original histograms.
// Scores are the detector responses (FAST/Harris for ORB, DoG contrast for SIFT),
// not comparable across models.
// Thread: create and use on one thread; features are copied to options.device.
#pragma once

#include <memory>

#include "core/vision/features.h"

namespace skytrace::vision {

// Tuning of the classical extractors beyond ExtractorOptions.
struct ClassicalExtractorOptions {
  // ORB: candidates detected before spreading, as a multiple of max_keypoints. ORB keeps
  // its top-N by Harris score, which clusters; 32x costs ~12 ms more at 640x480 but lets
  // the grid reach weakly textured cells. (SIFT keeps all its DoG extrema as candidates.)
  double candidate_factor = 32.0;
  // Expected keypoints per grid cell; sets the cell size from image area and budget.
  double keypoints_per_cell = 4.0;
  // false: keep the detector's own top-N (plain OpenCV behaviour, for comparison).
  bool spread_keypoints = true;

  void check() const;  // throws InvalidArgument
};

// options.model must be "orb" or "sift".
std::unique_ptr<FeatureExtractor> createClassicalExtractor(
    const ExtractorOptions& options, const ClassicalExtractorOptions& classical = {});

// Converts an N x 32 CV_8U ORB descriptor matrix to N x 256 CV_32F rows of +-1/16.
cv::Mat orbBitsToUnitFloat(const cv::Mat& orb_descriptors);

// Converts N x 128 CV_32F SIFT descriptors to RootSIFT (L2-normalised rows).
cv::Mat siftToRootSift(const cv::Mat& sift_descriptors);

}  // namespace skytrace::vision
