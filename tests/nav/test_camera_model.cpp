// Camera model and pose conventions: projection round trips, agreement with OpenCV's
// own projection, the yaw/pitch/roll conventions of docs/conventions.md, JSON files.
#include <QTemporaryDir>
#include <QtTest>

#include <opencv2/calib3d.hpp>

#include <cmath>

#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::nav;

namespace {

CameraModel distortedCamera() {
  Distortion d;
  d.k1 = -0.12;
  d.k2 = 0.03;
  d.p1 = 0.0015;
  d.p2 = -0.001;
  d.k3 = -0.004;
  return CameraModel::fromHorizontalFov(1280, 720, 78.0, d);
}

}  // namespace

class TestCameraModel : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void focalFromFov() {
    const CameraModel c = CameraModel::fromHorizontalFov(1000, 500, 90.0);
    QVERIFY(std::abs(c.fx_px - 500.0) < 1e-9);  // tan(45) = 1
    QVERIFY(std::abs(c.horizontalFovDeg() - 90.0) < 1e-9);
    QCOMPARE(c.cx_px, 499.5);
  }

  // Our distortion model must be OpenCV's: compare with cv::projectPoints.
  void projectionMatchesOpenCv() {
    const CameraModel c = distortedCamera();
    std::vector<cv::Point3d> points;
    for (double x = -0.6; x <= 0.6; x += 0.2)
      for (double y = -0.35; y <= 0.35; y += 0.1) points.emplace_back(x * 10, y * 10, 10.0);
    std::vector<cv::Point2d> reference;
    cv::projectPoints(points, cv::Vec3d(0, 0, 0), cv::Vec3d(0, 0, 0), cv::Mat(c.cameraMatrix()),
                      c.distortionCoefficients(), reference);
    for (size_t i = 0; i < points.size(); ++i) {
      cv::Point2d ours;
      QVERIFY(c.pixelFromCamera({points[i].x, points[i].y, points[i].z}, &ours));
      QVERIFY2(cv::norm(ours - reference[i]) < 1e-6, "differs from cv::projectPoints");
    }
  }

  void pixelGroundPixelRoundTrip() {
    const CameraModel c = distortedCamera();
    const CameraPose poses[] = {
        {0.0, {10, -20, 120}, 0, -90, 0},      // nadir
        {0.0, {0, 0, 80}, 37, -62, 4},         // oblique, rolled
        {0.0, {-50, 30, 300}, -140, -75, -8},  // high, yawed west
        {0.0, {5, 5, 35}, 200, -91.5, 2},      // past nadir
    };
    double worst = 0;
    int checked = 0;
    for (const CameraPose& pose : poses) {
      for (int v = 0; v < c.height_px; v += 37) {
        for (int u = 0; u < c.width_px; u += 41) {
          const cv::Point2d pixel(u + 0.25, v + 0.75);
          cv::Vec3d ground;
          if (!groundFromPixel(c, pose, pixel, 3.0, &ground)) continue;
          QVERIFY(std::abs(ground[2] - 3.0) < 1e-9);
          cv::Point2d back;
          QVERIFY(pixelFromEnu(c, pose, ground, &back));
          worst = std::max(worst, cv::norm(back - pixel));
          ++checked;
        }
      }
    }
    qInfo("pixel -> ground -> pixel: %d pixels, worst %.2e px", checked, worst);
    QVERIFY(checked > 1500);
    QVERIFY2(worst < 0.01, qPrintable(QString("worst round trip %1 px").arg(worst)));
  }

  // docs/conventions.md: yaw 0 = north, clockwise; pitch -90 = nadir with the image top
  // towards the yaw heading; roll positive = right side of the image goes down.
  void conventions() {
    const CameraModel c = CameraModel::fromHorizontalFov(641, 481, 60.0);
    const cv::Point2d centre(c.cx_px, c.cy_px);
    cv::Point2d p;
    CameraPose nadir{0.0, {0, 0, 100}, 0.0, -90.0, 0.0};
    QVERIFY(pixelFromEnu(c, nadir, {0, 0, 0}, &p));
    QVERIFY(cv::norm(p - centre) < 1e-9);
    QVERIFY(pixelFromEnu(c, nadir, {0, 10, 0}, &p));  // north -> up in the image
    QVERIFY(p.y < centre.y - 10 && std::abs(p.x - centre.x) < 1e-9);
    QVERIFY(pixelFromEnu(c, nadir, {10, 0, 0}, &p));  // east -> right
    QVERIFY(p.x > centre.x + 10 && std::abs(p.y - centre.y) < 1e-9);

    CameraPose east = nadir;
    east.yaw_deg = 90.0;  // heading east: east is up in the image, south is right
    QVERIFY(pixelFromEnu(c, east, {10, 0, 0}, &p));
    QVERIFY(p.y < centre.y - 10 && std::abs(p.x - centre.x) < 1e-6);
    QVERIFY(pixelFromEnu(c, east, {0, -10, 0}, &p));
    QVERIFY(p.x > centre.x + 10);

    CameraPose level{0.0, {0, 0, 0}, 0.0, 0.0, 0.0};  // optical axis north
    QVERIFY(pixelFromEnu(c, level, {0, 100, 0}, &p));
    QVERIFY(cv::norm(p - centre) < 1e-9);
    QVERIFY(pixelFromEnu(c, level, {0, 100, 10}, &p));  // up -> top of the image
    QVERIFY(p.y < centre.y);
    CameraPose tilted = level;
    tilted.pitch_deg = -30.0;  // looking down: a point below the horizon is centred
    QVERIFY(pixelFromEnu(c, tilted, {0, 100 * std::cos(M_PI / 6), -100 * std::sin(M_PI / 6)}, &p));
    QVERIFY(cv::norm(p - centre) < 1e-9);
    CameraPose rolled = level;
    rolled.roll_deg = 10.0;  // right side down: the horizon rises on the right of the image
    QVERIFY(pixelFromEnu(c, rolled, {20, 100, 0}, &p));
    QVERIFY(p.x > centre.x && p.y < centre.y - 1);
  }

  void anglesRoundTrip() {
    for (double yaw : {-170.0, -45.0, 0.0, 33.0, 179.0}) {
      for (double pitch : {-89.0, -60.0, -10.0, 0.0, 20.0}) {
        for (double roll : {-30.0, 0.0, 12.0}) {
          CameraPose pose{0.0, {0, 0, 0}, yaw, pitch, roll};
          double y = 0, p = 0, r = 0;
          anglesFromEnuFromCam(pose.enuFromCam(), &y, &p, &r);
          QVERIFY(std::abs(wrapAngleDeg(y - yaw)) < 1e-7);
          QVERIFY(std::abs(p - pitch) < 1e-7);
          QVERIFY(std::abs(r - roll) < 1e-7);
        }
      }
    }
    // Exactly nadir: yaw and roll are one rotation; the matrix must be reproduced.
    CameraPose nadir{0.0, {0, 0, 0}, 40.0, -90.0, 15.0};
    double y = 0, p = 0, r = 0;
    anglesFromEnuFromCam(nadir.enuFromCam(), &y, &p, &r);
    const CameraPose back{0.0, {0, 0, 0}, y, p, r};
    QVERIFY(cv::norm(back.enuFromCam() - nadir.enuFromCam()) < 1e-9);
    QVERIFY(std::abs(y - 55.0) < 1e-7);
  }

  void rotationIsOrthonormal() {
    const CameraPose pose{0.0, {0, 0, 0}, 123.0, -47.0, 9.0};
    const cv::Matx33d r = pose.enuFromCam();
    QVERIFY(cv::norm(r * r.t() - cv::Matx33d::eye()) < 1e-12);
    QVERIFY(std::abs(cv::determinant(r) - 1.0) < 1e-12);
  }

  void jsonRoundTrip() {
    QTemporaryDir dir;
    const std::filesystem::path path = dir.filePath("camera.json").toStdString();
    const CameraModel c = distortedCamera();
    writeCameraFile(path, c);
    const CameraModel back = readCameraFile(path);
    QCOMPARE(back.width_px, 1280);
    QCOMPARE(back.height_px, 720);
    QCOMPARE(back.fx_px, c.fx_px);
    QCOMPARE(back.cy_px, c.cy_px);
    QCOMPARE(back.distortion.k1, c.distortion.k1);
    QCOMPARE(back.distortion.p2, c.distortion.p2);
    // Field of view instead of a focal length.
    const CameraModel fov = CameraModel::fromJsonText(
        R"({"width_px": 800, "height_px": 600, "hfov_deg": 90})", "inline");
    QVERIFY(std::abs(fov.fx_px - 400.0) < 1e-9);
  }

  void badJsonNamesTheFile() {
    try {
      CameraModel::fromJsonText(R"({"width_px": 800})", "cam.json");
      QFAIL("expected FormatError");
    } catch (const FormatError& e) {
      QVERIFY(QString(e.what()).contains("cam.json"));
    }
    QVERIFY_THROWS_EXCEPTION(FormatError, CameraModel::fromJsonText(
                                              R"({"width_px": -5, "height_px": 600, "fx_px": 500})",
                                              "neg.json"));
    // Found by fuzz_camera_json: a floating size was converted to int by a plain cast
    // (undefined behaviour for 1e77); sizes must be integers that fit.
    for (const char* width : {"1e77", "640.5", "3000000000"}) {
      const std::string text = std::string(R"({"width_px": )") + width + R"(, "height_px": 600, "fx_px": 500})";
      const QString message = test::errorMessageOf<FormatError>([&] { CameraModel::fromJsonText(text, "big.json"); });
      QVERIFY2(message.contains("big.json") && message.contains("width_px"), qPrintable(message));
    }
  }
};

QTEST_GUILESS_MAIN(TestCameraModel)
#include "test_camera_model.moc"
