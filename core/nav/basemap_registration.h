// Registration of a video frame to georeferenced basemaps: where on the map is what the
// camera sees. Two modes:
//   prior:  a predicted pose (VO/fusion or telemetry) with a 1-sigma uncertainty: a
//           north-up grid over the predicted footprint (+ 3 sigma) at the frame's ground
//           resolution; the frame is rectified onto it through the predicted ground
//           homography (only where it lands, on the frame's device), and the residual
//           misalignment is found by feature matching + robust homography. With local
//           features the map side is gathered from features extracted once per map tile
//           (core/nav/map_feature_cache.h), not read and extracted per keyframe; a dense
//           matcher reads the map window's pixels;
//   global: no usable prior: the basemap is cut into overlapping tiles at the expected
//           ground resolution, a global descriptor ranks them against the frame (VLAD
//           with a vocabulary trained on the basemap itself, or DINOv2 with the frame in
//           4 orientations, the best similarity per tile), and the best candidates are
//           matched to the frame + robust homography (unknown heading and scale within
//           the altitude hint).
// The fine matching is local features + mutual nearest neighbours (rotation-invariant
// features handle an unknown heading), or a dense matcher (LiteSAM) that returns point
// pairs itself; both images of a dense pair are scaled by ONE factor (the larger one's long
// side to dense_matcher.resize_long_side_px), keeping their relative scale. LiteSAM is not
// rotation invariant: in global mode the frame is matched in `dense_rotations`
// orientations (multiples of 360 / n degrees) against each candidate and the orientation
// with the most RANSAC inliers is kept; with a prior the frame is first rectified onto the
// map grid (north up, the map's scale), so one orientation suffices.
// Either way the result is an image_from_ground homography, decomposed into a camera
// pose, then checked (inliers, inlier ratio, plausible height/tilt, consistency with
// the prior) and accepted or rejected with a reason.
// Timings: retrieval_ms (global mode) covers tile preparation on first use at a ground
// resolution (features, descriptors), the frame's features/descriptors and the ranking;
// fine_match_ms the rest (prior mode: map features or window, rectification, matching,
// robust fit; the first keyframe over a map tile also extracts that tile).
// Thread: one instance per thread (it holds the models, and opens its own Basemaps). A
// global search's map windows are read ahead on a thread the registrar owns (with
// Basemaps of its own), joined before the registrar is gone.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "core/geo/geodesy.h"
#include "core/nav/area_correlation.h"
#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/util/stage.h"
#include "core/vision/dense_matcher.h"
#include "core/vision/features.h"
#include "core/vision/global_descriptor.h"
#include "core/vision/robust_homography.h"

namespace skytrace::nav {

// How global mode ranks basemap tiles against the frame.
enum class RetrievalMethod {
  kVlad,              // VLAD over `features` (vocabulary trained on the basemap tiles)
  kGlobalDescriptor,  // `retrieval_descriptor` (DINOv2 CLS+GeM) of the frame and each tile
};

// How the frame is matched to the map window (prior mode) or candidate tile (global mode).
enum class FineMatching {
  kLocalFeatures,  // `features` on both images + mutual nearest neighbours
  kDenseMatcher,   // `dense_matcher` (LiteSAM) point pairs
};

// Which models the stage uses: core/nav/model_choice.h sets these from a spec such as
// "dinov2+litesam". `features.device` is the device of the whole stage: the descriptor,
// the dense matcher and RANSAC run there too (their own device fields are overwritten).
struct RegistrationOptions {
  vision::ExtractorOptions features;  // see features_fallback
  // A learned `features` model whose weights are not found is replaced by "orb" (true),
  // or throws ModelError naming the file expected (false: the model was asked for).
  bool features_fallback = true;
  RetrievalMethod retrieval = RetrievalMethod::kVlad;
  // Used with kGlobalDescriptor: model ("dinov2-vits14", ...), weights_path (empty: the
  // published file in the model directory), input size (tiles and frame are resized so
  // that the shorter side is input_size_px), pooling.
  vision::GlobalDescriptorOptions retrieval_descriptor;
  FineMatching fine_matching = FineMatching::kLocalFeatures;
  // Used with kDenseMatcher: model "litesam", weights_path (empty: the published file in
  // the model directory), resize_long_side_px, coarse_threshold.
  vision::DenseMatcherOptions dense_matcher;
  int dense_rotations = 4;  // global mode with a dense matcher: 1, 2, 4 or 8 orientations
  // Global mode with local features that are not rotation invariant (ALIKED, also n16rot,
  // SuperPoint): the frame is described in this many orientations (1, 2, 4 or 8).
  // ALIKED-n16rot matches a Brighton Beach photo to its orthophoto under turns of up to
  // 22.5-35 deg (98-177 inliers) but not at 45 deg (5-7), where 4 orientations leave it.
  int feature_rotations = 8;
  double search_sigma_factor = 3.0;   // window = footprint + factor * prior sigma
  double min_search_margin_m = 15.0;
  double max_prior_sigma_m = 150.0;   // above this the prior is ignored: global mode
  int min_inliers = 20;
  double min_inlier_ratio = 0.15;
  // Without a prior a fit needs 2 x min_inliers (repetitive texture gives small
  // consistent-looking subsets of many matches anywhere), or min_inliers when at least
  // this share of its matches are inliers (a frame with few features, e.g. over a map
  // several times coarser than the frame, that nearly all agree) ...
  double consistent_inlier_ratio = 0.8;
  // ... or min_inliers when the fit's camera is where the request's measurements put it
  // (a photo's XMP height, a flight log's): its height within verified_height_tolerance
  // of a measured height hint, its optical axis within verified_max_tilt_deg of the pitch
  // hint (of nadir without one), and at least verified_inlier_ratio of its matches agree.
  // A fit to repetitive texture rarely agrees with all three; on the Brighton Beach photos
  // (40 m, 0.5 m map) correct fits with 22-39 inliers do (0.6-3.8 m from their GPS), with
  // heights 0.81-0.94 of the XMP height (the ground is not the take-off point), tilts
  // within 7 deg and ratios of 0.31-0.45.
  double verified_height_tolerance = 0.25;
  double verified_max_tilt_deg = 15.0;
  double verified_inlier_ratio = 0.25;
  double ransac_threshold_px = 3.0;
  // The robust homography estimator (robust_homography.h). LO-RANSAC on every device:
  // frame-to-map pairs have few inliers, where MAGSAC++ stops in worse models (graf at
  // 15 % inliers: 2.6 px against 0.84 px; a rendered photo in the clang build: 1.1 m off
  // against 0.1 m).
  vision::RobustEstimator robust_estimator = vision::RobustEstimator::LoRansac;
  // Accepted heights above ground, relative to the prior's (or the hint's) height.
  double min_height_ratio = 0.6;
  double max_height_ratio = 1.6;
  double max_tilt_from_prior_deg = 20.0;
  // Global mode: tiles of tile_footprint_factor x the frame footprint, 50% overlap;
  // the best `global_candidates` by retrieval similarity are fine-matched.
  double tile_footprint_factor = 1.6;
  int global_candidates = 4;
  // Retrieval by VLAD ranks tiles by the frame's local features. A frame with fewer than
  // min_ranking_features of them (over water, snow, a bare field) gets a VLAD vector too
  // sparse to rank by: the tiles' similarities lie within noise of each other, and
  // which tiles make the best `global_candidates` is chance (frame 460 of the product
  // flight, over a river: 16-87 ALIKED features in its 8 orientations, the 12 best of 23
  // tiles within 0.06 of each other, ranked in other orders on the CPU and on a GPU; the
  // tile that places it 4th on one, 2nd on the other). Such a frame is fine-matched
  // against the best few_feature_candidates tiles instead (every tile of a small map);
  // fine matching a frame of few features is cheap. A frame with fewer features than
  // min_inliers in every orientation cannot be fixed and is not searched (reason
  // "no_texture").
  int min_ranking_features = 128;
  int few_feature_candidates = 32;
  // Global mode for a request without a height hint (no flight log, no fix yet): the
  // heights above ground searched, each with its own tiles and frame scale, the fix with
  // the most inliers kept. Learned features do not match across scale changes much
  // beyond 1.3x: steps of 1.6x leave at most 1.26x between the true height and a rung,
  // and each rung accepts heights within min/max_height_ratio of it.
  std::vector<double> search_heights_m = {25.0, 40.0, 64.0, 100.0, 160.0, 256.0};
  // Bound on the global search's work: a basemap that needs more tiles than this (a
  // 100 km map for a 100 m footprint) is not searched without a prior; such attempts
  // are rejected at once as "map_too_large_for_global_search" (a telemetry prior, or a
  // map cropped to the flight, lets registration work).
  int max_global_search_tiles = 4096;
  int vlad_clusters = 32;
  // Prior mode over a map much coarser than the frame: when point matches give no fix
  // and the map's pixel is at least area_correlation_map_ratio x the frame's ground
  // resolution, the frame is placed by area correlation (area_correlation.h) on the map
  // read at its own pixel. 0: never.
  double area_correlation_map_ratio = 3.0;
  AreaCorrelationOptions area_correlation;
  std::uint64_t seed = 0;

  void check() const;  // throws InvalidArgument
};

struct RegistrationRequest {
  std::int64_t frame = -1;
  double t_s = 0.0;
  // The frame (BGR, the camera's size), owned by the request: on the host, or on the VO
  // worker's device (the registrar downloads it once, on its own thread).
  vision::Image image;
  std::optional<CameraPose> prior;    // predicted pose in the session's ENU frame
  double prior_sigma_m = 0.0;         // 1-sigma horizontal uncertainty of the prior
  // Height above ground for global mode; 0: unknown, the search tries every one of
  // RegistrationOptions::search_heights_m.
  double height_hint_m = 0.0;
  bool prior_from_telemetry = false;  // the prior is the flight log's, not the VO's
  // The prior's heading is known (a VO estimate, a logged camera or vehicle heading);
  // false: a guess, which only rotation-invariant matching can do without.
  bool prior_heading_known = true;
  // Camera pitch/roll from the flight log (gimbal angles, degrees; NaN unknown). Near
  // nadir a homography determines tilt poorly for narrow lenses (1 deg of tilt is 1 m of
  // position at 60 m): when given, the fix keeps its heading, height and the ground point
  // at the image centre, and takes pitch/roll from here.
  double pitch_hint_deg = std::numeric_limits<double>::quiet_NaN();
  double roll_hint_deg = std::numeric_limits<double>::quiet_NaN();
};

struct RegistrationFix {
  std::int64_t frame = -1;
  double t_s = 0.0;
  bool accepted = false;
  std::string reason;         // why rejected (docs/process_output.md), empty when accepted
  bool global_mode = false;   // true: retrieval over the whole basemap
  bool prior_from_telemetry = false;  // the search window came from the flight log
  // Placed by area correlation (no point matches: inliers 0, score = the correlation).
  bool area_correlation = false;
  int basemap_index = -1;     // which basemap gave the best candidate
  CameraPose pose;            // valid when a homography was found (even if rejected)
  bool has_pose = false;
  cv::Matx33d image_from_ground = cv::Matx33d::eye();  // undistorted pixels <- ENU (E,N,1)
  double sigma_m = 0.0;       // 1-sigma horizontal uncertainty of the fix
  double yaw_sigma_deg = 0.0;
  int matches = 0;
  int inliers = 0;
  double inlier_ratio = 0.0;
  double score = 0.0;         // quality in [0, 1]
  int candidates = 0;         // global mode: the map tiles fine-matched, over every scale
  double retrieval_ms = 0.0;  // global mode only
  double fine_match_ms = 0.0;
  // Set by NavigationSession::finish for an accepted fix with a pose: how far the final
  // (smoothed) track passes from it at its frame, horizontal metres. NaN otherwise.
  double track_offset_m = std::numeric_limits<double>::quiet_NaN();
};

class BasemapRegistrar {
 public:
  // Opens every basemap (throws like geo::Basemap::open). `enu` is the session's local
  // frame and `ground_up_m` the ground height in it.
  BasemapRegistrar(const std::vector<std::string>& basemap_paths, const geo::LocalEnuFrame& enu,
                   double ground_up_m, CameraModel camera, RegistrationOptions options);
  ~BasemapRegistrar();
  BasemapRegistrar(const BasemapRegistrar&) = delete;
  BasemapRegistrar& operator=(const BasemapRegistrar&) = delete;

  // Throws skytrace::Error for failures other than "not found" (those are rejected fixes).
  // `stages` (may be null) gets the retrieval (global mode) and fine_match marks. A fix
  // accepted in global mode is refined in prior mode around itself (global_mode stays
  // true); a refinement that places the frame beyond the prior-mode gate replaces it
  // only with at least twice its inliers. A map read that fails in prior mode is retried
  // once on the file opened again.
  RegistrationFix registerFrame(const RegistrationRequest& request, StageMarker* stages = nullptr);

  // Observer of the global search's preparation: the long part of global mode, done once
  // per ground resolution (reading up to max_global_search_tiles map tiles, extracting
  // and describing them; minutes on a large map and a CPU). Called on the thread of
  // registerFrame before each unit of that work with the units done and the total, and
  // once with done == total. It may throw (skytrace::Cancelled, to abandon the search):
  // registerFrame then rethrows it, nothing is cached, and the next global request
  // starts over. Empty (the default): no observer.
  using SearchMonitor = std::function<void(int units_done, int units_total)>;
  void setSearchMonitor(SearchMonitor monitor);

  // Between requests (the caller's thread is idle): one unit of preparatory work, in
  // this order:
  // - the global search the latest request would need (at each of its ground
  //   resolutions in turn: one per search height) starts reading its map tiles on a
  //   thread of their own (returns at once);
  // - with local features, one map feature tile within one tile of the latest prior-mode
  //   window, nearest first, so that the next keyframes' windows find the map extracted
  //   whichever way the drone goes (a keyframe over new tiles cost ~50 ms on an H200);
  // - one tile of that global search extracted (waiting for its window if need be), and
  //   last its retrieval vocabulary, so that a later global search finds it prepared
  //   instead of stopping for it.
  // A global search's resolution is left out when it has more than `max_tiles` tiles
  // (left to a global request), before the first request (unless
  // expectFirstRequestHeight was called), or once prepared. The search monitor sees its units too. Returns true while
  // more remains. Thread: registerFrame's.
  bool prepareWhileIdle(std::size_t max_tiles);

  // Before the first request: the height above ground (metres) the first request will
  // give as its height hint (NavigationSession::firstRequestHeightM), so that
  // prepareWhileIdle prepares that global search while the caller waits for its first
  // keyframe; not finite or <= 0: unknown (a request without a height hint: every one of
  // RegistrationOptions::search_heights_m). A request's own height replaces it; ignored
  // after the first request. Thread: registerFrame's.
  void expectFirstRequestHeight(double height_above_ground_m);

  // Global searches prepared and kept (one per ground resolution, about 10 % apart; at
  // most one more than the search heights, the least recently used is dropped): memory
  // stays bounded over any flight.
  std::size_t preparedSearchCount() const;

  // Map tiles whose features prior mode keeps (with local features), over all ground
  // resolutions: bounded, and reused by every keyframe whose window they overlap.
  std::size_t mapFeatureTileCount() const;

  // Frames downloaded from a device so far (one per registered device keyframe).
  const vision::ImageTransfers& keyframeTransfers() const;

  // Extent of all basemaps in the ENU frame (for global mode and for choosing an ENU
  // origin), metres.
  cv::Rect2d coverageEnu() const;

  // The local feature model the registrar extracts with (after a fallback to ORB when
  // the requested model's weights are missing); empty when it uses none (dense matcher
  // with learned retrieval).
  std::string featuresModelName() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The progress stage a driver reports while a global search is being prepared
// ("preparing the global search: 37%"): the same words from every driver.
std::string globalSearchStage(int units_done, int units_total);

// Throws the ModelError that creating the stage's learned models would throw for a
// missing weights file (naming the file expected and where its authors publish it),
// without loading anything: lets a run whose registrar is created later on another
// thread fail before its first frame. InvalidArgument for invalid options.
void checkRegistrationWeights(const RegistrationOptions& options);

// The ENU origin for a session without telemetry: the centre of the first basemap at
// ground level (ellipsoidal height `ground_alt_m`).
geo::GeoPoint defaultEnuOrigin(const std::string& basemap_path, double ground_alt_m);

}  // namespace skytrace::nav
