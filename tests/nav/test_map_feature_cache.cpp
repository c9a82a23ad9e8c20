// MapFeatureCache (core/nav/map_feature_cache.h) with a tile source that makes one
// keypoint at each tile's core centre and counts its calls:
// - gather() builds exactly the tiles a window overlaps, once: a second window over the
//   same tiles builds none;
// - keypoints come back in the caller's grid pixels (the tile's ENU placement composed
//   with grid_from_enu), and those outside the grid are dropped;
// - at most max_tiles are kept, the least recently used go first;
// - buildNextMissing() builds the tiles of an area ahead of use, one per call, nearest its
//   centre first, none kept already, and nothing for an area of more than half the bound;
// - a source that throws keeps nothing, and the next gather tries again.
#include <QtTest>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/nav/map_feature_cache.h"
#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

constexpr double kTileM = 10.0;  // 10 m tiles of 100 px at 0.1 m
constexpr double kGsdM = 0.1;

// One keypoint at the centre of the tile's core; the tile's pixels are 0.1 m, north up,
// pixel (0, 0) at the core's north-west corner.
nav::MapFeatureTile centreTile(const cv::Rect2d& core) {
  nav::MapFeatureTile tile;
  const double top = core.y + core.height;
  tile.enu_from_pixel = cv::Matx23d(kGsdM, 0, core.x, 0, -kGsdM, top);
  cv::Mat descriptor(1, 4, CV_32F, cv::Scalar(0.5f));
  tile.keypoints_px = {cv::Point2f(50, 50)};
  tile.features = vision::makeFeatureSetFromHost(tile.keypoints_px, {1.0f}, descriptor, 100, 100, vision::DeviceSpec{});
  return tile;
}

// ENU -> a 0.1 m north-up grid whose pixel (0, 0) is at (rect.x, top of rect).
cv::Matx33d gridFromEnu(const cv::Rect2d& rect) {
  return cv::Matx33d(1 / kGsdM, 0, -rect.x / kGsdM, 0, -1 / kGsdM, (rect.y + rect.height) / kGsdM, 0, 0, 1);
}

cv::Size gridSize(const cv::Rect2d& rect) { return cv::Size(int(rect.width / kGsdM), int(rect.height / kGsdM)); }

}  // namespace

class TestMapFeatureCache : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void buildsEachTileOnceAndPlacesItsFeatures() {
    std::vector<cv::Rect2d> built;
    nav::MapFeatureCache cache({0, 0}, kTileM, 16, [&](const cv::Rect2d& core) {
      built.push_back(core);
      return centreTile(core);
    });
    // A window over (4..24, 4..24) m overlaps tiles 0..2 in both directions; of their
    // centres (5, 15, 25 m) those at 25 m are outside the grid.
    const cv::Rect2d window(4, 4, 20, 20);
    const nav::GridFeatures features = cache.gather(window, gridFromEnu(window), gridSize(window));
    QCOMPARE(int(built.size()), 9);
    QCOMPARE(features.features.size(), 4);
    QVERIFY(features.features.keypoints() == features.keypoints_px);  // the host copy is the set's
    std::vector<cv::Point2f> points = features.keypoints_px;
    std::sort(points.begin(), points.end(), [](const cv::Point2f& a, const cv::Point2f& b) {
      return a.y < b.y || (a.y == b.y && a.x < b.x);
    });
    // ENU (5, 15) -> grid ((5 - 4) / 0.1, (24 - 15) / 0.1) = (10, 90).
    QCOMPARE(points[0], cv::Point2f(10, 90));
    QCOMPARE(points[3], cv::Point2f(110, 190));
    QCOMPARE(features.features.imageWidth(), 200);

    // The same ground again, shifted within the tiles: nothing built.
    const cv::Rect2d nearby(5, 5, 20, 20);
    QCOMPARE(cache.gather(nearby, gridFromEnu(nearby), gridSize(nearby)).features.size(), 4);
    QCOMPARE(int(built.size()), 9);
    QCOMPARE(cache.tilesBuilt(), std::int64_t(9));
  }

  void keepsAtMostItsBoundLeastRecentlyUsedOut() {
    int builds = 0;
    nav::MapFeatureCache cache({0, 0}, kTileM, 4, [&](const cv::Rect2d& core) {
      ++builds;
      return centreTile(core);
    });
    const cv::Rect2d a(1, 1, 8, 8), b(11, 1, 8, 8), c(21, 1, 8, 8), d(31, 1, 8, 8), e(41, 1, 8, 8);
    for (const cv::Rect2d& r : {a, b, c, d}) QCOMPARE(cache.gather(r, gridFromEnu(r), gridSize(r)).features.size(), 1);
    QCOMPARE(builds, 4);
    cache.gather(a, gridFromEnu(a), gridSize(a));  // a is the most recent now; b the oldest
    cache.gather(e, gridFromEnu(e), gridSize(e));
    QCOMPARE(builds, 5);
    QCOMPARE(cache.tileCount(), std::size_t(4));
    cache.gather(a, gridFromEnu(a), gridSize(a));
    QCOMPARE(builds, 5);  // kept
    cache.gather(b, gridFromEnu(b), gridSize(b));
    QCOMPARE(builds, 6);  // was dropped
    // A window wider than the bound would evict its own tiles: refused.
    const cv::Rect2d wide(1, 1, 48, 8);
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { cache.gather(wide, gridFromEnu(wide), gridSize(wide)); })
                .contains("more tiles"));
  }

  void buildsMissingTilesAheadNearestFirst() {
    std::vector<cv::Rect2d> built;
    nav::MapFeatureCache cache({0, 0}, kTileM, 20, [&](const cv::Rect2d& core) {
      built.push_back(core);
      return centreTile(core);
    });
    // A window over tile (1, 1) only, then work ahead over the 3x3 tiles around it.
    const cv::Rect2d window(12, 12, 6, 6);
    cache.gather(window, gridFromEnu(window), gridSize(window));
    QCOMPARE(built.size(), std::size_t(1));
    const cv::Rect2d around(2, 2, 26, 26);  // tiles 0..2 in both directions
    int steps = 0;
    while (cache.buildNextMissing(around)) ++steps;
    QCOMPARE(steps, 8);  // one per call, the kept one not again
    QCOMPARE(cache.tileCount(), std::size_t(9));
    // The four edge neighbours (distance 1) before the four corners.
    for (std::size_t i = 1; i <= 4; ++i) {
      const cv::Point2d centre = (built[i].tl() + built[i].br()) * 0.5;
      QVERIFY2(std::abs(centre.x - 15) + std::abs(centre.y - 15) < 10.1, qPrintable(QString::number(i)));
    }
    // A window over them builds nothing more.
    cache.gather(around, gridFromEnu(around), gridSize(around));
    QCOMPARE(built.size(), std::size_t(9));
    // More tiles than half the bound: left alone (it would evict what windows use).
    QVERIFY(!cache.buildNextMissing(cv::Rect2d(0, 0, 50, 50)));
    QCOMPARE(built.size(), std::size_t(9));
  }

  void aFailingSourceKeepsNothing() {
    bool fail = true;
    nav::MapFeatureCache cache({0, 0}, kTileM, 8, [&](const cv::Rect2d& core) {
      if (fail) throw std::runtime_error("unreadable block");
      return centreTile(core);
    });
    const cv::Rect2d r(1, 1, 8, 8);
    bool threw = false;
    try {
      cache.gather(r, gridFromEnu(r), gridSize(r));
    } catch (const std::runtime_error&) {
      threw = true;
    }
    QVERIFY(threw);
    QCOMPARE(cache.tileCount(), std::size_t(0));
    fail = false;
    QCOMPARE(cache.gather(r, gridFromEnu(r), gridSize(r)).features.size(), 1);
    QCOMPARE(cache.tileCount(), std::size_t(1));
  }
};

QTEST_GUILESS_MAIN(TestMapFeatureCache)
#include "test_map_feature_cache.moc"
