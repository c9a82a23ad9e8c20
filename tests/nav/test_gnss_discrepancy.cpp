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

  // Photos 7 s apart, each with its own GPS: every photo is compared with its fix (no
  // interpolation across the 7 s), and three consecutive photos 40 m off are one flagged
  // segment; one photo off on its own is not.
  void photosSecondsApartAreComparedWithTheirOwnFixes() {
    geo::Track visual, gnss;
    for (int i = 0; i < 12; ++i) {
      const double t = 7.0 * i;
      geo::TrackPose v = poseAt(t, 14.0 * i, 0.0, 1.5), g = poseAt(t, 14.0 * i + 0.8, 0.5, NAN);
      v.frame = g.frame = i;
      if (i >= 5 && i <= 7) g = poseAt(t, 14.0 * i, 40.0, NAN), g.frame = i;  // spoofed
      if (i == 10) g = poseAt(t, 14.0 * i, 30.0, NAN), g.frame = i;           // one photo off
      visual.poses.push_back(v);
      gnss.poses.push_back(g);
    }
    const DiscrepancyAnalysis a = analyzeGnssDiscrepancy(visual, gnss, {});
    QCOMPARE(int(a.samples.size()), 12);
    QVERIFY(std::abs(a.samples[0].distance_m - std::hypot(0.8, 0.5)) < 0.01);
    QCOMPARE(int(a.segments.size()), 1);
    QCOMPARE(a.segments.front().start_frame, std::int64_t(5));
    QCOMPARE(a.segments.front().end_frame, std::int64_t(7));
    QVERIFY(std::abs(a.segments.front().max_m - 40.0) < 0.1);
    QVERIFY(!a.samples[10].flagged);
  }
};

QTEST_GUILESS_MAIN(TestGnssDiscrepancy)
#include "test_gnss_discrepancy.moc"
