// Log alignment: a GNSS log read on the wrong clock (by -7.3 to +20 s) is timed back onto
// the visual track within a frame, through GNSS noise, the map's constant offset and a
// spoofed stretch; wandering GNSS errors widen the sigma honestly and the warning names
// the offset to use; a path that repeats, a hover and a straight line at constant speed
// (where a shift and an offset look alike) are reported as not measurable.
#include <QtTest>

#include <cmath>
#include <functional>
#include <random>

#include <opencv2/core.hpp>

#include "core/geo/geodesy.h"
#include "core/nav/log_alignment.h"

using namespace skytrace;
using namespace skytrace::nav;

namespace {

const geo::LocalEnuFrame kEnu(geo::GeoPoint{46.5, 7.5, 500.0});
using Path = std::function<cv::Point2d(double t_s)>;  // ENU east, north (m) at video time

geo::TrackPose poseAt(double t_s, cv::Point2d enu) {
  const geo::GeoPoint g = kEnu.toGeo({enu.x, enu.y, 0.0});
  geo::TrackPose p;
  p.t_s = t_s;
  p.lat_deg = g.lat_deg;
  p.lon_deg = g.lon_deg;
  return p;
}

// A lawnmower at 8 m/s: 80 m lines 20 m apart.
cv::Point2d lawnmower(double t_s) {
  const double s = 8.0 * t_s, period = 200.0;
  const double k = std::floor(s / period), r = s - k * period, base = 40.0 * k;
  if (r < 80) return {r, base};
  if (r < 100) return {80, base + (r - 80)};
  if (r < 180) return {80 - (r - 100), base + 20};
  return {0, base + 20 + (r - 180)};
}

// The visual track: 30 fps over 60 s, 0.3 m of noise, 1.5 m off (the map's own shift).
geo::Track visualTrack(const Path& path, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0.0, 0.3);
  geo::Track track;
  for (int i = 0; i < 1800; ++i) {
    const double t = i / 30.0;
    const double noise_e = noise(rng), noise_n = noise(rng);  // in this order on every compiler
    geo::TrackPose p = poseAt(t, path(t) + cv::Point2d(1.2 + noise_e, -0.9 + noise_n));
    p.frame = i;
    track.poses.push_back(p);
  }
  return track;
}

// The log as read: 10 Hz over the video's minute, each fix taken `true_shift_s` later in
// video time than it is read at; 1.5 m of noise, independent from fix to fix or (`wander`)
// Gauss-Markov with a 5 s time constant as a receiver's; read times 30-36 s spoofed 40 m
// east.
geo::Track gnssTrack(const Path& path, double true_shift_s, std::mt19937_64& rng, bool wander = false) {
  std::normal_distribution<double> normal(0.0, 1.0);
  const double a = wander ? std::exp(-0.1 / 5.0) : 0.0, b = std::sqrt(1.0 - a * a);
  double noise_e = 1.5 * normal(rng);
  double noise_n = 1.5 * normal(rng);
  geo::Track track;
  for (int i = 0; i < 600; ++i) {
    const double t = i / 10.0;
    noise_e = a * noise_e + b * 1.5 * normal(rng);
    noise_n = a * noise_n + b * 1.5 * normal(rng);
    cv::Point2d at = path(t + true_shift_s) + cv::Point2d(noise_e, noise_n);
    if (t >= 30 && t < 36) at.x += 40.0;
    track.poses.push_back(poseAt(t, at));
  }
  return track;
}

QString describe(double true_shift, const LogAlignment& a) {
  return QString("true %1 s: %2 (%3) +- %4 s, residual %5 m, %6 fixes")
      .arg(true_shift)
      .arg(a.shift_s, 0, 'f', 4)
      .arg(QString::fromStdString(a.reason))
      .arg(a.sigma_s, 0, 'f', 4)
      .arg(a.residual_m, 0, 'f', 2)
      .arg(a.fixes_compared);
}

}  // namespace

class TestLogAlignment : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // GNSS errors independent from fix to fix (and said so): within a frame at 30 fps.
  void aShiftedLogIsTimedWithinAFrame() {
    LogAlignmentOptions independent;
    independent.error_correlation_s = 0.05;
    for (const double true_shift : {-7.3, 0.0, 0.43, 20.0}) {
      std::mt19937_64 rng(7);
      const geo::Track visual = visualTrack(lawnmower, rng);
      const LogAlignment a = estimateLogAlignment(visual, gnssTrack(lawnmower, true_shift, rng), independent);
      const QString what = describe(true_shift, a);
      QVERIFY2(a.estimated, qPrintable(what));
      QVERIFY2(std::abs(a.shift_s - true_shift) < 1.0 / 30.0, qPrintable(what));
      QVERIFY2(a.sigma_s > 0.0 && a.sigma_s < 1.0 / 30.0, qPrintable(what));
      QVERIFY2(std::abs(a.shift_s - true_shift) < 4.0 * a.sigma_s, qPrintable(what));  // an honest sigma
      QVERIFY2(a.residual_m > 1.0 && a.residual_m < 3.0, qPrintable(what));  // the GNSS noise
      // The map's offset, GNSS -> visual.
      QVERIFY2(std::abs(a.bias_east_m - 1.2) < 0.5 && std::abs(a.bias_north_m + 0.9) < 0.5, qPrintable(what));
    }
  }

  // A receiver's wandering errors: coarser, and the sigma says so; the warning names the
  // offset to use only when the shift is beyond a frame and 3 sigma.
  void wanderingGnssErrorsWidenTheSigma() {
    for (const unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
      std::mt19937_64 rng(seed);
      const geo::Track visual = visualTrack(lawnmower, rng);
      const LogAlignment a = estimateLogAlignment(visual, gnssTrack(lawnmower, 2.5, rng, true));
      const QString what = describe(2.5, a);
      QVERIFY2(a.estimated, qPrintable(what));
      QVERIFY2(std::abs(a.shift_s - 2.5) < 4.0 * a.sigma_s, qPrintable(what));
      QVERIFY2(a.sigma_s > 0.02 && a.sigma_s < 0.2, qPrintable(what));
      const std::optional<std::string> warning = logClockWarning(a, 0.4, 1.0 / 30.0);
      QVERIFY(warning.has_value());
      QVERIFY2(QString::fromStdString(*warning).contains(QString("instead of 0.40 s")), warning->c_str());
      QVERIFY2(QString::fromStdString(*warning).contains(QString("offset of %1 s").arg(0.4 + a.shift_s, 0, 'f', 2)),
               warning->c_str());
    }
    LogAlignment small;
    small.estimated = true;
    small.shift_s = 0.02;
    small.sigma_s = 0.004;
    QVERIFY(!logClockWarning(small, 0.0, 1.0 / 30.0));  // within a frame
    small.shift_s = 0.3;
    small.sigma_s = 0.15;
    QVERIFY(!logClockWarning(small, 0.0, 1.0 / 30.0));  // within 3 sigma
    small.estimated = false;
    small.sigma_s = 0.01;
    QVERIFY(!logClockWarning(small, 0.0, 1.0 / 30.0));
  }

  // A log of the whole flight around a one-minute clip (read times -60 to +120 s).
  void aLogLongerThanTheVideoIsTimed() {
    std::mt19937_64 rng(9);
    std::normal_distribution<double> noise(0.0, 1.5);
    const geo::Track visual = visualTrack(lawnmower, rng);
    geo::Track gnss;
    for (int i = -600; i < 1200; ++i) {
      const double t = i / 10.0;
      const double noise_e = noise(rng), noise_n = noise(rng);
      gnss.poses.push_back(poseAt(t, lawnmower(t + 4.2) + cv::Point2d(noise_e, noise_n)));
    }
    const LogAlignment a = estimateLogAlignment(visual, gnss);
    QVERIFY2(a.estimated && std::abs(a.shift_s - 4.2) < 1.0 / 30.0, qPrintable(describe(4.2, a)));
  }

  void pathsThatCannotTimeTheLogSaySo() {
    std::mt19937_64 rng(3);
    // An orbit of 20 s: shifts 20 s apart fit alike.
    const Path orbit = [](double t) {
      const double a = 2.0 * M_PI * t / 20.0;
      return cv::Point2d(40.0 * std::cos(a), 40.0 * std::sin(a));
    };
    geo::Track visual = visualTrack(orbit, rng);
    LogAlignment a = estimateLogAlignment(visual, gnssTrack(orbit, 3.0, rng));
    QVERIFY(!a.estimated);
    QVERIFY2(QString::fromStdString(a.reason).contains("repeats"), a.reason.c_str());
    // A hover: nothing changes with the shift.
    const Path hover = [](double) { return cv::Point2d(5.0, 5.0); };
    visual = visualTrack(hover, rng);
    a = estimateLogAlignment(visual, gnssTrack(hover, 3.0, rng));
    QVERIFY2(!a.estimated, a.reason.c_str());
    // A straight line at constant speed: a shift is an offset along the line.
    const Path line = [](double t) { return cv::Point2d(8.0 * t, 0.0); };
    visual = visualTrack(line, rng);
    a = estimateLogAlignment(visual, gnssTrack(line, 3.0, rng));
    QVERIFY2(!a.estimated, a.reason.c_str());
    // Nothing to compare.
    a = estimateLogAlignment(geo::Track{}, gnssTrack(line, 0.0, rng));
    QVERIFY(!a.estimated);
    QVERIFY(!a.reason.empty());
  }
};

QTEST_GUILESS_MAIN(TestLogAlignment)
#include "test_log_alignment.moc"
