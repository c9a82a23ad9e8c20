// Where the logged GNSS disagrees with the visual track: per-frame horizontal distance,
// and segments where it stays above `threshold_sigma` x the combined 1-sigma (and above
// `min_distance_m`) for at least `min_duration_s` — GNSS glitches, jamming, spoofing.
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "core/geo/geodesy.h"
#include "core/geo/track.h"

namespace skytrace::nav {

struct DiscrepancyOptions {
  double threshold_sigma = 3.0;
  double min_distance_m = 5.0;   // never flag below this, whatever the sigmas
  double min_duration_s = 2.0;
  double gnss_sigma_m = 2.5;     // assumed 1-sigma of a consumer GNSS fix
  // A flagged run may bridge unflagged gaps this short; samples of consecutive frames
  // (photos seconds apart) always continue a run.
  double max_gap_s = 1.0;

  void check() const;  // throws InvalidArgument
};

struct DiscrepancySample {
  std::int64_t frame = -1;
  double t_s = 0.0;
  double distance_m = 0.0;
  double sigma_m = 0.0;   // combined 1-sigma (visual and GNSS)
  bool flagged = false;   // inside a reported segment
};

struct DiscrepancySegment {
  std::int64_t start_frame = -1, end_frame = -1;
  double start_s = 0.0, end_s = 0.0;
  double max_m = 0.0, mean_m = 0.0;
};

struct DiscrepancyAnalysis {
  std::vector<DiscrepancySample> samples;
  std::vector<DiscrepancySegment> segments;
};

// Compares at each visual pose's time: with the GNSS fix of that time (within 1 ms), else
// interpolated linearly between its neighbours (gaps > max_gap_s and poses without a
// GNSS position skipped). Both tracks share the video timeline.
DiscrepancyAnalysis analyzeGnssDiscrepancy(const geo::Track& visual, const geo::Track& gnss,
                                           const DiscrepancyOptions& options);

}  // namespace skytrace::nav
