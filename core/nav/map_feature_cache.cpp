#include "core/nav/map_feature_cache.h"

#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "core/util/check.h"
#include "core/util/least_recently_used.h"

namespace skytrace::nav {

MapFeatureCache::MapFeatureCache(cv::Point2d origin_enu, double tile_m, std::size_t max_tiles, TileSource source)
    : origin_enu_(origin_enu), tile_m_(tile_m), max_tiles_(max_tiles), source_(std::move(source)) {
  checkArgument(tile_m > 0 && std::isfinite(tile_m), "map feature cache: the tile size must be positive");
  checkArgument(max_tiles >= 4, "map feature cache: keep at least 4 tiles");
  checkArgument(static_cast<bool>(source_), "map feature cache: no tile source");
}

std::array<long, 4> MapFeatureCache::tilesUnder(const cv::Rect2d& rect_enu) const {
  return {long(std::floor((rect_enu.x - origin_enu_.x) / tile_m_)),
          long(std::floor((rect_enu.x + rect_enu.width - origin_enu_.x) / tile_m_)),
          long(std::floor((rect_enu.y - origin_enu_.y) / tile_m_)),
          long(std::floor((rect_enu.y + rect_enu.height - origin_enu_.y) / tile_m_))};
}

GridFeatures MapFeatureCache::gather(const cv::Rect2d& rect_enu, const cv::Matx33d& grid_from_enu, cv::Size grid_size) {
  const auto [col0, col1, row0, row1] = tilesUnder(rect_enu);
  // A window never needs more tiles than are kept: a larger one would evict its own.
  checkArgument(std::size_t((col1 - col0 + 1) * (row1 - row0 + 1)) <= max_tiles_,
                "map feature cache: the window needs more tiles than are kept");
  ++uses_;
  GridFeatures out;
  std::vector<vision::FeatureSet> parts;
  std::vector<std::vector<int>> rows;
  const double right = grid_size.width - 0.5, bottom = grid_size.height - 0.5;
  for (long row = row0; row <= row1; ++row) {
    for (long col = col0; col <= col1; ++col) {
      auto it = tiles_.find({col, row});
      if (it == tiles_.end()) {
        const cv::Rect2d core(origin_enu_.x + col * tile_m_, origin_enu_.y + row * tile_m_, tile_m_, tile_m_);
        MapFeatureTile tile = source_(core);
        ++tiles_built_;
        evictLeastRecentlyUsed(tiles_, max_tiles_);
        it = tiles_.emplace(std::make_pair(col, row), Kept{std::move(tile), 0}).first;
      }
      it->second.last_used = uses_;
      const MapFeatureTile& tile = it->second.tile;
      if (tile.keypoints_px.empty()) continue;
      const cv::Matx23d& e = tile.enu_from_pixel;
      const cv::Matx33d g = grid_from_enu * cv::Matx33d(e(0, 0), e(0, 1), e(0, 2), e(1, 0), e(1, 1), e(1, 2), 0, 0, 1);
      std::vector<int> kept;
      for (std::size_t i = 0; i < tile.keypoints_px.size(); ++i) {
        const cv::Point2f& p = tile.keypoints_px[i];
        const double x = g(0, 0) * p.x + g(0, 1) * p.y + g(0, 2);
        const double y = g(1, 0) * p.x + g(1, 1) * p.y + g(1, 2);
        if (x < -0.5 || y < -0.5 || x >= right || y >= bottom) continue;
        kept.push_back(int(i));
        out.keypoints_px.emplace_back(float(x), float(y));
      }
      if (kept.empty()) continue;
      parts.push_back(tile.features);
      rows.push_back(std::move(kept));
    }
  }
  if (!parts.empty()) out.features = vision::gatherFeatures(parts, rows, out.keypoints_px, grid_size);
  return out;
}

bool MapFeatureCache::buildNextMissing(const cv::Rect2d& rect_enu) {
  const auto [col0, col1, row0, row1] = tilesUnder(rect_enu);
  if (std::size_t((col1 - col0 + 1) * (row1 - row0 + 1)) > max_tiles_ / 2) return false;
  const double centre_col = (rect_enu.x + 0.5 * rect_enu.width - origin_enu_.x) / tile_m_ - 0.5;
  const double centre_row = (rect_enu.y + 0.5 * rect_enu.height - origin_enu_.y) / tile_m_ - 0.5;
  std::optional<std::pair<long, long>> nearest;
  double nearest_distance = 0.0;
  for (long row = row0; row <= row1; ++row) {
    for (long col = col0; col <= col1; ++col) {
      if (tiles_.count({col, row})) continue;
      const double distance = std::hypot(col - centre_col, row - centre_row);
      if (!nearest || distance < nearest_distance) {
        nearest = std::make_pair(col, row);
        nearest_distance = distance;
      }
    }
  }
  if (!nearest) return false;
  const auto [col, row] = *nearest;
  const cv::Rect2d core(origin_enu_.x + col * tile_m_, origin_enu_.y + row * tile_m_, tile_m_, tile_m_);
  MapFeatureTile tile = source_(core);
  ++tiles_built_;
  evictLeastRecentlyUsed(tiles_, max_tiles_);
  tiles_.emplace(*nearest, Kept{std::move(tile), uses_});
  return true;
}

}  // namespace skytrace::nav
