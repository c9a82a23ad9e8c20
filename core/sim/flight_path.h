// Synthetic UAV trajectories for the renderer: lawnmower survey, orbit, straight
// transit and smooth random flights inside a rectangle of the local ENU frame, sampled
// at a fixed frame rate, with smooth seeded attitude jitter and altitude variation.
// Conventions of nav::CameraPose (core/nav/camera_pose.h). Pure functions, thread-safe;
// the same options (seed included) always give the same poses.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/nav/camera_pose.h"

namespace skytrace::sim {

enum class TrajectoryKind { Lawnmower, Orbit, Transit, Random };

// "lawnmower", "orbit", "transit", "random".
const char* trajectoryKindName(TrajectoryKind kind);
// Throws InvalidArgument listing the valid names.
TrajectoryKind parseTrajectoryKind(const std::string& name);

// A rectangle of the ENU plane (metres) in which the camera centre stays.
struct EnuRect {
  double min_east_m = 0, min_north_m = 0, max_east_m = 0, max_north_m = 0;
  double width_m() const { return max_east_m - min_east_m; }
  double height_m() const { return max_north_m - min_north_m; }
  double centerEast_m() const { return 0.5 * (min_east_m + max_east_m); }
  double centerNorth_m() const { return 0.5 * (min_north_m + max_north_m); }
};

struct FlightPathOptions {
  TrajectoryKind kind = TrajectoryKind::Lawnmower;
  EnuRect area;                 // where the camera centre may fly
  double ground_up_m = 0.0;     // ENU height of the ground the altitude is measured from
  double altitude_m = 100.0;    // above ground, 30..300
  double altitude_variation_m = 0.0;  // peak of a smooth random altitude change
  double speed_mps = 10.0;
  double fps = 30.0;
  double duration_s = 0.0;      // 0: the pattern's natural length (lawnmower/transit),
                                // one lap (orbit), 60 s (random); longer: back and forth,
                                // hovering for a 6 s yaw turn at each end
  double line_spacing_m = 0.0;  // lawnmower: 0 = 4 lines over the area
  // Gimbal pitch: -90 nadir. NaN: -90, except orbit which looks at the orbit centre.
  double gimbal_pitch_deg = std::numeric_limits<double>::quiet_NaN();
  double yaw_offset_deg = 0.0;  // added to the along-track heading (crab / side-looking)
  double attitude_jitter_deg = 0.0;  // peak of smooth yaw/pitch/roll jitter (each)
  std::uint64_t seed = 1;

  void check() const;  // throws InvalidArgument naming the option
};

// Poses at t_s = i / fps, i = 0 .. frames-1.
std::vector<nav::CameraPose> generateFlightPath(const FlightPathOptions& options);

}  // namespace skytrace::sim
