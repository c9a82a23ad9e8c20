// Local features of one basemap at one ground resolution, on a lattice of square tiles in
// the session's ENU frame: each tile is read and its features extracted on first use,
// then kept (the least recently used tiles go beyond a bound). Prior-mode registration
// gathers the map features inside a keyframe's search window from here instead of
// reading the window from the raster and extracting it again for every keyframe.
// Units: ENU metres (east, north) and pixels of the tile or of the caller's grid
// (OpenCV convention: integer coordinates at pixel centres).
// Thread: one instance per thread (the registrar's); the tile source runs on it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "core/vision/features.h"

namespace skytrace::nav {

// One tile's features: only keypoints inside the tile's core rectangle and on valid map
// pixels (the source decides both), with a host copy of their positions and where the
// tile's pixels lie in ENU.
struct MapFeatureTile {
  vision::FeatureSet features;
  std::vector<cv::Point2f> keypoints_px;  // features.keypoints(), kept on the host
  cv::Matx23d enu_from_pixel = cv::Matx23d(1, 0, 0, 0, 1, 0);
};

// Map features in the pixels of a caller's grid: the set (on the tiles' device) and its
// keypoints on the host.
struct GridFeatures {
  vision::FeatureSet features;
  std::vector<cv::Point2f> keypoints_px;
};

class MapFeatureCache {
 public:
  // Builds the tile whose core is `core_enu` (the source reads a margin around it, so
  // that features near the core's edges see the map beyond them). May throw: nothing is
  // kept then.
  using TileSource = std::function<MapFeatureTile(const cv::Rect2d& core_enu)>;

  // Tiles of tile_m x tile_m metres from the corner (origin_east_m, origin_north_m) of
  // the map's coverage; at most max_tiles kept.
  MapFeatureCache(cv::Point2d origin_enu, double tile_m, std::size_t max_tiles, TileSource source);

  // The features inside `rect_enu`, in the pixels of the caller's grid
  // (grid_from_enu: ENU metres -> grid pixels, affine), keeping those that land inside
  // grid_size. Builds the tiles it needs that are not kept yet.
  // The selection and the new positions are computed on the host from the kept
  // keypoints: one gather of scores and descriptors per tile on the device, no wait.
  GridFeatures gather(const cv::Rect2d& rect_enu, const cv::Matx33d& grid_from_enu, cv::Size grid_size);

  // Work ahead of a window that will need them: builds the one tile overlapping
  // `rect_enu` that is not kept yet and lies nearest its centre. Returns false, building
  // nothing, when every such tile is kept or when they are more than half of max_tiles
  // (so that what the latest window used is never evicted for them). May throw like
  // gather: nothing is kept then.
  bool buildNextMissing(const cv::Rect2d& rect_enu);

  std::size_t tileCount() const { return tiles_.size(); }
  std::int64_t tilesBuilt() const { return tiles_built_; }  // over the cache's life

 private:
  // The lattice's columns and rows under `rect_enu`: {col0, col1, row0, row1}, inclusive.
  std::array<long, 4> tilesUnder(const cv::Rect2d& rect_enu) const;

  struct Kept {
    MapFeatureTile tile;
    std::uint64_t last_used = 0;
  };
  cv::Point2d origin_enu_;
  double tile_m_;
  std::size_t max_tiles_;
  TileSource source_;
  std::map<std::pair<long, long>, Kept> tiles_;  // by (column, row) of the lattice
  std::uint64_t uses_ = 0;
  std::int64_t tiles_built_ = 0;
};

}  // namespace skytrace::nav
