// Area correlation: where a frame lies on a map window much coarser than the frame.
//
// When the camera footprint covers only tens of map pixels (a drone at 40-60 m over
// 0.3-1 m satellite imagery), local features of the two images describe different
// detail: the frame's is not in the map, and the map's few corners are blurred blobs in
// the frame. The layout of light and dark areas is the same in both. The caller rectifies
// the frame onto the map window's grid through the prior pose (north up, the map's own
// pixel, low-passed to it); correlateWithMap slides it over the map window at a set of
// rotations about the prior heading, scoring each shift by zero-mean normalised
// cross-correlation of the two images (blind to the map's gain and offset: another
// sensor, season, haze) and of their gradient magnitudes (edges survive a colour change
// that reorders brightness). The best peak, refined to a fraction of a pixel in shift
// and rotation, is accepted when it is high and stands clear of every peak away from it.
//
// Pure function of its inputs, host only (OpenCV); thread-safe.
#pragma once

#include <string>

#include <opencv2/core.hpp>

namespace skytrace::nav {

struct AreaCorrelationOptions {
  // Rotations of the rectified frame about the prior heading: -max..+max in steps of
  // rotation_step_deg (max 180: the whole circle, for an unknown heading).
  double max_rotation_deg = 6.0;
  double rotation_step_deg = 1.5;
  double min_peak = 0.55;         // correlation of the accepted peak, in [-1, 1]
  double min_peak_margin = 0.12;  // over the best peak outside the exclusion radius
  // Peaks closer to the best than this share of the frame's smaller side (in window
  // pixels) are the same peak.
  double exclusion_share = 0.35;
  int min_frame_px = 12;           // smaller side of the rectified frame's valid box
  double min_map_coverage = 0.8;   // share of the frame that must lie on valid map pixels

  void check() const;  // throws InvalidArgument
};

struct AreaCorrelation {
  bool found = false;
  // Why not found: "frame_too_small", "no_texture", "low_correlation", "ambiguous".
  std::string reason;
  // Rectified-frame pixel -> map-window pixel (a rotation about the frame's centre and a
  // shift); the identity means the prior was right.
  cv::Matx33d window_from_rectified = cv::Matx33d::eye();
  double peak = 0.0;         // correlation at the accepted peak
  double second_peak = -1.0; // best correlation outside the exclusion radius
  double rotation_deg = 0.0; // of the correction, counter-clockwise on the north-up grid
  cv::Point2d shift_px;      // of the frame's centre, window pixels
};

// `rectified` and `map` are 8-bit grey or BGR images of the same grid (the map window's);
// `rectified_valid` / `map_valid` are 8-bit masks (non-zero: image data there).
AreaCorrelation correlateWithMap(const cv::Mat& rectified, const cv::Mat& rectified_valid, const cv::Mat& map,
                                 const cv::Mat& map_valid, const AreaCorrelationOptions& options);

}  // namespace skytrace::nav
