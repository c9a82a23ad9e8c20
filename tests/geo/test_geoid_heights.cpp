// GeoidModel: EGM96 undulations through PROJ, checked against published values.
#include <QtTest>

#include <cmath>
#include <vector>

#include "core/geo/geoid_heights.h"
#include "core/util/error.h"

using namespace skytrace::geo;

class TestGeoidHeights : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // EGM96 at 0N 0E is +17.16 m (GeographicLib's GeoidEval with egm96-5 gives 17.162); the
  // Indian Ocean geoid low near 4.7N 78.8E (-107 m), the New Guinea high (+71 m at 6S
  // 147E) and Zurich (+47.3 m) as `gdaltransform -s_srs EPSG:4979 -t_srs EPSG:4326+5773`
  // gives them.
  void undulationsMatchEgm96() {
    GeoidModel geoid;
    QVERIFY(std::abs(geoid.undulationM(0.0, 0.0) - 17.16) < 0.05);
    QVERIFY(std::abs(geoid.undulationM(4.7, 78.8) + 106.96) < 0.05);
    QVERIFY(std::abs(geoid.undulationM(-6.0, 147.0) - 71.12) < 0.05);
    QVERIFY(std::abs(geoid.undulationM(47.3977, 8.5456) - 47.34) < 0.05);
    // Poles and the antimeridian are on the grid too.
    QVERIFY(std::isfinite(geoid.undulationM(90.0, 0.0)));
    QVERIFY(std::isfinite(geoid.undulationM(-89.9, 180.0)));
  }

  // One batch call gives the same values as one call per point, in input order.
  void batchMatchesSinglePoints() {
    GeoidModel geoid;
    const std::vector<double> lat = {0.0, 47.3977, -6.0};
    const std::vector<double> lon = {0.0, 8.5456, 147.0};
    const std::vector<double> n = geoid.undulationsM(lat, lon);
    QCOMPARE(n.size(), std::size_t(3));
    for (std::size_t i = 0; i < n.size(); ++i) QCOMPARE(n[i], geoid.undulationM(lat[i], lon[i]));
    QVERIFY(geoid.undulationsM({}, {}).empty());
  }

  void badInputIsRefused() {
    GeoidModel geoid;
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument, geoid.undulationsM({1.0}, {}));
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument, geoid.undulationM(91.0, 0.0));
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument, geoid.undulationM(std::nan(""), 0.0));
  }
};

QTEST_GUILESS_MAIN(TestGeoidHeights)
#include "test_geoid_heights.moc"
