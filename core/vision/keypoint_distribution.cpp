#include "core/vision/keypoint_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace skytrace::vision {

std::vector<int> selectByGrid(const std::vector<cv::KeyPoint>& candidates, cv::Size image_size,
                              int max_count, int cell_size_px) {
  std::vector<int> chosen;
  if (candidates.empty() || max_count <= 0 || image_size.area() <= 0) return chosen;
  const int cell = std::max(1, cell_size_px);
  const int cells_x = std::max(1, (image_size.width + cell - 1) / cell);
  const int cells_y = std::max(1, (image_size.height + cell - 1) / cell);
  std::vector<std::vector<int>> buckets(static_cast<size_t>(cells_x) * cells_y);
  for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
    const cv::Point2f& p = candidates[i].pt;
    const int cx = std::clamp(static_cast<int>(p.x / cell), 0, cells_x - 1);
    const int cy = std::clamp(static_cast<int>(p.y / cell), 0, cells_y - 1);
    buckets[static_cast<size_t>(cy) * cells_x + cx].push_back(i);
  }
  size_t deepest = 0;
  for (auto& bucket : buckets) {
    std::stable_sort(bucket.begin(), bucket.end(), [&](int a, int b) {
      return candidates[a].response > candidates[b].response;
    });
    deepest = std::max(deepest, bucket.size());
  }
  const auto budget = static_cast<size_t>(max_count);
  std::vector<int> round;
  for (size_t rank = 0; rank < deepest && chosen.size() < budget; ++rank) {
    round.clear();
    for (const auto& bucket : buckets)
      if (rank < bucket.size()) round.push_back(bucket[rank]);
    std::stable_sort(round.begin(), round.end(), [&](int a, int b) {
      return candidates[a].response > candidates[b].response;
    });
    for (int index : round) {
      if (chosen.size() == budget) break;
      chosen.push_back(index);
    }
  }
  return chosen;
}

std::vector<int> selectByAnms(const std::vector<cv::KeyPoint>& candidates, int max_count,
                              float robustness) {
  const int n = static_cast<int>(candidates.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return candidates[a].response > candidates[b].response;
  });
  // Sorted by response, only earlier candidates can be "clearly stronger".
  std::vector<float> radius_sq(n, std::numeric_limits<float>::infinity());
  for (int i = 1; i < n; ++i) {
    const cv::KeyPoint& weak = candidates[order[i]];
    float best = std::numeric_limits<float>::infinity();
    for (int j = 0; j < i; ++j) {
      const cv::KeyPoint& strong = candidates[order[j]];
      if (weak.response >= strong.response * robustness) continue;
      const float dx = weak.pt.x - strong.pt.x;
      const float dy = weak.pt.y - strong.pt.y;
      best = std::min(best, dx * dx + dy * dy);
    }
    radius_sq[i] = best;
  }
  std::vector<int> ranks(n);
  std::iota(ranks.begin(), ranks.end(), 0);
  std::stable_sort(ranks.begin(), ranks.end(),
                   [&](int a, int b) { return radius_sq[a] > radius_sq[b]; });
  std::vector<int> chosen;
  for (int r = 0; r < std::min(n, std::max(0, max_count)); ++r) chosen.push_back(order[ranks[r]]);
  return chosen;
}

double gridCoverage(const std::vector<cv::Point2f>& points, cv::Size image_size, int cells_x,
                    int cells_y) {
  if (cells_x <= 0 || cells_y <= 0 || image_size.area() <= 0) return 0.0;
  std::vector<char> hit(static_cast<size_t>(cells_x) * cells_y, 0);
  for (const auto& p : points) {
    const int cx = std::clamp(static_cast<int>(p.x * cells_x / image_size.width), 0, cells_x - 1);
    const int cy =
        std::clamp(static_cast<int>(p.y * cells_y / image_size.height), 0, cells_y - 1);
    hit[static_cast<size_t>(cy) * cells_x + cx] = 1;
  }
  return static_cast<double>(std::count(hit.begin(), hit.end(), 1)) / hit.size();
}

}  // namespace skytrace::vision
