// Entry points for reading flight logs: options shared by every parser, bounded file
// reading, and `readTelemetry` which picks the parser from the file name and content.
// All functions are reentrant (no shared state); call them from any thread.
#pragma once

#include <cstdint>
#include <string>

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
};

// Whole file into memory. IoError when it cannot be opened/read, FormatError (naming the
// file, its size and the limit) when it is larger than `max_bytes`.
std::string readTelemetryFileBytes(const std::string& path, std::uint64_t max_bytes);

// Reads a DJI .srt, PX4 .ulg, .gpx or .csv flight log (by extension; ULog also by its
// magic bytes). Throws IoError/FormatError for unreadable or unrecognised files; a file
// with some valid records returns them with warnings for what was skipped.
TelemetrySeries readTelemetry(const std::string& path, const TelemetryReadOptions& options = {});

}  // namespace skytrace::io
