#include "core/nav/basemap_registration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include <opencv2/imgproc.hpp>

#include "core/geo/basemap.h"
#include "core/geo/crs_transform.h"
#include "core/nav/ground_projection.h"
#include "core/nav/image_rotation.h"
#include "core/nav/map_feature_cache.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/least_recently_used.h"
#include "core/util/log.h"
#include "core/util/ordered_prefetch.h"
#include "core/vision/aliked_config.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/litesam_matcher.h"
#include "core/vision/matcher.h"
#include "core/vision/model_paths.h"
#include "core/vision/robust_homography.h"
#include "core/vision/superpoint_extractor.h"
#include "core/vision/vlad.h"

namespace skytrace::nav {
namespace {

using Clock = std::chrono::steady_clock;

// The rejection reason of a fix placed farther from its prior than the search allows.
constexpr const char* kFarFromPrior = "inconsistent_with_odometry";

double elapsedMs(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

cv::Matx33d toMatx(const vision::Matrix3d& m) {
  return cv::Matx33d(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
}

// A basemap window and its exact-enough affine relation to ENU (fitted at three points
// through the CRS transform; < 1 cm over a few km).
struct MapWindow {
  cv::Mat bgr;
  cv::Mat valid;
  double gsd_m = 0.0;
  cv::Matx33d pixel_from_enu = cv::Matx33d::eye();  // OpenCV pixel centres
  cv::Matx33d enu_from_pixel = cv::Matx33d::eye();
};

struct OpenBasemap {
  std::unique_ptr<geo::Basemap> map;
  cv::Rect2d coverage_enu;  // envelope of the raster's outline in ENU
};

// An image as the fine matchers see it: pixels, plus local features when the stage
// extracts them (VLAD retrieval or local-feature matching).
struct MatchImage {
  cv::Mat bgr;
  vision::FeatureSet features;
  std::vector<cv::Point2f> keypoints;  // host copy of features' keypoints
};

// Corresponding points, query[k] <-> reference[k], in each image's pixels.
struct Correspondences {
  std::vector<cv::Point2f> query;
  std::vector<cv::Point2f> reference;
};

// The fine-matching seam: point pairs between a frame image (rectified or scaled) and a
// map image (window or tile). Thread: the registrar's.
class FineMatcher {
 public:
  virtual ~FineMatcher() = default;
  virtual bool needsLocalFeatures() const = 0;
  virtual Correspondences match(const MatchImage& query, const MatchImage& reference) = 0;
};

// Local features (extracted by the registrar) + mutual nearest neighbours.
class LocalFeatureFineMatcher final : public FineMatcher {
 public:
  LocalFeatureFineMatcher() {
    vision::MatchOptions options;
    options.max_ratio = 0.9f;
    matcher_ = vision::createMatcher("mnn", options);
  }
  bool needsLocalFeatures() const override { return true; }
  Correspondences match(const MatchImage& query, const MatchImage& reference) override {
    Correspondences out;
    if (query.features.empty() || reference.features.empty()) return out;
    const vision::Matches matches = matcher_->match(query.features, reference.features);
    for (int k = 0; k < matches.size(); ++k) {
      out.query.push_back(query.keypoints[std::size_t(matches.index_a[k])]);
      out.reference.push_back(reference.keypoints[std::size_t(matches.index_b[k])]);
    }
    return out;
  }

 private:
  std::unique_ptr<vision::Matcher> matcher_;
};

// A dense matcher (LiteSAM) on both images scaled by ONE factor, so that the larger image's
// long side is resize_long_side_px: the pair keeps its relative scale (the model is trained
// on same-scale pairs), unlike resizing each image to the same long side.
class DenseFineMatcher final : public FineMatcher {
 public:
  explicit DenseFineMatcher(const vision::DenseMatcherOptions& options)
      : long_side_px_(options.resize_long_side_px) {
    vision::DenseMatcherOptions unscaled = options;
    unscaled.resize_long_side_px = 0;
    matcher_ = vision::createDenseMatcher(unscaled);
  }
  bool needsLocalFeatures() const override { return false; }
  Correspondences match(const MatchImage& query, const MatchImage& reference) override {
    Correspondences out;
    const int longest = std::max({query.bgr.cols, query.bgr.rows, reference.bgr.cols, reference.bgr.rows});
    const double scale = long_side_px_ > 0 ? double(long_side_px_) / longest : 1.0;
    const cv::Mat a = scaled(query.bgr, scale), b = scaled(reference.bgr, scale);
    if (std::min({a.cols, a.rows, b.cols, b.rows}) < 32) return out;  // too small to match
    const vision::DenseMatches matches = matcher_->match(a, b);
    auto unscale = [scale](const cv::Point2f& p) {
      return cv::Point2f(float((p.x + 0.5) / scale - 0.5), float((p.y + 0.5) / scale - 0.5));
    };
    for (int k = 0; k < matches.size(); ++k) {
      out.query.push_back(unscale(matches.points_a[std::size_t(k)]));
      out.reference.push_back(unscale(matches.points_b[std::size_t(k)]));
    }
    return out;
  }

 private:
  static cv::Mat scaled(const cv::Mat& image, double scale) {
    if (scale == 1.0) return image;
    cv::Mat out;
    cv::resize(image, out, cv::Size(), scale, scale, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    return out;
  }

  int long_side_px_;
  std::unique_ptr<vision::DenseMatcher> matcher_;
};

// One global-search tile: its map window, features (when extracted) and descriptors.
struct Tile {
  int basemap = 0;
  MapWindow window;
  MatchImage image;
  vision::GlobalDescriptor vlad;
  vision::GlobalDescriptor learned;  // RetrievalMethod::kGlobalDescriptor
};

struct TileCache {
  double gsd_m = 0.0;
  std::uint64_t last_used = 0;  // State::calls when last searched
  bool too_large = false;  // the maps need more than max_global_search_tiles tiles
  std::vector<Tile> tiles;
  vision::VladVocabulary vocabulary;
};

// A global search under construction: its map windows are read in order on a thread of
// their own (`windows`, with its own Basemaps) while the registrar's thread extracts the
// windows read so far, one at a time, by tilesFor at once or by prepareWhileIdle between
// requests. Reading is a large part of the preparation (0.40-0.47 s of 1.1-1.3 s for
// the 23 tiles of the test flight's map, measured on an H200 machine).
struct PendingTiles {
  std::pair<long, long> key;  // State::searchKey
  TileCache cache;
  std::vector<std::pair<int, cv::Rect2d>> rects;  // (basemap, rectangle in ENU), every tile
  std::size_t next = 0;                           // rects[next] is extracted next
  std::unique_ptr<OrderedPrefetch<MapWindow>> windows;  // rects' windows, in order
};

// The window of `map` over `rect_enu` (ENU metres of `enu`, at the ground height
// `ground_up_m`) at `gsd_m`, with its affine ENU -> pixel relation exact at three points
// of the window. Thread: any that owns `map` (or may share it: Basemap serialises reads).
MapWindow readMapWindow(const geo::Basemap& map, const geo::LocalEnuFrame& enu, double ground_up_m,
                        const cv::Rect2d& rect_enu, double gsd_m) {
  const geo::MapGeoConverter& converter = map.converter();
  std::vector<geo::MapPoint> corners;
  for (double fy : {0.0, 0.5, 1.0}) {
    for (double fx : {0.0, 0.5, 1.0}) {
      corners.push_back(converter.mapFromEnu(
          enu, {rect_enu.x + fx * rect_enu.width, rect_enu.y + fy * rect_enu.height, ground_up_m}));
    }
  }
  const geo::MapRect rect_in_map = geo::envelopeOf(corners);
  geo::BasemapWindow w = map.readWindow(rect_in_map, gsd_m);
  MapWindow out;
  cv::cvtColor(w.rgb, out.bgr, cv::COLOR_RGB2BGR);
  out.valid = w.valid;
  out.gsd_m = w.gsd_m;
  // Three ENU points -> OpenCV pixel coordinates (GDAL corner convention - 0.5).
  const cv::Point2d enu_points[3] = {{rect_enu.x, rect_enu.y},
                                     {rect_enu.x + rect_enu.width, rect_enu.y},
                                     {rect_enu.x, rect_enu.y + rect_enu.height}};
  cv::Point2f src[3], dst[3];
  for (int i = 0; i < 3; ++i) {
    const geo::MapPoint m = converter.mapFromEnu(enu, {enu_points[i].x, enu_points[i].y, ground_up_m});
    const geo::PixelPoint p = w.map_from_pixel.pixelFromMap(m);
    // Offsets keep float precision: fit in coordinates relative to the first point.
    src[i] = cv::Point2f(float(enu_points[i].x - rect_enu.x), float(enu_points[i].y - rect_enu.y));
    dst[i] = cv::Point2f(float(p.col - 0.5), float(p.row - 0.5));
  }
  const cv::Mat a = cv::getAffineTransform(src, dst);  // pixel from (enu - origin)
  cv::Matx33d pixel_from_local(a.at<double>(0, 0), a.at<double>(0, 1), a.at<double>(0, 2),
                               a.at<double>(1, 0), a.at<double>(1, 1), a.at<double>(1, 2), 0, 0, 1);
  const cv::Matx33d local_from_enu(1, 0, -rect_enu.x, 0, 1, -rect_enu.y, 0, 0, 1);
  out.pixel_from_enu = pixel_from_local * local_from_enu;
  out.enu_from_pixel = out.pixel_from_enu.inv();
  return out;
}

cv::Rect2d envelope(const std::vector<cv::Point2d>& points) {
  double x0 = points[0].x, x1 = x0, y0 = points[0].y, y1 = y0;
  for (const auto& p : points) {
    x0 = std::min(x0, p.x);
    x1 = std::max(x1, p.x);
    y0 = std::min(y0, p.y);
    y1 = std::max(y1, p.y);
  }
  return {x0, y0, x1 - x0, y1 - y0};
}

// The map at `path`, opened, with its coverage in `enu`.
OpenBasemap openBasemap(const std::string& path, const geo::LocalEnuFrame& enu) {
  OpenBasemap b;
  b.map = std::make_unique<geo::Basemap>(geo::Basemap::open(path));
  const geo::MapRect bounds = b.map->mapBounds();
  std::vector<cv::Point2d> corners;
  for (double fy : {0.0, 0.5, 1.0}) {
    for (double fx : {0.0, 0.5, 1.0}) {
      const geo::EnuPoint e = b.map->converter().enuFromMap(
          enu, {bounds.min_x + fx * bounds.width(), bounds.min_y + fy * bounds.height()});
      corners.emplace_back(e.east_m, e.north_m);
    }
  }
  b.coverage_enu = envelope(corners);
  return b;
}

// The ground resolution to match at: the frame's, but not finer than the map's; when the
// map is much coarser than the frame (> 4x), at half the map's pixel, so that the frame
// keeps enough pixels for features (the map is then upsampled, bilinear). Matching finer
// still (the frame's shorter side kept at 240 px) located 6 instead of 8 of the Brighton
// Beach photos; over maps 3-10x coarser, area correlation places the frames instead.
double matchingGsdM(double frame_gsd_m, double map_pixel_m) {
  if (map_pixel_m > 4.0 * frame_gsd_m) return 0.5 * map_pixel_m;
  return std::max(frame_gsd_m, map_pixel_m);
}

}  // namespace

void RegistrationOptions::check() const {
  features.check();
  checkArgument(search_sigma_factor > 0, "registration search_sigma_factor must be > 0");
  checkArgument(min_search_margin_m >= 0, "registration min_search_margin_m must be >= 0");
  checkArgument(area_correlation_map_ratio >= 0, "registration area_correlation_map_ratio must be >= 0");
  area_correlation.check();
  checkArgument(min_inliers >= 8, "registration min_inliers must be >= 8");
  checkArgument(min_inlier_ratio >= 0 && min_inlier_ratio < 1,
                "registration min_inlier_ratio must be in [0, 1)");
  checkArgument(consistent_inlier_ratio > min_inlier_ratio && consistent_inlier_ratio <= 1,
                "registration consistent_inlier_ratio must be in (min_inlier_ratio, 1]");
  checkArgument(verified_height_tolerance > 0 && verified_height_tolerance < 1,
                "registration verified_height_tolerance must be in (0, 1)");
  checkArgument(verified_max_tilt_deg > 0 && verified_max_tilt_deg < 90,
                "registration verified_max_tilt_deg must be in (0, 90)");
  checkArgument(verified_inlier_ratio >= min_inlier_ratio && verified_inlier_ratio <= 1,
                "registration verified_inlier_ratio must be in [min_inlier_ratio, 1]");
  checkArgument(ransac_threshold_px > 0, "registration ransac_threshold_px must be > 0");
  checkArgument(min_height_ratio > 0 && max_height_ratio > min_height_ratio,
                "registration height ratios must satisfy 0 < min < max");
  checkArgument(tile_footprint_factor >= 1.0, "registration tile_footprint_factor must be >= 1");
  checkArgument(global_candidates >= 1, "registration global_candidates must be >= 1");
  checkArgument(min_ranking_features >= 0, "registration min_ranking_features must be >= 0");
  checkArgument(few_feature_candidates >= global_candidates,
                "registration few_feature_candidates must be >= global_candidates");
  checkArgument(max_global_search_tiles >= 1, "registration max_global_search_tiles must be >= 1");
  checkArgument(vlad_clusters >= 2, "registration vlad_clusters must be >= 2");
  checkArgument(!search_heights_m.empty(), "registration search_heights_m must not be empty");
  for (const double h : search_heights_m)
    checkArgument(std::isfinite(h) && h > 0.0, "registration search_heights_m must be > 0 m");
  if (retrieval == RetrievalMethod::kGlobalDescriptor) {
    vision::GlobalDescriptorOptions descriptor = retrieval_descriptor;
    descriptor.device = features.device;
    descriptor.check();
  }
  if (fine_matching == FineMatching::kDenseMatcher) {
    vision::DenseMatcherOptions dense = dense_matcher;
    dense.device = features.device;
    dense.check();
  }
  checkArgument(feature_rotations == 1 || feature_rotations == 2 || feature_rotations == 4 ||
                    feature_rotations == 8,
                "registration feature_rotations must be 1, 2, 4 or 8, got " + std::to_string(feature_rotations));
  checkArgument(dense_rotations == 1 || dense_rotations == 2 || dense_rotations == 4 ||
                    dense_rotations == 8,
                "registration dense_rotations must be 1, 2, 4 or 8, got " +
                    std::to_string(dense_rotations));
}

struct BasemapRegistrar::State {
  geo::LocalEnuFrame enu{geo::GeoPoint{}};
  double ground_up_m = 0.0;
  CameraModel camera;
  RegistrationOptions options;
  std::vector<OpenBasemap> basemaps;
  // Local features: created when VLAD or the fine matcher needs them (else null).
  std::unique_ptr<vision::FeatureExtractor> frame_extractor;
  std::unique_ptr<vision::FeatureExtractor> map_extractor;  // twice the keypoint budget
  // Prior mode's map tiles at the camera-pixel density (featureCacheFor), and their
  // options (the frame's model after any fallback) for the denser tiles of a much
  // coarser map.
  std::unique_ptr<vision::FeatureExtractor> tile_extractor;
  vision::ExtractorOptions tile_options;
  std::unique_ptr<FineMatcher> fine_matcher;
  std::unique_ptr<vision::GlobalDescriptorExtractor> descriptor;  // kGlobalDescriptor only
  cv::Mat undistort_map_x, undistort_map_y;  // undistorted pixel -> distorted pixel
  // Prepared global searches by quantised GSD, at most maxTileCaches() (least recently
  // used first out): each holds every tile's features (with a dense matcher its
  // windows), and a flight whose height estimate wanders would otherwise add one per
  // 10 % of height for the whole run.
  std::size_t maxTileCaches() const { return options.search_heights_m.size() + 1; }
  // Bound on the map windows read ahead of a global search's extraction (about 4 MB per
  // window of 1024 px).
  static constexpr double kMaxWindowsAheadBytes = 256.0 * 1024 * 1024;
  // A global search scale whose frame, scaled to its tiles, has a shorter side than this
  // is left out (too few pixels for features).
  static constexpr double kMinScaledFramePx = 96.0;
  std::map<std::pair<long, long>, TileCache> tile_caches;  // by searchKey
  // Prior mode with local features: the map's features by (basemap, quantised GSD), at
  // most kMaxFeatureCaches (least recently used first out), each at most
  // kMaxFeatureTiles tiles of kFeatureTileCorePx.
  static constexpr std::size_t kMaxFeatureCaches = 4;
  static constexpr std::size_t kMaxFeatureTiles = 64;
  static constexpr int kFeatureTileCorePx = 768;
  static constexpr int kFeatureTileMarginPx = 32;  // read around a tile's core
  struct KeptFeatureCache {
    // Its tiles' extractor when denser than tile_extractor (declared first: outlives the cache).
    std::unique_ptr<vision::FeatureExtractor> extractor;
    std::unique_ptr<MapFeatureCache> cache;
    std::uint64_t last_used = 0;
  };
  std::map<std::pair<int, long>, KeptFeatureCache> feature_caches;
  SearchMonitor search_monitor;              // may be empty
  std::uint64_t calls = 0;
  vision::ImageTransfers keyframe_transfers;  // device frames downloaded for registration
  StageMarker* stages = nullptr;              // of the registerFrame call under way (may be null)

  // Prior mode's map reads, through the registrar's own Basemaps. A read that fails is
  // tried once more on the file opened anew: a map replaced on disk (copied over after a
  // bad transfer) is read from the new file, as the global search's reader, which opens
  // its own, does. Features already cached from the old file are kept (the new file is
  // taken for the same map). Throws the second read's (or the reopening's) error.
  MapWindow readWindow(int basemap_index, const cv::Rect2d& rect_enu, double gsd_m) {
    OpenBasemap& b = basemaps[std::size_t(basemap_index)];
    try {
      return readMapWindow(*b.map, enu, ground_up_m, rect_enu, gsd_m);
    } catch (const FormatError&) {
      b = openBasemap(b.map->path(), enu);
      return readMapWindow(*b.map, enu, ground_up_m, rect_enu, gsd_m);
    }
  }

  cv::Mat undistortedFrame(const cv::Mat& image) {
    if (camera.distortion.isZero()) return image;
    if (undistort_map_x.empty()) {
      undistort_map_x.create(camera.height_px, camera.width_px, CV_32F);
      undistort_map_y.create(camera.height_px, camera.width_px, CV_32F);
      for (int v = 0; v < camera.height_px; ++v) {
        for (int u = 0; u < camera.width_px; ++u) {
          const cv::Point2d n((u - camera.cx_px) / camera.fx_px, (v - camera.cy_px) / camera.fy_px);
          const cv::Point2d d = camera.pixelFromNormalized(n);
          undistort_map_x.at<float>(v, u) = float(d.x);
          undistort_map_y.at<float>(v, u) = float(d.y);
        }
      }
    }
    cv::Mat out;
    cv::remap(image, out, undistort_map_x, undistort_map_y, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
    return out;
  }

  // An image with the local features of `extractor` (none when null).
  static MatchImage matchImage(const cv::Mat& bgr, vision::FeatureExtractor* extractor) {
    MatchImage out{bgr, {}, {}};
    if (extractor) {
      out.features = extractor->extract(bgr);
      out.keypoints = out.features.keypoints();
    }
    return out;
  }

  // Fits reference_from_query to the correspondences whose points lie in the valid masks
  // (empty mask: all valid).
  struct PairFit {
    vision::RansacResult ransac;
    int matches = 0;
    cv::Matx33d reference_from_query = cv::Matx33d::eye();
  };
  PairFit fitPair(const Correspondences& pairs, const cv::Mat& query_valid,
                  const cv::Mat& reference_valid) {
    PairFit out;
    std::vector<vision::Point2d> a, b;
    auto inside = [](const cv::Mat& mask, const cv::Point2f& p) {
      if (mask.empty()) return true;
      const int x = int(std::lround(p.x)), y = int(std::lround(p.y));
      return x >= 0 && y >= 0 && x < mask.cols && y < mask.rows && mask.at<uint8_t>(y, x) != 0;
    };
    for (std::size_t k = 0; k < pairs.query.size(); ++k) {
      const cv::Point2f& q = pairs.query[k];
      const cv::Point2f& r = pairs.reference[k];
      if (!inside(query_valid, q) || !inside(reference_valid, r)) continue;
      a.push_back({q.x, q.y});
      b.push_back({r.x, r.y});
    }
    out.matches = int(a.size());
    if (out.matches < options.min_inliers) return out;
    vision::RansacOptions ransac;
    ransac.model = vision::GeometricModelType::Homography;
    ransac.inlier_threshold_px = options.ransac_threshold_px;
    ransac.seed = options.seed + calls;
    ransac.device = options.features.device;
    out.ransac = vision::estimateHomography(a, b, ransac, options.robust_estimator);
    if (out.ransac.found) out.reference_from_query = toMatx(out.ransac.model);
    return out;
  }

  // Pose from window_from_image, checks and quality. `prior` may be empty.
  void finishFix(const cv::Matx33d& window_from_image, const MapWindow& window,
                 const PairFit& fit, const RegistrationRequest& request, double expected_height_m,
                 RegistrationFix* fix) const {
    fix->matches = fit.matches;
    fix->inliers = fit.ransac.num_inliers;
    fix->inlier_ratio = fit.matches > 0 ? double(fit.ransac.num_inliers) / fit.matches : 0.0;
    if (!fit.ransac.found || fix->inliers < options.min_inliers) {
      fix->reason = "too_few_inliers";
      return;
    }
    // Without a prior, repetitive texture (orchards, rows) yields small consistent-looking
    // inlier sets anywhere among many matches: demand twice the evidence, unless nearly
    // every match agrees or the camera is where the request's measurements put it.
    const bool consistent = fix->inlier_ratio >= options.consistent_inlier_ratio;
    if (!request.prior && !consistent && fix->inliers < 2 * options.min_inliers &&
        !geometryAsMeasured(window.enu_from_pixel * window_from_image, request, *fix)) {
      fix->reason = "too_few_inliers";
      return;
    }
    if (!placeFix(window_from_image, window, request, fix)) return;
    const double rms_m = fit.ransac.rms_inlier_error_px * window.gsd_m;
    fix->sigma_m = std::hypot(1.0, 3.0 * rms_m / std::sqrt(double(fix->inliers)) + rms_m);
    fix->yaw_sigma_deg = 1.0;
    fix->score = std::clamp(fix->inlier_ratio * std::min(1.0, fix->inliers / 100.0), 0.0, 1.0);
    if (fix->inlier_ratio < options.min_inlier_ratio) {
      fix->reason = "low_inlier_ratio";
      return;
    }
    acceptIfPlausible(request, expected_height_m, fix);
  }

  // RegistrationOptions::verified_*: the unconstrained camera of `ground_from_image`
  // (frame pixels -> ENU ground) at the measured height and attitude of `request`.
  bool geometryAsMeasured(const cv::Matx33d& ground_from_image, const RegistrationRequest& request,
                          const RegistrationFix& fix) const {
    if (!(request.height_hint_m > 0.0) || fix.inlier_ratio < options.verified_inlier_ratio) return false;
    CameraPose pose;
    if (!poseFromImageFromGround(camera, ground_from_image.inv(), ground_up_m, request.t_s, &pose)) return false;
    const double height_m = pose.position_enu[2] - ground_up_m;
    if (std::abs(height_m / request.height_hint_m - 1.0) > options.verified_height_tolerance) return false;
    const double expected_tilt_deg = std::isfinite(request.pitch_hint_deg) ? 90.0 + request.pitch_hint_deg : 0.0;
    return std::abs(90.0 + pose.pitch_deg - expected_tilt_deg) <= options.verified_max_tilt_deg;
  }

  // Without a logged attitude a fix's tilt comes from the homography's perspective alone.
  // Through a narrow lens that perspective is within the matches' noise (a degraded map,
  // a season apart), and a fitted homography carries a tilt that is not there: a 5.7 deg
  // lens 60 m up, searched at 0.036 m, gave 10-21 deg in a global search, the camera up to
  // 21 m from where it was; a 17 deg lens 60 m up over a 0.1 m map, where 5 deg of tilt
  // moves the frame by 1.1-1.5 map pixels, gave 2-20 deg for a camera tilted 4.8 deg
  // (fixes 4-15 m off) and 2-6 deg for a nadir one. Where a 5 deg tilt about either image
  // axis would move no pixel of the frame by kSeenTiltPx window pixels and the fit tilts
  // at most kMaxUnseenTiltDeg, the tilt is unseen: the nadir camera that views the frame
  // where the fit does is the pose. A wider lens sees its tilt (a 27 deg lens 150 m up:
  // 5 deg moves the frame by 4.6-6.2 px, and its fits are within a degree of the truth):
  // that pose is kept. Nullopt: keep.
  static constexpr double kProbeTiltDeg = 5.0;
  static constexpr double kSeenTiltPx = 2.0;
  static constexpr double kMaxUnseenTiltDeg = 25.0;
  std::optional<CameraPose> nadirWhereTiltUnseen(const CameraPose& pose, const cv::Matx33d& ground_from_image,
                                                 const MapWindow& window) const {
    if (90.0 + pose.pitch_deg > kMaxUnseenTiltDeg) return std::nullopt;
    CameraPose nadir;
    double deviation_m = 0.0;
    if (!nearestNadirPose(camera, ground_from_image, ground_up_m, pose, &nadir, &deviation_m)) return std::nullopt;
    // Tilted forward (about the image's rows) and sideways (about its columns: the tilt's
    // direction turned by 90 deg, the image turned back by the roll, which at nadir would
    // only turn the image).
    for (const auto& [pitch, roll] :
         {std::pair(-90.0 + kProbeTiltDeg, 0.0), std::pair(-90.0 + kProbeTiltDeg, -90.0)}) {
      const CameraPose probe = constrainAttitude(camera, nadir, pitch, roll, ground_up_m);
      CameraPose probe_nadir;
      double probe_deviation_m = 0.0;
      if (!nearestNadirPose(camera, groundFromImage(camera, probe, ground_up_m), ground_up_m, probe, &probe_nadir,
                            &probe_deviation_m) ||
          probe_deviation_m >= kSeenTiltPx * window.gsd_m)
        return std::nullopt;
    }
    return nadir;
  }

  // The camera pose of `window_from_image` (frame pixels -> `window` pixels), with the
  // request's pitch/roll hints, or without them the nadir camera where the image cannot
  // show tilt; false (reason bad_geometry) when it has none.
  bool placeFix(const cv::Matx33d& window_from_image, const MapWindow& window, const RegistrationRequest& request,
                RegistrationFix* fix) const {
    const cv::Matx33d ground_from_image = window.enu_from_pixel * window_from_image;
    fix->image_from_ground = ground_from_image.inv();
    CameraPose pose;
    if (!poseFromImageFromGround(camera, fix->image_from_ground, ground_up_m, request.t_s, &pose)) {
      fix->reason = "bad_geometry";
      return false;
    }
    if (std::isfinite(request.pitch_hint_deg)) {
      pose = constrainAttitude(camera, pose, request.pitch_hint_deg,
                               std::isfinite(request.roll_hint_deg) ? request.roll_hint_deg : 0.0,
                               ground_up_m);
      fix->image_from_ground = imageFromGround(camera, pose, ground_up_m);
    } else if (const std::optional<CameraPose> nadir = nadirWhereTiltUnseen(pose, ground_from_image, window)) {
      pose = *nadir;
      fix->image_from_ground = imageFromGround(camera, pose, ground_up_m);
    }
    fix->pose = pose;
    fix->has_pose = true;
    return true;
  }

  // Accepts a placed fix whose height, tilt and distance from the prior are plausible.
  void acceptIfPlausible(const RegistrationRequest& request, double expected_height_m, RegistrationFix* fix) const {
    const CameraPose& pose = fix->pose;
    const double height = pose.position_enu[2] - ground_up_m;
    if (expected_height_m > 0 && (height < options.min_height_ratio * expected_height_m ||
                                  height > options.max_height_ratio * expected_height_m)) {
      fix->reason = "bad_geometry";
      return;
    }
    if (request.prior) {
      const double tilt_now = 90.0 + pose.pitch_deg;
      const double tilt_prior = 90.0 + request.prior->pitch_deg;
      if (std::abs(tilt_now - tilt_prior) > options.max_tilt_from_prior_deg) {
        fix->reason = "bad_geometry";
        return;
      }
      const double distance = std::hypot(pose.position_enu[0] - request.prior->position_enu[0],
                                         pose.position_enu[1] - request.prior->position_enu[1]);
      if (distance > options.search_sigma_factor * request.prior_sigma_m + options.min_search_margin_m) {
        fix->reason = kFarFromPrior;
        return;
      }
    } else if (std::abs(90.0 + pose.pitch_deg) > 60.0) {
      fix->reason = "bad_geometry";
      return;
    }
    fix->accepted = true;
    fix->reason.clear();
  }

  // Prior mode over a map much coarser than the frame (area_correlation.h): the frame,
  // reduced to the map's pixel and rectified onto the map window read at that pixel
  // through the prior, is placed by correlation. Host work (a device keyframe is
  // downloaded once).
  RegistrationFix registerByAreaCorrelation(const RegistrationRequest& request, RegistrationFix fix,
                                            int basemap_index, cv::Rect2d rect, double height) {
    const CameraPose& prior = *request.prior;
    const double map_gsd = basemaps[std::size_t(basemap_index)].map->pixelSizeM();
    // The frame is slid over the window at every rotation on a square canvas of its
    // diagonal: widen the window by that much so that every shift within the search
    // margin is tried, and peaks elsewhere can show that the best one is not unique.
    const double frame_gsd = groundSampleDistanceM(camera, prior, ground_up_m);
    const double widen_m = 0.5 * std::hypot(camera.width_px, camera.height_px) * frame_gsd;
    rect = cv::Rect2d(rect.x - widen_m, rect.y - widen_m, rect.width + 2 * widen_m, rect.height + 2 * widen_m);
    const MapWindow window = readWindow(basemap_index, rect, map_gsd);
    if (window.bgr.empty() || cv::countNonZero(window.valid) == 0) {
      fix.reason = "no_candidate";
      return fix;
    }
    // The frame at about the map's pixel (area average: no aliasing), then onto the grid.
    const cv::Mat undistorted = undistortedFrame(request.image.hostPixels(&keyframe_transfers));
    const double reduce = std::min(1.0, frame_gsd / window.gsd_m);
    const cv::Size small_size(std::max(1, int(std::lround(undistorted.cols * reduce))),
                              std::max(1, int(std::lround(undistorted.rows * reduce))));
    cv::Mat small;
    cv::resize(undistorted, small, small_size, 0, 0, cv::INTER_AREA);
    const double sx = double(small.cols) / undistorted.cols, sy = double(small.rows) / undistorted.rows;
    // small pixel centre = (image pixel centre + 0.5) * s - 0.5
    const cv::Matx33d small_from_image(sx, 0, 0.5 * sx - 0.5, 0, sy, 0.5 * sy - 0.5, 0, 0, 1);
    const cv::Matx33d window_from_image_prior = window.pixel_from_enu * groundFromImage(camera, prior, ground_up_m);
    const cv::Matx33d window_from_small = window_from_image_prior * small_from_image.inv();
    cv::Mat rectified, rectified_valid;
    cv::warpPerspective(small, rectified, cv::Mat(window_from_small), window.bgr.size(), cv::INTER_LINEAR,
                        cv::BORDER_CONSTANT);
    cv::warpPerspective(cv::Mat(small.size(), CV_8UC1, cv::Scalar(255)), rectified_valid, cv::Mat(window_from_small),
                        window.bgr.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT);
    cv::erode(rectified_valid, rectified_valid, cv::Mat(), cv::Point(-1, -1), 1);

    AreaCorrelationOptions area = options.area_correlation;
    if (!request.prior_heading_known) {  // the whole circle, in coarser steps
      area.max_rotation_deg = 180.0;
      area.rotation_step_deg = std::max(area.rotation_step_deg, 3.0);
    }
    const AreaCorrelation c = correlateWithMap(rectified, rectified_valid, window.bgr, window.valid, area);
    fix.area_correlation = true;
    fix.matches = 0;
    fix.inliers = 0;
    fix.inlier_ratio = 0.0;
    fix.score = std::max(0.0, c.peak);
    if (!c.found) {
      fix.reason = c.reason == "ambiguous" || c.reason == "low_correlation" ? "weak_correlation" : "too_few_inliers";
      return fix;
    }
    if (!placeFix(c.window_from_rectified * window_from_image_prior, window, request, &fix)) return fix;
    // A correlation peak is good to about half a map pixel at 0.8 and worse below.
    fix.sigma_m = std::hypot(1.0, window.gsd_m * (0.5 + 2.0 * (1.0 - c.peak)));
    fix.yaw_sigma_deg = 2.0;
    acceptIfPlausible(request, height, &fix);
    return fix;
  }

  // Ground resolutions (and global search heights) within ~10 % share a prepared search
  // or a feature cache; bucketValue is the value a bucket stands for.
  static long gsdBucket(double gsd_m) { return std::lround(std::log(gsd_m) * 10.0); }
  static double bucketValue(long bucket) { return std::exp(double(bucket) / 10.0); }

  // The map features of one tile: the window around `core_enu` (plus a margin), its
  // features, keeping those in the core and on valid map pixels (4 px inside, as the
  // window path erodes its mask).
  MapFeatureTile buildFeatureTile(int basemap_index, const cv::Rect2d& core_enu, double gsd_m,
                                  vision::FeatureExtractor& extractor) {
    const double margin_m = kFeatureTileMarginPx * gsd_m;
    const cv::Rect2d read(core_enu.x - margin_m, core_enu.y - margin_m, core_enu.width + 2 * margin_m,
                          core_enu.height + 2 * margin_m);
    const MapWindow window = readWindow(basemap_index, read, gsd_m);
    MapFeatureTile tile;
    const cv::Matx33d& e = window.enu_from_pixel;
    tile.enu_from_pixel = cv::Matx23d(e(0, 0), e(0, 1), e(0, 2), e(1, 0), e(1, 1), e(1, 2));
    if (window.bgr.empty() || cv::countNonZero(window.valid) == 0) return tile;
    cv::Mat valid;
    cv::erode(window.valid, valid, cv::Mat(), cv::Point(-1, -1), 4);
    const vision::FeatureSet all = extractor.extract(window.bgr);
    const std::vector<cv::Point2f> points = all.keypoints();
    std::vector<int> keep;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const cv::Point2f& p = points[i];
      const int x = int(std::lround(p.x)), y = int(std::lround(p.y));
      if (x < 0 || y < 0 || x >= valid.cols || y >= valid.rows || valid.at<uint8_t>(y, x) == 0) continue;
      const cv::Vec3d enu = e * cv::Vec3d(p.x, p.y, 1.0);
      if (enu[0] < core_enu.x || enu[0] >= core_enu.x + core_enu.width || enu[1] < core_enu.y ||
          enu[1] >= core_enu.y + core_enu.height)
        continue;
      keep.push_back(int(i));
    }
    tile.features = vision::selectFeatures(all, keep);
    tile.keypoints_px.reserve(keep.size());
    for (int i : keep) tile.keypoints_px.push_back(points[std::size_t(i)]);
    return tile;
  }

  // Whether basemap `basemap_index` is much coarser than a frame of `frame_gsd_m`: its
  // pixel at least area_correlation_map_ratio x the frame's ground resolution (0: never).
  bool muchCoarserMap(int basemap_index, double frame_gsd_m) const {
    return options.area_correlation_map_ratio > 0 &&
           basemaps[std::size_t(basemap_index)].map->pixelSizeM() >= options.area_correlation_map_ratio * frame_gsd_m;
  }

  // The map features of one basemap at one grid resolution, made on first use for a
  // frame of `frame_gsd_m`. Its tiles get as many keypoints per pixel as the frame's
  // budget gives the camera's pixels, so that a search window (the footprint plus
  // margins) holds about twice the frame's count, as the window path's map side had
  // (twice that density doubled MNN's time on a CPU for no accuracy). Over a much
  // coarser map (its pixel at least area_correlation_map_ratio x the frame's ground
  // resolution) the grid is several times coarser than the frame, and the frame's
  // footprint there covers its pixels shrunk by (frame GSD / grid GSD)^2: the tiles get
  // the frame's density on the grid, at most 4x the camera-pixel density. With the
  // camera-pixel density alone, 1600x900 photos at 0.045 m over a 0.5 m map (grid
  // 0.25 m) met tiles 1/30 as dense as the frame, and registration placed 5-7 of the 18
  // Brighton Beach photos (12 now; 13 see the map).
  MapFeatureCache& featureCacheFor(int basemap_index, long gsd_bucket, double frame_gsd_m) {
    const auto key = std::make_pair(basemap_index, gsd_bucket);
    auto it = feature_caches.find(key);
    if (it == feature_caches.end()) {
      evictLeastRecentlyUsed(feature_caches, kMaxFeatureCaches);
      KeptFeatureCache kept;
      const cv::Rect2d cover = basemaps[std::size_t(basemap_index)].coverage_enu;
      const double gsd = bucketValue(gsd_bucket);
      const bool coarse_map = muchCoarserMap(basemap_index, frame_gsd_m);
      const double shrink = std::clamp(frame_gsd_m / gsd, 1e-3, 1.0);
      const double density_gain = coarse_map ? std::min(4.0, 1.0 / (shrink * shrink)) : 1.0;
      if (density_gain > 1.0) {
        vision::ExtractorOptions denser = tile_options;
        denser.max_keypoints = int(std::lround(tile_options.max_keypoints * density_gain));
        kept.extractor = vision::createFeatureExtractor(denser);
      }
      vision::FeatureExtractor* extractor = kept.extractor ? kept.extractor.get() : tile_extractor.get();
      kept.cache = std::make_unique<MapFeatureCache>(
          cv::Point2d(cover.x, cover.y), kFeatureTileCorePx * gsd, kMaxFeatureTiles,
          [this, basemap_index, gsd, extractor](const cv::Rect2d& core) {
            return buildFeatureTile(basemap_index, core, gsd, *extractor);
          });
      it = feature_caches.emplace(key, std::move(kept)).first;
    }
    it->second.last_used = calls;
    return *it->second.cache;
  }

  // Prior mode with local features. The map side comes from the feature cache; the frame
  // is rectified (through the prior, onto a north-up ENU grid over the search window)
  // only where it lands, on the frame's own device: a device keyframe stays there unless
  // the lens has distortion (then it is downloaded once and undistorted on the host).
  RegistrationFix registerWithPriorFromCache(const RegistrationRequest& request, RegistrationFix fix,
                                             int basemap_index, const cv::Rect2d& rect, double gsd_wanted,
                                             double height) {
    const long bucket = gsdBucket(gsd_wanted);
    MapFeatureCache& cache =
        featureCacheFor(basemap_index, bucket, groundSampleDistanceM(camera, *request.prior, ground_up_m));
    const double gsd = bucketValue(bucket);
    // The grid: pixel centres at (x + 0.5, top - 0.5) * gsd, rows going south.
    const cv::Size grid_size(std::max(1, int(std::ceil(rect.width / gsd))),
                             std::max(1, int(std::ceil(rect.height / gsd))));
    const double top = rect.y + rect.height;
    const cv::Matx33d grid_from_enu(1.0 / gsd, 0, -rect.x / gsd - 0.5, 0, -1.0 / gsd, top / gsd - 0.5, 0, 0, 1);
    MapWindow grid;
    grid.gsd_m = gsd;
    grid.pixel_from_enu = grid_from_enu;
    grid.enu_from_pixel = grid_from_enu.inv();
    const cv::Matx33d grid_from_image = grid_from_enu * groundFromImage(camera, *request.prior, ground_up_m);

    // Where the frame lands on the grid: its border (8 points) through the prior, or the
    // whole grid when part of the frame sees the horizon. A learned extractor, on any
    // device, gets a square around it of a side that holds the frame at any heading (its
    // diagonal at the grid's resolution, plus the margin, in steps of 64 px): one size
    // per ground resolution, because a learned model's first pass over a new shape costs
    // ~50 ms of cuDNN planning (measured on an H200) and a tight crop has a new shape at
    // nearly every keyframe; and one rule for the CPU and the GPU, because a learned
    // model's keypoints depend on the crop (FeatureExtractor::classical): with the
    // frame's envelope on the CPU and the square on a GPU, ALIKED-n16rot's fixes had
    // ~15 % fewer inliers on the CPU and the two tracks of one 20 s flight were 0.13 m
    // apart. A classical extractor gets the envelope plus the margin (fewer pixels on
    // the host; its responses do not depend on the image around the frame).
    cv::Rect crop(0, 0, grid_size.width, grid_size.height);
    {
      const double w = camera.width_px - 1.0, h = camera.height_px - 1.0;
      std::vector<cv::Point2d> landed;
      bool horizon = false;
      for (const cv::Point2d& p : {cv::Point2d(0, 0), cv::Point2d(0.5 * w, 0), cv::Point2d(w, 0),
                                   cv::Point2d(w, 0.5 * h), cv::Point2d(w, h), cv::Point2d(0.5 * w, h),
                                   cv::Point2d(0, h), cv::Point2d(0, 0.5 * h)}) {
        const cv::Vec3d g = grid_from_image * cv::Vec3d(p.x, p.y, 1.0);
        if (g[2] <= 1e-9) {
          horizon = true;
          break;
        }
        landed.emplace_back(g[0] / g[2], g[1] / g[2]);
      }
      if (!horizon) {
        // Plus a margin, so that features near the frame's edges are not lost to the
        // extractor's own border (ORB's 31 px, ALIKED's NMS): the window path had the
        // whole window around the frame.
        const cv::Rect2d box = envelope(landed);
        const int pad = kFeatureTileMarginPx;
        if (!frame_extractor->classical()) {
          const double frame_to_grid = groundSampleDistanceM(camera, *request.prior, ground_up_m) / gsd;
          const double diagonal = std::hypot(camera.width_px, camera.height_px) * frame_to_grid;
          const int side = 64 * int(std::ceil((diagonal + 2 * pad) / 64.0));
          crop = cv::Rect(int(std::lround(box.x + 0.5 * box.width)) - side / 2,
                          int(std::lround(box.y + 0.5 * box.height)) - side / 2, side, side);
        } else {
          const cv::Rect bounds(int(std::floor(box.x)) - pad, int(std::floor(box.y)) - pad,
                                int(std::ceil(box.width)) + 2 * pad + 1, int(std::ceil(box.height)) + 2 * pad + 1);
          crop &= bounds;
        }
      }
    }
    if (crop.area() < 32 * 32) {
      fix.reason = "no_candidate";  // the frame does not land on the map window
      return fix;
    }
    const cv::Matx33d crop_from_image =
        cv::Matx33d(1, 0, -crop.x, 0, 1, -crop.y, 0, 0, 1) * grid_from_image;
    vision::Image source = camera.distortion.isZero()
                               ? request.image.to(options.features.device, &keyframe_transfers)
                               : vision::Image::fromHost(undistortedFrame(request.image.hostPixels(&keyframe_transfers)));
    const vision::Image rectified = vision::warpPerspective(source, crop_from_image, crop.size());

    MatchImage frame;
    frame.features = frame_extractor->extract(rectified);
    frame.keypoints = frame.features.keypoints();
    for (cv::Point2f& p : frame.keypoints) p += cv::Point2f(float(crop.x), float(crop.y));
    GridFeatures gathered = cache.gather(rect, grid_from_enu, grid_size);
    latest_window = LatestWindow{basemap_index, bucket, rect};
    MatchImage map;
    map.features = std::move(gathered.features);
    map.keypoints = std::move(gathered.keypoints_px);
    Correspondences pairs = fine_matcher->match(frame, map);

    // Frame points that came from at least 4 grid pixels inside the frame (the window
    // path's 4-px erosion of the rectified frame's mask).
    const cv::Matx33d image_from_grid = grid_from_image.inv();
    const double margin_px = 4.0 * gsd / std::max(1e-9, groundSampleDistanceM(camera, *request.prior, ground_up_m));
    Correspondences inside;
    for (std::size_t k = 0; k < pairs.query.size(); ++k) {
      const cv::Vec3d q = image_from_grid * cv::Vec3d(pairs.query[k].x, pairs.query[k].y, 1.0);
      if (q[2] <= 0) continue;
      const double u = q[0] / q[2], v = q[1] / q[2];
      if (u < margin_px || v < margin_px || u > camera.width_px - 1 - margin_px ||
          v > camera.height_px - 1 - margin_px)
        continue;
      inside.query.push_back(pairs.query[k]);
      inside.reference.push_back(pairs.reference[k]);
    }
    const PairFit fit = fitPair(inside, cv::Mat(), cv::Mat());
    finishFix(fit.reference_from_query * grid_from_image, grid, fit, request, height, &fix);
    return fix;
  }

  // Prior mode: rectify the frame onto the map grid through the predicted pose (with
  // local features: registerWithPriorFromCache; a dense matcher: the map window's pixels).
  RegistrationFix registerWithPrior(const RegistrationRequest& request) {
    RegistrationFix fix;
    fix.frame = request.frame;
    fix.t_s = request.t_s;
    const CameraPose& prior = *request.prior;
    const double height = prior.position_enu[2] - ground_up_m;
    const double frame_gsd = groundSampleDistanceM(camera, prior, ground_up_m);
    const std::vector<cv::Point2d> footprint =
        groundFootprint(camera, prior, ground_up_m, std::max(50.0, 4.0 * height));
    cv::Rect2d rect = envelope(footprint);
    const double margin =
        std::max(options.min_search_margin_m, options.search_sigma_factor * request.prior_sigma_m);
    rect.x -= margin;
    rect.y -= margin;
    rect.width += 2 * margin;
    rect.height += 2 * margin;

    auto start = Clock::now();
    const StageScope fine_match_stage(stages, Stage::FineMatch);
    // The basemap covering the predicted footprint centre best.
    int best_map = -1;
    double best_overlap = 0.0;
    for (std::size_t i = 0; i < basemaps.size(); ++i) {
      // Share of the search window, or of the whole map when the map is the smaller one.
      const cv::Rect2d overlap = basemaps[i].coverage_enu & rect;
      const double area =
          overlap.area() / std::max(1e-9, std::min(rect.area(), basemaps[i].coverage_enu.area()));
      if (area > best_overlap + 1e-9) {
        best_overlap = area;
        best_map = int(i);
      }
    }
    if (best_map < 0 || best_overlap < 0.05) {
      fix.reason = "no_candidate";
      return fix;
    }
    const OpenBasemap& b = basemaps[std::size_t(best_map)];
    double gsd = matchingGsdM(frame_gsd, b.map->pixelSizeM());
    const double max_side_px = 1600.0;
    gsd = std::max(gsd, std::max(rect.width, rect.height) / max_side_px);
    fix.basemap_index = best_map;
    if (fine_matcher->needsLocalFeatures()) {
      const RegistrationFix unplaced = fix;
      fix = registerWithPriorFromCache(request, fix, best_map, rect, gsd, height);
      const bool coarse_map = muchCoarserMap(best_map, frame_gsd);
      if (!fix.accepted && coarse_map && (fix.reason == "too_few_inliers" || fix.reason == "low_inlier_ratio")) {
        fix = registerByAreaCorrelation(request, unplaced, best_map, rect, height);
      }
      fix.fine_match_ms = elapsedMs(start);
      return fix;
    }
    MapWindow window = readWindow(best_map, rect, gsd);

    // Frame -> window pixels through the prior.
    const cv::Matx33d window_from_image_prior =
        window.pixel_from_enu * groundFromImage(camera, prior, ground_up_m);
    cv::Mat rectified;
    const cv::Mat undistorted = undistortedFrame(request.image.hostPixels(&keyframe_transfers));
    cv::warpPerspective(undistorted, rectified, cv::Mat(window_from_image_prior), window.bgr.size(),
                        cv::INTER_LINEAR, cv::BORDER_CONSTANT);
    cv::Mat frame_valid(camera.height_px, camera.width_px, CV_8UC1, cv::Scalar(255));
    cv::Mat rectified_valid;
    cv::warpPerspective(frame_valid, rectified_valid, cv::Mat(window_from_image_prior),
                        window.bgr.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT);
    cv::erode(rectified_valid, rectified_valid, cv::Mat(), cv::Point(-1, -1), 4);
    cv::Mat map_valid;
    cv::erode(window.valid, map_valid, cv::Mat(), cv::Point(-1, -1), 4);

    const Correspondences pairs = fine_matcher->match(matchImage(rectified, nullptr), matchImage(window.bgr, nullptr));
    const PairFit fit = fitPair(pairs, rectified_valid, map_valid);
    fix.fine_match_ms = elapsedMs(start);
    finishFix(fit.reference_from_query * window_from_image_prior, window, fit, request, height, &fix);
    return fix;
  }

  std::optional<PendingTiles> pending_tiles;
  // One height of a global search: the tiles' ground resolution, the frame's at that
  // height and its footprint there.
  struct SearchScale {
    double height_m = 0.0;
    double gsd_m = 0.0;
    double frame_gsd_m = 0.0;
    cv::Size2d footprint_m;
  };
  // The scales of the latest request's global search (what prepareWhileIdle prepares);
  // empty: no request yet.
  std::vector<SearchScale> next_global_scales;
  // The latest prior-mode window with local features: prepareWhileIdle extracts the map
  // tiles around it that the next keyframes' windows will need.
  struct LatestWindow {
    int basemap_index = -1;
    long gsd_bucket = 0;
    cv::Rect2d rect_enu;
  };
  std::optional<LatestWindow> latest_window;

  // The scale of a global search at `height_m` above the ground.
  SearchScale globalSearchScale(double height_m) const {
    SearchScale scale;
    scale.height_m = height_m;
    scale.frame_gsd_m = height_m / camera.fx_px;
    double map_pixel = 0.0;
    for (const auto& b : basemaps) map_pixel = std::max(map_pixel, b.map->pixelSizeM());
    scale.gsd_m = matchingGsdM(scale.frame_gsd_m, map_pixel);
    scale.footprint_m = cv::Size2d(camera.width_px * scale.frame_gsd_m, camera.height_px * scale.frame_gsd_m);
    return scale;
  }

  // The scales a global search tries: at the height hint, or (hint 0 or not finite: the
  // height is unknown) at every one of options.search_heights_m.
  std::vector<SearchScale> globalSearchScales(double height_hint_m) const {
    std::vector<SearchScale> scales;
    if (std::isfinite(height_hint_m) && height_hint_m > 0.0) {
      scales.push_back(globalSearchScale(height_hint_m));
    } else {
      for (const double h : options.search_heights_m) scales.push_back(globalSearchScale(h));
    }
    return scales;
  }

  // How many orientations (multiples of 360 deg / n) a global search presents the frame
  // in: its heading is unknown, and only oriented features (ORB, SIFT) match in any.
  int globalSearchOrientations() const {
    if (!fine_matcher->needsLocalFeatures()) return options.dense_rotations;
    return frame_extractor->rotationInvariant() ? 1 : options.feature_rotations;
  }

  // A basemap this small at `gsd_m` is searched as one tile.
  static bool isOneTile(const cv::Rect2d& cover_enu, double gsd_m) {
    return std::max(cover_enu.width, cover_enu.height) / gsd_m <= 2048.0;
  }

  // A global search's tiles: tile_footprint_factor x the frame's footprint at its scale.
  double tileSizeM(const SearchScale& scale) const {
    return options.tile_footprint_factor * std::max(scale.footprint_m.width, scale.footprint_m.height);
  }

  // Prepared global searches are kept by (ground resolution, tile size), each quantised
  // in ~10 % buckets; the tile size is left out (0) when every basemap is one tile.
  std::pair<long, long> searchKey(const SearchScale& scale) const {
    bool one_tile_each = true;
    for (const OpenBasemap& b : basemaps) one_tile_each = one_tile_each && isOneTile(b.coverage_enu, scale.gsd_m);
    return {gsdBucket(scale.gsd_m), one_tile_each ? 0 : gsdBucket(tileSizeM(scale))};
  }

  // A search prepared under `key` serves a scale whose searchKey is `wanted`: the same
  // resolution, tiles within two buckets (~20 %). A height that wanders by a few percent
  // does not prepare the search again; search heights 1.6x apart get their own.
  static bool serves(const std::pair<long, long>& key, const std::pair<long, long>& wanted) {
    return key.first == wanted.first && std::abs(key.second - wanted.second) <= 2;
  }

  // The prepared search that serves `scale` (the nearest tile size), or end().
  std::map<std::pair<long, long>, TileCache>::iterator preparedSearchFor(const SearchScale& scale) {
    const std::pair<long, long> wanted = searchKey(scale);
    auto best = tile_caches.end();
    for (auto it = tile_caches.begin(); it != tile_caches.end(); ++it) {
      if (!serves(it->first, wanted)) continue;
      if (best == tile_caches.end() ||
          std::abs(it->first.second - wanted.second) < std::abs(best->first.second - wanted.second))
        best = it;
    }
    return best;
  }

  // The pending build for this scale: continued when one is under way, else a new one
  // with every tile's rectangle (too_large when they are more than the bound, then with
  // none).
  PendingTiles& pendingTilesFor(const SearchScale& scale) {
    const std::pair<long, long> key = searchKey(scale);
    if (pending_tiles && serves(pending_tiles->key, key)) return *pending_tiles;
    pending_tiles.emplace();
    PendingTiles& pending = *pending_tiles;
    pending.key = key;
    // The search's tiles are a function of the height's ~10 % bucket (as prior mode's
    // map features are of the resolution's): whichever height within it asks first (a
    // request, idle-time preparation), on whichever device, the same tiles are read at
    // the same resolution. (Once prepared, `serves` also lends them to a height of a
    // neighbouring bucket with the same resolution bucket: which bucket prepared them
    // then depends on the history.) With the exact height's sizes, a CPU and a GPU run of one
    // flight, whose heights differ in the third digit, read other tiles: the tiles'
    // feature counts differed by up to 11 %, and a marginal global fix with them (frame
    // 460 of the product flight: 21 matches on the CPU, 19 on the GPU; a fit needs 20).
    const SearchScale canonical = globalSearchScale(bucketValue(gsdBucket(scale.height_m)));
    const double gsd_m = canonical.gsd_m;
    pending.cache.gsd_m = gsd_m;
    const double tile_m = tileSizeM(canonical);
    // Bounded work: count the tiles before reading any.
    double tile_count = 0.0;
    for (const OpenBasemap& b : basemaps) {
      const cv::Rect2d cover = b.coverage_enu;
      if (isOneTile(cover, gsd_m)) {
        tile_count += 1.0;
      } else {
        tile_count += std::ceil(cover.width / (0.5 * tile_m)) * std::ceil(cover.height / (0.5 * tile_m));
      }
    }
    if (tile_count > options.max_global_search_tiles) {
      pending.cache.too_large = true;
      return pending;
    }
    // Every tile's rectangle first, so that the monitor sees the whole amount of work.
    for (std::size_t bi = 0; bi < basemaps.size(); ++bi) {
      const cv::Rect2d cover = basemaps[bi].coverage_enu;
      if (isOneTile(cover, gsd_m)) {
        pending.rects.emplace_back(int(bi), cover);
        continue;
      }
      const double step = 0.5 * tile_m;
      for (double y = cover.y; y < cover.y + cover.height - 0.25 * tile_m; y += step) {
        for (double x = cover.x; x < cover.x + cover.width - 0.25 * tile_m; x += step) {
          pending.rects.emplace_back(int(bi), cv::Rect2d(x, y, tile_m, tile_m));
        }
      }
    }
    return pending;
  }

  // Starts reading `pending`'s windows on a thread of their own, with Basemaps of its own
  // (opened there: GDAL datasets are not shared between threads), at most
  // kMaxWindowsAheadBytes of windows ahead of the extraction.
  void startReadingWindows(PendingTiles& pending) const {
    if (pending.rects.empty()) return;
    std::vector<std::string> paths;
    for (const OpenBasemap& b : basemaps) paths.push_back(b.map->path());
    double side_px = 0.0;
    for (const auto& tile : pending.rects)
      side_px = std::max(side_px, std::max(tile.second.width, tile.second.height) / pending.cache.gsd_m);
    const double window_bytes = 4.0 * side_px * side_px;  // BGR + validity
    const std::size_t ahead = std::size_t(std::max(
        1.0, std::min(kMaxWindowsAheadBytes / std::max(1.0, window_bytes), double(pending.rects.size()))));
    // The reader's Basemaps, touched on its thread only.
    auto maps = std::make_shared<std::vector<geo::Basemap>>();
    pending.windows = std::make_unique<OrderedPrefetch<MapWindow>>(
        pending.rects.size(), ahead,
        [paths, maps, rects = pending.rects, frame = enu, ground = ground_up_m,
         gsd = pending.cache.gsd_m](std::size_t index) {
          if (maps->empty())
            for (const std::string& path : paths) maps->push_back(geo::Basemap::open(path));
          const auto& [basemap_index, rect] = rects[index];
          return readMapWindow((*maps)[std::size_t(basemap_index)], frame, ground, rect, gsd);
        });
  }

  // The global search's units of work: every tile read and extracted, then (learned
  // descriptors) every tile described; the monitor sees them as one amount.
  int searchUnits(const PendingTiles& pending) const {
    return int(pending.rects.size()) * (descriptor != nullptr ? 2 : 1);
  }

  // `global` (a global search's answer to `request`), registered once more in prior mode
  // around itself when accepted: the best tile may hold only part of the frame, and the
  // fit to that part is loose; prior mode matches the whole frame, rectified by the fix,
  // against the map features around it. The refined fix is returned when accepted with
  // more inliers (still global_mode, with the search's candidates and retrieval time),
  // else `global`. Its window reaches beyond the distance prior mode accepts from the
  // prior: a refinement placed out there contradicts the search (which matched the frame
  // scaled down to its tiles, where a repeated pattern can win: osbs-lawn of
  // bench/video_only.sh, 67 inliers 21 m south, the true place 312) and, neither having
  // a prior behind it, wins with at least twice the inliers. A map that cannot be read
  // there leaves `global` standing. Leaves no marks: its time is part of the search's
  // fine-match span.
  RegistrationFix refinedAroundItself(const RegistrationRequest& request, RegistrationFix global) {
    if (!global.accepted || !global.has_pose) return global;
    RegistrationRequest around = request;
    around.prior = global.pose;
    around.prior_sigma_m = std::max(1.0, global.sigma_m);
    around.prior_heading_known = true;
    struct Unmarked {
      StageMarker*& stages;
      StageMarker* const saved = std::exchange(stages, nullptr);
      ~Unmarked() { stages = saved; }
    } unmarked{stages};
    RegistrationFix refined;
    try {
      refined = registerWithPrior(around);
    } catch (const IoError&) {
      return global;
    } catch (const FormatError&) {
      return global;
    }
    // Beyond the gate: a contradiction, settled by twice the evidence (see above).
    if (!refined.accepted && refined.reason == kFarFromPrior && refined.inliers >= 2 * global.inliers) {
      refined.accepted = true;
      refined.reason.clear();
    }
    if (!refined.accepted || refined.inliers <= global.inliers) return global;
    refined.global_mode = true;
    refined.candidates = global.candidates;
    refined.retrieval_ms = global.retrieval_ms;
    return refined;
  }

  // Extracts up to `max_tiles` more tiles of `pending` (pending_tiles), waiting for their
  // windows to be read. A read that throws drops the build (the next request starts over).
  void readPendingTiles(PendingTiles& pending, std::size_t max_tiles) {
    if (!pending.windows) startReadingWindows(pending);
    const int total = searchUnits(pending);
    for (std::size_t read = 0; read < max_tiles && pending.next < pending.rects.size(); ++read) {
      if (search_monitor) search_monitor(int(pending.next), total);
      Tile tile;
      tile.basemap = pending.rects[pending.next].first;
      try {
        tile.window = pending.windows->take();
      } catch (...) {
        pending_tiles.reset();
        throw;
      }
      ++pending.next;
      if (cv::countNonZero(tile.window.valid) < 0.2 * tile.window.valid.total()) continue;
      tile.image = matchImage(tile.window.bgr, map_extractor.get());
      pending.cache.tiles.push_back(std::move(tile));
    }
  }

  // Completes a pending build whose tiles are all read (the retrieval vocabulary or the
  // tiles' learned descriptors) and keeps it as the prepared search of its resolution.
  TileCache& finishPendingTiles() {
    PendingTiles pending = std::move(*pending_tiles);
    pending_tiles.reset();
    TileCache& cache = pending.cache;
    cache.last_used = calls;
    evictLeastRecentlyUsed(tile_caches, maxTileCaches());
    if (cache.too_large) {
      SKYTRACE_LOG(Warning, "nav.registration")
          << "global search skipped: the basemaps need more than " << options.max_global_search_tiles
          << " tiles; registration needs a position prior (telemetry) or a map cropped to the flight";
      return tile_caches.emplace(pending.key, std::move(cache)).first->second;
    }
    // The vocabulary ranks tiles only when there are more than the candidates (see
    // rankTiles): for a map of a few tiles, training one (k-means, and on a GPU a
    // download of every tile's descriptors) would be wasted.
    cv::Mat all_descriptors;
    if (options.retrieval == RetrievalMethod::kVlad && cache.tiles.size() > std::size_t(options.global_candidates)) {
      for (const Tile& tile : cache.tiles)
        if (!tile.image.features.empty()) all_descriptors.push_back(tile.image.features.descriptors());
    }
    if (all_descriptors.rows >= options.vlad_clusters) {
      cache.vocabulary = vision::VladVocabulary::train(all_descriptors, options.vlad_clusters, options.seed);
      for (auto& tile : cache.tiles) {
        tile.vlad = cache.vocabulary.describe(tile.image.features.empty() ? cv::Mat()
                                                                          : tile.image.features.descriptors());
      }
    }
    const int total = searchUnits(pending);
    if (descriptor && cache.tiles.size() > std::size_t(options.global_candidates)) {
      constexpr std::size_t kDescriptorBatch = 16;  // the monitor's granularity here
      int done = total - int(cache.tiles.size());
      for (std::size_t first = 0; first < cache.tiles.size(); first += kDescriptorBatch) {
        if (search_monitor) search_monitor(done, total);
        const std::size_t end = std::min(cache.tiles.size(), first + kDescriptorBatch);
        std::vector<cv::Mat> images;
        for (std::size_t i = first; i < end; ++i) images.push_back(cache.tiles[i].window.bgr);
        const std::vector<vision::GlobalDescriptor> described = descriptor->describeBatch(images);
        for (std::size_t i = first; i < end; ++i) cache.tiles[i].learned = described[i - first];
        done += int(end - first);
      }
    }
    if (search_monitor) search_monitor(total, total);
    // Local features match on the features alone: the tiles' pixels (the larger part of a
    // prepared search) are not kept. The dense matcher needs them.
    if (options.fine_matching == FineMatching::kLocalFeatures) {
      for (Tile& tile : cache.tiles) {
        tile.window.bgr.release();
        tile.image.bgr.release();
      }
    }
    SKYTRACE_LOG(Info, "nav.registration")
        << "global search: " << cache.tiles.size() << " tiles at " << cache.gsd_m << " m/px";
    return tile_caches.emplace(pending.key, std::move(cache)).first->second;
  }

  // The prepared global search of this scale: kept, or completed now (continuing a build
  // prepareWhileIdle began).
  TileCache& tilesFor(const SearchScale& scale) {
    const auto it = preparedSearchFor(scale);
    if (it != tile_caches.end()) {
      it->second.last_used = calls;
      return it->second;
    }
    PendingTiles& pending = pendingTilesFor(scale);
    if (!pending.cache.too_large) readPendingTiles(pending, pending.rects.size());
    return finishPendingTiles();
  }

  // One map feature tile around the latest prior-mode window, within one tile of it and
  // on the map (the ground the next keyframes' windows will cover whichever way the
  // drone goes); false when they are all extracted.
  bool prepareNextFeatureTile() {
    if (!latest_window) return false;
    const auto kept = feature_caches.find({latest_window->basemap_index, latest_window->gsd_bucket});
    if (kept == feature_caches.end()) return false;
    const double tile_m = kFeatureTileCorePx * bucketValue(latest_window->gsd_bucket);
    const cv::Rect2d& window = latest_window->rect_enu;
    const cv::Rect2d around = cv::Rect2d(window.x - tile_m, window.y - tile_m, window.width + 2 * tile_m,
                                         window.height + 2 * tile_m) &
                              basemaps[std::size_t(latest_window->basemap_index)].coverage_enu;
    if (around.area() <= 0.0) return false;
    kept->second.last_used = calls;
    return kept->second.cache->buildNextMissing(around);
  }

  // One unit of idle-time work (see BasemapRegistrar::prepareWhileIdle): the global
  // search's reading started, a map feature tile around the latest window, or a unit of
  // the global search.
  bool prepareWhileIdle(std::size_t max_tiles) {
    PendingTiles* const pending = nextGlobalSearchToPrepare(max_tiles);
    if (pending && !pending->windows && !pending->rects.empty()) {
      startReadingWindows(*pending);  // nothing waits for it
      return true;
    }
    if (prepareNextFeatureTile()) return true;
    if (!pending) return false;
    if (pending->next < pending->rects.size()) {
      readPendingTiles(*pending, 1);
      return true;
    }
    finishPendingTiles();
    return nextGlobalSearchToPrepare(max_tiles) != nullptr;
  }

  // The pending build of the first of the latest request's global search scales that is
  // not prepared yet and has at most `max_tiles` tiles (larger ones are left to a global
  // request); null when there is none. Scales are prepared one after the other, in order.
  PendingTiles* nextGlobalSearchToPrepare(std::size_t max_tiles) {
    for (const SearchScale& scale : next_global_scales) {
      if (preparedSearchFor(scale) != tile_caches.end()) continue;
      PendingTiles& pending = pendingTilesFor(scale);
      if (pending.cache.too_large || pending.rects.size() > max_tiles) {
        pending_tiles.reset();
        continue;
      }
      return &pending;
    }
    return nullptr;
  }

  // The most local features any of a frame's presented orientations has.
  static int mostFeatures(const std::vector<MatchImage>& turned) {
    int most = 0;
    for (const MatchImage& query : turned) most = std::max(most, query.features.size());
    return most;
  }

  // Tile indices by decreasing similarity to the frame, the best `global_candidates`
  // (the best `few_feature_candidates` when VLAD ranks a frame of fewer than
  // `min_ranking_features` features; every tile, unranked, when there are no more than
  // `global_candidates`). `turned`: the frame scaled to the tiles' resolution in each
  // orientation the search presents (the first unturned), with local features where
  // there is an extractor (the first always, the others when the features are not
  // rotation invariant); a tile's similarity is its best over them.
  std::vector<std::size_t> rankTiles(const TileCache& cache, const std::vector<MatchImage>& turned) {
    std::vector<std::size_t> all(cache.tiles.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    if (cache.tiles.size() <= std::size_t(options.global_candidates)) return all;
    std::vector<double> similarity(cache.tiles.size(), -1.0);
    std::size_t candidates = std::size_t(options.global_candidates);
    if (descriptor) {
      // DINOv2 is not rotation invariant: the frame in four orientations, the best per tile.
      std::vector<cv::Mat> images;
      for (double angle : {0.0, 90.0, 180.0, 270.0}) images.push_back(rotateImage(turned.front().bgr, angle).bgr);
      const std::vector<vision::GlobalDescriptor> queries = descriptor->describeBatch(images);
      for (std::size_t i = 0; i < cache.tiles.size(); ++i) {
        for (const auto& q : queries)
          similarity[i] = std::max(similarity[i], double(vision::descriptorSimilarity(q, cache.tiles[i].learned)));
      }
    } else if (!cache.vocabulary.empty()) {
      if (mostFeatures(turned) < options.min_ranking_features)
        candidates = std::min(all.size(), std::size_t(options.few_feature_candidates));
      for (const MatchImage& query : turned) {
        if (query.features.empty()) continue;
        const vision::GlobalDescriptor q = cache.vocabulary.describe(query.features.descriptors());
        for (std::size_t i = 0; i < cache.tiles.size(); ++i)
          similarity[i] = std::max(similarity[i], double(vision::descriptorSimilarity(q, cache.tiles[i].vlad)));
      }
    } else {
      return all;  // no vocabulary (too few features on the map): every tile
    }
    std::stable_sort(all.begin(), all.end(),
                     [&](std::size_t a, std::size_t b) { return similarity[a] > similarity[b]; });
    all.resize(candidates);
    return all;
  }

  // One scale of a global search, retrieved: its prepared tiles, the frame scaled to
  // them and turned into each orientation the search presents (with local features
  // where there is an extractor), and the tiles to fine-match.
  struct RetrievedScale {
    double height_m = 0.0;
    const TileCache* cache = nullptr;
    cv::Matx33d scaled_from_image = cv::Matx33d::eye();
    std::vector<RotatedImage> turned;
    std::vector<MatchImage> queries;  // turned[k]'s
    std::vector<std::size_t> candidates;
  };

  // Global mode: at each of the request's scales (globalSearchScales: one height, or
  // every search height when the height is unknown), retrieval over that scale's tiles,
  // then fine matching of the frame (scaled to the tiles' resolution, assumed near nadir,
  // in globalSearchOrientations() orientations) against the best candidates. The fix
  // with the most inliers wins, accepted ones first; each is checked against the height
  // of its scale. Scales whose search is too large for the bound, or whose scaled frame
  // is too small to describe, are left out. An accepted fix is refined around itself
  // (refinedAroundItself). One retrieval and one fine-match span on the stage clock per
  // request, whatever the number of scales, the refinement inside the latter.
  RegistrationFix registerGlobally(const RegistrationRequest& request) {
    RegistrationFix fix;
    fix.frame = request.frame;
    fix.t_s = request.t_s;
    fix.global_mode = true;
    const int orientations = globalSearchOrientations();
    std::vector<RetrievedScale> retrieved;
    bool searched = false;
    bool few_features = false;  // a scale left out: the frame has too few features there
    auto start = Clock::now();
    std::optional<StageScope> stage(std::in_place, stages, Stage::Retrieval);
    const cv::Mat undistorted = undistortedFrame(request.image.hostPixels(&keyframe_transfers));
    for (const SearchScale& scale : globalSearchScales(request.height_hint_m)) {
      // The caches of one request are the most recently used: the bound on prepared
      // searches (one more than the search heights) never drops one of them here.
      const TileCache& cache = tilesFor(scale);
      if (cache.too_large) continue;
      searched = true;
      const double factor = scale.frame_gsd_m / cache.gsd_m;
      if (cache.tiles.empty() || std::min(camera.width_px, camera.height_px) * factor < kMinScaledFramePx) continue;
      RetrievedScale r;
      r.height_m = scale.height_m;
      r.cache = &cache;
      cv::Mat scaled;
      cv::resize(undistorted, scaled, cv::Size(), factor, factor, factor < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
      r.scaled_from_image = cv::Matx33d(factor, 0, 0.5 * factor - 0.5, 0, factor, 0.5 * factor - 0.5, 0, 0, 1);
      for (int k = 0; k < orientations; ++k) {
        r.turned.push_back(rotateImage(scaled, 360.0 * k / orientations));
        const bool describe = k == 0 || !frame_extractor || !frame_extractor->rotationInvariant();
        r.queries.push_back(matchImage(r.turned.back().bgr, describe ? frame_extractor.get() : nullptr));
      }
      if (fine_matcher->needsLocalFeatures() && mostFeatures(r.queries) < options.min_inliers) {
        few_features = true;  // no fit of this scale can reach min_inliers
        continue;
      }
      r.candidates = rankTiles(cache, r.queries);
      retrieved.push_back(std::move(r));
    }
    fix.retrieval_ms = elapsedMs(start);
    stage.reset();
    if (!searched) {
      fix.reason = "map_too_large_for_global_search";
      return fix;
    }
    if (retrieved.empty() && few_features) {
      fix.reason = "no_texture";
      return fix;
    }

    start = Clock::now();
    stage.emplace(stages, Stage::FineMatch);
    for (const RetrievedScale& r : retrieved) fix.candidates += int(r.candidates.size());
    RegistrationFix best = fix;
    best.reason = "no_candidate";
    for (const RetrievedScale& r : retrieved) {
      for (const std::size_t tile_index : r.candidates) {
        const Tile& tile = r.cache->tiles[tile_index];
        for (std::size_t k = 0; k < r.turned.size(); ++k) {
          ++calls;
          const RotatedImage& query = r.turned[k];
          const PairFit fit = fitPair(fine_matcher->match(r.queries[k], tile.image), query.valid, tile.window.valid);
          RegistrationFix candidate = fix;
          candidate.basemap_index = tile.basemap;
          finishFix(fit.reference_from_query * query.rotated_from_image * r.scaled_from_image, tile.window, fit,
                    request, r.height_m, &candidate);
          if ((candidate.accepted && (!best.accepted || candidate.inliers > best.inliers)) ||
              (!best.accepted && candidate.inliers > best.inliers)) {
            best = candidate;
          }
        }
      }
    }
    best = refinedAroundItself(request, std::move(best));
    best.fine_match_ms = elapsedMs(start);
    return best;
  }
};

BasemapRegistrar::BasemapRegistrar(const std::vector<std::string>& basemap_paths,
                                   const geo::LocalEnuFrame& enu, double ground_up_m,
                                   CameraModel camera, RegistrationOptions options)
    : state_(std::make_unique<State>()) {
  checkArgument(!basemap_paths.empty(), "registration needs at least one basemap");
  camera.check();
  options.check();
  State& s = *state_;
  s.enu = enu;
  s.ground_up_m = ground_up_m;
  s.camera = camera;
  s.options = options;
  for (const auto& path : basemap_paths) s.basemaps.push_back(openBasemap(path, enu));
  // Learned models first: a missing weights file fails here, before any frame.
  const vision::DeviceSpec device = options.features.device;
  if (options.fine_matching == FineMatching::kDenseMatcher) {
    vision::DenseMatcherOptions dense = options.dense_matcher;
    dense.device = device;
    s.fine_matcher = std::make_unique<DenseFineMatcher>(dense);
  } else {
    s.fine_matcher = std::make_unique<LocalFeatureFineMatcher>();
  }
  if (options.retrieval == RetrievalMethod::kGlobalDescriptor) {
    vision::GlobalDescriptorOptions descriptor = options.retrieval_descriptor;
    descriptor.device = device;
    s.descriptor = vision::createGlobalDescriptorExtractor(descriptor);
  }
  if (options.retrieval == RetrievalMethod::kVlad || s.fine_matcher->needsLocalFeatures()) {
    std::string fallback_reason;
    auto create = [&](const vision::ExtractorOptions& extractor) {
      return options.features_fallback ? vision::createFeatureExtractorOrFallback(extractor, "orb", &fallback_reason)
                                       : vision::createFeatureExtractor(extractor);
    };
    // Eager (fused kernels where ALIKED has them), not CUDA graphs: the global search's
    // scaled frames and windows change size with the ground resolution. Prior mode's
    // crop has one shape per resolution, but a graph for it did not make registration
    // faster (H200, 60 s product flight, fine_match p50 4.70-4.85 ms overlapped against
    // 4.36-4.87 eager; bench/results/2026-12-03-h200-crop-graph).
    vision::ExtractorOptions frame_options = options.features;
    frame_options.use_cuda_graphs = false;
    s.frame_extractor = create(frame_options);
    vision::ExtractorOptions map_options = frame_options;
    map_options.max_keypoints = 2 * options.features.max_keypoints;
    s.map_extractor = create(map_options);
    s.tile_options = frame_options;
    const double tile_px = State::kFeatureTileCorePx + 2.0 * State::kFeatureTileMarginPx;
    s.tile_options.max_keypoints = int(std::lround(options.features.max_keypoints * tile_px * tile_px /
                                                   (double(camera.width_px) * camera.height_px)));
    s.tile_extractor = create(s.tile_options);
    if (!fallback_reason.empty()) s.tile_options.model = "orb";  // as the tile extractor's
  }
}

BasemapRegistrar::~BasemapRegistrar() = default;

RegistrationFix BasemapRegistrar::registerFrame(const RegistrationRequest& request, StageMarker* stages) {
  State& s = *state_;
  s.stages = stages;
  checkArgument(!request.image.empty(), "registration got an empty frame");
  ++s.calls;
  s.next_global_scales = s.globalSearchScales(request.height_hint_m);
  const bool use_prior = request.prior && request.prior_sigma_m <= s.options.max_prior_sigma_m &&
                         request.prior->position_enu[2] > s.ground_up_m + 1.0;
  if (use_prior) {
    RegistrationFix fix = s.registerWithPrior(request);
    fix.prior_from_telemetry = request.prior_from_telemetry;
    return fix;
  }
  return s.registerGlobally(request);
}

void BasemapRegistrar::setSearchMonitor(SearchMonitor monitor) { state_->search_monitor = std::move(monitor); }

bool BasemapRegistrar::prepareWhileIdle(std::size_t max_tiles) { return state_->prepareWhileIdle(max_tiles); }

void BasemapRegistrar::expectFirstRequestHeight(double height_above_ground_m) {
  State& s = *state_;
  if (s.calls > 0) return;
  s.next_global_scales = s.globalSearchScales(height_above_ground_m);
}

std::size_t BasemapRegistrar::preparedSearchCount() const { return state_->tile_caches.size(); }

std::size_t BasemapRegistrar::mapFeatureTileCount() const {
  std::size_t tiles = 0;
  for (const auto& kept : state_->feature_caches) tiles += kept.second.cache->tileCount();
  return tiles;
}

const vision::ImageTransfers& BasemapRegistrar::keyframeTransfers() const { return state_->keyframe_transfers; }

std::string BasemapRegistrar::featuresModelName() const {
  return state_->frame_extractor ? state_->frame_extractor->name() : std::string();
}

cv::Rect2d BasemapRegistrar::coverageEnu() const {
  cv::Rect2d out = state_->basemaps.front().coverage_enu;
  for (const auto& b : state_->basemaps) out |= b.coverage_enu;
  return out;
}

std::string globalSearchStage(int units_done, int units_total) {
  const int percent = units_total > 0 ? int(100.0 * units_done / units_total) : 0;
  return "preparing the global search: " + std::to_string(percent) + "%";
}

void checkRegistrationWeights(const RegistrationOptions& options) {
  options.check();
  if (options.fine_matching == FineMatching::kDenseMatcher && options.dense_matcher.model == "litesam") {
    vision::resolveWeightsPath("litesam", options.dense_matcher.weights_path, vision::kLiteSamPublishedFile,
                               vision::kLiteSamWeightsUrl);
  }
  if (options.retrieval == RetrievalMethod::kGlobalDescriptor) {
    const vision::Dinov2Config& config = vision::dinov2Config(options.retrieval_descriptor.model);
    vision::resolveWeightsPath(config.name, options.retrieval_descriptor.weights_path, config.published_file,
                               vision::kDinov2WeightsUrl);
  }
  const bool local = options.retrieval == RetrievalMethod::kVlad ||
                     options.fine_matching == FineMatching::kLocalFeatures;
  if (local && !options.features_fallback) {
    const std::string& model = options.features.model;
    if (model == "superpoint") {
      vision::superPointWeightsPath(options.features);
    } else if (model.rfind("aliked", 0) == 0) {
      vision::resolveWeightsPath(model, options.features.weights_path,
                                 vision::alikedConfig(model).published_file, vision::kAlikedWeightsUrl);
    }
  }
}

geo::GeoPoint defaultEnuOrigin(const std::string& basemap_path, double ground_alt_m) {
  const geo::Basemap map = geo::Basemap::open(basemap_path);
  const geo::MapRect bounds = map.mapBounds();
  geo::GeoPoint centre = map.converter().geoFromMap(
      {0.5 * (bounds.min_x + bounds.max_x), 0.5 * (bounds.min_y + bounds.max_y)});
  centre.alt_m = std::isfinite(ground_alt_m) ? ground_alt_m : 0.0;
  return centre;
}

}  // namespace skytrace::nav
