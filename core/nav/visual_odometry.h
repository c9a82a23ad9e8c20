// Visual odometry over mostly planar ground: each frame is matched to the current
// keyframe and related to it by a robust homography (exact for a plane seen by any
// camera orientation, nadir or oblique), or, where the log states the camera's tilt for
// both, by a similarity of the two images rectified to the ground through that tilt
// (LoggedTilt). Metric motion, heading and scale come from
// composing these image-to-image homographies with the keyframe's ground homography
// (see predictPoseFromKeyframe); the keyframe policy and loss detection live here.
// Thread: one instance per thread (it owns GPU state through its extractor/matcher).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/util/stage.h"
#include "core/vision/features.h"
#include "core/vision/matcher.h"
#include "core/vision/robust_homography.h"

namespace skytrace::nav {

struct VisualOdometryOptions {
  int min_inliers = 25;                 // fewer: the frame is not tracked
  double min_inlier_ratio = 0.25;       // of the matches
  double ransac_threshold_px = 2.0;     // symmetric transfer error, undistorted pixels
  // A new keyframe is taken when the current frame's overlap with the keyframe (fraction
  // of the frame's area that maps inside the keyframe) drops below this, or when the
  // inliers fall below keyframe_min_inliers.
  double keyframe_min_overlap = 0.7;
  int keyframe_min_inliers = 80;
  int keyframe_max_gap_frames = 30;
  std::uint64_t seed = 0;
  vision::DeviceSpec device;  // where RANSAC runs (features decide extract/match)
  // The robust homography estimator (robust_homography.h; auto: MAGSAC++ backed by
  // LO-RANSAC on the CPU, LO-RANSAC on a GPU).
  vision::RobustEstimator robust_estimator = vision::RobustEstimator::Auto;
  int overlay_inliers = 200;  // inlier pairs per frame handed out for overlays (0: none)
  // With logged tilts, the similarity replaces the homography when it keeps at least
  // this share of the homography's inliers (the log agrees with the images).
  double tilt_model_min_inlier_share = 0.8;

  void check() const;  // throws InvalidArgument
};

// The camera tilt a flight log states for one frame: gimbal pitch and roll, degrees
// (conventions.md). Given for a frame and its keyframe, VO fits only what the tilt
// leaves open between them (the heading change, the height ratio and the ground shift:
// a similarity of the two images rectified to the ground) instead of the homography's
// 8 degrees of freedom, which features bunched in one corner of the image (a bridge
// over water, a turn in place) determine poorly.
struct LoggedTilt {
  double pitch_deg = -90.0;
  double roll_deg = 0.0;
};

// Motion of one frame relative to its reference keyframe.
struct OdometryMeasurement {
  std::int64_t frame = -1;
  double t_s = 0.0;
  bool tracked = false;             // false: lost (no reference, or too few inliers)
  std::int64_t reference_frame = -1;  // the keyframe the homography refers to
  // Undistorted pixels of this frame -> undistorted pixels of the reference keyframe.
  cv::Matx33d reference_from_frame = cv::Matx33d::eye();
  int matches = 0;
  int inliers = 0;
  double rms_error_px = 0.0;
  bool is_keyframe = false;  // this frame is the reference for the following frames
  bool tilt_model = false;   // reference_from_frame came from the logged-tilt similarity
  // Wall time of each step, milliseconds (host clock; includes device syncs).
  double extract_ms = 0.0;
  double match_ms = 0.0;
  double pose_ms = 0.0;
  // For overlays (video keypoints/matches): up to options.overlay_inliers of the
  // homography's inliers, evenly spread, as raw (distorted) pixels of this frame and,
  // parallel, of the reference keyframe. Empty when not tracked.
  std::vector<cv::Point2f> inlier_frame_px;
  std::vector<cv::Point2f> inlier_reference_px;
};

// The order-independent part of VO for one frame: its features and their keypoints
// undistorted (pixels of the ideal pinhole camera). What frame-parallel runs compute on
// several devices at once before VisualOdometry::trackFeatures takes them in frame order.
struct OdometryFrameFeatures {
  vision::FeatureSet features;                // on the extractor's device
  std::vector<cv::Point2d> undistorted_px;    // one per keypoint
  double extract_ms = 0.0;                    // host wall time of the extraction
};

// Extracts `image`'s features with `extractor` (any device) and undistorts their
// keypoints with `camera`. `stages` (may be null) gets the extract mark.
// Thread: the extractor's thread.
OdometryFrameFeatures extractOdometryFeatures(vision::FeatureExtractor& extractor, const CameraModel& camera,
                                              const vision::Image& image, StageMarker* stages = nullptr);

class VisualOdometry {
 public:
  VisualOdometry(CameraModel camera, std::unique_ptr<vision::FeatureExtractor> extractor,
                 std::unique_ptr<vision::Matcher> matcher, VisualOdometryOptions options);
  ~VisualOdometry();
  VisualOdometry(const VisualOdometry&) = delete;
  VisualOdometry& operator=(const VisualOdometry&) = delete;

  // Tracks one frame (BGR, the camera's size; on the host or on the extractor's device,
  // where it is used without a copy). The first frame, and the first after a loss,
  // becomes a keyframe with tracked = false. Throws skytrace::Error.
  // `stages` (may be null) gets the extract, match and pose marks (the *_ms fields are
  // host wall times either way).
  // `tilt`: the log's camera tilt at this frame, when it states one (see LoggedTilt).
  OdometryMeasurement track(std::int64_t frame, double t_s, const vision::Image& image,
                            StageMarker* stages = nullptr, std::optional<LoggedTilt> tilt = std::nullopt);

  // As track(), for a frame whose features were extracted elsewhere: by an extractor of
  // the same model and keypoint budget as this VO's, on the matcher's device (move them
  // there first: vision::featuresOnDevice). Frames must still come in order.
  OdometryMeasurement trackFeatures(std::int64_t frame, double t_s, OdometryFrameFeatures frame_features,
                                    StageMarker* stages = nullptr, std::optional<LoggedTilt> tilt = std::nullopt);

  // Features of the last tracked frame (for overlays); empty before the first frame.
  const vision::FeatureSet& lastFeatures() const;
  std::string extractorName() const;
  // The image copies the extractor made so far (none for frames on its device).
  vision::ImageTransfers imageTransfers() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// VO's keypoint budget for frames of `width_px` x `height_px`. The budget the options
// state (NavigationOptions::vo_features.max_keypoints) is for a 640x480 frame; a larger
// frame keeps that density of keypoints over its area, up to kMaxOdometryKeypoints (a
// stated budget above that is kept). A fixed count spread thin over a large frame leaves
// too few for the homography: real 1600x900 photos 7 s apart over forest canopy shared
// 17-23 inliers among 1024 keypoints per photo, 40-64 among 4096.
constexpr int kMaxOdometryKeypoints = 4096;
int odometryKeypointBudget(int budget_at_640x480, int width_px, int height_px);

// The pose of a frame from its reference keyframe's pose and the VO homography:
// ground_from_frame = ground_from_keyframe * reference_from_frame, decomposed. Returns
// false when the result is degenerate.
bool predictPoseFromKeyframe(const CameraModel& camera, const CameraPose& keyframe_pose,
                             const cv::Matx33d& reference_from_frame, double ground_up_m,
                             double t_s, CameraPose* frame_pose);

}  // namespace skytrace::nav
