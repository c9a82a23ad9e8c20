// Pinhole camera intrinsics with OpenCV's radial/tangential distortion model, and the
// JSON camera file. Image frame: pixel (u, v), origin at the top-left pixel's centre,
// u right, v down. Camera frame (OpenCV): x right, y down, z forward (viewing
// direction). Pixel centres sit at integer coordinates. See docs/conventions.md.
// Plain value type; all methods are const and thread-safe.
#pragma once

#include <opencv2/core.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace skytrace::nav {

// OpenCV distortion coefficients (k1, k2, p1, p2, k3), applied to normalised image
// coordinates (x, y) = (X/Z, Y/Z) exactly as cv::projectPoints does.
struct Distortion {
  double k1 = 0.0;
  double k2 = 0.0;
  double p1 = 0.0;
  double p2 = 0.0;
  double k3 = 0.0;

  bool isZero() const { return k1 == 0 && k2 == 0 && p1 == 0 && p2 == 0 && k3 == 0; }
  // Distorted normalised coordinates of the undistorted point (x, y).
  cv::Point2d apply(const cv::Point2d& undistorted) const;
  // Inverse of apply() by Newton iteration; converges to < 1e-12 for any lens whose
  // distortion is monotonic over the image (all practical UAV lenses).
  cv::Point2d remove(const cv::Point2d& distorted) const;
};

class CameraModel {
 public:
  CameraModel() = default;
  // Square pixels, principal point at the image centre.
  static CameraModel fromFocalPx(int width_px, int height_px, double focal_px,
                                 const Distortion& distortion = {});
  // Focal length from the horizontal field of view (degrees, 1..179).
  static CameraModel fromHorizontalFov(int width_px, int height_px, double hfov_deg,
                                       const Distortion& distortion = {});

  int width_px = 0;
  int height_px = 0;
  double fx_px = 0.0;
  double fy_px = 0.0;
  double cx_px = 0.0;
  double cy_px = 0.0;
  Distortion distortion;

  // Throws InvalidArgument naming the bad field.
  void check() const;

  double horizontalFovDeg() const;
  double verticalFovDeg() const;
  cv::Matx33d cameraMatrix() const;                 // K
  std::vector<double> distortionCoefficients() const;  // OpenCV order k1 k2 p1 p2 k3

  // Pixel -> undistorted normalised coordinates (x, y) of the ray (x, y, 1) in the
  // camera frame.
  cv::Point2d normalizedFromPixel(const cv::Point2d& pixel) const;
  // Undistorted normalised coordinates -> pixel (distortion applied).
  cv::Point2d pixelFromNormalized(const cv::Point2d& normalized) const;
  // Projects a point in the camera frame; returns false when it is behind the camera
  // (z <= 0). Does not check that the pixel lies inside the image.
  bool pixelFromCamera(const cv::Vec3d& p_in_cam, cv::Point2d* pixel) const;
  // Unit-length viewing ray of a pixel in the camera frame.
  cv::Vec3d rayFromPixel(const cv::Point2d& pixel) const;

  // Camera JSON: {"width_px","height_px","fx_px","fy_px","cx_px","cy_px",
  // "distortion":{"k1","k2","p1","p2","k3"},"model":"opencv_pinhole"}. Alternatively
  // "hfov_deg" instead of fx/fy (cx/cy then default to the image centre).
  std::string toJsonText() const;
  // `source` names the file in error messages. Throws FormatError.
  static CameraModel fromJsonText(const std::string& text, const std::string& source);
};

// Reads/writes a camera JSON file (atomic write). Throw IoError / FormatError.
CameraModel readCameraFile(const std::filesystem::path& path);
void writeCameraFile(const std::filesystem::path& path, const CameraModel& camera);

}  // namespace skytrace::nav
