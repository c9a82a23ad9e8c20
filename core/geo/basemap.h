// Georeferenced basemap rasters (orthophotos, satellite mosaics) read through GDAL:
// GeoTIFF/COG, VRT, MBTiles, GeoPackage, JPEG/PNG with a world file (+ .prj), anything
// GDAL opens. A Basemap exposes the raster's georeference and reads windows of it at a
// requested ground resolution as an RGB image plus a validity mask.
//
// Threads: a Basemap may be shared between threads; readWindow() serialises access to
// its one GDALDataset with a mutex. For truly parallel reads, open one Basemap per
// thread (opening is cheap: GDAL reads only the header).
#pragma once

#include <opencv2/core.hpp>

#include <memory>
#include <optional>
#include <string>

#include "core/geo/crs_transform.h"
#include "core/geo/geo_transform.h"
#include "core/geo/geodesy.h"

namespace skytrace::geo {

// Where a raster's outline lies on the globe.
struct Footprint {
  GeoPoint corners[4];  // WGS84 of the raster's corners: top-left, top-right, bottom-right, bottom-left
  // Envelope of the densified outline (edges sampled, not only corners); across the
  // antimeridian or around a pole as boundingBox() says.
  GeoBBox bbox;
};

// How a Basemap decides which pixels hold imagery.
enum class ValiditySource {
  AlphaBand,     // an alpha band: valid where alpha >= 128
  MaskBand,      // a GDAL mask (internal/.msk): valid where mask >= 128
  NodataValue,   // per-band nodata values: invalid where ALL colour bands equal nodata
  BlackFill,     // no declared mask; pixels that are exactly black in all bands, and solid
                 // near-white areas >= 31 px across, are invalid (OpenAerialMap-style fill;
                 // see BasemapOptions)
  AllValid       // nothing declared, heuristic off: every pixel inside the raster is valid
};
const char* validitySourceName(ValiditySource source);

struct BasemapOptions {
  // When the raster declares no alpha band, mask or nodata value, treat pixels that are
  // exactly 0 in every colour band as nodata (many orthophotos pad with black without
  // declaring it). Rasters that declare their validity are never second-guessed.
  bool black_is_nodata_when_undeclared = true;
};

// One window read from a basemap, in the raster's own CRS and grid orientation.
struct BasemapWindow {
  cv::Mat rgb;    // CV_8UC3, channel order R,G,B (NOT OpenCV's BGR: cvtColor before imwrite)
  cv::Mat valid;  // CV_8UC1, 255 = imagery, 0 = nodata or outside the raster
  GeoTransform map_from_pixel;  // georeference of `rgb`/`valid` in the raster CRS
  double gsd_m = 0.0;           // ground size of one output pixel, metres (mean of x and y)
};

class Basemap {
 public:
  // Opens `path` (a file or any GDAL dataset name such as /vsizip/...). Throws:
  //   IoError            the file does not exist or cannot be read (names the file);
  //   FormatError        GDAL cannot decode it (with GDAL's message);
  //   GeoreferenceError  "PATH has no georeference (no geotransform/CRS)".
  static Basemap open(const std::string& path, const BasemapOptions& options = {});

  ~Basemap();
  Basemap(Basemap&&) noexcept;
  Basemap& operator=(Basemap&&) noexcept;
  Basemap(const Basemap&) = delete;
  Basemap& operator=(const Basemap&) = delete;

  const std::string& path() const;
  std::string driverName() const;       // GDAL short name: "GTiff", "VRT", "MBTiles", ...
  int width() const;                    // pixels
  int height() const;                   // pixels
  int bandCount() const;                // as stored (before RGB conversion)
  std::string dataTypeName() const;     // of band 1: "Byte", "UInt16", "Float32", ...
  std::string colorDescription() const; // how bands map to RGB: "RGB", "RGBA", "grey", "palette", ...
  int overviewCount() const;            // of band 1
  ValiditySource validitySource() const;
  std::optional<double> nodataValue() const;  // of band 1, when declared

  const std::string& crsWkt() const;
  const CrsInfo& crs() const;
  std::string crsName() const { return crs().shortName(); }  // "WGS 84 / UTM zone 53S (EPSG:32753)"
  const GeoTransform& mapFromPixel() const;
  MapRect mapBounds() const;            // in the raster CRS
  const MapGeoConverter& converter() const;  // raster CRS <-> WGS84 <-> ENU

  // True ground size of one native pixel at the raster centre, metres, along rows (x) and
  // columns (y): measured on the ellipsoid between transformed pixel corners, so it is
  // right for geographic CRSs and for Mercator-like CRSs whose units are not ground metres.
  double pixelSizeXM() const;
  double pixelSizeYM() const;
  double pixelSizeM() const { return 0.5 * (pixelSizeXM() + pixelSizeYM()); }

  const Footprint& footprint() const;

  // Reads `rect_in_map` (raster CRS) resampled so that one output pixel covers about
  // `gsd_m` ground metres (gsd_m <= 0: native resolution). Output size is
  // round(extent / gsd); GDAL picks an overview automatically when the output is coarser
  // than the native grid (average resampling when downsampling, bilinear when
  // upsampling). Parts of the rectangle outside the raster come back with valid = 0 and
  // black RGB. Throws InvalidArgument for an empty rectangle or an output larger than
  // `max_output_pixels`, GeoreferenceError for a rotated/sheared geotransform, FormatError
  // naming the file with GDAL's message when the pixels cannot be decoded (truncated file).
  BasemapWindow readWindow(const MapRect& rect_in_map, double gsd_m,
                           long long max_output_pixels = 64LL * 1024 * 1024) const;
  // The same for a WGS84 box: reads the raster-CRS envelope of the (densified) box; the
  // result stays in the raster CRS (not warped to lat/lon).
  BasemapWindow readWindow(const GeoBBox& bbox, double gsd_m,
                           long long max_output_pixels = 64LL * 1024 * 1024) const;

 private:
  struct Impl;
  explicit Basemap(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct GeoTiffWriteOptions {
  // Build internal overviews (average, factors 2, 4, ... down to ~256 px) for rasters
  // larger than 512 px, so that coarse reads stay fast.
  bool build_overviews = true;
};

// Writes an RGB raster as a tiled, DEFLATE-compressed GeoTIFF with an alpha band from
// `valid` (CV_8UC1, 0/255; an empty Mat means all valid), georeferenced by `map_from_pixel`
// in `crs` (any definition OSR accepts). `rgb` is CV_8UC3 in R,G,B order. The write is
// atomic: a failure never leaves a partial file nor destroys an existing one.
// Throws InvalidArgument for bad inputs, IoError when the file cannot be written.
void writeGeoTiff(const std::string& path, const cv::Mat& rgb, const cv::Mat& valid,
                  const GeoTransform& map_from_pixel, const std::string& crs,
                  const GeoTiffWriteOptions& options = {});

}  // namespace skytrace::geo
