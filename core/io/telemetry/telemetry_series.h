// One timestamped GNSS/attitude series read from a flight log (DJI SRT, PX4 ULog,
// ArduPilot DataFlash, MAVLink telemetry log, GPX, CSV), with interpolation on the video
// timeline.
//
// Times: every sample carries `log_t_s`, seconds on the log's own clock (SRT: subtitle
// start = video time; ULog and DataFlash: time since the autopilot's boot; MAVLink .tlog:
// seconds since the first record the ground station stamped; GPX/CSV: seconds since the
// first point).
// The video timeline is video_t_s = log_t_s + time_offset_s. Angles in degrees with the
// conventions of core/geo/track.h (yaw 0 = north, clockwise; pitch -90 = nadir; roll
// right-wing-down positive). NaN = not in the log. Plain values: copy freely between
// threads; a const series is safe to read from several threads.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skytrace::io {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// Inputs larger than this are rejected with FormatError before parsing (2 GiB).
constexpr std::uint64_t kDefaultTelemetryMaxBytes = 2ull * 1024 * 1024 * 1024;

// Something a parser skipped or could not read: 1-based line for text formats, byte
// offset for binary ones (0 when not applicable).
struct ParseWarning {
  std::size_t line = 0;
  std::uint64_t byte_offset = 0;
  std::string message;
};
std::string formatWarning(const ParseWarning& warning);  // "line 12: ..." / "offset 0x1f: ..."

struct TelemetrySample {
  double log_t_s = 0.0;        // seconds on the log's clock (see file comment)
  std::int64_t frame = -1;     // video frame/subtitle index when the log has one
  double lat_deg = kNoValue;   // WGS84
  double lon_deg = kNoValue;
  double alt_rel_m = kNoValue;  // above take-off / home
  double alt_abs_m = kNoValue;  // above MSL or ellipsoid (series' abs_alt_reference)
  double yaw_deg = kNoValue;    // aircraft body
  double pitch_deg = kNoValue;
  double roll_deg = kNoValue;
  double speed_h_mps = kNoValue;  // horizontal ground speed
  double speed_v_mps = kNoValue;  // vertical speed, positive up
  double gimbal_yaw_deg = kNoValue;
  double gimbal_pitch_deg = kNoValue;
  double gimbal_roll_deg = kNoValue;
  // Camera settings (DJI SRT).
  double iso = kNoValue;
  double shutter_s = kNoValue;  // exposure time
  double f_number = kNoValue;
  double ev = kNoValue;
  double focal_length_mm = kNoValue;
  double color_temp_k = kNoValue;
  double unix_s = kNoValue;  // absolute UTC time of this sample when the log states it

  bool hasPosition() const { return std::isfinite(lat_deg) && std::isfinite(lon_deg); }
};

// A photo the autopilot triggered or confirmed (DataFlash CAM / TRIG, MAVLink
// CAMERA_FEEDBACK / CAMERA_IMAGE_CAPTURED / CAMERA_TRIGGER), on the log's clock. Position
// and altitudes as the autopilot logged them at the trigger; NaN = not stated.
struct CameraTrigger {
  double log_t_s = 0.0;
  std::int64_t image_index = -1;  // the autopilot's or camera's image number; -1 unknown
  double lat_deg = kNoValue;
  double lon_deg = kNoValue;
  double alt_abs_m = kNoValue;  // the series' abs_alt_reference
  double alt_rel_m = kNoValue;  // above take-off / home
  double unix_s = kNoValue;     // UTC when the log states it
};

// Named optional fields, used by fieldsPresent() and `skytrace-cli info`.
enum class TelemetryField {
  Position, AltRelative, AltAbsolute, Attitude, Speed, Gimbal, Camera, UnixTime, Frame
};
const char* telemetryFieldName(TelemetryField field);  // "position", "alt_rel", ...

struct TelemetrySeries {
  std::string format;   // "dji-srt", "px4-ulog", "ardupilot-dataflash", "mavlink-tlog", "gpx", "csv",
                        // "photo-exif" (core/app/photo_log.h)
  std::string variant;  // format flavour, e.g. "srt-bracketed", "srt-home-gps"
  std::string source_path;
  std::string abs_alt_reference = "msl";  // what alt_abs_m is above: "msl" or "ellipsoid"
  // UTC Unix time of log_t_s = 0 when the log states absolute time (NaN otherwise).
  double start_unix_s = kNoValue;
  // video_t_s = log_t_s + time_offset_s. 0 for SRT (its clock is the video's).
  double time_offset_s = 0.0;
  std::vector<TelemetrySample> samples;  // sorted by log_t_s (non-decreasing)
  std::vector<CameraTrigger> camera_triggers;  // sorted by log_t_s; empty for most formats
  std::vector<ParseWarning> warnings;
  std::map<std::string, std::string> metadata;  // e.g. ULog info messages

  double videoTime(const TelemetrySample& s) const { return s.log_t_s + time_offset_s; }
  // Linear interpolation of every numeric field at video time `video_t_s` (yaw angles
  // wrapped through +-180); a field that is NaN at either neighbour is NaN. nullopt
  // outside [first, last] sample time or when the series is empty. O(log n).
  std::optional<TelemetrySample> interpolate(double video_t_s) const;
  std::vector<TelemetryField> fieldsPresent() const;
  std::size_t positionCount() const;
};

// The offset that puts the log on the video timeline, where the relation is known:
// SRT logs are written on the video clock (0); other logs need the video's start as UTC
// Unix seconds and the log's absolute time (start_unix_s). Throws InvalidArgument
// naming what is missing otherwise.
double estimateTimeOffset(const TelemetrySeries& series,
                          std::optional<double> video_start_unix_s = std::nullopt);

// Wraps an angle to (-180, 180].
double wrapDegrees180(double angle_deg);

}  // namespace skytrace::io
