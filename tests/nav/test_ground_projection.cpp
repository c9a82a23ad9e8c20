// Plane-induced homographies: projection agrees with the camera model, poses come back
// from image_from_ground exactly, and VO prediction recovers a frame's metric pose (scale,
// heading, height) from its keyframe's pose and the image-to-image homography.
#include <QtTest>

#include <cmath>

#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/nav/ground_projection.h"
#include "core/nav/visual_odometry.h"

using namespace skytrace::nav;

namespace {

CameraPose makePose(double e, double n, double up, double yaw, double pitch, double roll) {
  CameraPose p;
  p.position_enu = {e, n, up};
  p.yaw_deg = yaw;
  p.pitch_deg = pitch;
  p.roll_deg = roll;
  return p;
}

double rotationDifferenceDeg(const CameraPose& a, const CameraPose& b) {
  const cv::Matx33d d = a.enuFromCam().t() * b.enuFromCam();
  const double c = std::clamp((d(0, 0) + d(1, 1) + d(2, 2) - 1.0) / 2.0, -1.0, 1.0);
  return std::acos(c) * 180.0 / M_PI;
}

const CameraModel kCamera = CameraModel::fromHorizontalFov(640, 480, 60.0);

}  // namespace

class TestGroundProjection : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void homographyAgreesWithProjection() {
    const CameraPose pose = makePose(12, -40, 95, 37, -70, 3);
    const cv::Matx33d h = imageFromGround(kCamera, pose, 2.0);
    for (const cv::Vec3d& g : {cv::Vec3d(0, 0, 2), cv::Vec3d(30, -10, 2), cv::Vec3d(-20, 25, 2)}) {
      cv::Point2d expected;
      QVERIFY(pixelFromEnu(kCamera, pose, g, &expected));
      const cv::Vec3d p = h * cv::Vec3d(g[0], g[1], 1.0);
      QVERIFY(std::abs(p[0] / p[2] - expected.x) < 1e-7);
      QVERIFY(std::abs(p[1] / p[2] - expected.y) < 1e-7);
    }
  }

  void poseRoundTrip_data() {
    QTest::addColumn<double>("yaw");
    QTest::addColumn<double>("pitch");
    QTest::addColumn<double>("roll");
    QTest::addColumn<double>("height");
    QTest::newRow("nadir") << 0.0 << -90.0 << 0.0 << 80.0;
    QTest::newRow("nadir-yawed") << 135.0 << -89.0 << 0.5 << 150.0;
    QTest::newRow("oblique") << -60.0 << -45.0 << 2.0 << 60.0;
    QTest::newRow("tilted-back") << 10.0 << -100.0 << -1.0 << 120.0;
  }
  void poseRoundTrip() {
    QFETCH(double, yaw);
    QFETCH(double, pitch);
    QFETCH(double, roll);
    QFETCH(double, height);
    const CameraPose truth = makePose(-35, 18, 5.0 + height, yaw, pitch, roll);
    CameraPose recovered;
    QVERIFY(poseFromImageFromGround(kCamera, imageFromGround(kCamera, truth, 5.0), 5.0, 1.5, &recovered));
    QVERIFY(cv::norm(recovered.position_enu - truth.position_enu) < 1e-6);
    QVERIFY(rotationDifferenceDeg(recovered, truth) < 1e-6);
    QCOMPARE(recovered.t_s, 1.5);
  }

  void scaledHomographyGivesSamePose() {
    const CameraPose truth = makePose(3, 4, 100, 20, -85, 0);
    CameraPose recovered;
    QVERIFY(poseFromImageFromGround(kCamera, imageFromGround(kCamera, truth, 0.0) * -3.7, 0.0, 0.0,
                                    &recovered));
    QVERIFY(cv::norm(recovered.position_enu - truth.position_enu) < 1e-6);
  }

  // The VO chain: keyframe pose + frame->keyframe homography = the frame's pose, with
  // its height (scale), heading change and displacement in metres.
  void predictionRecoversMotionScaleAndHeading() {
    const CameraPose keyframe = makePose(0, 0, 80, 90, -90, 0);
    const CameraPose frame = makePose(14, -3, 72, 125, -84, 1);  // moved, descended, turned 35 deg
    const cv::Matx33d reference_from_frame =
        imageFromGround(kCamera, keyframe, 0.0) * groundFromImage(kCamera, frame, 0.0);
    CameraPose predicted;
    QVERIFY(predictPoseFromKeyframe(kCamera, keyframe, reference_from_frame, 0.0, 2.0, &predicted));
    QVERIFY(cv::norm(predicted.position_enu - frame.position_enu) < 1e-6);
    QVERIFY(rotationDifferenceDeg(predicted, frame) < 1e-6);
  }

  // A logged attitude removes the tilt/translation ambiguity: a pose tilted 4 deg off
  // nadir seeing the ground point G at its image centre becomes the nadir pose above G.
  void constrainAttitudeKeepsCentrePointAndHeight() {
    const CameraPose tilted = makePose(10, 20, 60, 30, -86, 1.5);
    cv::Vec3d centre;
    QVERIFY(groundFromPixel(kCamera, tilted, {kCamera.cx_px, kCamera.cy_px}, 0.0, &centre));
    const CameraPose nadir = constrainAttitude(kCamera, tilted, -90.0, 0.0, 0.0);
    QCOMPARE(nadir.pitch_deg, -90.0);
    QVERIFY(std::abs(nadir.position_enu[0] - centre[0]) < 1e-9);
    QVERIFY(std::abs(nadir.position_enu[1] - centre[1]) < 1e-9);
    QVERIFY(std::abs(nadir.position_enu[2] - 60.0) < 1e-9);
    // The heading of the image's top on the ground is kept (about yaw + roll near nadir).
    const cv::Vec3d top = tilted.enuFromCam() * cv::Vec3d(0, -1, 0);
    const double heading = std::atan2(top[0], top[1]) * 180.0 / M_PI;
    QVERIFY(std::abs(wrapAngleDeg(nadir.yaw_deg - heading)) < 1e-9);
    QVERIFY(std::abs(wrapAngleDeg(heading - 31.5)) < 0.2);
  }

  // The nadir camera nearest to a view: exact for a nadir camera (unequal focal lengths,
  // an off-centre principal point, any heading), and for a tilted one the camera above
  // its image centre's ground point, its views apart by the tilt's foreshortening: small
  // through a narrow lens (what registration cannot tell from noise), large through a
  // wide one.
  void nearestNadirPoseOfANadirViewIsThatCamera() {
    CameraModel camera = CameraModel::fromHorizontalFov(640, 480, 50.0);
    camera.fy_px = 1.03 * camera.fx_px;
    camera.cx_px += 7.0;
    camera.cy_px -= 4.0;
    for (const double yaw : {0.0, 37.0, 135.0, -100.0}) {
      const CameraPose truth = makePose(10, 20, 65, yaw, -90, 0);
      CameraPose nadir;
      double deviation_m = -1.0;
      QVERIFY(nearestNadirPose(camera, groundFromImage(camera, truth, 5.0), 5.0, truth, &nadir, &deviation_m));
      QVERIFY2(cv::norm(nadir.position_enu - truth.position_enu) < 1e-6, qPrintable(QString::number(yaw)));
      QVERIFY(rotationDifferenceDeg(nadir, truth) < 1e-6);
      QVERIFY(deviation_m >= 0.0 && deviation_m < 1e-6);
    }
  }

  void nearestNadirPoseOfATiltedView_data() {
    QTest::addColumn<double>("hfov");
    QTest::addColumn<double>("max_deviation_m");
    QTest::addColumn<double>("min_deviation_m");
    // 60 m up, tilted 10 deg: the camera is 10.6 m from above its image centre.
    QTest::newRow("5.7 deg lens") << 5.7 << 0.1 << 0.0;
    QTest::newRow("60 deg lens") << 60.0 << 1e9 << 2.0;
  }
  void nearestNadirPoseOfATiltedView() {
    QFETCH(double, hfov);
    QFETCH(double, max_deviation_m);
    QFETCH(double, min_deviation_m);
    const CameraModel camera = CameraModel::fromHorizontalFov(640, 480, hfov);
    const CameraPose tilted = makePose(0, 0, 60, 70, -80, 0);
    cv::Vec3d centre;
    QVERIFY(groundFromPixel(camera, tilted, {camera.cx_px, camera.cy_px}, 0.0, &centre));
    QVERIFY(std::hypot(centre[0], centre[1]) > 10.0);
    CameraPose nadir;
    double deviation_m = 0.0;
    QVERIFY(nearestNadirPose(camera, groundFromImage(camera, tilted, 0.0), 0.0, tilted, &nadir, &deviation_m));
    QCOMPARE(nadir.pitch_deg, -90.0);
    QVERIFY(std::hypot(nadir.position_enu[0] - centre[0], nadir.position_enu[1] - centre[1]) < 1e-6);
    QVERIFY2(deviation_m <= max_deviation_m && deviation_m >= min_deviation_m, qPrintable(QString::number(deviation_m)));
    // The heading of the image's top is kept, and the height is the one that gives the
    // view's mean scale (the slant range to the centre is 60.9 m).
    QVERIFY(std::abs(wrapAngleDeg(nadir.yaw_deg - 70.0)) < 1.0);
    QVERIFY(nadir.position_enu[2] > 55.0 && nadir.position_enu[2] < 70.0);
  }

  // A track's yaw is a true heading at the pose: 2 km from an origin near the north pole
  // the frame's north is tens of degrees away from it (without the correction every
  // exported heading there was off by that much); the round trip restores the ENU yaw.
  void trackPoseHeadingIsTrueNorthAtThePose() {
    const skytrace::geo::LocalEnuFrame frame({89.97, 0.0, 0.0});
    const CameraPose pose = makePose(2000, 0, 100, 10, -90, 0);
    const skytrace::geo::TrackPose track = trackPoseFromCameraPose(pose, frame, 0);
    const double convergence = frame.northAzimuthDeg({track.lat_deg, track.lon_deg, 0});
    QVERIFY2(std::abs(convergence) > 20.0, qPrintable(QString::number(convergence)));
    QVERIFY(std::abs(wrapAngleDeg(track.yaw_deg - (10.0 - convergence))) < 1e-9);
    const CameraPose back = cameraPoseFromTrackPose(track, frame);
    QVERIFY(std::abs(wrapAngleDeg(back.yaw_deg - 10.0)) < 1e-9);
    QVERIFY(cv::norm(back.position_enu - pose.position_enu) < 1e-6);
    // 300 m from a mid-latitude origin the two norths agree to 0.003 deg.
    const skytrace::geo::LocalEnuFrame munich({48.1, 11.5, 500.0});
    const skytrace::geo::TrackPose near = trackPoseFromCameraPose(makePose(300, 0, 100, 10, -90, 0), munich, 0);
    QVERIFY(std::abs(near.yaw_deg - 10.0) < 0.003);
  }

  void footprintAndGsd() {
    const CameraPose nadir = makePose(0, 0, 100, 0, -90, 0);
    const double gsd = groundSampleDistanceM(kCamera, nadir, 0.0);
    QVERIFY(std::abs(gsd - 100.0 / kCamera.fx_px) < 1e-9);
    const std::vector<cv::Point2d> footprint = groundFootprint(kCamera, nadir, 0.0);
    QCOMPARE(int(footprint.size()), 5);
    // North-up nadir image: the top-left corner is north-west of the camera.
    QVERIFY(footprint[0].x < 0 && footprint[0].y > 0);
    QVERIFY(std::abs(footprint[4].x) < 1e-6 && std::abs(footprint[4].y) < 1e-6);
    const double width = footprint[1].x - footprint[0].x;
    QVERIFY(std::abs(width - 639.0 * gsd) < 1e-6);
  }
};

QTEST_GUILESS_MAIN(TestGroundProjection)
#include "test_ground_projection.moc"
