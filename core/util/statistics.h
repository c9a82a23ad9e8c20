// Small robust statistics shared by the navigation modules.
#pragma once

#include <algorithm>
#include <vector>

namespace skytrace {

// The median of `values` (the upper of the two middle values for an even count); the
// caller's vector is copied, not reordered. Precondition: `values` is not empty.
inline double median(std::vector<double> values) {
  const auto middle = values.begin() + long(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace skytrace
