#include "core/nav/camera_pose.h"

#include <cmath>

namespace skytrace::nav {
namespace {

constexpr double kPi = 3.14159265358979323846;
double radians(double deg) { return deg * kPi / 180.0; }
double degrees(double rad) { return rad * 180.0 / kPi; }

}  // namespace

double wrapAngleDeg(double angle_deg) {
  double a = std::fmod(angle_deg, 360.0);
  if (a <= -180.0) a += 360.0;
  if (a > 180.0) a -= 360.0;
  return a;
}

cv::Matx33d CameraPose::enuFromCam() const {
  const double psi = radians(yaw_deg), theta = radians(pitch_deg), phi = radians(roll_deg);
  // Level camera at heading psi: forward, right, down in ENU.
  const cv::Vec3d forward(std::sin(psi), std::cos(psi), 0.0);
  const cv::Vec3d right(std::cos(psi), -std::sin(psi), 0.0);
  const cv::Vec3d down(0.0, 0.0, -1.0);
  // Pitch about the right axis (positive raises the optical axis).
  const cv::Vec3d forward1 = std::cos(theta) * forward - std::sin(theta) * down;
  const cv::Vec3d down1 = std::sin(theta) * forward + std::cos(theta) * down;
  // Roll about the optical axis (positive moves the image's right side down).
  const cv::Vec3d right2 = std::cos(phi) * right + std::sin(phi) * down1;
  const cv::Vec3d down2 = -std::sin(phi) * right + std::cos(phi) * down1;
  return {right2[0], down2[0], forward1[0],  //
          right2[1], down2[1], forward1[1],  //
          right2[2], down2[2], forward1[2]};
}

void anglesFromEnuFromCam(const cv::Matx33d& r, double* yaw_deg, double* pitch_deg,
                          double* roll_deg) {
  const cv::Vec3d x(r(0, 0), r(1, 0), r(2, 0));  // image right
  const cv::Vec3d y(r(0, 1), r(1, 1), r(2, 1));  // image down
  const cv::Vec3d z(r(0, 2), r(1, 2), r(2, 2));  // optical axis
  const double sin_pitch = std::max(-1.0, std::min(1.0, z[2]));
  const double pitch = std::asin(sin_pitch);
  const double cos_pitch = std::cos(pitch);
  double yaw = 0.0, roll = 0.0;
  if (cos_pitch > 1e-9) {
    yaw = std::atan2(z[0], z[1]);
    roll = std::atan2(-x[2], -y[2]);
  } else {
    // Gimbal lock: only yaw + roll is defined; report it all as yaw.
    const double s = sin_pitch > 0 ? 1.0 : -1.0;
    yaw = std::atan2(s * y[0], s * y[1]);
  }
  *yaw_deg = wrapAngleDeg(degrees(yaw));
  *pitch_deg = degrees(pitch);
  *roll_deg = wrapAngleDeg(degrees(roll));
}

bool pixelFromEnu(const CameraModel& camera, const CameraPose& pose, const cv::Vec3d& p_in_enu,
                  cv::Point2d* pixel) {
  const cv::Vec3d p_in_cam = pose.camFromEnu() * (p_in_enu - pose.position_enu);
  return camera.pixelFromCamera(p_in_cam, pixel);
}

bool groundFromPixel(const CameraModel& camera, const CameraPose& pose, const cv::Point2d& pixel,
                     double ground_up_m, cv::Vec3d* p_in_enu) {
  const cv::Vec3d ray_in_enu = pose.enuFromCam() * camera.rayFromPixel(pixel);
  if (ray_in_enu[2] >= -1e-12) return false;
  const double range = (ground_up_m - pose.position_enu[2]) / ray_in_enu[2];
  if (range <= 0.0) return false;
  *p_in_enu = pose.position_enu + range * ray_in_enu;
  return true;
}

geo::TrackPose trackPoseFromCameraPose(const CameraPose& pose, const geo::LocalEnuFrame& frame,
                                       std::int64_t frame_index) {
  const geo::GeoPoint g =
      frame.toGeo({pose.position_enu[0], pose.position_enu[1], pose.position_enu[2]});
  geo::TrackPose out;
  out.frame = frame_index;
  out.t_s = pose.t_s;
  out.lat_deg = g.lat_deg;
  out.lon_deg = g.lon_deg;
  out.alt_m = g.alt_m;
  // ENU yaw is measured from the origin's north; the track's from true north at the pose.
  out.yaw_deg = wrapAngleDeg(pose.yaw_deg - frame.northAzimuthDeg(g));
  out.pitch_deg = pose.pitch_deg;
  out.roll_deg = pose.roll_deg;
  out.source = geo::PoseSource::Truth;
  return out;
}

CameraPose cameraPoseFromTrackPose(const geo::TrackPose& pose, const geo::LocalEnuFrame& frame) {
  const geo::EnuPoint p =
      frame.toEnu({pose.lat_deg, pose.lon_deg, std::isnan(pose.alt_m) ? frame.origin().alt_m
                                                                      : pose.alt_m});
  CameraPose out;
  out.t_s = pose.t_s;
  out.position_enu = {p.east_m, p.north_m, p.up_m};
  out.yaw_deg = std::isnan(pose.yaw_deg)
                    ? 0.0
                    : wrapAngleDeg(pose.yaw_deg + frame.northAzimuthDeg({pose.lat_deg, pose.lon_deg, 0.0}));
  out.pitch_deg = std::isnan(pose.pitch_deg) ? -90.0 : pose.pitch_deg;
  out.roll_deg = std::isnan(pose.roll_deg) ? 0.0 : pose.roll_deg;
  return out;
}

}  // namespace skytrace::nav
