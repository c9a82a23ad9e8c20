// Internal to core/geo (never include from other layers): GDAL/OGR registration, error
// capture and spatial-reference construction shared by the basemap, CRS and track code.
#pragma once

#include <memory>
#include <string>

#include <ogr_spatialref.h>

namespace skytrace::geo::detail {

// Registers all GDAL raster and OGR vector drivers exactly once (thread-safe).
void ensureGdalRegistered();

// While alive, GDAL/OGR errors and warnings raised on THIS thread are collected instead
// of printed to stderr. message() returns the first error (or, if none, the last
// warning) GDAL reported, or an empty string.
class GdalErrorCapture {
 public:
  GdalErrorCapture();
  ~GdalErrorCapture();
  GdalErrorCapture(const GdalErrorCapture&) = delete;
  GdalErrorCapture& operator=(const GdalErrorCapture&) = delete;

  const std::string& message() const { return !first_error_.empty() ? first_error_ : last_warning_; }
  // message() or `fallback` when GDAL said nothing.
  std::string messageOr(const std::string& fallback) const;
  bool hasError() const { return !first_error_.empty(); }

 private:
  static void handler(int error_class, int error_number, const char* message);
  std::string first_error_;
  std::string last_warning_;
};

struct SpatialReferenceDeleter {
  void operator()(OGRSpatialReference* srs) const;
};
using SpatialReferencePtr = std::unique_ptr<OGRSpatialReference, SpatialReferenceDeleter>;

// Parses any definition OSR accepts (WKT, "EPSG:32753", PROJ string, "WGS84") and sets
// OAMS_TRADITIONAL_GIS_ORDER (x = easting/longitude, y = northing/latitude), whatever
// the authority's axis order. Throws GeoreferenceError naming `what` on failure.
SpatialReferencePtr makeSpatialReference(const std::string& definition, const std::string& what);
// WGS84 geographic (EPSG:4326), traditional order (x = lon, y = lat).
SpatialReferencePtr makeWgs84();

// WKT2 of a spatial reference (multiline = false).
std::string wktOf(const OGRSpatialReference& srs);

}  // namespace skytrace::geo::detail
