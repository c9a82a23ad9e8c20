// Small robust statistics shared by the navigation modules, the engine's latency
// figures and the views.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace skytrace {

// The median of `values` (the upper of the two middle values for an even count); the
// caller's vector is copied, not reordered. Precondition: `values` is not empty.
inline double median(std::vector<double> values) {
  const auto middle = values.begin() + long(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// The q-quantile of `values` by the nearest-rank method: the smallest value with at
// least q * n values at or below it (q = 0.5 of an even count: the lower middle value;
// q = 0.99 of 100 values: the 99th smallest). q is clamped to [0, 1]; 0 for no values.
// The caller's vector is copied, not reordered.
inline double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  const std::size_t n = values.size();
  const auto rank = static_cast<std::size_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(n)));
  const auto nth = values.begin() + long(std::clamp<std::size_t>(rank, 1, n) - 1);
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

}  // namespace skytrace
