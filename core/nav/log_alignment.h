// How far a flight log's clock is off the video's, measured from the images: the shift
// in time that lays the logged GNSS track best onto the visual track. Visual positions
// come from the frames (registration against the basemap), so the visual track is on the
// video's clock whatever the log says; the GNSS track is on it only as far as the offset
// used to read the log is right. Pure functions, thread-safe.
#pragma once

#include <optional>
#include <string>

#include "core/geo/track.h"

namespace skytrace::nav {

struct LogAlignmentOptions {
  double max_shift_s = 60.0;     // shifts searched: [-max_shift_s, +max_shift_s]
  double coarse_step_s = 0.1;    // first pass; then coarse_step_s / 10, then least squares
  double max_gap_s = 1.0;        // visual poses further apart are not interpolated between
  int min_fixes = 20;            // GNSS fixes on the visual track needed at a shift
  double min_overlap = 0.5;      // ... and this share of those a track-long stretch holds
  double robust_scale_m = 3.0;   // Cauchy loss scale: a spoofed stretch counts little
  double ambiguity_ratio = 1.2;  // another minimum >= 1 s away this close: ambiguous
  double max_bias_m = 10.0;      // constant GNSS -> visual offset allowed (map, GNSS bias)
  // GNSS errors wander with about this time constant: fixes 2x this apart count as
  // independent errors (the sigma, not the estimate, depends on it).
  double error_correlation_s = 5.0;
  // The velocity must vary (turns, speed changes) by this much RMS: along a straight
  // line at constant speed a shift in time is an offset along the line.
  double min_velocity_spread_mps = 1.0;

  void check() const;  // throws InvalidArgument
};

struct LogAlignment {
  // False when the shift cannot be measured: too few fixes on the visual track, too
  // little change of velocity, or a path that repeats (two shifts fit alike); `reason`
  // says which.
  bool estimated = false;
  std::string reason;
  // The GNSS track fits best moved this much later in video time: the log's right
  // offset is the offset used plus shift_s (seconds).
  double shift_s = 0.0;
  // 1-sigma of shift_s: the residual over the motion seen, with GNSS errors taken as
  // independent only 2 error_correlation_s apart (they wander for seconds).
  double sigma_s = 0.0;
  double residual_m = 0.0;  // RMS horizontal residual of the inliers at the best shift
  double bias_east_m = 0.0, bias_north_m = 0.0;  // constant offset GNSS -> visual (median, clamped)
  int fixes_compared = 0;
};

// `visual` and `gnss` share the video timeline as read (poses without a position are
// skipped). O(G log V) per shift for G GNSS fixes and V visual poses.
LogAlignment estimateLogAlignment(const geo::Track& visual, const geo::Track& gnss,
                                  const LogAlignmentOptions& options = {});

// The warning for the user when `alignment` says that the log read with `offset_used_s`
// is off the video's clock by more than a frame (`frame_interval_s`) and 3 sigma: how
// far, and the offset to use instead. nullopt otherwise.
std::optional<std::string> logClockWarning(const LogAlignment& alignment, double offset_used_s,
                                           double frame_interval_s);

}  // namespace skytrace::nav
