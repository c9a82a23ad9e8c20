// `skytrace-cli info RASTER`: driver, size, bands, CRS, pixel size in ground metres,
// WGS84 footprint, overviews and how nodata is recognised, for any raster GDAL reads.
#include <QString>
#include <QStringList>

#include "app/cli/info_describers.h"
#include "core/geo/basemap.h"

namespace skytrace::cli {
namespace {

QString latLon(const geo::GeoPoint& p) {
  return QStringLiteral("%1, %2").arg(p.lat_deg, 0, 'f', 7).arg(p.lon_deg, 0, 'f', 7);
}

}  // namespace

InfoDescription describeRaster(const QString& path) {
  const geo::Basemap map = geo::Basemap::open(path.toStdString());
  const geo::GeoTransform& gt = map.mapFromPixel();
  const auto& c = gt.gdalCoefficients();
  const geo::Footprint& fp = map.footprint();
  QStringList lines;
  lines << QStringLiteral("path: %1").arg(path);
  lines << QStringLiteral("kind: raster (%1)").arg(QString::fromStdString(map.driverName()));
  lines << QStringLiteral("size: %1 x %2 px").arg(map.width()).arg(map.height());
  lines << QStringLiteral("bands: %1 (%2, %3)")
               .arg(map.bandCount())
               .arg(QString::fromStdString(map.colorDescription()),
                    QString::fromStdString(map.dataTypeName()));
  lines << QStringLiteral("crs: %1").arg(QString::fromStdString(map.crsName()));
  const QString unit = map.crs().is_geographic ? QStringLiteral("deg")
                                               : QString::fromStdString(map.crs().linear_unit);
  lines << QStringLiteral("origin: %1, %2 (%3)").arg(c[0], 0, 'f', 6).arg(c[3], 0, 'f', 6).arg(unit);
  lines << QStringLiteral("pixel size (map): %1 x %2 %3%4")
               .arg(gt.pixelWidth(), 0, 'g', 9)
               .arg(gt.pixelHeight(), 0, 'g', 9)
               .arg(unit)
               .arg(gt.isAxisAligned() ? QString() : QStringLiteral(" (rotated)"));
  lines << QStringLiteral("pixel size: %1 m (ground: %2 x %3 m)")
               .arg(map.pixelSizeM(), 0, 'f', 4)
               .arg(map.pixelSizeXM(), 0, 'f', 5)
               .arg(map.pixelSizeYM(), 0, 'f', 5);
  lines << QStringLiteral("extent: %1 x %2 m")
               .arg(map.width() * map.pixelSizeXM(), 0, 'f', 2)
               .arg(map.height() * map.pixelSizeYM(), 0, 'f', 2);
  lines << QStringLiteral("footprint top-left (lat, lon): %1").arg(latLon(fp.corners[0]));
  lines << QStringLiteral("footprint top-right (lat, lon): %1").arg(latLon(fp.corners[1]));
  lines << QStringLiteral("footprint bottom-right (lat, lon): %1").arg(latLon(fp.corners[2]));
  lines << QStringLiteral("footprint bottom-left (lat, lon): %1").arg(latLon(fp.corners[3]));
  lines << QStringLiteral("bbox (lat, lon): %1 .. %2, %3 .. %4")
               .arg(fp.bbox.min_lat_deg, 0, 'f', 7)
               .arg(fp.bbox.max_lat_deg, 0, 'f', 7)
               .arg(fp.bbox.min_lon_deg, 0, 'f', 7)
               .arg(fp.bbox.max_lon_deg, 0, 'f', 7);
  lines << QStringLiteral("overviews: %1").arg(map.overviewCount());
  const auto nodata = map.nodataValue();
  lines << QStringLiteral("nodata: %1").arg(nodata ? QString::number(*nodata, 'g', 10)
                                                   : QStringLiteral("none declared"));
  lines << QStringLiteral("validity: %1")
               .arg(QString::fromUtf8(geo::validitySourceName(map.validitySource())));

  nlohmann::json corners = nlohmann::json::array();
  for (const geo::GeoPoint& corner : fp.corners) corners.push_back({{"lat_deg", corner.lat_deg}, {"lon_deg", corner.lon_deg}});
  nlohmann::json facts = {
      {"path", path.toStdString()},
      {"kind", "raster"},
      {"driver", map.driverName()},
      {"width_px", map.width()},
      {"height_px", map.height()},
      {"bands", map.bandCount()},
      {"colour", map.colorDescription()},
      {"data_type", map.dataTypeName()},
      {"crs", map.crsName()},
      {"crs_authority", map.crs().authority.empty() ? nlohmann::json(nullptr) : nlohmann::json(map.crs().authority)},
      {"pixel_size_m", map.pixelSizeM()},
      {"pixel_size_x_m", map.pixelSizeXM()},
      {"pixel_size_y_m", map.pixelSizeYM()},
      {"extent_x_m", map.width() * map.pixelSizeXM()},
      {"extent_y_m", map.height() * map.pixelSizeYM()},
      {"footprint", corners},  // top-left, top-right, bottom-right, bottom-left
      {"bbox", bboxJson(fp.bbox)},
      {"overviews", map.overviewCount()},
      {"nodata", nodata ? nlohmann::json(*nodata) : nlohmann::json(nullptr)},
      {"validity", geo::validitySourceName(map.validitySource())}};
  return {lines, facts};
}

}  // namespace skytrace::cli
