// Fusion of relative visual odometry and absolute basemap fixes into one trajectory in
// the session's local ENU frame, with a 1-sigma horizontal uncertainty per pose.
//   Online (causal, for live display): poses are chained through the VO homographies;
//   an accepted fix, whenever it arrives (late, out of order), corrects the pose of its
//   frame with a Kalman-style blend of the two uncertainties and the correction is
//   carried through every later frame.
//   Smoothed (final): a pose graph over all frames solved with Ceres: VO edges as
//   plane-induced reprojection residuals between each frame and its keyframe, fixes as
//   absolute residuals under a Cauchy loss, telemetry height priors, and a weak
//   constant-velocity term that bridges VO gaps.
// Thread: one instance, used by one thread (the VO worker); fixes produced elsewhere are
// handed to that thread first.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "core/nav/basemap_registration.h"
#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/nav/visual_odometry.h"

namespace skytrace::nav {

struct FusionOptions {
  double vo_sigma_px = 1.0;                 // VO reprojection noise per inlier-weighted edge
  double vo_drift_per_m = 0.02;             // online sigma growth per metre flown
  double vo_sigma_per_frame_m = 0.05;       // online sigma growth per frame
  double height_prior_sigma_m = 2.0;        // telemetry height above ground
  // Chained poses take their height above the ground from a first-order filter: the
  // height VO measured (the keyframe's, times the homography's scale) pulled towards the
  // log's with this time constant. The log's height is GNSS-noisy at periods of seconds,
  // and VO's scale over flat ground comes from it: taken frame by frame it puts its
  // noise into every step. 0: the log's height as it is.
  double height_filter_time_constant_s = 20.0;
  double velocity_sigma_mps2 = 3.0;         // constant-velocity term (acceleration noise)
  double fix_loss_scale = 2.0;              // Cauchy scale in sigmas for fixes
  // A VO step implying more ground speed than this since the previous frame is a
  // degenerate match, not motion (addOdometry). Far above any UAV's (fixed wings fly
  // 15-40 m/s), far below the speeds a bad homography implies (13 km/s in one case).
  double max_speed_mps = 100.0;
  int max_solver_iterations = 50;

  void check() const;  // throws InvalidArgument
};

// Whether a fix of 1-sigma `sigma_m` lies outside a smoothed track that passes
// `track_offset_m` (horizontal metres) from it: more than 3 Cauchy scales of the fix loss
// away, where the smoother gives it a tenth of an agreeing fix's weight or less, so the
// track does not rest on it. False for a NaN offset (a rejected fix, a frame off the track).
bool fixFarFromTrack(double track_offset_m, double sigma_m, const FusionOptions& options = {});

struct FusedPose {
  std::int64_t frame = -1;
  double t_s = 0.0;
  CameraPose pose;
  double sigma_m = 0.0;
  bool has_pose = false;
};

class TrajectoryFusion {
 public:
  TrajectoryFusion(CameraModel camera, double ground_up_m, FusionOptions options);
  ~TrajectoryFusion();
  TrajectoryFusion(const TrajectoryFusion&) = delete;
  TrajectoryFusion& operator=(const TrajectoryFusion&) = delete;

  // In frame order. height_above_ground_m: telemetry relative altitude when known (NaN
  // otherwise); it anchors the chained poses' heights through the height filter
  // (options.height_filter_time_constant_s). Returns the online pose of the frame
  // (has_pose false before the first absolute pose).
  // pitch_deg/roll_deg: logged camera attitude (NaN unknown); when given, chained poses
  // take it (constrainAttitude) instead of the tilt the homographies imply.
  // yaw_deg: the logged camera (else vehicle) heading (NaN unknown). Only its change
  // between frames is used, so a constant compass bias does no harm: a frame VO lost
  // coasts with the heading turned by as much as the log turned since the pose it
  // coasts from (without it, a loss in a turn in place kept the old heading and the
  // next chain flew off at that angle).
  // A tracked measurement whose chained pose lies further from the previous frame's than
  // options.max_speed_mps allows is rejected: the frame counts as lost (the estimate
  // coasts, the smoother gets no VO edge from it; rejectedOdometrySteps counts it).
  FusedPose addOdometry(const OdometryMeasurement& measurement, double height_above_ground_m,
                        double pitch_deg = std::numeric_limits<double>::quiet_NaN(),
                        double roll_deg = std::numeric_limits<double>::quiet_NaN(),
                        double yaw_deg = std::numeric_limits<double>::quiet_NaN());
  // Any order, any time after its frame was added (fixes for frames not added yet are
  // kept and applied when the frame arrives). Only accepted fixes change the estimate;
  // returns false when the fix is not used: not accepted, or further than
  // 5 x the combined sigma + 10 m from the online estimate of its frame (a wrong match).
  // relocalise = true skips the gate: the caller (after repeated rejections) trusts a
  // fix found without a prior more than the online estimate. A fix beyond the gate then
  // replaces the estimate at its frame, and the earlier anchors it contradicts through
  // unbroken odometry (back to the latest frame VO lost) are dropped; every other
  // anchor is kept. Within the gate it is an ordinary fix.
  bool addFix(const RegistrationFix& fix, bool relocalise = false);
  // An absolute pose from elsewhere (telemetry used as a prior), same semantics as a fix;
  // a NaN yaw_deg means the heading is unknown and leaves the estimate's heading alone.
  void addPosePrior(std::int64_t frame, const CameraPose& pose, double sigma_m);

  // Online estimate of a frame already added; nullopt when unknown. Causal: nothing
  // before the first absolute pose.
  std::optional<FusedPose> onlinePose(std::int64_t frame) const;
  // The online estimate of the latest frame (for predictions and registration priors).
  std::optional<FusedPose> latestPose() const;
  // All online poses, by frame, for the results: the frames before the first absolute
  // pose placed by chaining the odometry backwards from it (a keyframe from a later
  // frame tracked into it, the frames tracked into that keyframe forward from it,
  // coasting backwards where VO lost the frame), their sigma growing with the distance
  // and frames from it as forwards. The smoother and odometryTrajectory start from them
  // too.
  std::vector<FusedPose> onlineTrajectory() const;
  // How many frames before the first absolute pose that back-fill places.
  std::int64_t backfilledFrames() const;
  // Raw odometry chained from the first absolute pose without later corrections (and
  // backwards before it, as onlineTrajectory).
  std::vector<FusedPose> odometryTrajectory() const;
  // Tracked measurements addOdometry rejected as implausible motion, so far.
  std::int64_t rejectedOdometrySteps() const;

  // Full smoothing pass over everything added so far. Throws skytrace::Error when the
  // solver fails badly; returns the online trajectory when there is nothing to smooth.
  std::vector<FusedPose> smooth() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace skytrace::nav
