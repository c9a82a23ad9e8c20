// correlateWithMap (core/nav/area_correlation.h) on a seeded map of blurred noise, with
// the "frame" cut out of it through a known rotation and shift, in other colours:
// - a shift and a small rotation are recovered to a fraction of a pixel and of a degree,
//   and window_from_rectified carries frame pixels onto the map;
// - with max_rotation_deg 180 an unknown heading (120 deg) is found;
// - a gain, an offset and a gamma on the frame do not matter (normalised correlation);
// - periodic texture is "ambiguous", a flat frame "no_texture", a frame over no valid map
//   "low_correlation", a frame of a few pixels "frame_too_small";
// - invalid options throw.
#include <QtTest>

#include <cmath>
#include <random>

#include <opencv2/imgproc.hpp>

#include "core/nav/area_correlation.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Blurred seeded noise: texture at the scale of a few pixels, like a coarse map.
cv::Mat noiseMap(cv::Size size, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  cv::Mat noise(size, CV_32F);
  for (int y = 0; y < size.height; ++y)
    for (int x = 0; x < size.width; ++x) noise.at<float>(y, x) = normal(rng);
  cv::GaussianBlur(noise, noise, {0, 0}, 1.5);
  cv::Mat out;
  cv::normalize(noise, noise, 0, 1, cv::NORM_MINMAX);
  noise.convertTo(out, CV_8U, 255.0);
  return out;
}

// window pixel = T(rectified pixel): rotation by `angle_deg` (counter-clockwise as shown)
// about `centre` (rectified pixels), then `shift`.
cv::Matx33d windowFromRectified(cv::Point2d centre, double angle_deg, cv::Point2d shift) {
  const double a = angle_deg * kPi / 180.0;
  // cv::getRotationMatrix2D's convention: [cos sin; -sin cos] for y down.
  const cv::Matx22d r(std::cos(a), std::sin(a), -std::sin(a), std::cos(a));
  const cv::Vec2d t = cv::Vec2d(centre.x + shift.x, centre.y + shift.y) - r * cv::Vec2d(centre.x, centre.y);
  return {r(0, 0), r(0, 1), t[0], r(1, 0), r(1, 1), t[1], 0, 0, 1};
}

struct Scene {
  cv::Mat map, map_valid, rectified, rectified_valid;
  cv::Matx33d truth;
};

// The frame: a 48 x 36 px footprint centred at (100, 100) of a 200 x 200 grid, showing
// the map through `truth`; `recolour` is applied to its grey levels.
Scene makeScene(const cv::Mat& map, double angle_deg, cv::Point2d shift, double gain = 1.0, double offset = 0.0,
                double gamma = 1.0) {
  Scene s;
  s.map = map;
  s.map_valid = cv::Mat(map.size(), CV_8U, cv::Scalar(255));
  const cv::Point2d centre(100, 100);
  s.truth = windowFromRectified(centre, angle_deg, shift);
  cv::Mat warped;
  cv::warpAffine(map, warped, cv::Mat(cv::Matx23d(s.truth.get_minor<2, 3>(0, 0))), map.size(),
                 cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT);
  cv::Mat lut(1, 256, CV_8U);
  for (int v = 0; v < 256; ++v) lut.at<uchar>(v) = cv::saturate_cast<uchar>(std::pow(v / 255.0, gamma) * 255.0 * gain + offset);
  cv::LUT(warped, lut, warped);
  s.rectified_valid = cv::Mat::zeros(map.size(), CV_8U);
  s.rectified_valid(cv::Rect(76, 82, 48, 36)).setTo(255);
  s.rectified = cv::Mat::zeros(map.size(), CV_8U);
  warped.copyTo(s.rectified, s.rectified_valid);
  return s;
}

double transferErrorPx(const cv::Matx33d& a, const cv::Matx33d& b) {
  double worst = 0;
  for (const cv::Point2d p : {cv::Point2d(76, 82), cv::Point2d(123, 82), cv::Point2d(123, 117), cv::Point2d(76, 117)}) {
    const cv::Vec3d pa = a * cv::Vec3d(p.x, p.y, 1), pb = b * cv::Vec3d(p.x, p.y, 1);
    worst = std::max(worst, std::hypot(pa[0] / pa[2] - pb[0] / pb[2], pa[1] / pa[2] - pb[1] / pb[2]));
  }
  return worst;
}

}  // namespace

class TestAreaCorrelation : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void recoversShiftAndSmallRotation() {
    const cv::Mat map = noiseMap({200, 200}, 3);
    const Scene s = makeScene(map, 2.6, {7.3, -4.6});
    const nav::AreaCorrelation c =
        nav::correlateWithMap(s.rectified, s.rectified_valid, s.map, s.map_valid, nav::AreaCorrelationOptions{});
    QVERIFY2(c.found, c.reason.c_str());
    QVERIFY(c.peak > 0.9);
    QVERIFY(c.peak - c.second_peak > 0.3);
    QVERIFY2(std::abs(c.shift_px.x - 7.3) < 0.3 && std::abs(c.shift_px.y + 4.6) < 0.3,
             qPrintable(QString("shift %1 %2").arg(c.shift_px.x).arg(c.shift_px.y)));
    QVERIFY2(std::abs(c.rotation_deg - 2.6) < 0.5, qPrintable(QString::number(c.rotation_deg)));
    QVERIFY2(transferErrorPx(c.window_from_rectified, s.truth) < 0.6,
             qPrintable(QString::number(transferErrorPx(c.window_from_rectified, s.truth))));
  }

  void ignoresGainOffsetAndGamma() {
    const cv::Mat map = noiseMap({200, 200}, 4);
    const Scene s = makeScene(map, -1.0, {-5.0, 9.0}, 0.6, 50.0, 1.4);
    const nav::AreaCorrelation c =
        nav::correlateWithMap(s.rectified, s.rectified_valid, s.map, s.map_valid, nav::AreaCorrelationOptions{});
    QVERIFY2(c.found, c.reason.c_str());
    QVERIFY(transferErrorPx(c.window_from_rectified, s.truth) < 0.8);
  }

  void findsAnUnknownHeading() {
    const cv::Mat map = noiseMap({200, 200}, 5);
    const Scene s = makeScene(map, 120.0, {3.0, 2.0});
    nav::AreaCorrelationOptions options;
    options.max_rotation_deg = 180.0;
    options.rotation_step_deg = 3.0;
    const nav::AreaCorrelation c = nav::correlateWithMap(s.rectified, s.rectified_valid, s.map, s.map_valid, options);
    QVERIFY2(c.found, c.reason.c_str());
    QVERIFY2(std::abs(c.rotation_deg - 120.0) < 1.0, qPrintable(QString::number(c.rotation_deg)));
    QVERIFY(transferErrorPx(c.window_from_rectified, s.truth) < 1.0);
    // Searched only about the prior (+-6 deg), the same frame is not placed.
    const nav::AreaCorrelation near = nav::correlateWithMap(s.rectified, s.rectified_valid, s.map, s.map_valid,
                                                            nav::AreaCorrelationOptions{});
    QVERIFY(!near.found);
  }

  void refusesWhatItCannotPlace() {
    // Periodic texture: every period is as good as the next.
    cv::Mat stripes(200, 200, CV_8U);
    stripes.forEach<uchar>([](uchar& v, const int* p) {
      v = cv::saturate_cast<uchar>(128 + 100 * std::sin(2 * kPi * p[1] / 10.0) * std::sin(2 * kPi * p[0] / 12.0));
    });
    const Scene periodic = makeScene(stripes, 0.0, {2.0, 1.0});
    const nav::AreaCorrelation a = nav::correlateWithMap(periodic.rectified, periodic.rectified_valid, periodic.map,
                                                         periodic.map_valid, nav::AreaCorrelationOptions{});
    QVERIFY(!a.found);
    QCOMPARE(a.reason, std::string("ambiguous"));

    const cv::Mat map = noiseMap({200, 200}, 6);
    Scene flat = makeScene(map, 0.0, {0.0, 0.0});
    flat.rectified.setTo(90, flat.rectified_valid);
    QCOMPARE(nav::correlateWithMap(flat.rectified, flat.rectified_valid, flat.map, flat.map_valid, {}).reason,
             std::string("no_texture"));

    Scene no_map = makeScene(map, 0.0, {0.0, 0.0});
    no_map.map_valid.setTo(0);
    const nav::AreaCorrelation c =
        nav::correlateWithMap(no_map.rectified, no_map.rectified_valid, no_map.map, no_map.map_valid, {});
    QVERIFY(!c.found);
    QCOMPARE(c.reason, std::string("low_correlation"));

    Scene tiny = makeScene(map, 0.0, {0.0, 0.0});
    tiny.rectified_valid.setTo(0);
    tiny.rectified_valid(cv::Rect(90, 90, 8, 30)).setTo(255);
    QCOMPARE(nav::correlateWithMap(tiny.rectified, tiny.rectified_valid, tiny.map, tiny.map_valid, {}).reason,
             std::string("frame_too_small"));
  }

  void rejectsInvalidOptions() {
    nav::AreaCorrelationOptions o;
    o.rotation_step_deg = 0;
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { o.check(); }).contains("rotation_step_deg"));
    o = {};
    o.min_map_coverage = 0;
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { o.check(); }).contains("min_map_coverage"));
  }
};

QTEST_GUILESS_MAIN(TestAreaCorrelation)
#include "test_area_correlation.moc"
