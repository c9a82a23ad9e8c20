// Integers from JSON documents of outside origin (camera files, projects, checkpoint
// headers). nlohmann::json turns a floating number (1e77) into an integer type with a
// plain C++ conversion, which is undefined behaviour when it does not fit: these accept
// only integer JSON numbers that fit `Int` and throw FormatError naming `what` otherwise.
// Header-only; any thread.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/util/error.h"

namespace skytrace {

template <typename Int>
Int jsonInteger(const nlohmann::json& value, const std::string& what) {
  static_assert(std::is_integral_v<Int>, "jsonInteger reads integer types");
  using Limits = std::numeric_limits<Int>;
  if (value.is_number_unsigned()) {
    const std::uint64_t v = value.get<std::uint64_t>();
    if (v <= static_cast<std::uint64_t>(Limits::max())) return static_cast<Int>(v);
  } else if (value.is_number_integer()) {
    const std::int64_t v = value.get<std::int64_t>();
    const bool fits = v >= 0 ? static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(Limits::max())
                             : std::is_signed_v<Int> && v >= static_cast<std::int64_t>(Limits::min());
    if (fits) return static_cast<Int>(v);
  }
  throw FormatError(what + " must be an integer from " + std::to_string(Limits::min()) + " to " +
                    std::to_string(Limits::max()) + ", got " + value.dump());
}

template <typename Int>
std::vector<Int> jsonIntegers(const nlohmann::json& value, const std::string& what) {
  if (!value.is_array()) throw FormatError(what + " must be an array of integers, got " + value.dump());
  std::vector<Int> out;
  out.reserve(value.size());
  for (const nlohmann::json& item : value) out.push_back(jsonInteger<Int>(item, what));
  return out;
}

}  // namespace skytrace
