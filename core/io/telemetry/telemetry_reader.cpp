#include "core/io/telemetry/telemetry_reader.h"

#include <algorithm>
#include <cctype>

#include "core/io/telemetry/csv_track_reader.h"
#include "core/io/telemetry/gpx_reader.h"
#include "core/io/telemetry/srt_reader.h"
#include "core/io/telemetry/ulog_telemetry.h"
#include "core/util/error.h"

namespace skytrace::io {

namespace {

std::string lowerExtension(const std::string& path) {
  const std::size_t slash = path.find_last_of("/\\");
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

TelemetrySeries readTelemetry(const std::string& path, const TelemetryReadOptions& options) {
  options.check();
  const std::string ext = lowerExtension(path);
  if (ext == "gpx") return readGpxTelemetry(path, options);
  const std::string bytes = readTelemetryFileBytes(path, options.max_bytes);
  if (ext == "ulg" || isULog(bytes)) return telemetryFromULog(parseULog(bytes, path, options));
  if (ext == "srt") return parseDjiSrt(bytes, path, options);
  if (ext == "csv" || ext == "txt") return parseCsvTelemetry(bytes, path, options);
  throw FormatError(path + ": unknown flight-log type \"." + ext +
                    "\" (expected .srt, .ulg, .gpx or .csv)");
}

}  // namespace skytrace::io
