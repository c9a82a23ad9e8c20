// rotateImage (core/nav/image_rotation.h): the pixel mapping it returns is the one its
// pixels follow. Quarter turns move every pixel exactly onto a pixel of the swapped canvas;
// at 45 deg a linear ramp resampled through the mapping keeps its values; turning back
// composes to the identity.
#include <QtTest>

#include <cmath>

#include "core/nav/image_rotation.h"

using namespace skytrace::nav;

namespace {

// 8-bit image whose value is a linear function of the pixel centre.
cv::Mat linearRamp(int width, int height) {
  cv::Mat image(height, width, CV_8UC1);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image.at<uint8_t>(y, x) = uint8_t(10 + 2 * x + 3 * y);
  return image;
}

cv::Point2d apply(const cv::Matx33d& m, double x, double y) {
  const cv::Vec3d p = m * cv::Vec3d(x, y, 1.0);
  return {p[0] / p[2], p[1] / p[2]};
}

}  // namespace

class TestImageRotation : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void zeroIsTheImageItself() {
    const cv::Mat image = linearRamp(9, 5);
    const RotatedImage r = rotateImage(image, 0.0);
    QVERIFY(r.bgr.data == image.data);
    QVERIFY(r.valid.empty());
    QVERIFY(r.rotated_from_image == cv::Matx33d::eye());
  }

  void quarterTurnsMovePixelsOntoPixels() {
    cv::Mat image(5, 7, CV_8UC3);
    cv::randu(image, 0, 255);
    for (double angle : {90.0, 180.0, 270.0}) {
      const RotatedImage r = rotateImage(image, angle);
      const bool swapped = angle != 180.0;
      QCOMPARE(r.bgr.cols, swapped ? image.rows : image.cols);
      QCOMPARE(r.bgr.rows, swapped ? image.cols : image.rows);
      for (int y = 0; y < image.rows; ++y) {
        for (int x = 0; x < image.cols; ++x) {
          const cv::Point2d p = apply(r.rotated_from_image, x, y);
          const int u = int(std::lround(p.x)), v = int(std::lround(p.y));
          QVERIFY(std::abs(p.x - u) < 1e-9 && std::abs(p.y - v) < 1e-9);
          QVERIFY(r.bgr.at<cv::Vec3b>(v, u) == image.at<cv::Vec3b>(y, x));
        }
      }
    }
    // Counter-clockwise on screen: the top-right corner of a 7x5 image goes to the top-left.
    const RotatedImage quarter = rotateImage(image, 90.0);
    const cv::Point2d corner = apply(quarter.rotated_from_image, 6, 0);
    QCOMPARE(corner.x, 0.0);
    QCOMPARE(corner.y, 0.0);
  }

  void obliqueTurnResamplesThroughTheMapping() {
    const cv::Mat image = linearRamp(40, 24);
    const RotatedImage r = rotateImage(image, 45.0);
    const double side = (40 + 24) / std::sqrt(2.0);
    QCOMPARE(r.bgr.cols, int(std::lround(side)));
    QCOMPARE(r.bgr.rows, int(std::lround(side)));
    QCOMPARE(int(r.valid.at<uint8_t>(0, 0)), 0);  // canvas corner: outside the image
    const cv::Matx33d image_from_rotated = r.rotated_from_image.inv();
    int checked = 0;
    for (int v = 0; v < r.bgr.rows; ++v) {
      for (int u = 0; u < r.bgr.cols; ++u) {
        if (!r.valid.at<uint8_t>(v, u)) continue;
        const cv::Point2d p = apply(image_from_rotated, u, v);
        QVERIFY(p.x >= -0.5 && p.y >= -0.5 && p.x <= 39.5 && p.y <= 23.5);
        const double expected = 10 + 2 * p.x + 3 * p.y;
        QVERIFY2(std::abs(r.bgr.at<uint8_t>(v, u) - expected) <= 1.0, qPrintable(QString::number(expected)));
        ++checked;
      }
    }
    QVERIFY(checked > 500);
  }

  void turningBackIsTheIdentity() {
    const cv::Mat image = linearRamp(8, 6);
    const RotatedImage there = rotateImage(image, 90.0);
    const RotatedImage back = rotateImage(there.bgr, 270.0);
    const cv::Matx33d round_trip = back.rotated_from_image * there.rotated_from_image;
    QVERIFY(cv::norm(round_trip - cv::Matx33d::eye()) < 1e-12);
    QCOMPARE(cv::norm(back.bgr, image, cv::NORM_INF), 0.0);
  }
};

QTEST_GUILESS_MAIN(TestImageRotation)
#include "test_image_rotation.moc"
