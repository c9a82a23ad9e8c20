// Entry points for reading flight logs: options shared by every parser, bounded file
// reading, and `readTelemetry` which picks the parser from the file name and content.
// All functions are reentrant (no shared state); call them from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/io/telemetry/telemetry_series.h"
#include "core/util/progress.h"

namespace skytrace::io {

struct TelemetryReadOptions {
  // Inputs larger than this are refused with FormatError (the files analysts have are
  // megabytes; gigabytes mean a wrong file). Must be > 0.
  std::uint64_t max_bytes = kDefaultTelemetryMaxBytes;
  // Called now and then with the parsed fraction; returning false throws Cancelled.
  ProgressCallback progress;
  void check() const;  // throws InvalidArgument
  // check(), then FormatError naming `source_name` and the limit when `size_bytes` is
  // over max_bytes. Every parser calls it first.
  void checkInput(std::uint64_t size_bytes, const std::string& source_name) const;
};

// Whole file into memory. IoError when it cannot be opened/read, FormatError (naming the
// file, its size and the limit) when it is larger than `max_bytes`.
std::string readTelemetryFileBytes(const std::string& path, std::uint64_t max_bytes);

// Reads a DJI .srt, PX4 .ulg, ArduPilot DataFlash .bin, MAVLink .tlog, .gpx or .csv
// flight log (by extension; ULog and DataFlash also by their first bytes, a .tlog under
// another name by its first record). Throws IoError/FormatError for unreadable or unrecognised files; a file
// with some valid records returns them with warnings for what was skipped. Positions
// outside WGS84 or not finite are cleared (dropInvalidPositions), so every position a
// series holds can be exported.
TelemetrySeries readTelemetry(const std::string& path, const TelemetryReadOptions& options = {});

// Clears lat/lon of samples whose coordinates are not finite or outside |lat| <= 90,
// |lon| <= 180 (the rest of the sample is kept) and adds one warning counting them.
void dropInvalidPositions(TelemetrySeries& series);

// The series' parse warnings as lines "PATH: line 12: ...", at most `max_lines` (then a
// last line counting the rest), for run reports and logs.
std::vector<std::string> warningLines(const TelemetrySeries& series, std::size_t max_lines = 20);

}  // namespace skytrace::io
