// LocalEnuFrame and horizontalDistanceM against closed-form WGS84 values and published
// geodetic benchmarks; the meridian convergence (northAzimuthDeg) against the bearing of
// a motion computed from latitudes and longitudes alone; boundingBox across the
// antimeridian and around the poles; ringAreaM2 on shapes of known area.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/geo/geodesy.h"

using skytrace::geo::boundingBox;
using skytrace::geo::EnuPoint;
using skytrace::geo::GeoBBox;
using skytrace::geo::PointSet;
using skytrace::geo::GeoPoint;
using skytrace::geo::LocalEnuFrame;
using skytrace::geo::ringAreaM2;

namespace {
constexpr double kSemiMajorAxisM = 6378137.0;
constexpr double kSemiMinorAxisM = 6356752.314245179;  // a (1 - f), WGS84

// Initial bearing from a to b on the sphere, degrees clockwise from true north: for
// steps of a few metres the sphere's and the ellipsoid's bearings agree to ~0.2 deg
// near the poles, independent of the ENU code.
double bearingDeg(const GeoPoint& a, const GeoPoint& b) {
  const double p1 = a.lat_deg * M_PI / 180.0, p2 = b.lat_deg * M_PI / 180.0;
  const double dl = (b.lon_deg - a.lon_deg) * M_PI / 180.0;
  return std::atan2(std::sin(dl) * std::cos(p2),
                    std::cos(p1) * std::sin(p2) - std::sin(p1) * std::cos(p2) * std::cos(dl)) *
         180.0 / M_PI;
}

double wrap180(double deg) { return std::remainder(deg, 360.0); }

double dmsToDeg(double d, double m, double s) {
  const double sign = d < 0 ? -1.0 : 1.0;
  return sign * (std::abs(d) + m / 60.0 + s / 3600.0);
}
}  // namespace

class TestGeodesy : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void originMapsToZero() {
    const LocalEnuFrame frame({-12.6768, 132.9647, 35.0});
    const EnuPoint p = frame.toEnu(frame.origin());
    QVERIFY(std::abs(p.east_m) < 1e-9 && std::abs(p.north_m) < 1e-9 && std::abs(p.up_m) < 1e-9);
  }

  void straightUpIsUp() {
    const LocalEnuFrame frame({48.5, 9.07, 400.0});
    const EnuPoint p = frame.toEnu({48.5, 9.07, 523.25});
    QVERIFY(std::abs(p.east_m) < 1e-6);
    QVERIFY(std::abs(p.north_m) < 1e-6);
    QVERIFY(std::abs(p.up_m - 123.25) < 1e-6);
  }

  // Closed-form ECEF values: (0,0) -> (a,0,0); (0,90E) -> (0,a,0); north pole -> (0,0,b).
  void farPointsMatchClosedFormEcef() {
    const LocalEnuFrame frame({0.0, 0.0, 0.0});
    const EnuPoint east = frame.toEnu({0.0, 90.0, 0.0});
    QVERIFY(std::abs(east.east_m - kSemiMajorAxisM) < 1e-6);
    QVERIFY(std::abs(east.north_m) < 1e-6);
    QVERIFY(std::abs(east.up_m + kSemiMajorAxisM) < 1e-6);
    const EnuPoint pole = frame.toEnu({90.0, 0.0, 0.0});
    QVERIFY(std::abs(pole.east_m) < 1e-6);
    QVERIFY(std::abs(pole.north_m - kSemiMinorAxisM) < 1e-6);
    QVERIFY(std::abs(pole.up_m + kSemiMajorAxisM) < 1e-6);
  }

  // Random points within 50 km / +-3 km altitude of random origins: round trip < 1 mm.
  void roundTripBelowOneMillimetre() {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> lat(-89.0, 89.0), lon(-180.0, 180.0);
    std::uniform_real_distribution<double> offset(-50000.0, 50000.0), alt(-3000.0, 3000.0);
    double worst_m = 0.0;
    for (int i = 0; i < 2000; ++i) {
      const LocalEnuFrame frame({lat(rng), lon(rng), alt(rng) / 10.0});
      const EnuPoint p{offset(rng), offset(rng), alt(rng)};
      const EnuPoint back = frame.toEnu(frame.toGeo(p));
      worst_m = std::max(worst_m, std::hypot(std::hypot(back.east_m - p.east_m,
                                                        back.north_m - p.north_m),
                                             back.up_m - p.up_m));
      const GeoPoint g{frame.origin().lat_deg + offset(rng) * 1e-5,
                       frame.origin().lon_deg + offset(rng) * 1e-5, alt(rng)};
      const GeoPoint g_back = frame.toGeo(frame.toEnu(g));
      // 1e-9 deg is about 0.1 mm on the ground.
      QVERIFY2(std::abs(g_back.lat_deg - g.lat_deg) < 1e-9, "latitude round trip");
      QVERIFY2(std::abs(std::remainder(g_back.lon_deg - g.lon_deg, 360.0)) < 1e-9,
               "longitude round trip");
      QVERIFY2(std::abs(g_back.alt_m - g.alt_m) < 1e-3, "altitude round trip");
    }
    QVERIFY2(worst_m < 1e-3, qPrintable(QString("worst ENU round trip %1 m").arg(worst_m)));
  }

  // Vincenty (1975) test line: Flinders Peak -> Buninyong, 54 972.271 m on WGS84/GRS80.
  void flindersPeakToBuninyong() {
    const GeoPoint flinders{dmsToDeg(-37, 57, 3.72030), dmsToDeg(144, 25, 29.52440), 0.0};
    const GeoPoint buninyong{dmsToDeg(-37, 39, 10.15610), dmsToDeg(143, 55, 35.38390), 0.0};
    const double d = skytrace::geo::horizontalDistanceM(flinders, buninyong);
    QVERIFY2(std::abs(d - 54972.271) < 2e-3, qPrintable(QString::number(d, 'f', 4)));
  }

  // Along the equator the geodesic is the equator itself: 1 degree = a * pi / 180.
  void oneDegreeOfEquator() {
    const double d = skytrace::geo::horizontalDistanceM({0.0, 10.0, 0.0}, {0.0, 11.0, 500.0});
    QVERIFY(std::abs(d - kSemiMajorAxisM * M_PI / 180.0) < 1e-4);
    // Across the antimeridian too.
    const double d2 = skytrace::geo::horizontalDistanceM({0.0, 179.5, 0.0}, {0.0, -179.5, 0.0});
    QVERIFY(std::abs(d2 - kSemiMajorAxisM * M_PI / 180.0) < 1e-4);
  }

  // Short baselines agree with the ENU tangent-plane distance (independent code path).
  void shortBaselineMatchesEnu() {
    const LocalEnuFrame frame({39.17, -0.41, 0.0});
    const GeoPoint a = frame.toGeo({0.0, 0.0, 0.0});
    const GeoPoint b = frame.toGeo({300.0, 400.0, 0.0});
    QVERIFY(std::abs(skytrace::geo::horizontalDistanceM(a, b) - 500.0) < 1e-3);
    QCOMPARE(skytrace::geo::horizontalDistanceM(a, a), 0.0);
  }

  // A motion along ENU yaw psi at a point P has the true heading psi - northAzimuthDeg(P):
  // checked near the north pole (where the frame's north and true north differ by tens
  // of degrees 2 km from the origin), at mid latitude and near the south pole.
  void northAzimuthIsTheMeridianConvergence() {
    const struct {
      GeoPoint origin;
      EnuPoint at;
      double min_convergence_deg;  // |northAzimuthDeg(P)| at least this much
    } cases[] = {
        {{89.95, 20.0, 0.0}, {2000.0, 500.0, 0.0}, 20.0},
        {{48.1, 11.5, 500.0}, {3000.0, -1000.0, 0.0}, 0.02},
        {{-89.9, -60.0, 0.0}, {-1500.0, 3000.0, 0.0}, 5.0},
    };
    for (const auto& c : cases) {
      const LocalEnuFrame frame(c.origin);
      QVERIFY(std::abs(frame.northAzimuthDeg(c.origin)) < 1e-9);
      const GeoPoint p = frame.toGeo(c.at);
      const double convergence = frame.northAzimuthDeg(p);
      QVERIFY2(std::abs(convergence) >= c.min_convergence_deg, qPrintable(QString::number(convergence)));
      for (double yaw : {0.0, 45.0, 90.0, 200.0}) {
        const double step = 2.0;  // metres
        const GeoPoint q = frame.toGeo({c.at.east_m + step * std::sin(yaw * M_PI / 180.0),
                                        c.at.north_m + step * std::cos(yaw * M_PI / 180.0), c.at.up_m});
        const double error = wrap180(bearingDeg(p, q) - (yaw - convergence));
        QVERIFY2(std::abs(error) < 0.3, qPrintable(QString("yaw %1: error %2 deg").arg(yaw).arg(error)));
      }
    }
  }

  // A 100 m x 200 m rectangle on the tangent plane at 47 N, 8 E at the ellipsoid's
  // surface, where the area is measured (the same rectangle laid out 500 m up spans
  // 1.6e-4 less area at the surface), either way round, and a right triangle half its
  // size; degenerate rings have no area.
  void ringAreaOfKnownShapes() {
    const LocalEnuFrame frame(GeoPoint{47.0, 8.0, 0.0});
    std::vector<GeoPoint> rectangle;
    for (auto [e, n] : {std::pair{0.0, 0.0}, {100.0, 0.0}, {100.0, 200.0}, {0.0, 200.0}})
      rectangle.push_back(frame.toGeo({e, n, 0.0}));
    QVERIFY2(std::abs(ringAreaM2(rectangle) - 20000.0) < 0.2, qPrintable(QString::number(ringAreaM2(rectangle), 'f', 4)));
    std::vector<GeoPoint> reversed(rectangle.rbegin(), rectangle.rend());
    QVERIFY(std::abs(ringAreaM2(reversed) - 20000.0) < 0.2);
    const std::vector<GeoPoint> triangle = {rectangle[0], rectangle[1], rectangle[2]};
    QVERIFY(std::abs(ringAreaM2(triangle) - 10000.0) < 0.1);
    QCOMPARE(ringAreaM2({rectangle[0], rectangle[1]}), 0.0);
    QCOMPARE(ringAreaM2({}), 0.0);
    // 10 km across: the tangent plane stays within 1e-5.
    std::vector<GeoPoint> large;
    for (auto [e, n] : {std::pair{0.0, 0.0}, {10000.0, 0.0}, {10000.0, 10000.0}, {0.0, 10000.0}})
      large.push_back(frame.toGeo({e, n, 0.0}));
    QVERIFY(std::abs(ringAreaM2(large) / 1e8 - 1.0) < 1e-5);
  }

  void boxContainsPointsAcrossTheAntimeridianToo() {
    const GeoBBox alps{46.0, 7.0, 47.0, 9.0};
    QVERIFY(alps.contains(46.5, 8.0));
    QVERIFY(alps.contains(46.0, 9.0));  // edges included
    QVERIFY(!alps.contains(45.9, 8.0));
    QVERIFY(!alps.contains(46.5, 9.1));
    const GeoBBox fiji{-19.0, 177.0, -16.0, -179.0};  // across the antimeridian
    QVERIFY(fiji.contains(-17.0, 179.5));
    QVERIFY(fiji.contains(-17.0, -179.5));
    QVERIFY(!fiji.contains(-17.0, 0.0));
    QVERIFY(!fiji.contains(-17.0, 176.0));
  }

  void boundingBoxOfPoints() {
    const GeoBBox plain = boundingBox({{47.0, 8.0, 0}, {47.5, 8.4, 0}, {46.9, 8.2, 0}}, PointSet::kPoints);
    QCOMPARE(plain.min_lat_deg, 46.9);
    QCOMPARE(plain.max_lat_deg, 47.5);
    QCOMPARE(plain.min_lon_deg, 8.0);
    QCOMPARE(plain.max_lon_deg, 8.4);
    QVERIFY(!plain.crossesAntimeridian());
    // A flight over the antimeridian (Fiji): 0.3 deg wide, not 359.7.
    const GeoBBox fiji = boundingBox({{-16.8, 179.9, 0}, {-16.7, -179.8, 0}, {-16.9, 179.95, 0}}, PointSet::kPoints);
    QVERIFY(fiji.crossesAntimeridian());
    QCOMPARE(fiji.min_lon_deg, 179.9);
    QCOMPARE(fiji.max_lon_deg, -179.8);
    QCOMPARE(fiji.min_lat_deg, -16.9);
    // Longitudes given beyond +-180 are wrapped.
    const GeoBBox wrapped = boundingBox({{0.0, 181.0, 0}, {0.0, 182.0, 0}}, PointSet::kPoints);
    QVERIFY(std::abs(wrapped.min_lon_deg + 179.0) < 1e-12 && std::abs(wrapped.max_lon_deg + 178.0) < 1e-12);
    QCOMPARE(boundingBox({}, PointSet::kPoints).max_lat_deg, 0.0);
  }

  // A ring around a pole contains it: its box reaches the pole and spans every longitude;
  // the same points as a line (a track circling the pole) do not reach it.
  void boundingBoxOfRingAroundPole() {
    std::vector<GeoPoint> ring;
    for (int i = 0; i < 36; ++i) ring.push_back({88.5 + 0.2 * std::sin(i * 0.7), -180.0 + 10.0 * i, 0.0});
    const GeoBBox north = boundingBox(ring, PointSet::kClosedRing);
    QCOMPARE(north.max_lat_deg, 90.0);
    QVERIFY(north.min_lat_deg > 88.2 && north.min_lat_deg < 88.4);
    QCOMPARE(north.min_lon_deg, -180.0);
    QCOMPARE(north.max_lon_deg, 180.0);
    const GeoBBox line = boundingBox(ring, PointSet::kPoints);
    QVERIFY(line.max_lat_deg < 89.0);
    for (GeoPoint& p : ring) p.lat_deg = -p.lat_deg;
    const GeoBBox south = boundingBox(ring, PointSet::kClosedRing);
    QCOMPARE(south.min_lat_deg, -90.0);
    QVERIFY(south.max_lat_deg < -88.2);
    // A ring beside the pole (not around it) keeps its own box.
    const GeoBBox beside = boundingBox({{80, 10, 0}, {80, 20, 0}, {81, 20, 0}, {81, 10, 0}}, PointSet::kClosedRing);
    QCOMPARE(beside.max_lat_deg, 81.0);
    QCOMPARE(beside.min_lon_deg, 10.0);
    QCOMPARE(beside.max_lon_deg, 20.0);
  }
};

QTEST_GUILESS_MAIN(TestGeodesy)
#include "test_geodesy.moc"
