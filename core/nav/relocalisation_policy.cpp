#include "core/nav/relocalisation_policy.h"

#include <algorithm>

namespace skytrace::nav {

void RelocalisationPolicy::record(const RegistrationFix& fix, bool accepted) {
  if (accepted) {
    failures_in_a_row_ = 0;
    global_retry_at_s_ = -std::numeric_limits<double>::infinity();
    next_backoff_s_ = kFirstRetryS;
    return;
  }
  ++failures_in_a_row_;
  if (fix.global_mode && distrustsEstimate()) {
    global_retry_at_s_ = std::max(global_retry_at_s_, fix.t_s + next_backoff_s_);
    next_backoff_s_ = std::min(2.0 * next_backoff_s_, kLongestRetryS);
  }
}

}  // namespace skytrace::nav
