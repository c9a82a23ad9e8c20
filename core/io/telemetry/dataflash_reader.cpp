#include "core/io/telemetry/dataflash_reader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "core/io/telemetry/parse_support.h"
#include "core/util/error.h"

namespace skytrace::io {

namespace {

constexpr unsigned char kSync0 = 0xA3;
constexpr unsigned char kSync1 = 0x95;
constexpr unsigned kFmtType = 128;
constexpr std::size_t kFmtLength = 89;  // 3 header bytes + B B n[4] N[16] Z[64]

// Bytes a column of each format character takes (0: not a DataFlash type).
std::size_t typeSize(char type) {
  switch (type) {
    case 'b': case 'B': case 'M': return 1;
    case 'h': case 'H': case 'c': case 'C': case 'g': return 2;
    case 'i': case 'I': case 'f': case 'e': case 'E': case 'L': case 'n': return 4;
    case 'd': case 'q': case 'Q': return 8;
    case 'N': return 16;
    case 'a': case 'Z': return 64;
    default: return 0;
  }
}

double halfToDouble(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const double mantissa = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa == 0 ? sign * INFINITY : NAN;
  return sign * std::ldexp(mantissa + 1024.0, exponent - 25);
}

// The value of one column, with the scaling its type implies (c/C/e/E: x0.01,
// L: x1e-7 degrees); NaN for text and array columns.
double columnValue(const unsigned char* p, char type) {
  switch (type) {
    case 'b': return detail::loadLittleEndian<std::int8_t>(p);
    case 'B': case 'M': return detail::loadLittleEndian<std::uint8_t>(p);
    case 'h': return detail::loadLittleEndian<std::int16_t>(p);
    case 'H': return detail::loadLittleEndian<std::uint16_t>(p);
    case 'i': return detail::loadLittleEndian<std::int32_t>(p);
    case 'I': return detail::loadLittleEndian<std::uint32_t>(p);
    case 'f': return detail::loadLittleEndian<float>(p);
    case 'd': return detail::loadLittleEndian<double>(p);
    case 'c': return detail::loadLittleEndian<std::int16_t>(p) * 0.01;
    case 'C': return detail::loadLittleEndian<std::uint16_t>(p) * 0.01;
    case 'e': return detail::loadLittleEndian<std::int32_t>(p) * 0.01;
    case 'E': return detail::loadLittleEndian<std::uint32_t>(p) * 0.01;
    case 'L': return detail::loadLittleEndian<std::int32_t>(p) * 1e-7;
    case 'q': return static_cast<double>(detail::loadLittleEndian<std::int64_t>(p));
    case 'Q': return static_cast<double>(detail::loadLittleEndian<std::uint64_t>(p));
    case 'g': return halfToDouble(detail::loadLittleEndian<std::uint16_t>(p));
    default: return kNoValue;
  }
}

// Fixed-size text field up to its first NUL.
std::string fixedText(const unsigned char* p, std::size_t size) {
  const char* text = reinterpret_cast<const char*>(p);
  return std::string(text, strnlen(text, size));
}

std::vector<std::string> splitColumns(const std::string& labels) {
  std::vector<std::string> columns;
  std::size_t start = 0;
  while (start <= labels.size()) {
    const std::size_t comma = std::min(labels.find(',', start), labels.size());
    columns.push_back(labels.substr(start, comma - start));
    start = comma + 1;
  }
  return columns;
}

// What the reader takes from a message type.
enum class Role { kOther, kGps, kAttitude, kPosition, kCamera, kTrigger, kText };

// One message type as its FMT record defines it, with the columns its role reads looked
// up once.
struct MessageFormat {
  std::string name;
  std::size_t length = 0;  // whole record, header included
  std::string types;
  std::vector<std::string> columns;
  std::vector<std::size_t> offsets;  // of each column within the payload
  Role role = Role::kOther;
  std::vector<int> wanted;  // column index of each label the role reads, -1 if absent
  int time_column = -1;     // TimeUS, else TimeMS
  double time_scale = 0.0;  // to seconds

  int column(std::string_view label) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == label) return static_cast<int>(i);
    return -1;
  }
  // The k-th wanted column's value in `payload`; NaN when the type lacks that column.
  double value(const unsigned char* payload, std::size_t k) const {
    const int i = wanted[k];
    return i < 0 ? kNoValue : columnValue(payload + offsets[i], types[i]);
  }
  bool has(std::size_t k) const { return wanted[k] >= 0; }
  double bootSeconds(const unsigned char* payload) const {
    return time_column < 0 ? kNoValue : columnValue(payload + offsets[time_column], types[time_column]) * time_scale;
  }
};

// Column labels each role reads, in the order MessageFormat::value's k refers to.
// GPS: newer logs put every receiver in GPS with an instance column I; older ones log
// the second receiver as GPS2. The oldest layout has T (boot ms), TimeMS (GPS time of
// week in ms) and Week instead of TimeUS, GMS and GWk.
enum GpsColumn { kGpsInstance, kGpsStatus, kGpsLat, kGpsLng, kGpsAlt, kGpsSpeed, kGpsVz, kGpsWeek, kGpsTowMs,
                 kGpsOldWeek, kGpsOldBootMs, kGpsOldTowMs };
enum AttitudeColumn { kAttRoll, kAttPitch, kAttYaw };
enum PositionColumn { kPosLat, kPosLng, kPosAlt, kPosRelHome };
enum CameraColumn { kCamImage, kCamLat, kCamLng, kCamAlt, kCamRelAlt, kCamWeek, kCamTowMs };

void assignRole(MessageFormat& format) {
  std::vector<const char*> labels;
  if (format.name == "GPS") {
    format.role = Role::kGps;
    labels = {"I", "Status", "Lat", "Lng", "Alt", "Spd", "VZ", "GWk", "GMS", "Week", "T", "TimeMS"};
  } else if (format.name == "ATT") {
    format.role = Role::kAttitude;
    labels = {"Roll", "Pitch", "Yaw"};
  } else if (format.name == "POS") {
    format.role = Role::kPosition;
    labels = {"Lat", "Lng", "Alt", "RelHomeAlt"};
  } else if (format.name == "CAM" || format.name == "TRIG") {
    format.role = format.name == "CAM" ? Role::kCamera : Role::kTrigger;
    labels = {"Img", "Lat", "Lng", "Alt", "RelAlt", "GPSWeek", "GPSTime"};
  } else if (format.name == "MSG") {
    format.role = Role::kText;
    labels = {"Message"};
  }
  for (const char* label : labels) format.wanted.push_back(format.column(label));
  if ((format.time_column = format.column("TimeUS")) >= 0) {
    format.time_scale = 1e-6;
  } else if ((format.time_column = format.column("TimeMS")) >= 0) {
    format.time_scale = 1e-3;
  }
}

struct GpsRecord {
  double t_s, status, lat, lon, alt, speed, vz, week, tow_ms;
};
struct AttitudeRecord {
  double roll, pitch, yaw;
};
struct PositionRecord {
  double lat, lon, alt, rel_home_alt;
};

// Everything the reader keeps from the records, in log order.
struct Records {
  std::vector<GpsRecord> gps;
  std::vector<double> attitude_t;
  std::vector<AttitudeRecord> attitude;
  std::vector<double> position_t;
  std::vector<PositionRecord> position;
  std::vector<CameraTrigger> cam, trig;
  std::map<std::string, std::size_t> counts;
  std::string firmware;
};

void readRecord(const MessageFormat& f, const unsigned char* payload, Records& records) {
  ++records.counts[f.name];
  const double t = f.bootSeconds(payload);
  switch (f.role) {
    case Role::kGps: {
      if (f.has(kGpsInstance) && f.value(payload, kGpsInstance) != 0) return;
      const bool oldest = f.has(kGpsOldBootMs);
      records.gps.push_back({oldest ? f.value(payload, kGpsOldBootMs) * 1e-3 : t, f.value(payload, kGpsStatus),
                             f.value(payload, kGpsLat), f.value(payload, kGpsLng), f.value(payload, kGpsAlt),
                             f.value(payload, kGpsSpeed), f.value(payload, kGpsVz),
                             oldest ? f.value(payload, kGpsOldWeek) : f.value(payload, kGpsWeek),
                             oldest ? f.value(payload, kGpsOldTowMs) : f.value(payload, kGpsTowMs)});
      return;
    }
    case Role::kAttitude:
      if (!std::isfinite(t)) return;
      records.attitude_t.push_back(t);
      records.attitude.push_back({f.value(payload, kAttRoll), f.value(payload, kAttPitch), f.value(payload, kAttYaw)});
      return;
    case Role::kPosition:
      if (!std::isfinite(t)) return;
      records.position_t.push_back(t);
      records.position.push_back({f.value(payload, kPosLat), f.value(payload, kPosLng), f.value(payload, kPosAlt),
                                  f.value(payload, kPosRelHome)});
      return;
    case Role::kCamera:
    case Role::kTrigger: {
      if (!std::isfinite(t)) return;
      CameraTrigger trigger;
      trigger.log_t_s = t;
      if (f.has(kCamImage)) trigger.image_index = static_cast<std::int64_t>(f.value(payload, kCamImage));
      trigger.lat_deg = f.value(payload, kCamLat);
      trigger.lon_deg = f.value(payload, kCamLng);
      trigger.alt_abs_m = f.value(payload, kCamAlt);
      trigger.alt_rel_m = f.value(payload, kCamRelAlt);
      if (f.value(payload, kCamWeek) > 0)
        trigger.unix_s = detail::unixFromGpsWeek(f.value(payload, kCamWeek), f.value(payload, kCamTowMs) * 1e-3);
      if (trigger.lat_deg == 0.0 && trigger.lon_deg == 0.0) trigger.lat_deg = trigger.lon_deg = kNoValue;
      (f.role == Role::kCamera ? records.cam : records.trig).push_back(trigger);
      return;
    }
    case Role::kText: {
      const int i = f.wanted[0];
      if (!records.firmware.empty() || i < 0 || f.types[i] != 'Z') return;
      const std::string text = fixedText(payload + f.offsets[i], 64);
      if (text.rfind("Ardu", 0) == 0 || text.rfind("APM", 0) == 0) records.firmware = text;
      return;
    }
    case Role::kOther:
      return;
  }
}

// Parses an FMT payload into `format`; false (with `why`) when it is not self-consistent.
bool parseFmt(const unsigned char* payload, unsigned& type, MessageFormat& format, std::string& why) {
  type = payload[0];
  format.length = payload[1];
  format.name = fixedText(payload + 2, 4);
  format.types = fixedText(payload + 6, 16);
  format.columns = splitColumns(fixedText(payload + 22, 64));
  if (format.types.size() != format.columns.size()) {
    why = std::to_string(format.types.size()) + " column types for " + std::to_string(format.columns.size()) +
          " column names";
    return false;
  }
  std::size_t offset = 0;
  for (char c : format.types) {
    const std::size_t size = typeSize(c);
    if (size == 0) {
      why = std::string("unknown column type '") + c + "'";
      return false;
    }
    format.offsets.push_back(offset);
    offset += size;
  }
  if (offset + 3 != format.length) {
    why = "columns of " + std::to_string(offset) + " bytes in a record of " + std::to_string(format.length);
    return false;
  }
  assignRole(format);
  return true;
}

}  // namespace

bool isDataflashLog(std::string_view bytes) {
  return bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == kSync0 &&
         static_cast<unsigned char>(bytes[1]) == kSync1 && static_cast<unsigned char>(bytes[2]) == kFmtType;
}

TelemetrySeries parseDataflashLog(std::string_view bytes, const std::string& source_name,
                                  const TelemetryReadOptions& options) {
  options.checkInput(bytes.size(), source_name);
  TelemetrySeries series;
  series.format = "ardupilot-dataflash";
  series.source_path = source_name;
  series.abs_alt_reference = "msl";
  detail::WarningSink warnings(series.warnings);

  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  std::array<MessageFormat, 256> formats;
  std::array<bool, 256> defined{};
  Records records;
  std::size_t fmt_records = 0;
  std::size_t skipped = 0, skip_start = 0;
  auto endSkip = [&] {
    if (skipped == 0) return;
    warnings.atOffset(skip_start, std::to_string(skipped) + " bytes that start no record skipped");
    skipped = 0;
  };
  std::size_t pos = 0, next_progress = 0;
  while (pos + 3 <= size) {
    if (pos >= next_progress) {
      if (!reportProgress(options.progress, double(pos) / double(size), "dataflash")) throw Cancelled();
      next_progress = pos + (1u << 20);
    }
    const unsigned type = data[pos + 2];
    const bool synced = data[pos] == kSync0 && data[pos + 1] == kSync1;
    if (synced && type == kFmtType) {
      if (pos + kFmtLength > size) break;
      endSkip();
      unsigned defined_type = 0;
      MessageFormat format;
      std::string why;
      if (parseFmt(data + pos + 3, defined_type, format, why)) {
        if (defined_type != kFmtType) {
          formats[defined_type] = std::move(format);
          defined[defined_type] = true;
        }
      } else {
        warnings.atOffset(pos, "FMT of message type " + std::to_string(defined_type) + " (" + format.name +
                                   ") ignored: " + why);
      }
      ++fmt_records;
      pos += kFmtLength;
      continue;
    }
    if (synced && defined[type]) {
      const MessageFormat& format = formats[type];
      if (pos + format.length > size) break;
      endSkip();
      readRecord(format, data + pos + 3, records);
      pos += format.length;
      continue;
    }
    if (skipped++ == 0) skip_start = pos;
    ++pos;
  }
  endSkip();
  if (pos < size) {
    warnings.atOffset(pos, "the log ends inside a record (" + std::to_string(size - pos) +
                               " bytes): the file is truncated; that record is ignored");
  }
  if (fmt_records == 0)
    throw FormatError(source_name + ": not an ArduPilot DataFlash log (no FMT record that defines its messages)");
  reportProgress(options.progress, 1.0, "dataflash");

  std::size_t types_with_data = 0, total = 0;
  for (const auto& [name, count] : records.counts) ++types_with_data, total += count;
  series.metadata["records"] = std::to_string(total) + " in " + std::to_string(types_with_data) + " message types";
  if (!records.firmware.empty()) series.metadata["firmware"] = records.firmware;
  if (records.counts.count("PARM")) series.metadata["parameters"] = std::to_string(records.counts["PARM"]);

  auto addAttitude = [&](TelemetrySample& s) {
    const long i = detail::nearestIndex(records.attitude_t, s.log_t_s, 0.5);
    if (i < 0) return;
    s.roll_deg = records.attitude[i].roll;
    s.pitch_deg = records.attitude[i].pitch;
    s.yaw_deg = std::isfinite(records.attitude[i].yaw) ? wrapDegrees180(records.attitude[i].yaw) : kNoValue;
  };
  auto addHomeAltitude = [&](TelemetrySample& s) {
    const long i = detail::nearestIndex(records.position_t, s.log_t_s, 0.5);
    if (i >= 0) s.alt_rel_m = records.position[i].rel_home_alt;
  };

  std::size_t without_fix = 0;
  for (const GpsRecord& g : records.gps) {
    if (!std::isfinite(g.t_s)) continue;
    if (!(g.status >= 3) || (g.lat == 0.0 && g.lon == 0.0)) {
      ++without_fix;
      continue;
    }
    TelemetrySample s;
    s.log_t_s = g.t_s;
    s.lat_deg = g.lat;
    s.lon_deg = g.lon;
    s.alt_abs_m = g.alt;
    s.speed_h_mps = g.speed;
    s.speed_v_mps = -g.vz;  // VZ is NED: positive down
    if (g.week > 0 && std::isfinite(g.tow_ms)) s.unix_s = detail::unixFromGpsWeek(g.week, g.tow_ms * 1e-3);
    addAttitude(s);
    addHomeAltitude(s);
    series.samples.push_back(s);
  }
  if (!series.samples.empty()) {
    series.variant = "GPS";
    if (without_fix)
      warnings.atOffset(0, std::to_string(without_fix) + " GPS records without a 3D fix skipped");
  } else if (!records.position.empty()) {
    series.variant = "POS";
    warnings.atOffset(0, "no GPS record with a 3D fix; positions are the autopilot's estimate (POS)");
    for (std::size_t i = 0; i < records.position.size(); ++i) {
      const PositionRecord& p = records.position[i];
      if (p.lat == 0.0 && p.lon == 0.0) continue;
      TelemetrySample s;
      s.log_t_s = records.position_t[i];
      s.lat_deg = p.lat;
      s.lon_deg = p.lon;
      s.alt_abs_m = p.alt;
      s.alt_rel_m = p.rel_home_alt;
      addAttitude(s);
      series.samples.push_back(s);
    }
  } else if (!records.attitude.empty()) {
    series.variant = "attitude-only";
    warnings.atOffset(0, "no GPS or POS records in the log; the series holds attitude only");
    for (std::size_t i = 0; i < records.attitude.size(); ++i) {
      TelemetrySample s;
      s.log_t_s = records.attitude_t[i];
      addAttitude(s);
      series.samples.push_back(s);
    }
  } else {
    warnings.atOffset(0, "no GPS, POS or ATT records in the log");
  }
  std::stable_sort(series.samples.begin(), series.samples.end(),
                   [](const TelemetrySample& a, const TelemetrySample& b) { return a.log_t_s < b.log_t_s; });
  detail::startFromSampleTimes(series);
  series.camera_triggers = !records.cam.empty() ? std::move(records.cam) : std::move(records.trig);
  for (CameraTrigger& trigger : series.camera_triggers)
    if (!std::isfinite(trigger.unix_s) && std::isfinite(series.start_unix_s))
      trigger.unix_s = series.start_unix_s + trigger.log_t_s;
  std::stable_sort(series.camera_triggers.begin(), series.camera_triggers.end(),
                   [](const CameraTrigger& a, const CameraTrigger& b) { return a.log_t_s < b.log_t_s; });
  warnings.finish();
  return series;
}

}  // namespace skytrace::io
