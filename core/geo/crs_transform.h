// Coordinate transforms between coordinate reference systems (OSR/PROJ through GDAL),
// and between a raster's map CRS, WGS84 and a local ENU frame.
//
// Axis order: every CRS here uses the traditional GIS order (x = easting or longitude,
// y = northing or latitude), including EPSG:4326 whose authority order is lat/lon. So
// a MapPoint in a geographic CRS is {lon_deg, lat_deg}.
//
// CRS definitions are anything OSR accepts: WKT (1 or 2), "EPSG:32753", PROJ strings.
// Threads: all const methods may be called from any thread (each object serialises its
// own PROJ calls with a mutex); copy an object to transform in parallel without contention.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/geo/geo_transform.h"
#include "core/geo/geodesy.h"

namespace skytrace::geo {

// A transform from one CRS to another. Altitudes are not transformed (2D only).
class CrsTransform {
 public:
  // Throws GeoreferenceError when a CRS cannot be parsed or PROJ finds no operation.
  CrsTransform(const std::string& source_crs, const std::string& target_crs);
  ~CrsTransform();
  CrsTransform(const CrsTransform& other);
  CrsTransform& operator=(const CrsTransform& other);
  CrsTransform(CrsTransform&&) noexcept;
  CrsTransform& operator=(CrsTransform&&) noexcept;

  // Throws GeoreferenceError naming the point and both CRSs when PROJ fails (e.g. a
  // point outside the projection's domain).
  MapPoint transform(const MapPoint& p_in_source) const;
  // Batch: transforms all points in place with one PROJ call. Throws GeoreferenceError
  // (and leaves `points` unspecified) if any point fails.
  void transformInPlace(std::vector<MapPoint>& points) const;
  std::vector<MapPoint> transform(const std::vector<MapPoint>& points_in_source) const;

  // The reverse direction (target -> source).
  CrsTransform inverse() const;

  const std::string& sourceCrs() const;
  const std::string& targetCrs() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A raster map CRS together with its conversions to WGS84 lat/lon and to local ENU frames.
// Altitudes pass through unchanged (metres, whatever reference the caller uses).
class MapGeoConverter {
 public:
  // Throws GeoreferenceError when the CRS cannot be parsed.
  explicit MapGeoConverter(const std::string& map_crs);

  const std::string& mapCrs() const { return map_from_wgs84_.targetCrs(); }

  GeoPoint geoFromMap(const MapPoint& p_in_map, double alt_m = 0.0) const;
  MapPoint mapFromGeo(const GeoPoint& p) const;
  std::vector<GeoPoint> geoFromMap(const std::vector<MapPoint>& points_in_map) const;
  std::vector<MapPoint> mapFromGeo(const std::vector<GeoPoint>& points) const;

  EnuPoint enuFromMap(const LocalEnuFrame& frame, const MapPoint& p_in_map,
                      double alt_m = 0.0) const;
  // The map position under an ENU point (its up component becomes the altitude that the
  // horizontal projection ignores).
  MapPoint mapFromEnu(const LocalEnuFrame& frame, const EnuPoint& p_in_enu) const;

 private:
  CrsTransform wgs84_from_map_;
  CrsTransform map_from_wgs84_;
};

// The WKT of WGS84 geographic (EPSG:4326).
std::string wgs84Crs();

// The WGS 84 / UTM zone holding a point, as "EPSG:326zz" (north) or "EPSG:327zz"
// (south): a metric CRS for drawing or measuring near that point when no map supplies
// one. Zones are the regular 6-degree ones (no Norway/Svalbard exceptions); longitudes
// outside [-180, 180) are wrapped.
std::string utmCrsFor(const GeoPoint& point);

// Facts about a CRS definition (throw GeoreferenceError if it cannot be parsed).
struct CrsInfo {
  std::string wkt;         // normalised WKT2
  std::string name;        // "WGS 84 / UTM zone 53S"
  std::string authority;   // "EPSG:32753", or empty when no authority code is known
  bool is_geographic = false;
  bool is_projected = false;
  std::string linear_unit;       // "metre" for projected CRSs, empty for geographic
  double metres_per_unit = 1.0;  // of the linear unit (projected CRSs only)

  // "WGS 84 / UTM zone 53S (EPSG:32753)", or just the name without an authority code.
  std::string shortName() const;
};
CrsInfo describeCrs(const std::string& crs_definition);

}  // namespace skytrace::geo
