// The worker side of MapView: reads the visible part of each basemap layer at the
// view's ground resolution and turns it into images placed in view map coordinates.
// Pure function over shared, thread-safe basemaps; runs on MapView's worker thread.
#pragma once

#include <QImage>
#include <QPolygonF>

#include <memory>
#include <vector>

#include "core/geo/basemap.h"
#include "core/geo/crs_transform.h"
#include "core/geo/geo_transform.h"

namespace skytrace::ui {

// One basemap drawn by a MapView and how to reach it from the view CRS.
struct MapLayer {
  std::shared_ptr<const geo::Basemap> basemap;
  std::shared_ptr<const geo::CrsTransform> layer_from_view;  // null: same CRS as the view
  std::shared_ptr<const geo::CrsTransform> view_from_layer;  // null: same CRS as the view
  geo::MapRect bounds_in_view;
};

// An image read for one layer: premultiplied ARGB (nodata transparent) and its corners
// (top-left, top-right, bottom-right, bottom-left) in view map units.
struct MapLayerImage {
  QImage image;
  QPolygonF corners_in_view;
};

struct MapReadResult {
  quint64 generation = 0;  // the view state it was read for
  std::vector<MapLayerImage> images;
  QString error;  // the first read error (names the file), empty if none
};

// Reads every layer's part of `view_rect` (view CRS) so that one output pixel covers
// about `gsd_m` ground metres (never finer than the layer's native pixel). Layers that
// do not overlap the view are skipped; a failing layer sets `error` and the others are
// still read. Thread: any (Basemap and CrsTransform serialise their own access).
MapReadResult readMapLayers(const std::vector<MapLayer>& layers, const geo::MapRect& view_rect,
                            double gsd_m, quint64 generation);

// Border points of a rectangle (corners and edge midpoints), whose geo::envelopeOf after
// a CRS transform bounds the transformed rectangle.
std::vector<geo::MapPoint> borderSamples(const geo::MapRect& rect);

}  // namespace skytrace::ui
