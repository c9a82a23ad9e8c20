// One navigation run over a flight: visual odometry every frame, keyframes handed to
// basemap registration, fusion of both, and at the end smoothing and GNSS discrepancy
// analysis. The session is the VO-side state; registration runs wherever the caller
// puts it (the same thread in core/app's sequential layout, the satellite worker's
// thread in core/engine), and its fixes come back through addFix in any order.
//
// Thread: a NavigationSession is created and used by ONE thread (the VO worker):
// processFrame, addFix, takeRegistrationRequest and finish are all called there.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "core/geo/geodesy.h"
#include "core/geo/track.h"
#include "core/io/telemetry/telemetry_series.h"
#include "core/nav/basemap_registration.h"
#include "core/nav/camera_model.h"
#include "core/nav/gnss_discrepancy.h"
#include "core/nav/log_alignment.h"
#include "core/nav/trajectory_fusion.h"
#include "core/nav/visual_odometry.h"
#include "core/util/progress.h"

namespace skytrace::nav {

struct NavigationOptions {
  vision::ExtractorOptions vo_features;      // model falls back to "orb" without weights
  std::string vo_matcher = "mnn";            // or "lightglue" (superpoint / aliked features)
  vision::MatchOptions vo_match;             // weights, device and thresholds of vo_matcher
  VisualOdometryOptions vo;
  RegistrationOptions registration;          // features fall back to "orb" without weights
  FusionOptions fusion;
  DiscrepancyOptions discrepancy;
  // A registration request every `register_every_n_keyframes`-th keyframe and at least
  // every `register_max_interval_s` seconds; immediately while not localised.
  int register_every_n_keyframes = 1;
  double register_max_interval_s = 1.0;
  bool use_gnss_prior = false;   // telemetry GNSS as a fusion prior (off: judge it independently)
  bool registration_enabled = true;
  // Height above ground of a logged position whose log has no height (a search prior).
  // Without a logged height, global searches before the first fix try every one of
  // registration.search_heights_m.
  double default_height_m = 100.0;

  void check() const;  // throws InvalidArgument
};

// Everything a session knows before the first frame.
struct NavigationInputs {
  CameraModel camera;
  std::vector<std::string> basemap_paths;
  std::optional<io::TelemetrySeries> telemetry;  // on the video timeline (time_offset_s set)
  geo::LocalEnuFrame enu{geo::GeoPoint{}};  // the session's local frame
  double ground_up_m = 0.0;   // ground height in `enu` (the plane VO and registration use)
  double ground_alt_m = std::numeric_limits<double>::quiet_NaN();  // ellipsoidal, NaN unknown
  // The ground's altitude in the reference of the log's absolute altitudes (its
  // abs_alt_reference: mean sea level or the ellipsoid), NaN unknown: what gives heights
  // above the ground for a log with absolute altitudes only (a camera's EXIF GPS).
  double log_ground_alt_m = std::numeric_limits<double>::quiet_NaN();
};

// Chooses the ENU frame and ground height: the telemetry's first GNSS fix (ground =
// abs_alt - rel_alt there, when both are logged) or the first basemap's centre. Without
// basemaps (odometry only) the log must hold a position; throws InvalidArgument otherwise.
// A ground altitude given (ellipsoidal) for a log whose altitudes are above mean sea level
// is related to them through the EGM96 geoid at the origin (core/geo/geoid_heights.h).
NavigationInputs makeNavigationInputs(CameraModel camera, std::vector<std::string> basemap_paths,
                                      std::optional<io::TelemetrySeries> telemetry,
                                      double ground_alt_m_override =
                                          std::numeric_limits<double>::quiet_NaN());

// Per-frame outcome (what the live views show).
struct FrameResult {
  std::int64_t frame = -1;
  double t_s = 0.0;
  OdometryMeasurement odometry;
  // VO lost this frame: no reference to measure it against, after the first frame
  // (NavigationResult::lost_frames counts these frames).
  bool odometry_lost = false;
  FusedPose online;      // online fused pose (has_pose false before the first fix)
  double fusion_ms = 0.0;
  bool registration_requested = false;
};

// The final result of a run (written by writeNavigationResults).
struct NavigationResult {
  bool completed = false;          // false: cancelled or stopped early
  std::int64_t frames_total = 0;   // in the video
  std::int64_t frames_processed = 0;
  geo::Track track;                // smoothed visual track (source visual, sigma_m)
  geo::Track online_track;
  geo::Track odometry_track;
  std::optional<geo::Track> gnss_track;
  std::vector<RegistrationFix> fixes;  // every attempt, in frame order
  // Accepted fixes the final track does not rest on (fixFarFromTrack: 6 sigma away with
  // the default loss), e.g. a false first fix that later fixes outvoted. Their distance
  // from it: RegistrationFix::track_offset_m.
  int fixes_far_from_track = 0;
  DiscrepancyAnalysis discrepancy;
  // With a flight log that has GNSS: how far its clock looks off the video's, from the
  // images (estimateLogAlignment of `track` and `gnss_track`); `log_time_offset_s` is
  // the offset it was read with (video time = log time + offset).
  std::optional<LogAlignment> log_alignment;
  double log_time_offset_s = 0.0;
  int lost_frames = 0;
  // The lost frames as runs of consecutive processed frames, in frame order
  // (report.json "odometry.lost_segments").
  std::vector<geo::FrameSpan> lost_spans;
  int keyframes = 0;
  // Tracked VO steps measured by the logged-tilt similarity, not the homography
  // (OdometryMeasurement::tilt_model).
  int tilt_model_steps = 0;
  // Tracked VO steps fusion rejected as impossible motion (FusionOptions::max_speed_mps).
  std::int64_t rejected_odometry_steps = 0;
  // Frames before the first absolute pose that the results place by chaining VO
  // backwards from it (TrajectoryFusion::backfilledFrames).
  std::int64_t backfilled_frames = 0;
  double drift_estimate_percent = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> warnings;
  // Registration ran and no frame got a position: what was attempted and why it failed
  // (also the last warning); empty otherwise. `process` then exits 1 with it (the results
  // folder is still written: the odometry and every attempt in fixes.csv).
  std::string not_localised_reason;
  std::string vo_features_model;  // the VO extractor actually used (after any fallback)
  // The registration's local features actually used (after any fallback); empty when
  // registration used none or did not run.
  std::string registration_features_model;
  // Frame copies between the host and a device: by VO's extractor (none when frames come
  // on its device, as in the engine's GPU layouts; one upload per frame when host frames
  // feed a GPU extractor) and by registration (one download per registered keyframe that
  // lives on a device). report.json "frame_transfers".
  vision::ImageTransfers vo_frame_transfers;
  vision::ImageTransfers keyframe_transfers;
};

class NavigationSession {
 public:
  // Creates the VO extractor/matcher on the calling thread. Throws skytrace::Error
  // (ModelError for missing weights of a requested learned model).
  NavigationSession(NavigationInputs inputs, NavigationOptions options);
  ~NavigationSession();
  NavigationSession(const NavigationSession&) = delete;
  NavigationSession& operator=(const NavigationSession&) = delete;

  const NavigationInputs& inputs() const;
  const NavigationOptions& options() const;
  std::string voModelName() const;
  // Why the requested VO model was replaced by the classical fallback ("" when not).
  std::string fallbackReason() const;

  // Processes one frame (BGR, camera size; on the host, or on the VO device where the
  // extractor uses it without a copy), frames in increasing order. The image is read
  // during the call only: a registration request gets its own copy (on the same device).
  // `stages` (may be null) gets the extract, match, pose and fusion marks.
  FrameResult processFrame(std::int64_t frame, double t_s, const vision::Image& image,
                           StageMarker* stages = nullptr);
  // As processFrame, for a frame whose VO features were extracted elsewhere (a
  // frame-parallel front end: the same VO model, see VisualOdometry::trackFeatures);
  // `image` is only copied into a registration request (it may be on another device).
  FrameResult processExtractedFrame(std::int64_t frame, double t_s, const vision::Image& image,
                                    OdometryFrameFeatures features, StageMarker* stages = nullptr);
  // The image copies VO's extractor made so far (none when frames arrive on its device).
  vision::ImageTransfers voImageTransfers() const;

  // The registration request made by the last processFrame, if any (moved out; the
  // image is a deep copy, on the frame's device, that the caller may hand to another
  // thread once this thread's current stream has finished the copy).
  std::optional<RegistrationRequest> takeRegistrationRequest();

  // A fix for any earlier frame, in any order.
  void addFix(const RegistrationFix& fix);

  // Smoothing + discrepancy; `frames_total` is the video's frame count. Callable once.
  NavigationResult finish(bool completed, std::int64_t frames_total);

 private:
  // Fusion and the registration request of a frame VO has measured.
  FrameResult afterOdometry(OdometryMeasurement odometry, const vision::Image& image, StageMarker* stages);

  struct State;
  std::unique_ptr<State> state_;
};

// The height above ground (metres) the session's first registration request names as
// its search height when the video's first frame is at `first_frame_t_s`: the log's
// height there, else 0 (unknown: the registrar searches at every search height). For
// BasemapRegistrar::expectFirstRequestHeight (preparing that search before the request
// comes).
double firstRequestHeightM(const NavigationInputs& inputs, double first_frame_t_s = 0.0);

// Frames smaller than this on either side cannot be navigated (feature pyramids,
// registration windows); checkVideoFrameSize throws FormatError naming the video.
constexpr int kMinFrameSidePx = 64;
void checkVideoFrameSize(const std::string& video_path, int width_px, int height_px);

// A video that ended before its announced frame count (io::VideoSource::earlyEnd,
// `reason` non-empty): the run did not see the whole flight, so `result` becomes
// incomplete and says why. Nothing happens for an empty `reason`.
void markVideoEndedEarly(const std::string& video_path, const std::string& reason, NavigationResult* result);

}  // namespace skytrace::nav
