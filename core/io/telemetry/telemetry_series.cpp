#include "core/io/telemetry/telemetry_series.h"

#include <algorithm>
#include <cstdio>

#include "core/util/error.h"

namespace skytrace::io {

std::string formatWarning(const ParseWarning& warning) {
  char where[64];
  if (warning.line == 0 && warning.byte_offset == 0) return warning.message;
  if (warning.line > 0)
    std::snprintf(where, sizeof where, "line %zu: ", warning.line);
  else
    std::snprintf(where, sizeof where, "offset %llu: ",
                  static_cast<unsigned long long>(warning.byte_offset));
  return where + warning.message;
}

const char* telemetryFieldName(TelemetryField field) {
  switch (field) {
    case TelemetryField::Position: return "position";
    case TelemetryField::AltRelative: return "alt_rel";
    case TelemetryField::AltAbsolute: return "alt_abs";
    case TelemetryField::Attitude: return "attitude";
    case TelemetryField::Speed: return "speed";
    case TelemetryField::Gimbal: return "gimbal";
    case TelemetryField::Camera: return "camera";
    case TelemetryField::UnixTime: return "utc_time";
    case TelemetryField::Frame: return "frame";
  }
  return "?";
}

double wrapDegrees180(double angle_deg) {
  if (!std::isfinite(angle_deg)) return angle_deg;
  double wrapped = std::fmod(angle_deg, 360.0);
  if (wrapped <= -180.0) wrapped += 360.0;
  if (wrapped > 180.0) wrapped -= 360.0;
  return wrapped;
}

namespace {

double lerp(double a, double b, double w) { return a + (b - a) * w; }

double lerpAngle(double a, double b, double w) {
  if (!std::isfinite(a) || !std::isfinite(b)) return kNoValue;
  return wrapDegrees180(a + wrapDegrees180(b - a) * w);
}

}  // namespace

std::optional<TelemetrySample> TelemetrySeries::interpolate(double video_t_s) const {
  if (samples.empty() || !std::isfinite(video_t_s)) return std::nullopt;
  const double t = video_t_s - time_offset_s;
  if (t < samples.front().log_t_s || t > samples.back().log_t_s) return std::nullopt;
  auto upper = std::upper_bound(samples.begin(), samples.end(), t,
                                [](double v, const TelemetrySample& s) { return v < s.log_t_s; });
  if (upper == samples.end()) return samples.back();
  if (upper == samples.begin()) return samples.front();
  const TelemetrySample& a = *(upper - 1);
  const TelemetrySample& b = *upper;
  const double span = b.log_t_s - a.log_t_s;
  const double w = span > 0.0 ? (t - a.log_t_s) / span : 0.0;
  TelemetrySample out;
  out.log_t_s = t;
  out.frame = w < 0.5 ? a.frame : b.frame;
  out.lat_deg = lerp(a.lat_deg, b.lat_deg, w);
  out.lon_deg = lerpAngle(a.lon_deg, b.lon_deg, w);  // across the antimeridian too
  out.alt_rel_m = lerp(a.alt_rel_m, b.alt_rel_m, w);
  out.alt_abs_m = lerp(a.alt_abs_m, b.alt_abs_m, w);
  out.yaw_deg = lerpAngle(a.yaw_deg, b.yaw_deg, w);
  out.pitch_deg = lerp(a.pitch_deg, b.pitch_deg, w);
  out.roll_deg = lerp(a.roll_deg, b.roll_deg, w);
  out.speed_h_mps = lerp(a.speed_h_mps, b.speed_h_mps, w);
  out.speed_v_mps = lerp(a.speed_v_mps, b.speed_v_mps, w);
  out.gimbal_yaw_deg = lerpAngle(a.gimbal_yaw_deg, b.gimbal_yaw_deg, w);
  out.gimbal_pitch_deg = lerp(a.gimbal_pitch_deg, b.gimbal_pitch_deg, w);
  out.gimbal_roll_deg = lerp(a.gimbal_roll_deg, b.gimbal_roll_deg, w);
  // Camera settings are step values: take the earlier sample's.
  out.iso = a.iso;
  out.shutter_s = a.shutter_s;
  out.f_number = a.f_number;
  out.ev = a.ev;
  out.focal_length_mm = a.focal_length_mm;
  out.color_temp_k = a.color_temp_k;
  out.unix_s = lerp(a.unix_s, b.unix_s, w);
  return out;
}

std::vector<TelemetryField> TelemetrySeries::fieldsPresent() const {
  bool has[9] = {};
  for (const TelemetrySample& s : samples) {
    has[0] |= s.hasPosition();
    has[1] |= std::isfinite(s.alt_rel_m);
    has[2] |= std::isfinite(s.alt_abs_m);
    has[3] |= std::isfinite(s.yaw_deg) || std::isfinite(s.pitch_deg) || std::isfinite(s.roll_deg);
    has[4] |= std::isfinite(s.speed_h_mps) || std::isfinite(s.speed_v_mps);
    has[5] |= std::isfinite(s.gimbal_yaw_deg) || std::isfinite(s.gimbal_pitch_deg) ||
              std::isfinite(s.gimbal_roll_deg);
    has[6] |= std::isfinite(s.iso) || std::isfinite(s.shutter_s) || std::isfinite(s.f_number) ||
              std::isfinite(s.ev) || std::isfinite(s.focal_length_mm) ||
              std::isfinite(s.color_temp_k);
    has[7] |= std::isfinite(s.unix_s);
    has[8] |= s.frame >= 0;
  }
  std::vector<TelemetryField> fields;
  for (int i = 0; i < 9; ++i)
    if (has[i]) fields.push_back(static_cast<TelemetryField>(i));
  return fields;
}

std::size_t TelemetrySeries::positionCount() const {
  return static_cast<std::size_t>(std::count_if(
      samples.begin(), samples.end(), [](const TelemetrySample& s) { return s.hasPosition(); }));
}

double estimateTimeOffset(const TelemetrySeries& series, std::optional<double> video_start_unix_s) {
  // Subtitles run on the video's own clock; a photo folder's log on the folder's frame times.
  if (series.format == "dji-srt" || series.format == "photo-exif") return 0.0;
  if (!video_start_unix_s || !std::isfinite(*video_start_unix_s))
    throw InvalidArgument(series.source_path +
                          ": a " + series.format +
                          " log has no fixed relation to the video; give the video's start "
                          "time (UTC) or set the time offset by hand");
  if (!std::isfinite(series.start_unix_s))
    throw InvalidArgument(series.source_path +
                          ": the log states no absolute (UTC) time, so its offset to the "
                          "video cannot be estimated; set the time offset by hand");
  return series.start_unix_s - *video_start_unix_s;
}

}  // namespace skytrace::io
