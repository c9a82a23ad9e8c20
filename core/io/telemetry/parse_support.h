// Internal helpers shared by the telemetry parsers (not part of the public interface):
// locale-independent number scanning, bounded warning lists, calendar arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/telemetry/telemetry_series.h"

namespace skytrace::io::detail {

// Caps the number of stored warnings (a broken 2 GB file must not make 10^8 strings);
// the overflow is summarised by finish().
class WarningSink {
 public:
  explicit WarningSink(std::vector<ParseWarning>& out, std::size_t max_stored = 200)
      : out_(out), max_stored_(max_stored) {}
  void atLine(std::size_t line, std::string message);
  void atOffset(std::uint64_t offset, std::string message);
  void finish();  // appends "N more warnings not shown" when some were dropped
  std::size_t total() const { return total_; }

 private:
  void add(ParseWarning warning);
  std::vector<ParseWarning>& out_;
  std::size_t max_stored_;
  std::size_t total_ = 0;
};

// A little-endian value of type T at `p` (unaligned). ULog, DataFlash and MAVLink are
// little-endian, as every host this builds for.
template <typename T>
T loadLittleEndian(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

bool isDigit(char c);
bool isSpace(char c);
std::string_view trim(std::string_view s);

// Parses a decimal number (optional sign, digits, '.' fraction, exponent) starting at
// `pos` after optional spaces; on success stores it, advances `pos` past it and returns
// true. Only finite values are accepted. Never reads outside `text`.
bool scanNumber(std::string_view text, std::size_t& pos, double& value);
// Whole-field number: "12.5", " -3 "; false for anything else.
bool parseNumber(std::string_view field, double& value);

// Days since 1970-01-01 of a proleptic Gregorian date (no range checks beyond month/day).
std::int64_t daysFromCivil(std::int64_t year, unsigned month, unsigned day);

// ISO 8601 / common log date-times: "2024-05-01T10:00:00.5Z", "2024-05-01 10:00:00",
// "+02:00" offsets; returns Unix seconds or NaN. Used by CSV.
double parseIsoDateTime(std::string_view text);

// Index of the value in `sorted_t` (non-decreasing) nearest `t` and at most `max_gap`
// away, or -1. O(log n). Used to attach attitude and altitude records to GNSS records.
long nearestIndex(const std::vector<double>& sorted_t, double t, double max_gap);

// Sets series.start_unix_s from the first sample that states its UTC time (unix_s -
// log_t_s); leaves it NaN when none does. Samples in log order.
void startFromSampleTimes(TelemetrySeries& series);

// UTC Unix seconds of a GPS week number and time of week (seconds), with the leap
// seconds in force then (GPS time runs ahead of UTC by 18 s since 2017-01-01).
double unixFromGpsWeek(double week, double time_of_week_s);

}  // namespace skytrace::io::detail
