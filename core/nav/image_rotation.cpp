#include "core/nav/image_rotation.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

namespace skytrace::nav {

RotatedImage rotateImage(const cv::Mat& image, double angle_deg) {
  RotatedImage out;
  if (angle_deg == 0.0) {
    out.bgr = image;
    return out;
  }
  // Exact zeros at multiples of 90 deg keep the canvas size and the mapping exact.
  const double a = angle_deg * CV_PI / 180.0;
  const double c = std::abs(std::cos(a)) < 1e-12 ? 0.0 : std::cos(a);
  const double s = std::abs(std::sin(a)) < 1e-12 ? 0.0 : std::sin(a);
  const int width = int(std::lround(std::abs(c) * image.cols + std::abs(s) * image.rows));
  const int height = int(std::lround(std::abs(s) * image.cols + std::abs(c) * image.rows));
  // About the image centre to the canvas centre; with y down, a counter-clockwise turn on
  // screen is x' = c x + s y, y' = -s x + c y.
  const cv::Point2d from((image.cols - 1) * 0.5, (image.rows - 1) * 0.5);
  const cv::Point2d to((width - 1) * 0.5, (height - 1) * 0.5);
  out.rotated_from_image = cv::Matx33d(c, s, to.x - (c * from.x + s * from.y),  //
                                       -s, c, to.y - (-s * from.x + c * from.y),  //
                                       0, 0, 1);
  const cv::Matx23d affine(out.rotated_from_image(0, 0), out.rotated_from_image(0, 1),
                           out.rotated_from_image(0, 2), out.rotated_from_image(1, 0),
                           out.rotated_from_image(1, 1), out.rotated_from_image(1, 2));
  const cv::Size canvas(width, height);
  cv::warpAffine(image, out.bgr, affine, canvas, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
  const cv::Mat ones(image.size(), CV_8UC1, cv::Scalar(255));
  cv::warpAffine(ones, out.valid, affine, canvas, cv::INTER_NEAREST, cv::BORDER_CONSTANT);
  cv::erode(out.valid, out.valid, cv::Mat(), cv::Point(-1, -1), 2);
  return out;
}

}  // namespace skytrace::nav
