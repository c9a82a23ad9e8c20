// LocalEnuFrame and horizontalDistanceM against closed-form WGS84 values and published
// geodetic benchmarks.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/geo/geodesy.h"

using skytrace::geo::EnuPoint;
using skytrace::geo::GeoPoint;
using skytrace::geo::LocalEnuFrame;

namespace {
constexpr double kSemiMajorAxisM = 6378137.0;
constexpr double kSemiMinorAxisM = 6356752.314245179;  // a (1 - f), WGS84

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
};

QTEST_GUILESS_MAIN(TestGeodesy)
#include "test_geodesy.moc"
