// CRS transforms and geotransforms: closed-form projection values, the EPSG:4326 axis
// order trap, round trips below 1 cm, batch == single, and errors.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/geo/crs_transform.h"
#include "core/geo/geo_transform.h"
#include "core/util/error.h"

using namespace skytrace::geo;

namespace {
constexpr double kA = 6378137.0;
constexpr double kF = 1.0 / 298.257223563;
const double kE = std::sqrt(kF * (2.0 - kF));
constexpr double kDeg = M_PI / 180.0;

// Ellipsoidal Mercator (EPSG:3395), closed form.
MapPoint worldMercator(double lat_deg, double lon_deg) {
  const double phi = lat_deg * kDeg;
  const double es = kE * std::sin(phi);
  return {kA * lon_deg * kDeg,
          kA * std::log(std::tan(M_PI / 4 + phi / 2) * std::pow((1 - es) / (1 + es), kE / 2))};
}
// Spherical "web" Mercator (EPSG:3857), closed form.
MapPoint webMercator(double lat_deg, double lon_deg) {
  return {kA * lon_deg * kDeg, kA * std::log(std::tan(M_PI / 4 + lat_deg * kDeg / 2))};
}
}  // namespace

class TestCrsTransform : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void geoTransformRoundTrip() {
    const GeoTransform north_up = GeoTransform::northUp(278966.322, 8597744.154, 0.018, 0.018);
    const MapPoint corner = north_up.mapFromPixel(751, 708);
    QVERIFY(std::abs(corner.x - (278966.322 + 751 * 0.018)) < 1e-9);
    QVERIFY(std::abs(corner.y - (8597744.154 - 708 * 0.018)) < 1e-9);
    const GeoTransform rotated({1000.0, 0.5, 0.2, 2000.0, 0.1, -0.6});
    for (const GeoTransform& gt : {north_up, rotated}) {
      for (double col : {-10.0, 0.0, 0.5, 123.25, 4000.0}) {
        for (double row : {-3.0, 0.0, 77.75, 2500.0}) {
          const PixelPoint back = gt.pixelFromMap(gt.mapFromPixel(col, row));
          QVERIFY(std::abs(back.col - col) < 1e-7 && std::abs(back.row - row) < 1e-7);
        }
      }
    }
    QVERIFY(north_up.isAxisAligned());
    QVERIFY(!rotated.isAxisAligned());
    const MapRect bounds = north_up.mapBounds(751, 708);
    QVERIFY(std::abs(bounds.width() - 751 * 0.018) < 1e-9);
    QVERIFY(std::abs(bounds.height() - 708 * 0.018) < 1e-9);
    QVERIFY_THROWS_EXCEPTION(skytrace::GeoreferenceError,
                             GeoTransform({0, 0, 0, 0, 0, 0}).pixelFromMap({1, 1}));
  }

  // EPSG:4326 is lat/lon in the authority order; we always use x = lon, y = lat.
  void axisOrderIsLonLat() {
    const CrsTransform utm_from_wgs84("EPSG:4326", "EPSG:32753");
    // Centre of australia.tif per gdalinfo: 132d57'53.19"E, 12d40'36.67"S = (278973.081, 8597737.782).
    const MapPoint lon_lat{132.0 + 57.0 / 60 + 53.19 / 3600, -(12.0 + 40.0 / 60 + 36.67 / 3600)};
    const MapPoint utm = utm_from_wgs84.transform(lon_lat);
    QVERIFY2(std::abs(utm.x - 278973.081) < 1.0 && std::abs(utm.y - 8597737.782) < 1.0,
             qPrintable(QString("%1 %2").arg(utm.x, 0, 'f', 3).arg(utm.y, 0, 'f', 3)));
  }

  // On the central meridian (135E for zone 53) the easting is exactly the false easting.
  void utmCentralMeridian() {
    const CrsTransform utm_from_wgs84(wgs84Crs(), "EPSG:32753");
    const MapPoint p = utm_from_wgs84.transform({135.0, -20.0});
    QVERIFY(std::abs(p.x - 500000.0) < 1e-6);
    const MapPoint equator = utm_from_wgs84.transform({135.0, 0.0});
    QVERIFY(std::abs(equator.y - 10000000.0) < 1e-6);  // southern false northing
  }

  void mercatorClosedForms() {
    const CrsTransform world(wgs84Crs(), "EPSG:3395");
    const CrsTransform web(wgs84Crs(), "EPSG:3857");
    for (double lat : {-60.0, -12.68, 0.0, 14.6, 39.17, 48.52, 70.0}) {
      for (double lon : {-120.0, -0.41, 9.07, 132.96}) {
        const MapPoint w = world.transform({lon, lat});
        const MapPoint w_ref = worldMercator(lat, lon);
        QVERIFY2(std::abs(w.x - w_ref.x) < 1e-3 && std::abs(w.y - w_ref.y) < 1e-3, "EPSG:3395");
        const MapPoint s = web.transform({lon, lat});
        const MapPoint s_ref = webMercator(lat, lon);
        QVERIFY2(std::abs(s.x - s_ref.x) < 1e-3 && std::abs(s.y - s_ref.y) < 1e-3, "EPSG:3857");
      }
    }
  }

  // Raster CRS -> WGS84 -> raster CRS and -> ENU -> raster CRS, all below 1 cm.
  void roundTripsBelowOneCentimetre() {
    struct Case {
      const char* crs;
      double cx, cy;  // a point inside the CRS's area (the shared orthophotos)
    };
    const Case cases[] = {{"EPSG:32753", 278973.0, 8597737.0},
                          {"EPSG:32611", 252666.0, 4107296.0},
                          {"EPSG:3395", -46087.0, 4719069.0},
                          {"EPSG:3395", 13467634.0, 1631917.0},
                          {"EPSG:4326", 132.9648, -12.6769}};
    std::mt19937_64 rng(7);
    for (const Case& c : cases) {
      const MapGeoConverter converter(c.crs);
      const bool geographic = std::string(c.crs) == "EPSG:4326";
      std::uniform_real_distribution<double> offset(geographic ? -0.01 : -2000.0,
                                                    geographic ? 0.01 : 2000.0);
      std::vector<MapPoint> points;
      for (int i = 0; i < 200; ++i) points.push_back({c.cx + offset(rng), c.cy + offset(rng)});
      const std::vector<MapPoint> back = converter.mapFromGeo(converter.geoFromMap(points));
      const LocalEnuFrame frame(converter.geoFromMap(points.front(), 50.0));
      const double metres_per_unit = geographic ? 111000.0 : 1.0;
      for (std::size_t i = 0; i < points.size(); ++i) {
        const double err = std::hypot(back[i].x - points[i].x, back[i].y - points[i].y) * metres_per_unit;
        QVERIFY2(err < 0.01, qPrintable(QString("%1: WGS84 round trip %2 m").arg(c.crs).arg(err)));
        const MapPoint via_enu = converter.mapFromEnu(frame, converter.enuFromMap(frame, points[i], 120.0));
        const double err_enu = std::hypot(via_enu.x - points[i].x, via_enu.y - points[i].y) * metres_per_unit;
        QVERIFY2(err_enu < 0.01, qPrintable(QString("%1: ENU round trip %2 m").arg(c.crs).arg(err_enu)));
      }
    }
  }

  // ENU distances agree with map distances in a conformal projection (scale factor known).
  void enuMatchesUtmScale() {
    const MapGeoConverter converter("EPSG:32753");
    const MapPoint a{278973.0, 8597737.0};
    const MapPoint b{a.x + 1000.0, a.y};
    const LocalEnuFrame frame(converter.geoFromMap(a));
    const EnuPoint e = converter.enuFromMap(frame, b);
    // UTM point scale at easting E: k = k0 (1 + (E-500000)^2 / (2 R^2)) (about 1.0002 here).
    const double r = 6371000.0;
    const double k = 0.9996 * (1.0 + std::pow(a.x + 500.0 - 500000.0, 2) / (2 * r * r));
    QVERIFY2(std::abs(std::hypot(e.east_m, e.north_m) - 1000.0 / k) < 0.05,
             qPrintable(QString::number(std::hypot(e.east_m, e.north_m), 'f', 4)));
  }

  void batchEqualsSingle() {
    const CrsTransform t("EPSG:32617", wgs84Crs());
    std::vector<MapPoint> points;
    for (int i = 0; i < 50; ++i) points.push_back({404211.9 + i * 3.1, 3285142.9 - i * 2.7});
    const std::vector<MapPoint> batch = t.transform(points);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const MapPoint single = t.transform(points[i]);
      QCOMPARE(batch[i].x, single.x);
      QCOMPARE(batch[i].y, single.y);
    }
    const CrsTransform inv = t.inverse();
    const MapPoint back = inv.transform(batch[10]);
    QVERIFY(std::abs(back.x - points[10].x) < 1e-6 && std::abs(back.y - points[10].y) < 1e-6);
    const CrsTransform copy = t;  // copies are independent objects
    QCOMPARE(copy.transform(points[3]).x, batch[3].x);
  }

  void describeNamesAuthority() {
    const CrsInfo utm = describeCrs("EPSG:32753");
    QCOMPARE(QString::fromStdString(utm.shortName()), QString("WGS 84 / UTM zone 53S (EPSG:32753)"));
    QVERIFY(utm.is_projected && !utm.is_geographic);
    QCOMPARE(utm.metres_per_unit, 1.0);
    const CrsInfo wgs = describeCrs(wgs84Crs());
    QVERIFY(wgs.is_geographic);
    QCOMPARE(QString::fromStdString(wgs.authority), QString("EPSG:4326"));
  }

  void utmZoneOfAPoint() {
    QCOMPARE(QString::fromStdString(utmCrsFor({-34.93, 138.6, 0})), QString("EPSG:32754"));  // Adelaide
    QCOMPARE(QString::fromStdString(utmCrsFor({50.82, -0.14, 0})), QString("EPSG:32630"));   // Brighton
    QCOMPARE(QString::fromStdString(utmCrsFor({0.0, -180.0, 0})), QString("EPSG:32601"));
    QCOMPARE(QString::fromStdString(utmCrsFor({10.0, 180.0, 0})), QString("EPSG:32601"));   // wraps
    QCOMPARE(QString::fromStdString(utmCrsFor({10.0, 179.99, 0})), QString("EPSG:32660"));
    // The zone's central meridian is within 3 degrees of the point: scale near 1 there.
    const GeoPoint p{47.37, 8.54, 0};
    const MapGeoConverter zone(utmCrsFor(p));
    const MapPoint a = zone.mapFromGeo(p);
    const MapPoint b = zone.mapFromGeo(GeoPoint{47.37, 8.54 + 0.01, 0});
    const double grid_m = std::hypot(b.x - a.x, b.y - a.y);
    const double geodesic_m = horizontalDistanceM(p, GeoPoint{47.37, 8.54 + 0.01, 0});
    QVERIFY2(std::abs(grid_m / geodesic_m - 1.0) < 1e-3, qPrintable(QString::number(grid_m / geodesic_m)));
  }

  void errorsAreTyped() {
    QVERIFY_THROWS_EXCEPTION(skytrace::GeoreferenceError, CrsTransform("not a crs", "EPSG:4326"));
    QVERIFY_THROWS_EXCEPTION(skytrace::GeoreferenceError, MapGeoConverter(""));
    // Latitude 95 degrees does not exist.
    const CrsTransform t(wgs84Crs(), "EPSG:32753");
    try {
      t.transform({135.0, 95.0});
      QFAIL("expected GeoreferenceError");
    } catch (const skytrace::GeoreferenceError& e) {
      QVERIFY2(QString(e.what()).contains("UTM zone 53S"), e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestCrsTransform)
#include "test_crs_transform.moc"
