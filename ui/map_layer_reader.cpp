#include "ui/map_layer_reader.h"

#include <algorithm>
#include <exception>

#include <opencv2/core.hpp>

namespace skytrace::ui {
namespace {

geo::MapRect intersection(const geo::MapRect& a, const geo::MapRect& b) {
  return {std::max(a.min_x, b.min_x), std::max(a.min_y, b.min_y), std::min(a.max_x, b.max_x),
          std::min(a.max_y, b.max_y)};
}

// RGB + validity mask -> premultiplied ARGB with nodata transparent.
QImage imageFromWindow(const geo::BasemapWindow& window) {
  std::vector<cv::Mat> channels;
  cv::split(window.rgb, channels);
  channels.push_back(window.valid);
  cv::Mat rgba;
  cv::merge(channels, rgba);
  const QImage view(rgba.data, rgba.cols, rgba.rows, static_cast<qsizetype>(rgba.step),
                    QImage::Format_RGBA8888);
  return view.convertToFormat(QImage::Format_ARGB32_Premultiplied);  // deep copy
}

}  // namespace

std::vector<geo::MapPoint> borderSamples(const geo::MapRect& r) {
  const double mx = 0.5 * (r.min_x + r.max_x);
  const double my = 0.5 * (r.min_y + r.max_y);
  return {{r.min_x, r.min_y}, {mx, r.min_y}, {r.max_x, r.min_y}, {r.max_x, my},
          {r.max_x, r.max_y}, {mx, r.max_y}, {r.min_x, r.max_y}, {r.min_x, my}};
}

MapReadResult readMapLayers(const std::vector<MapLayer>& layers, const geo::MapRect& view_rect,
                            double gsd_m, quint64 generation) {
  MapReadResult result;
  result.generation = generation;
  for (const MapLayer& layer : layers) {
    try {
      geo::MapRect rect = view_rect;
      if (layer.layer_from_view) rect = geo::envelopeOf(layer.layer_from_view->transform(borderSamples(view_rect)));
      rect = intersection(rect, layer.basemap->mapBounds());
      if (rect.isEmpty()) continue;
      const double layer_gsd_m = std::max(gsd_m, layer.basemap->pixelSizeM());
      const geo::BasemapWindow window = layer.basemap->readWindow(rect, layer_gsd_m);
      if (window.rgb.empty()) continue;
      const geo::GeoTransform& t = window.map_from_pixel;
      std::vector<geo::MapPoint> corners = {t.mapFromPixel(0, 0), t.mapFromPixel(window.rgb.cols, 0),
                                            t.mapFromPixel(window.rgb.cols, window.rgb.rows),
                                            t.mapFromPixel(0, window.rgb.rows)};
      if (layer.view_from_layer) corners = layer.view_from_layer->transform(corners);
      MapLayerImage image;
      image.image = imageFromWindow(window);
      for (const geo::MapPoint& c : corners) image.corners_in_view << QPointF(c.x, c.y);
      result.images.push_back(std::move(image));
    } catch (const std::exception& e) {
      if (result.error.isEmpty()) result.error = QString::fromStdString(e.what());
    }
  }
  return result;
}


}  // namespace skytrace::ui
