#include "core/io/telemetry/telemetry_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/io/telemetry/csv_track_reader.h"
#include "core/io/telemetry/dataflash_reader.h"
#include "core/io/telemetry/gpx_reader.h"
#include "core/io/telemetry/mavlink_tlog_reader.h"
#include "core/io/telemetry/parse_support.h"
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

TelemetrySeries readByFormat(const std::string& path, const TelemetryReadOptions& options) {
  const std::string ext = lowerExtension(path);
  if (ext == "gpx") return readGpxTelemetry(path, options);
  const std::string bytes = readTelemetryFileBytes(path, options.max_bytes);
  if (ext == "ulg" || isULog(bytes)) return telemetryFromULog(parseULog(bytes, path, options));
  if (ext == "bin" || isDataflashLog(bytes)) return parseDataflashLog(bytes, path, options);
  if (ext == "tlog") return parseMavlinkTlog(bytes, path, options);
  if (ext == "srt") return parseDjiSrt(bytes, path, options);
  if (ext == "csv" || ext == "txt") return parseCsvTelemetry(bytes, path, options);
  if (isMavlinkTlog(bytes)) return parseMavlinkTlog(bytes, path, options);
  throw FormatError(path + ": unknown flight-log type \"." + ext +
                    "\" (expected .srt, .ulg, .bin, .tlog, .gpx or .csv)");
}

}  // namespace

void dropInvalidPositions(TelemetrySeries& series) {
  std::size_t dropped = 0;
  std::string first;
  for (std::size_t i = 0; i < series.samples.size(); ++i) {
    TelemetrySample& s = series.samples[i];
    const bool given = !std::isnan(s.lat_deg) || !std::isnan(s.lon_deg);
    if (!given || (std::isfinite(s.lat_deg) && std::isfinite(s.lon_deg) &&
                   std::abs(s.lat_deg) <= 90.0 && std::abs(s.lon_deg) <= 180.0))
      continue;
    if (dropped++ == 0) {
      first = "sample " + std::to_string(i + 1) + " (lat " + std::to_string(s.lat_deg) + ", lon " +
              std::to_string(s.lon_deg) + ")";
    }
    s.lat_deg = kNoValue;
    s.lon_deg = kNoValue;
  }
  if (dropped == 0) return;
  detail::WarningSink warnings(series.warnings);
  warnings.atLine(0, std::to_string(dropped) + " sample(s) with coordinates outside WGS84 "
                         "(|lat| <= 90, |lon| <= 180), first " + first + ": position ignored");
  warnings.finish();
}

std::vector<std::string> warningLines(const TelemetrySeries& series, std::size_t max_lines) {
  std::vector<std::string> lines;
  for (const ParseWarning& warning : series.warnings) {
    if (lines.size() == max_lines) {
      lines.push_back(series.source_path + ": " + std::to_string(series.warnings.size() - max_lines) +
                      " more warnings");
      break;
    }
    lines.push_back(series.source_path + ": " + formatWarning(warning));
  }
  return lines;
}

TelemetrySeries readTelemetry(const std::string& path, const TelemetryReadOptions& options) {
  options.check();
  TelemetrySeries series = readByFormat(path, options);
  if (series.source_path.empty()) series.source_path = path;
  dropInvalidPositions(series);
  return series;
}

}  // namespace skytrace::io
