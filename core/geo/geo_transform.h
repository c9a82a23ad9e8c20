// The affine map between raster pixel coordinates and map (CRS) coordinates, as GDAL's
// six-coefficient geotransform. Pixel convention (GDAL's): (col, row) = (0, 0) is the
// top-left CORNER of the top-left pixel; the centre of pixel (i, j) is (i + 0.5, j + 0.5).
// Map coordinates are in the raster CRS's units, traditional GIS order (x = easting or
// longitude, y = northing or latitude). Plain value, thread-safe to copy.
#pragma once

#include <vector>

#include <array>

namespace skytrace::geo {

// A point in a raster CRS (x = easting/longitude, y = northing/latitude).
struct MapPoint {
  double x = 0.0;
  double y = 0.0;
};

// A point in pixel coordinates (continuous; see the convention above).
struct PixelPoint {
  double col = 0.0;
  double row = 0.0;
};

// An axis-aligned rectangle in a raster CRS.
struct MapRect {
  double min_x = 0.0;
  double min_y = 0.0;
  double max_x = 0.0;
  double max_y = 0.0;

  double width() const { return max_x - min_x; }
  double height() const { return max_y - min_y; }
  bool isEmpty() const { return !(max_x > min_x && max_y > min_y); }
};

// The smallest axis-aligned rectangle holding every point. Throws InvalidArgument for
// an empty list.
MapRect envelopeOf(const std::vector<MapPoint>& points);

class GeoTransform {
 public:
  // Identity (map = pixel), which GDAL also reports for rasters without georeference.
  GeoTransform() = default;
  // From GDAL's coefficients: x = c[0] + col c[1] + row c[2]; y = c[3] + col c[4] + row c[5].
  explicit GeoTransform(const std::array<double, 6>& gdal_coefficients);
  // North-up grid: top-left corner (origin_x, origin_y), pixel_width > 0, pixel_height > 0
  // (rows go south, i.e. c[5] = -pixel_height).
  static GeoTransform northUp(double origin_x, double origin_y, double pixel_width,
                              double pixel_height);

  const std::array<double, 6>& gdalCoefficients() const { return c_; }

  MapPoint mapFromPixel(const PixelPoint& p) const;
  MapPoint mapFromPixel(double col, double row) const { return mapFromPixel(PixelPoint{col, row}); }
  // Throws GeoreferenceError when the transform is degenerate (not invertible).
  PixelPoint pixelFromMap(const MapPoint& p) const;

  // True when there is no rotation/shear term (c[2] == c[4] == 0).
  bool isAxisAligned() const { return c_[2] == 0.0 && c_[4] == 0.0; }
  // Map-unit length of one pixel step along a row (column direction) and down a column.
  double pixelWidth() const;
  double pixelHeight() const;
  bool isInvertible() const;

  // Map rectangle covered by a width x height raster with this transform (its corners'
  // envelope).
  MapRect mapBounds(int width, int height) const;

  bool operator==(const GeoTransform& other) const { return c_ == other.c_; }
  bool operator!=(const GeoTransform& other) const { return !(*this == other); }

 private:
  std::array<double, 6> c_{0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
};

}  // namespace skytrace::geo
