#include "core/nav/camera_model.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "core/util/atomic_file.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/json_integer.h"

namespace skytrace::nav {
namespace {

constexpr double kPi = 3.14159265358979323846;
double radians(double deg) { return deg * kPi / 180.0; }
double degrees(double rad) { return rad * 180.0 / kPi; }

}  // namespace

cv::Point2d Distortion::apply(const cv::Point2d& p) const {
  const double x = p.x, y = p.y;
  const double r2 = x * x + y * y;
  const double radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
  return {x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x),
          y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y};
}

cv::Point2d Distortion::remove(const cv::Point2d& distorted) const {
  if (isZero()) return distorted;
  cv::Point2d p = distorted;  // initial guess
  for (int iteration = 0; iteration < 50; ++iteration) {
    const cv::Point2d f = apply(p) - distorted;
    if (std::abs(f.x) < 1e-14 && std::abs(f.y) < 1e-14) break;
    // Analytic Jacobian of apply() at p.
    const double x = p.x, y = p.y;
    const double r2 = x * x + y * y;
    const double radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
    const double dradial_dr2 = k1 + r2 * (2.0 * k2 + 3.0 * r2 * k3);
    const double j00 = radial + 2.0 * x * x * dradial_dr2 + 2.0 * p1 * y + 6.0 * p2 * x;
    const double j01 = 2.0 * x * y * dradial_dr2 + 2.0 * p1 * x + 2.0 * p2 * y;
    const double j10 = 2.0 * x * y * dradial_dr2 + 2.0 * p1 * x + 2.0 * p2 * y;
    const double j11 = radial + 2.0 * y * y * dradial_dr2 + 6.0 * p1 * y + 2.0 * p2 * x;
    const double det = j00 * j11 - j01 * j10;
    if (std::abs(det) < 1e-12) break;
    p.x -= (j11 * f.x - j01 * f.y) / det;
    p.y -= (-j10 * f.x + j00 * f.y) / det;
  }
  return p;
}

CameraModel CameraModel::fromFocalPx(int width_px, int height_px, double focal_px,
                                     const Distortion& distortion) {
  CameraModel camera;
  camera.width_px = width_px;
  camera.height_px = height_px;
  camera.fx_px = focal_px;
  camera.fy_px = focal_px;
  camera.cx_px = (width_px - 1) / 2.0;
  camera.cy_px = (height_px - 1) / 2.0;
  camera.distortion = distortion;
  camera.check();
  return camera;
}

CameraModel CameraModel::fromHorizontalFov(int width_px, int height_px, double hfov_deg,
                                           const Distortion& distortion) {
  checkArgument(hfov_deg > 1.0 && hfov_deg < 179.0,
                "camera horizontal field of view must be in (1, 179) degrees, got " +
                    std::to_string(hfov_deg));
  const double focal_px = (width_px / 2.0) / std::tan(radians(hfov_deg) / 2.0);
  return fromFocalPx(width_px, height_px, focal_px, distortion);
}

void CameraModel::check() const {
  checkArgument(width_px > 0 && height_px > 0,
                "camera image size must be positive, got " + std::to_string(width_px) + "x" +
                    std::to_string(height_px));
  checkArgument(std::isfinite(fx_px) && fx_px > 0 && std::isfinite(fy_px) && fy_px > 0,
                "camera focal lengths fx_px/fy_px must be positive");
  checkArgument(std::isfinite(cx_px) && std::isfinite(cy_px),
                "camera principal point cx_px/cy_px must be finite");
  for (double k : distortionCoefficients()) {
    checkArgument(std::isfinite(k), "camera distortion coefficients must be finite");
  }
}

double CameraModel::horizontalFovDeg() const {
  return degrees(2.0 * std::atan((width_px / 2.0) / fx_px));
}

double CameraModel::verticalFovDeg() const {
  return degrees(2.0 * std::atan((height_px / 2.0) / fy_px));
}

cv::Matx33d CameraModel::cameraMatrix() const {
  return {fx_px, 0.0, cx_px, 0.0, fy_px, cy_px, 0.0, 0.0, 1.0};
}

std::vector<double> CameraModel::distortionCoefficients() const {
  return {distortion.k1, distortion.k2, distortion.p1, distortion.p2, distortion.k3};
}

cv::Point2d CameraModel::normalizedFromPixel(const cv::Point2d& pixel) const {
  const cv::Point2d distorted((pixel.x - cx_px) / fx_px, (pixel.y - cy_px) / fy_px);
  return distortion.remove(distorted);
}

cv::Point2d CameraModel::pixelFromNormalized(const cv::Point2d& normalized) const {
  const cv::Point2d d = distortion.apply(normalized);
  return {fx_px * d.x + cx_px, fy_px * d.y + cy_px};
}

bool CameraModel::pixelFromCamera(const cv::Vec3d& p_in_cam, cv::Point2d* pixel) const {
  if (p_in_cam[2] <= 0.0) return false;
  *pixel = pixelFromNormalized({p_in_cam[0] / p_in_cam[2], p_in_cam[1] / p_in_cam[2]});
  return true;
}

cv::Vec3d CameraModel::rayFromPixel(const cv::Point2d& pixel) const {
  const cv::Point2d n = normalizedFromPixel(pixel);
  return cv::normalize(cv::Vec3d(n.x, n.y, 1.0));
}

std::string CameraModel::toJsonText() const {
  nlohmann::ordered_json j;
  j["model"] = "opencv_pinhole";
  j["width_px"] = width_px;
  j["height_px"] = height_px;
  j["fx_px"] = fx_px;
  j["fy_px"] = fy_px;
  j["cx_px"] = cx_px;
  j["cy_px"] = cy_px;
  j["hfov_deg"] = horizontalFovDeg();  // informative; fx_px wins when reading
  j["distortion"] = {{"k1", distortion.k1},
                     {"k2", distortion.k2},
                     {"p1", distortion.p1},
                     {"p2", distortion.p2},
                     {"k3", distortion.k3}};
  return j.dump(2) + "\n";
}

CameraModel CameraModel::fromJsonText(const std::string& text, const std::string& source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(source + ": not a valid camera JSON file (" + e.what() + ")");
  }
  try {
    if (j.contains("model") && j.at("model").get<std::string>() != "opencv_pinhole") {
      throw FormatError(source + ": unsupported camera model '" +
                        j.at("model").get<std::string>() + "' (expected opencv_pinhole)");
    }
    CameraModel camera;
    camera.width_px = jsonInteger<int>(j.at("width_px"), source + ": width_px");
    camera.height_px = jsonInteger<int>(j.at("height_px"), source + ": height_px");
    if (j.contains("fx_px")) {
      camera.fx_px = j.at("fx_px").get<double>();
      camera.fy_px = j.value("fy_px", camera.fx_px);
    } else if (j.contains("hfov_deg")) {
      camera = fromHorizontalFov(camera.width_px, camera.height_px,
                                 j.at("hfov_deg").get<double>());
    } else {
      throw FormatError(source + ": camera needs fx_px or hfov_deg");
    }
    camera.cx_px = j.value("cx_px", (camera.width_px - 1) / 2.0);
    camera.cy_px = j.value("cy_px", (camera.height_px - 1) / 2.0);
    if (j.contains("distortion")) {
      const auto& d = j.at("distortion");
      camera.distortion.k1 = d.value("k1", 0.0);
      camera.distortion.k2 = d.value("k2", 0.0);
      camera.distortion.p1 = d.value("p1", 0.0);
      camera.distortion.p2 = d.value("p2", 0.0);
      camera.distortion.k3 = d.value("k3", 0.0);
    }
    try {
      camera.check();
    } catch (const InvalidArgument& e) {
      throw FormatError(source + ": " + e.what());
    }
    return camera;
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(source + ": camera JSON is missing a field or has a wrong type (" +
                      e.what() + ")");
  }
}

CameraModel readCameraFile(const std::filesystem::path& path) {
  return CameraModel::fromJsonText(readFileBytes(path), path.string());
}

void writeCameraFile(const std::filesystem::path& path, const CameraModel& camera) {
  writeFileAtomically(path, camera.toJsonText());
}

}  // namespace skytrace::nav
