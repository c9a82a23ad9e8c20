// Progress reporting for long operations (parsers, renders, processing).
// The callback is called from the thread doing the work, with fraction in [0, 1] and a
// short stage label; returning false asks the operation to stop (it then throws
// skytrace::Cancelled or returns what it has, as its documentation says).
#pragma once

#include <functional>
#include <string>

namespace skytrace {

using ProgressCallback = std::function<bool(double fraction, const std::string& stage)>;

// Calls `progress` if set; returns false when the caller asked to stop.
inline bool reportProgress(const ProgressCallback& progress, double fraction,
                           const std::string& stage) {
  return !progress || progress(fraction, stage);
}

}  // namespace skytrace
