// The track model: timestamped georeferenced poses, as computed, logged or true.
// Angles: yaw 0 = north, positive clockwise (towards east), degrees; pitch 0 = level,
// -90 = looking straight down (nadir); roll positive right-wing-down. NaN = unknown.
// Plain values, thread-safe to copy.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace skytrace::geo {

// Where a pose came from.
enum class PoseSource {
  Unknown,
  Visual,        // fused visual trajectory (VO + basemap registration)
  Odometry,      // raw visual odometry, no absolute fixes
  Registration,  // a single basemap registration fix
  Gnss,          // logged GNSS (telemetry)
  Truth          // ground truth (renderer)
};

// Stable lower-case names used in files: "unknown", "visual", "odometry",
// "registration", "gnss", "truth". parsePoseSource() accepts them case-insensitively
// and returns Unknown for anything else.
const char* poseSourceName(PoseSource source);
PoseSource parsePoseSource(const std::string& name);

struct TrackPose {
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

  std::int64_t frame = -1;  // video frame index, -1 if not tied to a frame
  double t_s = 0.0;         // seconds since the track's start (video timeline)
  double lat_deg = 0.0;
  double lon_deg = 0.0;
  double alt_m = kUnknown;  // metres; the track says above what (alt_reference)
  double yaw_deg = kUnknown;
  double pitch_deg = kUnknown;
  double roll_deg = kUnknown;
  PoseSource source = PoseSource::Unknown;
  double sigma_m = kUnknown;  // 1-sigma horizontal position uncertainty, metres
};

// A stretch of the video timeline: frames start_frame..end_frame (inclusive), at
// start_s..end_s seconds (the TrackPose clock). E.g. frames visual odometry lost.
struct FrameSpan {
  std::int64_t start_frame = -1, end_frame = -1;
  double start_s = 0.0, end_s = 0.0;
  std::int64_t frameCount() const { return end_frame - start_frame + 1; }  // 1: one frame
};

// Adds one frame to runs of frames (frames come in increasing order): it extends the last
// run when `continues_last_run` (the frame follows that run's last frame with nothing
// between them that breaks the run), else starts a run of its own.
void addFrameToRuns(std::vector<FrameSpan>& runs, std::int64_t frame, double t_s, bool continues_last_run);

struct Track {
  std::string name;
  // Absolute time of t_s = 0 as Unix seconds (UTC); NaN when unknown: exports then hold
  // relative times (t_s) only, never an invented date (track_io.h).
  double start_unix_s = std::numeric_limits<double>::quiet_NaN();
  std::string alt_reference = "ellipsoid";  // or "takeoff", "msl", "ground"
  std::vector<TrackPose> poses;
};

// Horizontal ground speed at each pose, m/s (parallel to track.poses): the geodesic
// distance between the first and last pose within `window_s` seconds centred on it,
// over their time difference; where that window holds no other pose, over the
// neighbouring poses. A window of a few samples keeps logs that repeat a position
// between GNSS updates (a 10 Hz receiver in a 60 Hz log) from reading as alternating
// standstill and double speed. NaN where the poses used span no time (a lone pose,
// equal times) or lack a position. Poses must be in time order.
std::vector<double> groundSpeedsMps(const Track& track, double window_s);

}  // namespace skytrace::geo
