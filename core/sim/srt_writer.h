// Simulated GNSS telemetry for rendered flights and its DJI-style .SRT file.
//
// Error model (all seeded, std::mt19937_64):
//   - noise: first-order Gauss-Markov per axis (time constant 5 s), stationary
//     1-sigma noise_sigma_m on east and north, 1.5 x that on up (abs_alt);
//   - barometric height: rel_alt is the flight controller's barometric height above the
//     take-off point, as a DJI log's is, not the GNSS height: its own Gauss-Markov error
//     (time constant 30 s, stationary 1-sigma baro_noise_sigma_m), drawn from its own
//     generator so that the other errors do not depend on it;
//   - bias: a constant horizontal offset of bias_m in a seeded random direction;
//   - dropouts: bursts (mean 0.5 s) without a fix, dropout_rate of all frames on average;
//     a dropout frame is written as DJI does without a fix: latitude/longitude 0.000000;
//   - spoofing: from spoof_start_s for spoof_duration_s the reported position is dragged
//     away by spoof_offset_m (ramping up over the first quarter of the segment, at most
//     5 s, then held) in a seeded direction. The SRT itself does not say so; the
//     renderer documents the spoofed frames in gnss_truth.json.
// SRT block per video frame (DJI Mini 3 / Mavic 3 style):
//   <n>\n<start> --> <end>\n<font size="28">FrameCnt: <n>, DiffTime: <ms>ms\n
//   <YYYY-MM-DD HH:MM:SS.mmm>\n[iso: 100] ... [latitude: <deg>] [longitude: <deg>]
//   [rel_alt: <m> abs_alt: <m>] [gb_yaw: <deg> gb_pitch: <deg> gb_roll: <deg>] </font>
// rel_alt is above the take-off point (the first frame's ground), abs_alt ellipsoidal.
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <vector>

#include "core/geo/geodesy.h"
#include "core/geo/track.h"

namespace skytrace::sim {

struct GnssErrorModel {
  double noise_sigma_m = 0.0;
  double baro_noise_sigma_m = 0.0;  // rel_alt's barometric error
  double bias_m = 0.0;
  double dropout_rate = 0.0;  // 0..0.9
  double spoof_start_s = std::numeric_limits<double>::quiet_NaN();  // NaN: no spoofing
  double spoof_duration_s = 0.0;
  double spoof_offset_m = 0.0;
  std::uint64_t seed = 1;

  void check() const;  // throws InvalidArgument naming the option
  bool hasSpoofing() const { return spoof_start_s == spoof_start_s && spoof_duration_s > 0; }
};

struct GnssSample {
  std::int64_t frame = 0;
  double t_s = 0;
  bool has_fix = true;
  bool spoofed = false;
  double lat_deg = 0, lon_deg = 0;
  double abs_alt_m = 0;  // ellipsoidal
  double rel_alt_m = 0;  // above take-off
  double yaw_deg = 0, pitch_deg = -90, roll_deg = 0;  // gimbal, camera_pose.h conventions
  // The error actually applied (ENU metres, track - truth), for documentation.
  double error_east_m = 0, error_north_m = 0, error_up_m = 0;
  double error_rel_alt_m = 0;  // rel_alt - the true height above take-off
};

struct GnssSimulation {
  std::vector<GnssSample> samples;
  double bias_bearing_deg = 0;   // direction of the bias (0 = north, clockwise)
  double spoof_bearing_deg = 0;  // direction of the spoofing drag
};

// Simulates GNSS for each truth pose (alt_m ellipsoidal). `takeoff_alt_m` is the
// ellipsoidal height rel_alt is measured from.
GnssSimulation simulateGnss(const std::vector<geo::TrackPose>& truth,
                            const geo::LocalEnuFrame& enu_frame, double takeoff_alt_m,
                            const GnssErrorModel& model);

// Writes the samples as a DJI-style SRT (atomic). `fps` sets each block's duration;
// `start_unix_s` the wall-clock time of frame 0. Throws IoError.
void writeDjiSrt(const std::filesystem::path& path, const std::vector<GnssSample>& samples,
                 double fps, double start_unix_s);

}  // namespace skytrace::sim
