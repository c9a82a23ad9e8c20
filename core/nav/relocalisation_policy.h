// When a navigation session stops searching around its fused estimate.
//
// A registration attempt around the estimate can fail: too few inliers, a fix fusion
// rejects, or "no_candidate" (the predicted footprint lands on no basemap: the estimate
// drifted off the map, or the flight left it). After kFailuresBeforeRelocalising
// failures in a row the estimate is distrusted: attempts search around the logged
// position and over the whole basemap instead, and a fix they find replaces the
// estimate. A global search that fails is retried after a back-off of 1, 2, 4, 8 and
// then 16 s of video, so that a flight that really left the basemaps costs one global
// search per 16 s instead of one per keyframe; the attempts in between search around
// the logged position, or around the distrusted estimate without a log. Any accepted
// fix ends the back-off.
//
// Thread: owned by one NavigationSession (its VO thread). Outcomes may be recorded in any
// frame order (fixes arrive late); times are the attempts' video times in seconds.
#pragma once

#include <limits>

#include "core/nav/basemap_registration.h"

namespace skytrace::nav {

class RelocalisationPolicy {
 public:
  static constexpr int kFailuresBeforeRelocalising = 5;
  static constexpr double kFirstRetryS = 1.0;
  static constexpr double kLongestRetryS = 16.0;

  // True once kFailuresBeforeRelocalising attempts in a row failed: a fix found without
  // the estimate then replaces it (TrajectoryFusion::addFix's `relocalise`).
  bool distrustsEstimate() const { return failures_in_a_row_ >= kFailuresBeforeRelocalising; }
  // Whether the attempt for the frame at `t_s` may search the whole basemap: the estimate
  // is distrusted, and no global search has failed within the current back-off.
  bool globalSearchDue(double t_s) const { return distrustsEstimate() && t_s >= global_retry_at_s_; }
  // An attempt's outcome; `accepted`: registration and fusion both accepted the fix.
  void record(const RegistrationFix& fix, bool accepted);
  int failuresInARow() const { return failures_in_a_row_; }

 private:
  int failures_in_a_row_ = 0;
  double global_retry_at_s_ = -std::numeric_limits<double>::infinity();
  double next_backoff_s_ = kFirstRetryS;
};

}  // namespace skytrace::nav
