// GNSS discrepancy: a spoofed 6 s segment (40 m away) is flagged with its start, end and
// magnitude; ordinary GNSS noise and a short 1 s glitch are not.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/geo/geodesy.h"
#include "core/nav/gnss_discrepancy.h"

using namespace skytrace;
using namespace skytrace::nav;

namespace {

const geo::LocalEnuFrame kEnu(geo::GeoPoint{46.5, 7.5, 500.0});

geo::TrackPose poseAt(double t_s, double east_m, double north_m, double sigma_m) {
  const geo::GeoPoint g = kEnu.toGeo({east_m, north_m, 0.0});
  geo::TrackPose p;
  p.frame = std::int64_t(std::lround(t_s * 10));
  p.t_s = t_s;
  p.lat_deg = g.lat_deg;
  p.lon_deg = g.lon_deg;
  p.sigma_m = sigma_m;
  return p;
}

}  // namespace

class TestGnssDiscrepancy : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void spoofedSegmentIsFlaggedAndNothingElse() {
    geo::Track visual, gnss;
    std::mt19937 rng(3);
    std::normal_distribution<double> noise(0.0, 1.5);
    for (int i = 0; i <= 400; ++i) {  // 40 s at 10 Hz
      const double t = i / 10.0;
      visual.poses.push_back(poseAt(t, 8 * t, 0.0, 1.0));
      double offset_e = noise(rng), offset_n = noise(rng);
      if (t >= 12.0 && t < 18.0) offset_n += 40.0;  // spoofed
      if (t >= 30.0 && t < 31.0) offset_e += 25.0;  // a 1 s glitch: too short
      gnss.poses.push_back(poseAt(t, 8 * t + offset_e, offset_n, NAN));
    }
    const DiscrepancyAnalysis a = analyzeGnssDiscrepancy(visual, gnss, {});
    QCOMPARE(int(a.samples.size()), 401);
    QCOMPARE(int(a.segments.size()), 1);
    const DiscrepancySegment& s = a.segments.front();
    QVERIFY(std::abs(s.start_s - 12.0) < 0.15);
    QVERIFY(std::abs(s.end_s - 17.9) < 0.15);
    QVERIFY(s.max_m > 38.0 && s.max_m < 46.0);
    QVERIFY(s.mean_m > 36.0 && s.mean_m < 44.0);
    int flagged = 0;
    for (const auto& sample : a.samples) flagged += sample.flagged ? 1 : 0;
    QVERIFY(flagged >= 58 && flagged <= 61);
  }

  void gnssGapsAreSkipped() {
    geo::Track visual, gnss;
    for (int i = 0; i <= 100; ++i) visual.poses.push_back(poseAt(i / 10.0, i, 0, 1.0));
    for (int i = 0; i <= 100; ++i) {
      if (i > 40 && i < 70) continue;  // 3 s without GNSS
      gnss.poses.push_back(poseAt(i / 10.0, i, 0, NAN));
    }
    const DiscrepancyAnalysis a = analyzeGnssDiscrepancy(visual, gnss, {});
    QVERIFY(a.segments.empty());
    QVERIFY(a.samples.size() < 80u && a.samples.size() > 65u);
  }
};

QTEST_GUILESS_MAIN(TestGnssDiscrepancy)
#include "test_gnss_discrepancy.moc"
