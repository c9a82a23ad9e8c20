// Scores a computed track against ground truth: the one honest measuring stick for
// every accuracy claim in Skytrace.
//
// Matching: every truth pose is one "truth frame". By frame index (default) a truth
// frame gets the track pose with the same `frame`; by time, the track position linearly
// interpolated at the truth t_s (only between track poses at most max_gap_s apart).
// A truth frame without a matched, finite track lat/lon "has no position".
// Errors are measured in a local ENU frame at the first truth pose (metres):
// horizontal = hypot(dE, dN), vertical = dU (track - truth; only where both altitudes
// are known), heading = wrapped yaw difference (only where both yaws are known).
// Fractions (with_position, within_5/10/20 m) are over ALL truth frames, so frames
// without a position count as misses. Segments: consecutive fixed-length windows of
// the truth timeline (segment_s), each with the same statistics.
// Alignment (optional, for relative-only tracks): a rigid (rotation + translation) or
// similarity (+ scale) Umeyama fit of matched track positions onto truth in ENU,
// applied before the errors are measured; the report names it (never silently).
// Pure functions, thread-safe.
#pragma once

#include <opencv2/core.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "core/geo/track.h"

namespace skytrace::sim {

enum class EvalMatching { FrameIndex, Time };
enum class EvalAlignment { None, Rigid, Similarity };

const char* evalAlignmentName(EvalAlignment alignment);  // "none", "rigid", "similarity"
EvalAlignment parseEvalAlignment(const std::string& name);  // throws InvalidArgument
const char* evalMatchingName(EvalMatching matching);        // "frame", "time"
EvalMatching parseEvalMatching(const std::string& name);    // throws InvalidArgument

struct EvalOptions {
  EvalMatching matching = EvalMatching::FrameIndex;
  EvalAlignment alignment = EvalAlignment::None;
  double max_gap_s = 1.0;     // time matching: longest track gap to interpolate over
  double segment_s = 10.0;    // length of the per-segment windows
  void check() const;         // throws InvalidArgument
};

struct ErrorStats {
  int count = 0;
  double rmse_m = 0, mean_m = 0, median_m = 0, p90_m = 0, max_m = 0;
};

// Statistics of one set of truth frames (the whole flight or one segment).
struct EvalSummary {
  int truth_frames = 0;
  int frames_with_position = 0;
  double fraction_with_position = 0;
  ErrorStats horizontal;       // metres
  ErrorStats vertical_abs;     // |dU|, metres
  double vertical_mean_m = 0;  // signed mean dU (track above truth > 0)
  int heading_count = 0;
  double heading_rmse_deg = 0;
  double within_5m = 0, within_10m = 0, within_20m = 0;  // fractions of truth frames
};

struct EvalSegment {
  double start_s = 0, end_s = 0;
  EvalSummary summary;
};

// One truth frame's outcome.
struct FrameError {
  std::int64_t frame = -1;
  double t_s = 0;
  bool has_position = false;
  cv::Vec3d truth_enu{0, 0, 0};
  cv::Vec3d track_enu{0, 0, 0};  // after alignment
  double horizontal_m = 0;
  double vertical_m = 0;         // NaN when unknown
  double heading_error_deg = 0;  // NaN when unknown
};

struct EvalReport {
  EvalOptions options;
  std::string truth_name, track_name;
  double origin_lat_deg = 0, origin_lon_deg = 0, origin_alt_m = 0;
  // Alignment applied to the track (identity when none): p' = scale * R * p + t in ENU.
  cv::Matx33d alignment_rotation = cv::Matx33d::eye();
  cv::Vec3d alignment_translation_m{0, 0, 0};
  double alignment_scale = 1.0;
  EvalSummary overall;
  std::vector<EvalSegment> segments;
  std::vector<FrameError> frames;
};

// Throws InvalidArgument when truth is empty or alignment has < 3 matched positions.
EvalReport evaluateTrack(const geo::Track& truth, const geo::Track& track,
                         const EvalOptions& options);

// The report as JSON text (summary, segments, alignment; per-frame errors when
// include_frames).
std::string evalReportJson(const EvalReport& report, bool include_frames = true);

// A plot: left, truth (green) and track (red) on E/N axes with equal scale; right,
// horizontal error over time with 5/10/20 m guides. BGR CV_8UC3.
cv::Mat renderEvalPlot(const EvalReport& report, cv::Size size_px = {1400, 640});

// Umeyama (1991) least-squares fit of dst ~ scale * R * src + t. Exposed for tests.
// with_scale=false gives the rigid fit (scale = 1). Needs >= 3 non-collinear points.
void umeyamaAlignment(const std::vector<cv::Vec3d>& src, const std::vector<cv::Vec3d>& dst,
                      bool with_scale, cv::Matx33d* rotation, cv::Vec3d* translation,
                      double* scale);

}  // namespace skytrace::sim
