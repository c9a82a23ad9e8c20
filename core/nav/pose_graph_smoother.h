// Internal to core/nav: the full smoothing pass behind TrajectoryFusion::smooth(), a pose
// graph solved with Ceres. Unknowns: camera centre (ENU, metres) and cam_from_enu
// rotation (angle-axis) of every frame that has an online pose. Residuals:
//   - VO: 3x3 grid of the frame's undistorted pixels, cast onto the ground plane from
//     the frame's pose and projected into its keyframe, against the VO homography's
//     prediction (pixels / vo_sigma_px, weighted by the inlier count);
//   - fixes: the fix's ground points of the same grid projected into the frame
//     (pixels / fix sigma in pixels), Cauchy loss; pose priors without a homography:
//     centre distance / sigma, Cauchy loss;
//   - telemetry height above ground; constant velocity between consecutive frames;
//   - a weak prior towards the online pose (keeps frames without anchors well-posed).
// Thread: any (pure function).
#pragma once

#include <optional>
#include <vector>

#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/nav/trajectory_fusion.h"
#include "core/nav/visual_odometry.h"

namespace skytrace::nav {

struct PoseAnchor {
  CameraPose pose;
  double sigma_m = 1.0;  // 1-sigma horizontal
  cv::Matx33d image_from_ground = cv::Matx33d::eye();
  bool has_homography = false;  // true for basemap fixes, false for position priors
};

struct PoseGraphFrame {
  OdometryMeasurement odometry;
  double height_above_ground_m = std::numeric_limits<double>::quiet_NaN();
  FusedPose initial;                  // the online estimate (has_pose false: left out)
  bool attitude_from_log = false;     // initial pitch/roll come from a gimbal log: hold them
  std::optional<PoseAnchor> anchor;
};

// Returns one FusedPose per input frame (has_pose as in the input). sigma_m combines the
// forward (online) and backward uncertainty from the nearest anchors before and after.
std::vector<FusedPose> smoothPoseGraph(const CameraModel& camera, double ground_up_m,
                                       const FusionOptions& options,
                                       const std::vector<PoseGraphFrame>& frames);

}  // namespace skytrace::nav
