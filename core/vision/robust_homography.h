// Robust homography: OpenCV's USAC framework with the MAGSAC++ score, Skytrace's batched
// LO-RANSAC (robust_estimation.h), or MAGSAC++ backed by LO-RANSAC on pairs with few
// inliers (`auto` on the CPU; VO's default there, registration keeps LO-RANSAC:
// nav/basemap_registration.h says why); on a GPU LO-RANSAC. Every estimator answers in the same terms: the inlier mask, the inlier
// count and the RMS error are those of robust_estimation.h (symmetric transfer error
// against options.inlier_threshold_px), so acceptance rules downstream (minimum inliers,
// inlier ratio) mean the same whichever estimator ran.
// Measured on the 2-core development VM (docs/benchmarks.md, "Robust estimation"):
// graf1 -> graf3 (1045 SIFT matches, 61 % inliers): MAGSAC++ 0.41 ms and 0.47 px corner
// error, LO-RANSAC 7.5 ms and 0.89 px; the same matches diluted to 15 % inliers: MAGSAC++
// 3.6 ms but 2.6 px, LO-RANSAC 78 ms and 0.84 px, hence the fallback.
// Thread: any (each call is independent; USAC runs on the calling thread only).
#pragma once

#include <string>
#include <vector>

#include "core/vision/robust_estimation.h"

namespace skytrace::vision {

enum class RobustEstimator {
  Auto,         // MagsacFirst when options.device is the CPU, LoRansac on a GPU
  LoRansac,     // estimateGeometricModel (robust_estimation.h), on options.device
  Magsac,       // OpenCV USAC_MAGSAC on the calling thread, whatever options.device says
  // MAGSAC++; when it finds fewer than kMagsacSufficientInlierRatio of the pairs to be
  // inliers, also LO-RANSAC, and the fit with more inliers.
  MagsacFirst,
};

// MagsacFirst trusts MAGSAC++ alone from this inlier ratio on.
constexpr double kMagsacSufficientInlierRatio = 0.5;

// "auto", "lo-ransac", "magsac", "magsac-first"
std::string toString(RobustEstimator estimator);
// Parses the names above; throws InvalidArgument naming the accepted ones.
RobustEstimator parseRobustEstimator(const std::string& text);
// The estimator `estimator` stands for on `device` (never Auto).
RobustEstimator resolveRobustEstimator(RobustEstimator estimator, const DeviceSpec& device);

// Fits b ~ H a to points_a[i] <-> points_b[i] (options.model must be Homography) with the
// estimator resolveRobustEstimator picks. MAGSAC++ uses options.inlier_threshold_px as its
// maximum threshold, options.max_hypotheses + options.host_hypotheses as its iteration
// limit and options.confidence; it is deterministic for the same points (OpenCV's USAC
// RNG starts from a fixed state; options.seed is LO-RANSAC's only). Throws InvalidArgument
// for mismatched sizes or bad options.
RansacResult estimateHomography(const std::vector<Point2d>& points_a,
                                const std::vector<Point2d>& points_b, const RansacOptions& options,
                                RobustEstimator estimator = RobustEstimator::Auto);

}  // namespace skytrace::vision
