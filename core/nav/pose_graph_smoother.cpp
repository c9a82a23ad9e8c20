#include "core/nav/pose_graph_smoother.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <thread>

#include <ceres/ceres.h>
#include <ceres/rotation.h>

#include "core/nav/ground_projection.h"
#include "core/util/error.h"
#include "core/util/log.h"
#include "core/util/thread_budget.h"

namespace skytrace::nav {
namespace {

struct Intrinsics {
  double fx, fy, cx, cy;
};

// Unknowns of one frame: centre (E, N, U) and the angle-axis of cam_from_enu.
struct FrameParameters {
  double centre[3];
  double rotation[3];
};

// Projects an ENU point into a camera; returns false behind it.
template <typename T>
bool project(const Intrinsics& k, const T* centre, const T* rotation, const T* p_in_enu,
             T* pixel) {
  T d[3] = {p_in_enu[0] - centre[0], p_in_enu[1] - centre[1], p_in_enu[2] - centre[2]};
  T p_in_cam[3];
  ceres::AngleAxisRotatePoint(rotation, d, p_in_cam);
  if (!(p_in_cam[2] > T(1e-6))) return false;
  pixel[0] = T(k.fx) * p_in_cam[0] / p_in_cam[2] + T(k.cx);
  pixel[1] = T(k.fy) * p_in_cam[1] / p_in_cam[2] + T(k.cy);
  return true;
}

// Casts an undistorted pixel onto the plane up = ground; false when it misses.
template <typename T>
bool castToGround(const Intrinsics& k, const T* centre, const T* rotation, double u, double v,
                  double ground_up_m, T* p_in_enu) {
  const T ray_cam[3] = {T((u - k.cx) / k.fx), T((v - k.cy) / k.fy), T(1.0)};
  const T inverse_rotation[3] = {-rotation[0], -rotation[1], -rotation[2]};
  T ray_enu[3];
  ceres::AngleAxisRotatePoint(inverse_rotation, ray_cam, ray_enu);
  if (!(ray_enu[2] < T(-1e-6))) return false;
  const T range = (T(ground_up_m) - centre[2]) / ray_enu[2];
  for (int i = 0; i < 3; ++i) p_in_enu[i] = centre[i] + range * ray_enu[i];
  return true;
}

std::vector<cv::Point2d> gridPoints(const CameraModel& camera) {
  std::vector<cv::Point2d> points;
  for (double fy : {0.15, 0.5, 0.85}) {
    for (double fx : {0.15, 0.5, 0.85}) {
      points.emplace_back(fx * (camera.width_px - 1), fy * (camera.height_px - 1));
    }
  }
  return points;
}

// VO edge: frame pixel -> ground (frame pose) -> keyframe pixel, against H's prediction.
struct OdometryResidual {
  Intrinsics k;
  double ground_up_m;
  double u, v;            // in the frame
  double expected_u, expected_v;  // H * (u, v) in the keyframe
  double inverse_sigma;

  template <typename T>
  bool operator()(const T* frame_centre, const T* frame_rotation, const T* key_centre,
                  const T* key_rotation, T* residual) const {
    T ground[3], pixel[2];
    if (!castToGround(k, frame_centre, frame_rotation, u, v, ground_up_m, ground)) return false;
    if (!project(k, key_centre, key_rotation, ground, pixel)) return false;
    residual[0] = (pixel[0] - T(expected_u)) * T(inverse_sigma);
    residual[1] = (pixel[1] - T(expected_v)) * T(inverse_sigma);
    return true;
  }
};

// Fix: a ground point the registration saw at pixel (u, v).
struct FixResidual {
  Intrinsics k;
  double ground[3];
  double u, v;
  double inverse_sigma;

  template <typename T>
  bool operator()(const T* centre, const T* rotation, T* residual) const {
    const T g[3] = {T(ground[0]), T(ground[1]), T(ground[2])};
    T pixel[2];
    if (!project(k, centre, rotation, g, pixel)) return false;
    residual[0] = (pixel[0] - T(u)) * T(inverse_sigma);
    residual[1] = (pixel[1] - T(v)) * T(inverse_sigma);
    return true;
  }
};

struct PositionResidual {
  double target[3];
  double inverse_sigma[3];
  template <typename T>
  bool operator()(const T* centre, T* residual) const {
    for (int i = 0; i < 3; ++i) residual[i] = (centre[i] - T(target[i])) * T(inverse_sigma[i]);
    return true;
  }
};

struct RotationPriorResidual {
  double target[3];
  double inverse_sigma;
  template <typename T>
  bool operator()(const T* rotation, T* residual) const {
    // Small-angle difference through the rotation matrices' action on two axes.
    const T ex[3] = {T(1), T(0), T(0)}, ez[3] = {T(0), T(0), T(1)};
    const T target_t[3] = {T(target[0]), T(target[1]), T(target[2])};
    T a[3], b[3], c[3], d[3];
    ceres::AngleAxisRotatePoint(rotation, ex, a);
    ceres::AngleAxisRotatePoint(target_t, ex, b);
    ceres::AngleAxisRotatePoint(rotation, ez, c);
    ceres::AngleAxisRotatePoint(target_t, ez, d);
    for (int i = 0; i < 3; ++i) {
      residual[i] = (a[i] - b[i]) * T(inverse_sigma);
      residual[3 + i] = (c[i] - d[i]) * T(inverse_sigma);
    }
    return true;
  }
};

struct HeightResidual {
  double target_up_m, inverse_sigma;
  template <typename T>
  bool operator()(const T* centre, T* residual) const {
    residual[0] = (centre[2] - T(target_up_m)) * T(inverse_sigma);
    return true;
  }
};

struct ConstantVelocityResidual {
  double dt1, dt2, inverse_sigma;
  template <typename T>
  bool operator()(const T* c0, const T* c1, const T* c2, T* residual) const {
    for (int i = 0; i < 3; ++i) {
      const T v1 = (c1[i] - c0[i]) / T(dt1);
      const T v2 = (c2[i] - c1[i]) / T(dt2);
      residual[i] = (v2 - v1) * T(inverse_sigma);
    }
    return true;
  }
};

FrameParameters parametersOf(const CameraPose& pose) {
  FrameParameters p;
  for (int i = 0; i < 3; ++i) p.centre[i] = pose.position_enu[i];
  const cv::Matx33d cam_from_enu = pose.camFromEnu();
  double column_major[9];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) column_major[c * 3 + r] = cam_from_enu(r, c);
  ceres::RotationMatrixToAngleAxis(column_major, p.rotation);
  return p;
}

CameraPose poseOf(const FrameParameters& p, double t_s) {
  double column_major[9];
  ceres::AngleAxisToRotationMatrix(p.rotation, column_major);
  cv::Matx33d cam_from_enu;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) cam_from_enu(r, c) = column_major[c * 3 + r];
  CameraPose pose;
  pose.t_s = t_s;
  pose.position_enu = {p.centre[0], p.centre[1], p.centre[2]};
  anglesFromEnuFromCam(cam_from_enu.t(), &pose.yaw_deg, &pose.pitch_deg, &pose.roll_deg);
  return pose;
}

// Backward uncertainty: from the nearest anchor after each frame (infinite without one).
std::vector<double> backwardSigma(const std::vector<PoseGraphFrame>& frames,
                                  const FusionOptions& options) {
  std::vector<double> sigma(frames.size(), std::numeric_limits<double>::infinity());
  double running = std::numeric_limits<double>::infinity();
  for (std::size_t i = frames.size(); i-- > 0;) {
    if (frames[i].anchor) {
      running = frames[i].anchor->sigma_m;
    } else if (std::isfinite(running) && i + 1 < frames.size() && frames[i].initial.has_pose &&
               frames[i + 1].initial.has_pose) {
      const auto& a = frames[i].initial.pose.position_enu;
      const auto& b = frames[i + 1].initial.pose.position_enu;
      running += options.vo_drift_per_m * std::hypot(a[0] - b[0], a[1] - b[1]) +
                 options.vo_sigma_per_frame_m;
    }
    sigma[i] = running;
  }
  return sigma;
}

}  // namespace

std::vector<FusedPose> smoothPoseGraph(const CameraModel& camera, double ground_up_m,
                                       const FusionOptions& options,
                                       const std::vector<PoseGraphFrame>& frames) {
  std::vector<FusedPose> out;
  out.reserve(frames.size());
  for (const auto& f : frames) out.push_back(f.initial);
  bool any_anchor = false;
  for (const auto& f : frames) any_anchor |= (f.anchor.has_value() && f.initial.has_pose);
  if (!any_anchor) return out;

  const Intrinsics k{camera.fx_px, camera.fy_px, camera.cx_px, camera.cy_px};
  const std::vector<cv::Point2d> grid = gridPoints(camera);
  std::vector<FrameParameters> params(frames.size());
  std::map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    index[frames[i].odometry.frame] = i;
    if (frames[i].initial.has_pose) params[i] = parametersOf(frames[i].initial.pose);
  }

  ceres::Problem problem;
  auto* fix_loss = new ceres::CauchyLoss(options.fix_loss_scale);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const PoseGraphFrame& f = frames[i];
    if (!f.initial.has_pose) continue;
    FrameParameters& p = params[i];
    problem.AddParameterBlock(p.centre, 3);
    problem.AddParameterBlock(p.rotation, 3);

    // Weak prior towards the online estimate.
    const double prior_sigma_m = 50.0 + 5.0 * f.initial.sigma_m;
    problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<PositionResidual, 3, 3>(new PositionResidual{
            {p.centre[0], p.centre[1], p.centre[2]},
            {1.0 / prior_sigma_m, 1.0 / prior_sigma_m, 1.0 / prior_sigma_m}}),
        nullptr, p.centre);
    problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<RotationPriorResidual, 6, 3>(new RotationPriorResidual{
            {p.rotation[0], p.rotation[1], p.rotation[2]},
            f.attitude_from_log ? 1.0 / 0.02 : 1.0 / 0.5}),
        nullptr, p.rotation);

    // VO edge to the keyframe.
    const OdometryMeasurement& m = f.odometry;
    if (m.tracked) {
      auto it = index.find(m.reference_frame);
      if (it != index.end() && frames[it->second].initial.has_pose) {
        FrameParameters& key = params[it->second];
        const double weight = std::sqrt(std::clamp(m.inliers / 50.0, 0.25, 4.0));
        for (const auto& g : grid) {
          const cv::Vec3d q = m.reference_from_frame * cv::Vec3d(g.x, g.y, 1.0);
          if (q[2] <= 0) continue;
          problem.AddResidualBlock(
              new ceres::AutoDiffCostFunction<OdometryResidual, 2, 3, 3, 3, 3>(
                  new OdometryResidual{k, ground_up_m, g.x, g.y, q[0] / q[2], q[1] / q[2],
                                       weight / options.vo_sigma_px}),
              new ceres::HuberLoss(3.0), p.centre, p.rotation, key.centre, key.rotation);
        }
      }
    }

    // Anchor.
    if (f.anchor) {
      const PoseAnchor& a = *f.anchor;
      if (a.has_homography) {
        const double gsd = std::max(0.01, groundSampleDistanceM(camera, a.pose, ground_up_m));
        const double sigma_px = std::max(0.5, a.sigma_m / gsd);
        const cv::Matx33d ground_from_image = a.image_from_ground.inv();
        for (const auto& g : grid) {
          cv::Vec3d ground = ground_from_image * cv::Vec3d(g.x, g.y, 1.0);
          if (std::abs(ground[2]) < 1e-12) continue;
          ground /= ground[2];
          problem.AddResidualBlock(
              new ceres::AutoDiffCostFunction<FixResidual, 2, 3, 3>(new FixResidual{
                  k, {ground[0], ground[1], ground_up_m}, g.x, g.y, 1.0 / sigma_px}),
              fix_loss, p.centre, p.rotation);
        }
      } else {
        const double s = 1.0 / a.sigma_m;
        problem.AddResidualBlock(
            new ceres::AutoDiffCostFunction<PositionResidual, 3, 3>(new PositionResidual{
                {a.pose.position_enu[0], a.pose.position_enu[1], a.pose.position_enu[2]},
                {s, s, 0.5 * s}}),
            fix_loss, p.centre);
      }
    }

    if (std::isfinite(f.height_above_ground_m)) {
      problem.AddResidualBlock(
          new ceres::AutoDiffCostFunction<HeightResidual, 1, 3>(new HeightResidual{
              ground_up_m + f.height_above_ground_m, 1.0 / options.height_prior_sigma_m}),
          nullptr, p.centre);
    }

    // Constant velocity over (i-1, i, i+1).
    if (i >= 1 && i + 1 < frames.size() && frames[i - 1].initial.has_pose &&
        frames[i + 1].initial.has_pose) {
      const double dt1 = f.initial.t_s - frames[i - 1].initial.t_s;
      const double dt2 = frames[i + 1].initial.t_s - f.initial.t_s;
      if (dt1 > 1e-6 && dt2 > 1e-6) {
        const double inverse_sigma =
            1.0 / (options.velocity_sigma_mps2 * std::sqrt(0.5 * (dt1 + dt2)));
        problem.AddResidualBlock(
            new ceres::AutoDiffCostFunction<ConstantVelocityResidual, 3, 3, 3, 3>(
                new ConstantVelocityResidual{dt1, dt2, inverse_sigma}),
            nullptr, params[i - 1].centre, p.centre, params[i + 1].centre);
      }
    }
  }

  ceres::Solver::Options solver;
  solver.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
  solver.max_num_iterations = options.max_solver_iterations;
  // Every core: Ceres spreads the evaluation of residuals and Jacobians (~15 autodiff
  // blocks per frame) over them; the smoothing ends a run, with nothing else left to do.
  solver.num_threads = threadBudget().threads;
  solver.logging_type = ceres::SILENT;
  ceres::Solver::Summary summary;
  ceres::Solve(solver, &problem, &summary);
  SKYTRACE_LOG(Debug, "nav.fusion") << "pose graph: " << params.size() << " frames, "
                                    << summary.num_residual_blocks << " residual blocks, "
                                    << summary.iterations.size() << " iterations, " << solver.num_threads
                                    << " threads, " << summary.total_time_in_seconds << " s (evaluation "
                                    << summary.residual_evaluation_time_in_seconds +
                                           summary.jacobian_evaluation_time_in_seconds
                                    << " s, linear solver " << summary.linear_solver_time_in_seconds << " s)";
  if (summary.termination_type == ceres::FAILURE) {
    SKYTRACE_LOG(Warning, "nav.fusion") << "pose graph smoothing failed (" << summary.message
                          << "); keeping the online trajectory";
    return out;
  }

  const std::vector<double> sigma_back = backwardSigma(frames, options);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (!frames[i].initial.has_pose) continue;
    out[i].pose = poseOf(params[i], frames[i].initial.t_s);
    const double forward = frames[i].initial.sigma_m;
    const double backward = sigma_back[i];
    out[i].sigma_m = std::isfinite(backward)
                         ? 1.0 / std::sqrt(1.0 / (forward * forward) + 1.0 / (backward * backward))
                         : forward;
  }
  return out;
}

}  // namespace skytrace::nav
