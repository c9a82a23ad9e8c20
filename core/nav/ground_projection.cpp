#include "core/nav/ground_projection.h"

#include <cmath>

namespace skytrace::nav {
namespace {

cv::Matx33d normalizeHomography(const cv::Matx33d& h) {
  if (std::abs(h(2, 2)) > 1e-12) return h * (1.0 / h(2, 2));
  return h;
}

cv::Matx33d undistortedCameraMatrix(const CameraModel& camera) { return camera.cameraMatrix(); }

}  // namespace

cv::Matx33d imageFromGround(const CameraModel& camera, const CameraPose& pose,
                            double ground_up_m) {
  // p_cam = R (P - C), P = (E, N, g): columns r1, r2 and R (g e3 - C).
  const cv::Matx33d cam_from_enu = pose.camFromEnu();
  const cv::Vec3d ground_origin(0.0, 0.0, ground_up_m);
  const cv::Vec3d t = cam_from_enu * (ground_origin - pose.position_enu);
  cv::Matx33d basis;
  for (int row = 0; row < 3; ++row) {
    basis(row, 0) = cam_from_enu(row, 0);
    basis(row, 1) = cam_from_enu(row, 1);
    basis(row, 2) = t[row];
  }
  return normalizeHomography(undistortedCameraMatrix(camera) * basis);
}

cv::Matx33d groundFromImage(const CameraModel& camera, const CameraPose& pose,
                            double ground_up_m) {
  return normalizeHomography(imageFromGround(camera, pose, ground_up_m).inv());
}

bool poseFromImageFromGround(const CameraModel& camera, const cv::Matx33d& image_from_ground,
                             double ground_up_m, double t_s, CameraPose* pose) {
  const cv::Matx33d m = undistortedCameraMatrix(camera).inv() * image_from_ground;
  cv::Vec3d m1(m(0, 0), m(1, 0), m(2, 0));
  cv::Vec3d m2(m(0, 1), m(1, 1), m(2, 1));
  cv::Vec3d m3(m(0, 2), m(1, 2), m(2, 2));
  const double n1 = cv::norm(m1);
  const double n2 = cv::norm(m2);
  if (!(n1 > 1e-12) || !(n2 > 1e-12) || !std::isfinite(n1 + n2)) return false;
  double scale = 2.0 / (n1 + n2);
  // The sign that puts the ground in front of the camera: the ground point seen at the
  // image centre must have positive depth.
  const cv::Matx33d ground_from_image = image_from_ground.inv();
  cv::Vec3d centre = ground_from_image * cv::Vec3d(camera.cx_px, camera.cy_px, 1.0);
  if (std::abs(centre[2]) < 1e-12) return false;
  centre /= centre[2];
  const double depth = (m * centre)[2];
  if (depth < 0) scale = -scale;
  const cv::Vec3d r1 = m1 * scale, r2 = m2 * scale, t = m3 * scale;
  const cv::Vec3d r3 = r1.cross(r2);
  cv::Matx33d approx;
  for (int row = 0; row < 3; ++row) {
    approx(row, 0) = r1[row];
    approx(row, 1) = r2[row];
    approx(row, 2) = r3[row];
  }
  cv::Mat w, u, vt;
  cv::SVDecomp(cv::Mat(approx), w, u, vt);
  cv::Mat r_mat = u * vt;
  if (cv::determinant(r_mat) < 0) return false;
  const cv::Matx33d cam_from_enu(r_mat);
  // t = R (g e3 - C)  =>  C = g e3 - R^T t
  const cv::Vec3d centre_enu = cv::Vec3d(0.0, 0.0, ground_up_m) - cam_from_enu.t() * t;
  if (!(centre_enu[2] > ground_up_m)) return false;
  CameraPose out;
  out.t_s = t_s;
  out.position_enu = centre_enu;
  anglesFromEnuFromCam(cam_from_enu.t(), &out.yaw_deg, &out.pitch_deg, &out.roll_deg);
  *pose = out;
  return true;
}

void foldRollIntoYawNearNadir(CameraPose* pose) {
  if (std::abs(pose->pitch_deg + 90.0) < 20.0) {
    pose->yaw_deg = wrapAngleDeg(pose->yaw_deg + pose->roll_deg);
    pose->roll_deg = 0.0;
  }
}

CameraPose constrainAttitude(const CameraModel& camera, const CameraPose& pose, double pitch_deg,
                             double roll_deg, double ground_up_m) {
  const cv::Point2d centre_pixel(camera.cx_px, camera.cy_px);
  cv::Vec3d ground;
  if (!groundFromPixel(camera, pose, centre_pixel, ground_up_m, &ground)) return pose;
  CameraPose out = pose;
  out.pitch_deg = pitch_deg;
  out.roll_deg = roll_deg;
  // Heading from the rotation itself, robust to a wildly wrong tilt: near nadir the
  // direction of the image's top on the ground (= yaw + roll), otherwise the optical axis.
  const cv::Matx33d enu_from_cam = pose.enuFromCam();
  if (std::abs(pitch_deg + 90.0) < 45.0) {
    const cv::Vec3d up_in_image = enu_from_cam * cv::Vec3d(0, -1, 0);
    const double heading = std::atan2(up_in_image[0], up_in_image[1]) * 180.0 / M_PI;
    out.yaw_deg = wrapAngleDeg(heading - roll_deg);
  } else {
    const cv::Vec3d axis = enu_from_cam * cv::Vec3d(0, 0, 1);
    out.yaw_deg = wrapAngleDeg(std::atan2(axis[0], axis[1]) * 180.0 / M_PI);
  }
  const cv::Vec3d ray = out.enuFromCam() * camera.rayFromPixel(centre_pixel);
  if (ray[2] > -1e-6) return pose;
  const double height = pose.position_enu[2] - ground_up_m;
  out.position_enu = ground + (height / ray[2]) * ray;  // ray[2] < 0: back up the ray
  return out;
}

namespace {

// ground_from_image applied to a pixel; false at or above the horizon.
bool groundPoint(const cv::Matx33d& ground_from_image, const cv::Point2d& pixel, cv::Point2d* ground) {
  const cv::Vec3d g = ground_from_image * cv::Vec3d(pixel.x, pixel.y, 1.0);
  if (!(std::abs(g[2]) > 1e-12)) return false;
  *ground = {g[0] / g[2], g[1] / g[2]};
  return std::isfinite(ground->x) && std::isfinite(ground->y);
}

}  // namespace

bool nearestNadirPose(const CameraModel& camera, const cv::Matx33d& ground_from_image, double ground_up_m,
                      const CameraPose& like, CameraPose* nadir, double* max_deviation_m) {
  const cv::Point2d principal(camera.cx_px, camera.cy_px);
  cv::Point2d centre;
  if (!groundPoint(ground_from_image, principal, &centre)) return false;
  std::vector<cv::Point2d> pixels, ground;
  for (int i = 0; i <= 4; ++i) {
    for (int j = 0; j <= 4; ++j) {
      const cv::Point2d p((camera.width_px - 1.0) * i / 4.0, (camera.height_px - 1.0) * j / 4.0);
      cv::Point2d g;
      if (!groundPoint(ground_from_image, p, &g)) return false;
      pixels.push_back(p);
      ground.push_back(g);
    }
  }
  // A nadir camera of heading psi and height h maps pixel offsets d from the principal
  // point to ground offsets (h / f) R d, where R turns image right (x) to east-of-heading
  // and image down (y) to the heading's opposite: in ENU, image x -> (cos psi, -sin psi),
  // image y -> (-sin psi, -cos psi) for psi clockwise from north. With u = (x, -y) in
  // that basis this is a rotation by -psi: fit scale and angle as a complex ratio.
  const double f = std::sqrt(camera.fx_px * camera.fy_px);
  double re = 0.0, im = 0.0, pixel_norm = 0.0;
  for (std::size_t k = 0; k < pixels.size(); ++k) {
    const double ux = (pixels[k].x - principal.x) / camera.fx_px * f;
    const double uy = -(pixels[k].y - principal.y) / camera.fy_px * f;
    const double gx = ground[k].x - centre.x, gy = ground[k].y - centre.y;
    // (gx + i gy) * conj(ux + i uy)
    re += gx * ux + gy * uy;
    im += gy * ux - gx * uy;
    pixel_norm += ux * ux + uy * uy;
  }
  if (!(pixel_norm > 0.0) || !(std::hypot(re, im) > 0.0)) return false;
  const double metres_per_pixel = std::hypot(re, im) / pixel_norm;  // h / f
  const double rotation_rad = std::atan2(im, re);                   // = -psi
  CameraPose out = like;
  out.pitch_deg = -90.0;
  out.roll_deg = 0.0;
  out.yaw_deg = wrapAngleDeg(-rotation_rad * 180.0 / M_PI);
  out.position_enu = cv::Vec3d(centre.x, centre.y, ground_up_m + metres_per_pixel * f);
  const cv::Matx33d nadir_ground_from_image = groundFromImage(camera, out, ground_up_m);
  double deviation = 0.0;
  for (std::size_t k = 0; k < pixels.size(); ++k) {
    cv::Point2d g;
    if (!groundPoint(nadir_ground_from_image, pixels[k], &g)) return false;
    deviation = std::max(deviation, std::hypot(g.x - ground[k].x, g.y - ground[k].y));
  }
  *nadir = out;
  *max_deviation_m = deviation;
  return true;
}

cv::Point2d undistortPixel(const CameraModel& camera, const cv::Point2d& pixel) {
  if (camera.distortion.isZero()) return pixel;
  const cv::Point2d n = camera.normalizedFromPixel(pixel);
  return {camera.fx_px * n.x + camera.cx_px, camera.fy_px * n.y + camera.cy_px};
}

std::vector<cv::Point2d> groundFootprint(const CameraModel& camera, const CameraPose& pose,
                                         double ground_up_m, double max_range_m) {
  const double w = camera.width_px - 1.0, h = camera.height_px - 1.0;
  const cv::Point2d pixels[5] = {{0, 0}, {w, 0}, {w, h}, {0, h}, {0.5 * w, 0.5 * h}};
  std::vector<cv::Point2d> out;
  out.reserve(5);
  const cv::Matx33d enu_from_cam = pose.enuFromCam();
  for (const auto& pixel : pixels) {
    cv::Vec3d ground;
    const cv::Vec3d ray = enu_from_cam * camera.rayFromPixel(pixel);
    bool hit = groundFromPixel(camera, pose, pixel, ground_up_m, &ground);
    if (hit) {
      const double dx = ground[0] - pose.position_enu[0], dy = ground[1] - pose.position_enu[1];
      if (std::hypot(dx, dy) > max_range_m) hit = false;
    }
    if (!hit) {
      double horizontal = std::hypot(ray[0], ray[1]);
      cv::Point2d direction = horizontal > 1e-9 ? cv::Point2d(ray[0] / horizontal, ray[1] / horizontal)
                                                : cv::Point2d(0, 0);
      ground = {pose.position_enu[0] + max_range_m * direction.x,
                pose.position_enu[1] + max_range_m * direction.y, ground_up_m};
    }
    out.emplace_back(ground[0], ground[1]);
  }
  return out;
}

double groundSampleDistanceM(const CameraModel& camera, const CameraPose& pose,
                             double ground_up_m) {
  cv::Vec3d ground;
  const cv::Point2d centre(camera.cx_px, camera.cy_px);
  if (!groundFromPixel(camera, pose, centre, ground_up_m, &ground)) {
    return std::max(1e-3, pose.position_enu[2] - ground_up_m) / camera.fx_px;
  }
  return cv::norm(ground - pose.position_enu) / (0.5 * (camera.fx_px + camera.fy_px));
}

}  // namespace skytrace::nav
