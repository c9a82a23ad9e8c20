#include "core/io/telemetry/ulog_telemetry.h"

#include <algorithm>
#include <cmath>

#include "core/io/telemetry/parse_support.h"

namespace skytrace::io {

void eulerFromNedQuaternion(double w, double x, double y, double z, double& yaw_deg,
                            double& pitch_deg, double& roll_deg) {
  const double norm = std::sqrt(w * w + x * x + y * y + z * z);
  if (!(norm > 1e-9) || !std::isfinite(norm)) {
    yaw_deg = pitch_deg = roll_deg = kNoValue;
    return;
  }
  w /= norm, x /= norm, y /= norm, z /= norm;
  constexpr double kDeg = 180.0 / M_PI;
  roll_deg = std::atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y)) * kDeg;
  pitch_deg = std::asin(std::clamp(2.0 * (w * y - z * x), -1.0, 1.0)) * kDeg;
  yaw_deg = std::atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z)) * kDeg;
}

namespace {

// Timestamps (seconds) of a topic, and index of the record nearest `t_s` within `max_gap_s`.
struct TimedTopic {
  const ULogTopic* topic = nullptr;
  std::vector<double> t_s;

  TimedTopic(const ULogFile& file, const char* name) {
    const ULogTopic* found = file.topic(name, 0);
    if (!found || found->count() == 0 || !ulogHasField(file, *found, "timestamp")) return;
    topic = found;
    ULogFieldReader ts(file, *found, "timestamp");
    t_s.reserve(found->count());
    for (std::size_t i = 0; i < found->count(); ++i) t_s.push_back(double(ts.atU64(i)) * 1e-6);
  }
  long nearest(double t, double max_gap_s) const { return detail::nearestIndex(t_s, t, max_gap_s); }
};

std::optional<ULogFieldReader> fieldIf(const ULogFile& file, const ULogTopic& topic, const char* path) {
  if (!ulogHasField(file, topic, path)) return std::nullopt;
  return ULogFieldReader(file, topic, path);
}

}  // namespace

TelemetrySeries telemetryFromULog(const ULogFile& file) {
  TelemetrySeries series;
  series.format = "px4-ulog";
  series.source_path = file.source_path;
  series.warnings = file.warnings;
  series.abs_alt_reference = "msl";
  for (const auto& [key, value] : file.info) series.metadata["info." + key] = value;
  std::size_t topics_with_data = 0;
  for (const ULogTopic& t : file.topics) topics_with_data += t.count() > 0;
  series.metadata["topics"] = std::to_string(topics_with_data) + " with data (" +
                              std::to_string(file.topics.size()) + " subscribed)";
  series.metadata["dropouts"] = std::to_string(file.dropouts.size());
  series.metadata["logged_messages"] = std::to_string(file.logged.size());
  series.metadata["parameters"] = std::to_string(file.parameters.size());
  detail::WarningSink warnings(series.warnings);

  TimedTopic attitude(file, "vehicle_attitude");
  TimedTopic local(file, "vehicle_local_position");
  std::optional<ULogFieldReader> q[4];
  if (attitude.topic) {
    for (int i = 0; i < 4; ++i) {
      const std::string path = "q[" + std::to_string(i) + "]";
      q[i] = fieldIf(file, *attitude.topic, path.c_str());
    }
  }
  std::optional<ULogFieldReader> local_z;
  if (local.topic) local_z = fieldIf(file, *local.topic, "z");

  auto addAttitude = [&](TelemetrySample& s) {
    if (!attitude.topic || !q[0] || !q[1] || !q[2] || !q[3]) return;
    const long i = attitude.nearest(s.log_t_s, 0.5);
    if (i < 0) return;
    eulerFromNedQuaternion(q[0]->at(i), q[1]->at(i), q[2]->at(i), q[3]->at(i), s.yaw_deg, s.pitch_deg,
                           s.roll_deg);
  };
  auto addRelativeAltitude = [&](TelemetrySample& s) {
    if (!local_z) return;
    const long i = local.nearest(s.log_t_s, 0.5);
    if (i >= 0 && std::isfinite(local_z->at(i))) s.alt_rel_m = -local_z->at(i);
  };

  // GNSS fields: PX4 up to v1.14 logs lat/lon (int32, 1e-7 deg) and alt (int32 mm, MSL);
  // from v1.15 latitude_deg/longitude_deg/altitude_msl_m (double, deg and m).
  const char* gnss_topics[] = {"vehicle_gps_position", "sensor_gps"};
  for (const char* name : gnss_topics) {
    const ULogTopic* gps = file.topic(name, 0);
    if (!gps || gps->count() == 0) continue;
    auto ts = fieldIf(file, *gps, "timestamp");
    auto lat = fieldIf(file, *gps, "lat");
    auto lon = fieldIf(file, *gps, "lon");
    auto alt = fieldIf(file, *gps, "alt");
    if (!lat || !lon) {
      lat = fieldIf(file, *gps, "latitude_deg");
      lon = fieldIf(file, *gps, "longitude_deg");
      alt = fieldIf(file, *gps, "altitude_msl_m");
    }
    if (!ts || !lat || !lon) {
      warnings.atOffset(0, std::string(name) + " has no timestamp with lat/lon or latitude_deg/longitude_deg "
                                               "fields: its GNSS positions are not read");
      continue;
    }
    auto fix = fieldIf(file, *gps, "fix_type");
    auto vel = fieldIf(file, *gps, "vel_m_s");
    auto vel_d = fieldIf(file, *gps, "vel_d_m_s");
    auto utc = fieldIf(file, *gps, "time_utc_usec");
    const bool scaled = lat->type() != ULogType::Double && lat->type() != ULogType::Float;
    series.variant = name;
    std::size_t no_fix = 0;
    for (std::size_t i = 0; i < gps->count(); ++i) {
      TelemetrySample s;
      s.log_t_s = double(ts->atU64(i)) * 1e-6;
      const double la = lat->at(i) * (scaled ? 1e-7 : 1.0);
      const double lo = lon->at(i) * (scaled ? 1e-7 : 1.0);
      if ((fix && fix->at(i) < 2) || (la == 0.0 && lo == 0.0) || std::fabs(la) > 90 || std::fabs(lo) > 180) {
        ++no_fix;
        continue;
      }
      s.lat_deg = la;
      s.lon_deg = lo;
      if (alt) s.alt_abs_m = alt->type() == ULogType::Int32 ? alt->at(i) * 1e-3 : alt->at(i);
      if (vel) s.speed_h_mps = vel->at(i);
      if (vel_d) s.speed_v_mps = -vel_d->at(i);
      if (utc && utc->atU64(i) > 0) s.unix_s = double(utc->atU64(i)) * 1e-6;
      addAttitude(s);
      addRelativeAltitude(s);
      series.samples.push_back(s);
    }
    if (no_fix) warnings.atOffset(0, std::to_string(no_fix) + " " + name + " records without a 2D/3D fix skipped");
    break;
  }
  if (series.samples.empty()) {
    if (const ULogTopic* global = file.topic("vehicle_global_position", 0)) {
      auto ts = fieldIf(file, *global, "timestamp");
      auto lat = fieldIf(file, *global, "lat");
      auto lon = fieldIf(file, *global, "lon");
      auto alt = fieldIf(file, *global, "alt");
      auto vn = fieldIf(file, *global, "vel_n");
      auto ve = fieldIf(file, *global, "vel_e");
      auto vd = fieldIf(file, *global, "vel_d");
      if (ts && lat && lon) {
        series.variant = "vehicle_global_position";
        for (std::size_t i = 0; i < global->count(); ++i) {
          TelemetrySample s;
          s.log_t_s = double(ts->atU64(i)) * 1e-6;
          s.lat_deg = lat->at(i);
          s.lon_deg = lon->at(i);
          if (!s.hasPosition() || std::fabs(s.lat_deg) > 90 || std::fabs(s.lon_deg) > 180) continue;
          if (alt) s.alt_abs_m = alt->at(i);
          if (vn && ve) s.speed_h_mps = std::hypot(vn->at(i), ve->at(i));
          if (vd) s.speed_v_mps = -vd->at(i);
          addAttitude(s);
          addRelativeAltitude(s);
          series.samples.push_back(s);
        }
      }
    }
  }
  if (series.samples.empty() && attitude.topic && q[3]) {
    series.variant = "attitude-only";
    warnings.atOffset(0, "no GNSS or global position topic in the log; the series holds attitude only");
    for (std::size_t i = 0; i < attitude.t_s.size(); ++i) {
      TelemetrySample s;
      s.log_t_s = attitude.t_s[i];
      eulerFromNedQuaternion(q[0]->at(i), q[1]->at(i), q[2]->at(i), q[3]->at(i), s.yaw_deg, s.pitch_deg,
                             s.roll_deg);
      addRelativeAltitude(s);
      series.samples.push_back(s);
    }
  }
  std::stable_sort(series.samples.begin(), series.samples.end(),
                   [](const TelemetrySample& a, const TelemetrySample& b) { return a.log_t_s < b.log_t_s; });
  detail::startFromSampleTimes(series);
  warnings.finish();
  return series;
}

TelemetrySeries readULogTelemetry(const std::string& path, const TelemetryReadOptions& options) {
  return telemetryFromULog(readULog(path, options));
}

}  // namespace skytrace::io
