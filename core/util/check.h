// Argument checks for Options::check() and API preconditions. They throw
// skytrace::InvalidArgument with the caller's message; they never abort.
#pragma once

#include <string>

#include "core/util/error.h"

namespace skytrace {

inline void checkArgument(bool condition, const std::string& message) {
  if (!condition) throw InvalidArgument(message);
}

}  // namespace skytrace
