#include "core/geo/geo_transform.h"

#include <algorithm>
#include <cmath>

#include "core/util/check.h"
#include "core/util/error.h"

namespace skytrace::geo {

GeoTransform::GeoTransform(const std::array<double, 6>& gdal_coefficients)
    : c_(gdal_coefficients) {}

GeoTransform GeoTransform::northUp(double origin_x, double origin_y, double pixel_width,
                                   double pixel_height) {
  return GeoTransform({origin_x, pixel_width, 0.0, origin_y, 0.0, -pixel_height});
}

MapPoint GeoTransform::mapFromPixel(const PixelPoint& p) const {
  return {c_[0] + p.col * c_[1] + p.row * c_[2], c_[3] + p.col * c_[4] + p.row * c_[5]};
}

bool GeoTransform::isInvertible() const {
  const double det = c_[1] * c_[5] - c_[2] * c_[4];
  const double scale = std::max(std::abs(c_[1]) + std::abs(c_[2]), std::abs(c_[4]) + std::abs(c_[5]));
  return std::isfinite(det) && scale > 0.0 && std::abs(det) > 1e-15 * scale * scale;
}

PixelPoint GeoTransform::pixelFromMap(const MapPoint& p) const {
  if (!isInvertible()) {
    throw GeoreferenceError("geotransform is degenerate (zero pixel size), cannot map to pixels");
  }
  const double det = c_[1] * c_[5] - c_[2] * c_[4];
  const double dx = p.x - c_[0];
  const double dy = p.y - c_[3];
  return {(c_[5] * dx - c_[2] * dy) / det, (-c_[4] * dx + c_[1] * dy) / det};
}

double GeoTransform::pixelWidth() const { return std::hypot(c_[1], c_[4]); }
double GeoTransform::pixelHeight() const { return std::hypot(c_[2], c_[5]); }

MapRect envelopeOf(const std::vector<MapPoint>& points) {
  checkArgument(!points.empty(), "envelopeOf: no points");
  MapRect r{points.front().x, points.front().y, points.front().x, points.front().y};
  for (const MapPoint& p : points) {
    r.min_x = std::min(r.min_x, p.x);
    r.max_x = std::max(r.max_x, p.x);
    r.min_y = std::min(r.min_y, p.y);
    r.max_y = std::max(r.max_y, p.y);
  }
  return r;
}

MapRect GeoTransform::mapBounds(int width, int height) const {
  return envelopeOf({mapFromPixel(0, 0), mapFromPixel(width, 0), mapFromPixel(width, height),
                     mapFromPixel(0, height)});
}

}  // namespace skytrace::geo
