#include "core/io/telemetry/csv_track_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "core/io/telemetry/parse_support.h"
#include "core/util/error.h"

namespace skytrace::io {

namespace {

// Numbers in a time column below this (1971-01-01T00:00:00Z) are seconds from the start of
// the log, not Unix times: a date in 1970 is never invented from them.
constexpr double kEarliestDateUnixS = 31536000.0;

enum class Column { Lat, Lon, AltAbs, AltRel, TimeRelative, TimeMillis, TimeAbsolute, Yaw, Pitch, Roll, Speed, Frame, Count };

struct NameRule {
  Column column;
  std::array<const char*, 12> names;
};

const NameRule kRules[] = {
    {Column::Lat, {"lat", "latitude", "lat_deg", "latdeg", "gps_lat", "gpslat", "gps_latitude", "lat_wgs84"}},
    {Column::Lon, {"lon", "lng", "long", "longitude", "lon_deg", "londeg", "gps_lon", "gpslon", "gps_long",
                   "gps_longitude", "lon_wgs84"}},
    {Column::AltAbs, {"alt", "altitude", "alt_m", "ele", "elevation", "alt_abs_m", "abs_alt", "altitude_msl",
                      "gps_alt", "altitude_above_sealevel", "alt_msl"}},
    {Column::AltRel, {"rel_alt", "alt_rel_m", "alt_rel", "height", "height_above_takeoff", "relative_altitude",
                      "height_m", "agl"}},
    {Column::TimeRelative, {"t_s", "time_s", "seconds", "elapsed", "elapsed_s", "elapsed_time", "offset_s",
                            "flytime", "time_since_start"}},
    {Column::TimeMillis, {"time_ms", "timems", "milliseconds", "time_millisecond", "timestamp_ms"}},
    {Column::TimeAbsolute, {"time", "timestamp", "datetime", "date_time", "utc", "time_utc", "gps_time",
                            "datetime_utc", "utc_time", "time_iso"}},
    {Column::Yaw, {"yaw", "yaw_deg", "heading", "heading_deg", "compass_heading"}},
    {Column::Pitch, {"pitch", "pitch_deg"}},
    {Column::Roll, {"roll", "roll_deg"}},
    {Column::Speed, {"speed", "speed_mps", "ground_speed", "groundspeed", "speed_m_s"}},
    {Column::Frame, {"frame", "frame_index"}},
};

// Lower-case, unit suffix dropped ("Altitude (feet)" -> "altitude"), spaces/colons/dashes
// -> '_'. `unit` gets the suffix in lower case.
std::string normaliseName(std::string_view raw, std::string& unit) {
  raw = detail::trim(raw);
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') raw = raw.substr(1, raw.size() - 2);
  std::string name;
  unit.clear();
  bool in_unit = false;
  for (char c : raw) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '(' || c == '[') { in_unit = true; continue; }
    if (c == ')' || c == ']') { in_unit = false; continue; }
    if (in_unit) { unit.push_back(lower); continue; }
    if (std::isalnum(static_cast<unsigned char>(c))) name.push_back(lower);
    else if (!name.empty() && name.back() != '_') name.push_back('_');
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  if (name == "time" && (unit == "millisecond" || unit == "ms")) name = "time_ms";
  return name;
}

std::vector<std::string_view> splitFields(std::string_view line, char delimiter, std::string& storage) {
  // Quoted fields are unquoted into `storage`; views point into line or storage.
  std::vector<std::string_view> fields;
  storage.clear();
  storage.reserve(line.size());
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = storage.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t') && line[i] != delimiter) ++i;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') { storage.push_back('"'); i += 2; continue; }
          ++i;
          break;
        }
        storage.push_back(line[i++]);
      }
      while (i < line.size() && line[i] != delimiter) ++i;  // ignore junk after the quote
    } else {
      while (i < line.size() && line[i] != delimiter) storage.push_back(line[i++]);
    }
    spans.emplace_back(start, storage.size() - start);
    if (i >= line.size()) break;
    ++i;  // delimiter
  }
  for (const auto& [start, length] : spans) fields.emplace_back(storage.data() + start, length);
  return fields;
}

bool numberField(std::string_view field, bool decimal_comma, double& value) {
  field = detail::trim(field);
  if (field.empty()) return false;
  if (decimal_comma && field.find(',') != std::string_view::npos) {
    std::string copy(field);
    std::replace(copy.begin(), copy.end(), ',', '.');
    return detail::parseNumber(copy, value);
  }
  return detail::parseNumber(field, value);
}

}  // namespace

TelemetrySeries parseCsvTelemetry(std::string_view text, const std::string& source_name,
                                  const TelemetryReadOptions& options) {
  options.checkInput(text.size(), source_name);
  TelemetrySeries series;
  series.format = "csv";
  series.source_path = source_name;
  detail::WarningSink warnings(series.warnings);
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);

  // Lines, one at a time (memory bounded by one line, not by the line count).
  std::size_t cursor = 0;
  std::size_t line_count = 0;
  auto nextLine = [&](std::string_view& line) {
    if (cursor > text.size() || (cursor == text.size() && line_count > 0)) return false;
    std::size_t end = text.find('\n', cursor);
    if (end == std::string_view::npos) end = text.size();
    line = text.substr(cursor, end - cursor);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    cursor = end + 1;
    ++line_count;
    return true;
  };

  // Header: the first line with latitude and longitude names.
  constexpr std::size_t kNoHeader = static_cast<std::size_t>(-1);
  std::size_t header_line = kNoHeader;
  char delimiter = ',';
  std::array<int, static_cast<int>(Column::Count)> column;
  column.fill(-1);
  double alt_abs_scale = 1.0, alt_rel_scale = 1.0;
  std::string storage;
  std::string_view raw_line;
  for (std::size_t li = 0; li < 50 && header_line == kNoHeader && nextLine(raw_line); ++li) {
    const std::string_view line = detail::trim(raw_line);
    if (line.empty() || line.front() == '#') continue;
    const std::size_t commas = std::count(line.begin(), line.end(), ',');
    const std::size_t semis = std::count(line.begin(), line.end(), ';');
    const std::size_t tabs = std::count(line.begin(), line.end(), '\t');
    const char d = semis > commas && semis >= tabs ? ';' : (tabs > commas ? '\t' : ',');
    const auto fields = splitFields(line, d, storage);
    column.fill(-1);
    for (std::size_t f = 0; f < fields.size() && f < 4096; ++f) {
      std::string unit;
      const std::string name = normaliseName(fields[f], unit);
      for (const NameRule& rule : kRules) {
        const bool match = std::any_of(rule.names.begin(), rule.names.end(),
                                       [&](const char* n) { return n && name == n; });
        int& slot = column[static_cast<int>(rule.column)];
        if (match && slot < 0) {
          slot = static_cast<int>(f);
          const double scale = (unit == "feet" || unit == "ft") ? 0.3048 : 1.0;
          if (rule.column == Column::AltAbs) alt_abs_scale = scale;
          if (rule.column == Column::AltRel) alt_rel_scale = scale;
        }
      }
    }
    if (column[int(Column::Lat)] >= 0 && column[int(Column::Lon)] >= 0) {
      header_line = li;
      delimiter = d;
    }
  }
  if (header_line == kNoHeader)
    throw FormatError(source_name + ": no CSV header with latitude and longitude columns "
                      "(e.g. \"lat,lon\" or \"latitude;longitude\") in the first 50 lines");
  const bool decimal_comma = delimiter == ';' || delimiter == '\t';
  auto col = [&](Column c) { return column[static_cast<int>(c)]; };
  series.variant = col(Column::TimeAbsolute) >= 0 ? "csv-absolute-time"
                   : (col(Column::TimeRelative) >= 0 || col(Column::TimeMillis) >= 0) ? "csv-relative-time"
                                                                                      : "csv-no-time";
  if (series.variant == "csv-no-time")
    warnings.atLine(header_line + 1, "no time column: rows taken 1 s apart");

  double first_unix_s = kNoValue;
  double previous_t = -INFINITY;
  std::size_t row = 0;
  while (nextLine(raw_line)) {
    const std::size_t line_number = line_count;
    if ((line_number & 4095) == 0 &&
        !reportProgress(options.progress, double(std::min(cursor, text.size())) / double(text.size()), "csv"))
      throw Cancelled();
    const std::string_view line = detail::trim(raw_line);
    if (line.empty() || line.front() == '#') continue;
    const auto fields = splitFields(line, delimiter, storage);
    auto get = [&](Column c, double& v) {
      const int i = col(c);
      return i >= 0 && static_cast<std::size_t>(i) < fields.size() && numberField(fields[i], decimal_comma, v);
    };
    TelemetrySample s;
    if (!get(Column::Lat, s.lat_deg) || !get(Column::Lon, s.lon_deg) || std::fabs(s.lat_deg) > 90.0 ||
        std::fabs(s.lon_deg) > 180.0) {
      warnings.atLine(line_number, "no valid latitude/longitude; row skipped");
      s = TelemetrySample();
      continue;
    }
    double v = 0.0;
    if (get(Column::AltAbs, v)) s.alt_abs_m = v * alt_abs_scale;
    if (get(Column::AltRel, v)) s.alt_rel_m = v * alt_rel_scale;
    if (get(Column::Yaw, v)) s.yaw_deg = wrapDegrees180(v);
    if (get(Column::Pitch, v)) s.pitch_deg = v;
    if (get(Column::Roll, v)) s.roll_deg = v;
    if (get(Column::Speed, v)) s.speed_h_mps = v;
    if (get(Column::Frame, v) && v >= 0 && v < 9e15) s.frame = static_cast<std::int64_t>(v);
    double t = kNoValue;
    if (col(Column::TimeAbsolute) >= 0) {
      const int i = col(Column::TimeAbsolute);
      const std::string_view field = static_cast<std::size_t>(i) < fields.size() ? fields[i] : std::string_view();
      double unix_s = detail::parseIsoDateTime(field);
      if (!std::isfinite(unix_s) && numberField(field, decimal_comma, v)) {
        const double seconds = v > 1e11 ? v * 1e-3 : v;  // Unix milliseconds or seconds
        if (seconds >= kEarliestDateUnixS) {
          unix_s = seconds;
        } else {
          t = seconds;  // a "time" column counting seconds from the start: no date
        }
      }
      if (std::isfinite(unix_s)) {
        if (!std::isfinite(first_unix_s)) first_unix_s = unix_s;
        s.unix_s = unix_s;
        t = unix_s - first_unix_s;
      }
    } else if (get(Column::TimeRelative, v)) {
      t = v;
    } else if (get(Column::TimeMillis, v)) {
      t = v * 1e-3;
    } else if (series.variant == "csv-no-time") {
      t = static_cast<double>(row);
    }
    if (!std::isfinite(t)) {
      warnings.atLine(line_number, "unreadable time; row skipped");
      continue;
    }
    if (t < previous_t) {
      warnings.atLine(line_number, "time goes backwards; row skipped");
      continue;
    }
    previous_t = t;
    s.log_t_s = t;
    series.samples.push_back(s);
    ++row;
  }
  series.start_unix_s = first_unix_s;
  if (series.variant == "csv-absolute-time" && !std::isfinite(first_unix_s)) series.variant = "csv-relative-time";
  warnings.finish();
  reportProgress(options.progress, 1.0, "csv");
  return series;
}

TelemetrySeries readCsvTelemetry(const std::string& path, const TelemetryReadOptions& options) {
  options.check();
  const std::string bytes = readTelemetryFileBytes(path, options.max_bytes);
  return parseCsvTelemetry(bytes, path, options);
}

}  // namespace skytrace::io
