// Conversion of a flight log to the track model (core/geo/track.h), so logged GNSS
// tracks export through core/geo/track_io.h like any other track. Header-only on purpose:
// core_io uses only the plain structs of track.h and does not link core_geo.
#pragma once

#include "core/geo/track.h"
#include "core/io/telemetry/telemetry_series.h"

namespace skytrace::io {

// UTC Unix time of the video's t = 0 (video_t_s = log_t_s + time_offset_s); NaN when the
// log states no absolute time.
inline double videoStartUnixSeconds(const TelemetrySeries& series) {
  return series.start_unix_s - series.time_offset_s;
}

// Samples with a position become PoseSource::Gnss poses; t_s is on the video timeline
// (log_t_s + time_offset_s). Altitude: absolute when the log has it (alt_reference
// "msl"/"ellipsoid" as the series says), else relative ("takeoff").
inline geo::Track gnssTrackFromTelemetry(const TelemetrySeries& series) {
  geo::Track track;
  const std::size_t slash = series.source_path.find_last_of("/\\");
  track.name = (slash == std::string::npos ? series.source_path : series.source_path.substr(slash + 1)) +
               " (" + series.format + ")";
  bool any_abs = false;
  for (const TelemetrySample& s : series.samples) any_abs |= s.hasPosition() && std::isfinite(s.alt_abs_m);
  track.alt_reference = any_abs ? series.abs_alt_reference : "takeoff";
  track.start_unix_s = videoStartUnixSeconds(series);
  for (const TelemetrySample& s : series.samples) {
    if (!s.hasPosition()) continue;
    geo::TrackPose pose;
    pose.frame = s.frame;
    pose.t_s = series.videoTime(s);
    pose.lat_deg = s.lat_deg;
    pose.lon_deg = s.lon_deg;
    pose.alt_m = any_abs ? s.alt_abs_m : s.alt_rel_m;
    pose.yaw_deg = s.yaw_deg;
    pose.pitch_deg = s.pitch_deg;
    pose.roll_deg = s.roll_deg;
    pose.source = geo::PoseSource::Gnss;
    track.poses.push_back(pose);
  }
  return track;
}

}  // namespace skytrace::io
