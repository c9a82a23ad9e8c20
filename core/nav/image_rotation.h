// An image turned in its plane by any angle, with the exact pixel mapping: how the
// satellite stage presents a frame of unknown heading to a matcher that is not rotation
// invariant (LiteSAM) or a descriptor that is not (DINOv2).
// Thread: any (pure function).
#pragma once

#include <opencv2/core.hpp>

namespace skytrace::nav {

struct RotatedImage {
  cv::Mat bgr;    // the turned image on a canvas that holds all of it (same type)
  cv::Mat valid;  // CV_8UC1, 255 where the canvas shows the image (eroded by 2 px); empty: all
  // Pixel centres (OpenCV convention) of the input -> the canvas.
  cv::Matx33d rotated_from_image = cv::Matx33d::eye();
};

// `angle_deg` counter-clockwise as displayed (x right, y down). 0 returns the image itself
// (shared, not copied); multiples of 90 deg map pixels exactly onto pixels.
RotatedImage rotateImage(const cv::Mat& image, double angle_deg);

}  // namespace skytrace::nav
