// 6-DoF camera pose in a flight's local ENU frame, and the projections between image
// pixels, the camera frame, ENU and WGS84. Conventions (docs/conventions.md, and the
// same as core/geo/track.h):
//   - ENU: x = east, y = north, z = up, metres, tangent plane at the flight's origin.
//   - Camera frame (OpenCV): x right, y down, z forward (the optical axis).
//   - Attitude of the camera (gimbal angles in the world, not relative to the airframe),
//     intrinsic Z-Y-X (yaw, then pitch, then roll) applied to a level camera:
//       yaw_deg   heading of the optical axis, 0 = north, positive clockwise (east = 90);
//       pitch_deg elevation of the optical axis, 0 = horizon, -90 = nadir (looking down);
//                 values below -90 mean tilted backwards past nadir (DJI gimbals reach
//                 -120); the rotation formula is the same;
//       roll_deg  about the optical axis, positive = right side of the image goes down.
//     At yaw 0, pitch 0, roll 0 the camera looks north with x = east and y = down.
//     At pitch -90 the top of the image points to the yaw heading (yaw 0: north up).
// Plain values and pure functions, thread-safe.
#pragma once

#include <opencv2/core.hpp>

#include "core/geo/geodesy.h"
#include "core/geo/track.h"
#include "core/nav/camera_model.h"

namespace skytrace::nav {

struct CameraPose {
  double t_s = 0.0;                 // seconds on the video timeline
  cv::Vec3d position_enu{0, 0, 0};  // camera centre (east_m, north_m, up_m)
  double yaw_deg = 0.0;
  double pitch_deg = -90.0;
  double roll_deg = 0.0;

  // Rotation taking camera-frame vectors to ENU (columns: camera x, y, z in ENU).
  cv::Matx33d enuFromCam() const;
  cv::Matx33d camFromEnu() const { return enuFromCam().t(); }
};

// Yaw/pitch/roll (degrees, conventions above) of a rotation matrix enu_from_cam.
// Near pitch +-90 yaw and roll are coupled; roll is then reported as 0 when the matrix
// allows it (gimbal lock), and yaw carries the whole rotation about the vertical.
void anglesFromEnuFromCam(const cv::Matx33d& enu_from_cam, double* yaw_deg,
                          double* pitch_deg, double* roll_deg);

// ENU point -> pixel. Returns false when the point is behind the camera.
bool pixelFromEnu(const CameraModel& camera, const CameraPose& pose,
                  const cv::Vec3d& p_in_enu, cv::Point2d* pixel);

// Intersection of a pixel's ray with the horizontal plane up_m = ground_up_m. Returns
// false when the ray does not go down to the plane (points at or above the horizon).
bool groundFromPixel(const CameraModel& camera, const CameraPose& pose,
                     const cv::Point2d& pixel, double ground_up_m, cv::Vec3d* p_in_enu);

// Conversion of a pose to/from a georeferenced TrackPose through a local ENU frame
// (alt_m in the track = ellipsoidal altitude of the camera = origin alt + up_m). The
// track's yaw is a true heading at the pose (from its own meridian), the pose's is
// measured from the frame's north: they differ by LocalEnuFrame::northAzimuthDeg (the
// meridian convergence; large near a pole). Pitch and roll are kept (the tilt of the
// local vertical, 0.009 deg per km, is neglected).
geo::TrackPose trackPoseFromCameraPose(const CameraPose& pose, const geo::LocalEnuFrame& frame,
                                       std::int64_t frame_index);
CameraPose cameraPoseFromTrackPose(const geo::TrackPose& pose, const geo::LocalEnuFrame& frame);

// Wraps an angle to (-180, 180] degrees.
double wrapAngleDeg(double angle_deg);

}  // namespace skytrace::nav
