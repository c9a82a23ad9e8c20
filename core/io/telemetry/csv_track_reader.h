// Tolerant CSV flight-log reader (exports from AirData, Litchi, DJI Flight Log Viewer,
// QGroundControl, Skytrace's own track CSV, spreadsheets). The first line (after blank
// and '#' comment lines) holding recognisable latitude and longitude column names is the
// header; the delimiter is ',', ';' or tab, whichever the header uses most; fields may be
// double-quoted; with ';' a decimal comma is accepted. Column names are matched
// case-insensitively after dropping a unit suffix "(...)"/"[...]": lat/latitude/lat_deg/
// gps_lat, lon/lng/long/longitude/lon_deg/gps_lon, alt/altitude/alt_m/ele/elevation/
// alt_abs_m/abs_alt (absolute), rel_alt/alt_rel_m/height/height_above_takeoff (relative;
// "(feet)"/"(ft)" converted), time columns (t_s, time_s, seconds, elapsed; time(millisecond)
// in ms; time/timestamp/datetime/utc as ISO 8601 or Unix seconds), yaw/heading, pitch,
// roll, speed, frame. Absolute times give start_unix_s and log_t_s relative to the first
// row; without a time column rows are taken 1 s apart (warned). Rows with an unreadable
// position or a time going backwards are skipped with their line number.
#pragma once

#include <string>
#include <string_view>

#include "core/io/telemetry/telemetry_reader.h"

namespace skytrace::io {

// FormatError when no header with latitude and longitude columns is found or over the
// size limit.
TelemetrySeries parseCsvTelemetry(std::string_view text, const std::string& source_name,
                                  const TelemetryReadOptions& options = {});
TelemetrySeries readCsvTelemetry(const std::string& path, const TelemetryReadOptions& options = {});

}  // namespace skytrace::io
