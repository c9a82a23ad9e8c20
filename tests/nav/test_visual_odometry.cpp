// VisualOdometry on frames rendered exactly from a textured ground plane (ORB, the CPU
// default): a hovering camera that turns in place over ground whose only texture lies
// in one corner of the view (a bridge over water) is chained through its measurements
// as fusion chains it (predictPoseFromKeyframe, then the logged height and gimbal
// angles). With the logged tilt the chain stays on the spot; the free homography
// drifts (1.3 m over the turn). A logged tilt far from the camera's leaves the
// homography in charge.
#include <QtTest>

#include <cmath>
#include <map>
#include <optional>

#include <opencv2/imgproc.hpp>

#include "core/nav/ground_projection.h"
#include "core/nav/visual_odometry.h"
#include "core/vision/features.h"
#include "core/vision/matcher.h"

using namespace skytrace;
using namespace skytrace::nav;

namespace {

constexpr double kFps = 10.0;
const CameraModel kCamera = CameraModel::fromHorizontalFov(640, 480, 50.0);
constexpr double kTextureMetresPerPixel = 0.05;
constexpr int kTextureSize = 2400;  // 120 m x 120 m centred on the ENU origin

// Textured ground; with `corner_only`, flat grey except north-east of (8 m, 6 m): the
// corner of the view of a camera 50 m above the origin.
cv::Mat groundTexture(bool corner_only) {
  cv::Mat noise(kTextureSize, kTextureSize, CV_8UC1);
  cv::RNG rng(11);
  rng.fill(noise, cv::RNG::UNIFORM, 0, 256);
  cv::Mat texture;
  cv::GaussianBlur(noise, texture, cv::Size(7, 7), 2.0);
  const int east_px = int(8.0 / kTextureMetresPerPixel) + kTextureSize / 2;
  const int north_px = kTextureSize / 2 - int(6.0 / kTextureMetresPerPixel);
  if (corner_only) {
    cv::Mat flat(kTextureSize, kTextureSize, CV_8UC1, cv::Scalar(255));
    flat(cv::Rect(east_px, 0, kTextureSize - east_px, north_px)).setTo(0);
    texture.setTo(128, flat);
  }
  cv::Mat bgr;
  cv::cvtColor(texture, bgr, cv::COLOR_GRAY2BGR);
  return bgr;
}

// Texture pixel -> ground (east, north) metres.
cv::Matx33d groundFromTexture() {
  const double c = kTextureSize / 2.0;
  return cv::Matx33d(kTextureMetresPerPixel, 0, -c * kTextureMetresPerPixel,  //
                     0, -kTextureMetresPerPixel, c * kTextureMetresPerPixel,  //
                     0, 0, 1);
}

// Hovering 50 m above the origin, turning from heading 0 by 4.5 deg per frame, pitch
// `pitch_deg`.
CameraPose hoverPose(int frame, double pitch_deg = -90.0) {
  CameraPose pose;
  pose.t_s = frame / kFps;
  pose.position_enu = {0.0, 0.0, 50.0};
  pose.yaw_deg = 4.5 * frame;
  pose.pitch_deg = pitch_deg;
  return pose;
}

cv::Mat renderFrame(const cv::Mat& texture, const CameraPose& pose, int frame) {
  const cv::Matx33d image_from_texture = imageFromGround(kCamera, pose, 0.0) * groundFromTexture();
  cv::Mat image;
  cv::warpPerspective(texture, image, cv::Mat(image_from_texture), cv::Size(kCamera.width_px, kCamera.height_px),
                      cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(128, 128, 128));
  cv::Mat noise(image.size(), CV_16SC3);
  cv::RNG rng(100 + frame);
  rng.fill(noise, cv::RNG::NORMAL, 0, 1.5);
  image.convertTo(image, CV_16SC3);
  image += noise;
  image.convertTo(image, CV_8UC3);
  return image;
}

struct ChainResult {
  double worst_error_m = 0.0;  // horizontal, over the turn
  int tracked = 0;
  int tilt_model_steps = 0;
};

// Tracks `frames` frames of the turn and chains every tracked frame from its keyframe's
// chained pose (the first frame's pose is the truth), as fusion does.
ChainResult chainTurn(int frames, std::optional<LoggedTilt> logged_tilt, double true_pitch_deg = -90.0,
                      bool corner_only = true) {
  vision::ExtractorOptions features;
  features.model = "orb";
  VisualOdometryOptions options;
  options.seed = 3;
  VisualOdometry vo(kCamera, vision::createFeatureExtractor(features), vision::createMatcher("mnn"), options);
  const cv::Mat texture = groundTexture(corner_only);
  std::map<std::int64_t, CameraPose> keyframe_poses;
  ChainResult result;
  for (int f = 0; f < frames; ++f) {
    const CameraPose truth = hoverPose(f, true_pitch_deg);
    const OdometryMeasurement m =
        vo.track(f, truth.t_s, vision::Image::fromHost(renderFrame(texture, truth, f)), nullptr, logged_tilt);
    CameraPose pose = truth;
    if (f > 0) {
      if (!m.tracked) qFatal("frame %d not tracked", f);
      ++result.tracked;
      if (m.tilt_model) ++result.tilt_model_steps;
      if (!predictPoseFromKeyframe(kCamera, keyframe_poses.at(m.reference_frame), m.reference_from_frame, 0.0,
                                   truth.t_s, &pose))
        qFatal("frame %d: degenerate pose", f);
      // Fusion's next step: the logged height and gimbal angles.
      pose.position_enu[2] = truth.position_enu[2];
      pose = constrainAttitude(kCamera, pose, true_pitch_deg, 0.0, 0.0);
      const double error = std::hypot(pose.position_enu[0], pose.position_enu[1]);
      result.worst_error_m = std::max(result.worst_error_m, error);
    }
    if (m.is_keyframe) keyframe_poses[f] = pose;
  }
  return result;
}

}  // namespace

class TestVisualOdometry : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aTurnInPlaceOverACornerOfTextureStaysPutWithTheLoggedTilt() {
    const ChainResult with_tilt = chainTurn(20, LoggedTilt{-90.0, 0.0});
    const ChainResult free_homography = chainTurn(20, std::nullopt);
    qInfo("turn in place, 85 deg: worst %.2f m from the spot with the logged tilt (%d of %d steps by it), "
          "%.2f m with the homography alone",
          with_tilt.worst_error_m, with_tilt.tilt_model_steps, with_tilt.tracked, free_homography.worst_error_m);
    QCOMPARE(with_tilt.tracked, 19);
    QCOMPARE(with_tilt.tilt_model_steps, 19);
    QCOMPARE(free_homography.tilt_model_steps, 0);
    QVERIFY(with_tilt.worst_error_m < 0.5);
    QVERIFY(with_tilt.worst_error_m < free_homography.worst_error_m);
  }

  void aLoggedTiltFarFromTheCamerasLeavesTheHomography() {
    // The log says nadir; the camera looks 25 deg forward of it (texture everywhere).
    const ChainResult wrong_log = chainTurn(10, LoggedTilt{-90.0, 0.0}, -65.0, /*corner_only=*/false);
    qInfo("log 25 deg off: %d of %d steps by the logged tilt", wrong_log.tilt_model_steps, wrong_log.tracked);
    QCOMPARE(wrong_log.tracked, 9);
    QVERIFY(wrong_log.tilt_model_steps <= 1);
  }

  void theKeypointBudgetKeepsItsDensityOnLargerFrames() {
    QCOMPARE(odometryKeypointBudget(1024, 640, 480), 1024);
    QCOMPARE(odometryKeypointBudget(1024, 320, 240), 1024);  // never fewer than stated
    QCOMPARE(odometryKeypointBudget(1024, 960, 540), 1728);  // 1.6875x the area
    QCOMPARE(odometryKeypointBudget(1024, 1280, 960), 4096);
    QCOMPARE(odometryKeypointBudget(1024, 1600, 900), kMaxOdometryKeypoints);
    QCOMPARE(odometryKeypointBudget(1024, 3840, 2160), kMaxOdometryKeypoints);
    QCOMPARE(odometryKeypointBudget(8000, 3840, 2160), 8000);  // a larger stated budget stays
    QCOMPARE(odometryKeypointBudget(2048, 800, 600), 3200);
  }
};

QTEST_GUILESS_MAIN(TestVisualOdometry)
#include "test_visual_odometry.moc"
