// Numbers as text files write them: fixed decimals, the empty field for an unknown value.
#pragma once

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

namespace skytrace {

// `value` with `decimals` digits after the point ("12.340"); "" when it is NaN or infinite
// (an unknown field in CSV files).
inline std::string fixedDecimals(double value, int decimals) {
  if (!std::isfinite(value)) return "";
  std::ostringstream out;
  out << std::fixed << std::setprecision(decimals) << value;
  return out.str();
}

}  // namespace skytrace
