#include "core/nav/visual_odometry.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include <opencv2/calib3d.hpp>

#include "core/nav/ground_projection.h"
#include "core/util/check.h"
#include "core/util/error.h"

namespace skytrace::nav {
namespace {

double elapsedMs(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

vision::Point2d toPoint(const cv::Point2d& p) { return {p.x, p.y}; }

cv::Matx33d toMatx(const vision::Matrix3d& m) {
  return cv::Matx33d(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
}

// Fraction of a 10x10 grid over the frame that lands inside the reference image.
double overlapWithReference(const cv::Matx33d& reference_from_frame, int width, int height) {
  int inside = 0, total = 0;
  for (int iy = 0; iy < 10; ++iy) {
    for (int ix = 0; ix < 10; ++ix) {
      const cv::Vec3d p((ix + 0.5) * width / 10.0, (iy + 0.5) * height / 10.0, 1.0);
      const cv::Vec3d q = reference_from_frame * p;
      ++total;
      if (q[2] <= 0) continue;
      const double u = q[0] / q[2], v = q[1] / q[2];
      if (u >= 0 && v >= 0 && u < width && v < height) ++inside;
    }
  }
  return double(inside) / total;
}

// Undistorted pixel -> ground point per metre of height (east, north) for a camera at
// `tilt` with heading 0: the image rectified to the ground, up to the heading, height and
// position that VO measures between two such images.
cv::Matx33d rectifiedFromPixel(const CameraModel& camera, const LoggedTilt& tilt) {
  CameraPose unit;
  unit.position_enu = {0.0, 0.0, 1.0};
  unit.pitch_deg = tilt.pitch_deg;
  unit.roll_deg = tilt.roll_deg;
  return groundFromImage(camera, unit, 0.0);
}

// The similarity q_reference = s R q_frame + t between the rectified keypoints of the
// homography's inliers, as a homography between undistorted pixels; nullopt when it
// keeps fewer than `min_inliers` of them. Threshold as the homography's, in pixels at
// the image centre.
std::optional<cv::Matx33d> fitLoggedTiltSimilarity(const CameraModel& camera, const LoggedTilt& frame_tilt,
                                                   const LoggedTilt& reference_tilt,
                                                   const std::vector<cv::Point2d>& frame_px,
                                                   const std::vector<cv::Point2d>& reference_px,
                                                   double threshold_px, int min_inliers) {
  const cv::Matx33d frame_rect = rectifiedFromPixel(camera, frame_tilt);
  const cv::Matx33d reference_rect = rectifiedFromPixel(camera, reference_tilt);
  std::vector<cv::Point2f> q_frame, q_reference;
  q_frame.reserve(frame_px.size());
  q_reference.reserve(frame_px.size());
  for (std::size_t k = 0; k < frame_px.size(); ++k) {
    const cv::Vec3d a = frame_rect * cv::Vec3d(frame_px[k].x, frame_px[k].y, 1.0);
    const cv::Vec3d b = reference_rect * cv::Vec3d(reference_px[k].x, reference_px[k].y, 1.0);
    if (!(a[2] > 0) || !(b[2] > 0)) continue;  // above the horizon
    q_frame.emplace_back(float(a[0] / a[2]), float(a[1] / a[2]));
    q_reference.emplace_back(float(b[0] / b[2]), float(b[1] / b[2]));
  }
  if (int(q_frame.size()) < min_inliers) return std::nullopt;
  std::vector<uchar> inliers;
  const double threshold = threshold_px / camera.fx_px;
  const cv::Mat affine = cv::estimateAffinePartial2D(q_frame, q_reference, inliers, cv::RANSAC, threshold, 2000,
                                                     0.999, 10);
  if (affine.empty() || cv::countNonZero(inliers) < min_inliers) return std::nullopt;
  cv::Matx33d similarity = cv::Matx33d::eye();
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) similarity(r, c) = affine.at<double>(r, c);
  return reference_rect.inv() * similarity * frame_rect;
}

}  // namespace

void VisualOdometryOptions::check() const {
  checkArgument(min_inliers >= 8, "VO min_inliers must be >= 8");
  checkArgument(min_inlier_ratio >= 0 && min_inlier_ratio < 1, "VO min_inlier_ratio must be in [0, 1)");
  checkArgument(ransac_threshold_px > 0, "VO ransac_threshold_px must be > 0");
  checkArgument(keyframe_min_overlap > 0 && keyframe_min_overlap < 1,
                "VO keyframe_min_overlap must be in (0, 1)");
  checkArgument(keyframe_max_gap_frames >= 1, "VO keyframe_max_gap_frames must be >= 1");
  checkArgument(overlay_inliers >= 0, "VO overlay_inliers must be >= 0");
  checkArgument(tilt_model_min_inlier_share > 0 && tilt_model_min_inlier_share <= 1,
                "VO tilt_model_min_inlier_share must be in (0, 1]");
}

struct VisualOdometry::State {
  CameraModel camera;
  std::unique_ptr<vision::FeatureExtractor> extractor;
  std::unique_ptr<vision::Matcher> matcher;
  VisualOdometryOptions options;

  bool has_keyframe = false;
  std::int64_t keyframe_index = -1;
  vision::FeatureSet keyframe_features;
  std::vector<cv::Point2d> keyframe_points;  // undistorted
  std::optional<LoggedTilt> keyframe_tilt;
  vision::FeatureSet last_features;
  std::uint64_t calls = 0;

  void makeKeyframe(std::int64_t frame, const vision::FeatureSet& features,
                    std::vector<cv::Point2d> points, std::optional<LoggedTilt> tilt) {
    has_keyframe = true;
    keyframe_index = frame;
    keyframe_features = features;
    keyframe_points = std::move(points);
    keyframe_tilt = tilt;
  }
};

VisualOdometry::VisualOdometry(CameraModel camera,
                               std::unique_ptr<vision::FeatureExtractor> extractor,
                               std::unique_ptr<vision::Matcher> matcher,
                               VisualOdometryOptions options)
    : state_(std::make_unique<State>()) {
  camera.check();
  options.check();
  checkArgument(extractor != nullptr && matcher != nullptr, "VO needs an extractor and a matcher");
  state_->camera = camera;
  state_->extractor = std::move(extractor);
  state_->matcher = std::move(matcher);
  state_->options = options;
}

VisualOdometry::~VisualOdometry() = default;

const vision::FeatureSet& VisualOdometry::lastFeatures() const { return state_->last_features; }

std::string VisualOdometry::extractorName() const { return state_->extractor->name(); }

vision::ImageTransfers VisualOdometry::imageTransfers() const { return state_->extractor->transfers(); }

OdometryFrameFeatures extractOdometryFeatures(vision::FeatureExtractor& extractor, const CameraModel& camera,
                                              const vision::Image& image, StageMarker* stages) {
  checkArgument(!image.empty(), "VO got an empty frame");
  const auto start = std::chrono::steady_clock::now();
  OdometryFrameFeatures out;
  {
    const StageScope stage(stages, Stage::Extract);
    out.features = extractor.extract(image);
    const std::vector<cv::Point2f> keypoints = out.features.keypoints();
    out.undistorted_px.reserve(keypoints.size());
    for (const auto& k : keypoints) out.undistorted_px.push_back(undistortPixel(camera, cv::Point2d(k.x, k.y)));
  }
  out.extract_ms = elapsedMs(start);
  return out;
}

OdometryMeasurement VisualOdometry::track(std::int64_t frame, double t_s, const vision::Image& image,
                                          StageMarker* stages, std::optional<LoggedTilt> tilt) {
  return trackFeatures(frame, t_s, extractOdometryFeatures(*state_->extractor, state_->camera, image, stages),
                       stages, tilt);
}

OdometryMeasurement VisualOdometry::trackFeatures(std::int64_t frame, double t_s,
                                                  OdometryFrameFeatures frame_features, StageMarker* stages,
                                                  std::optional<LoggedTilt> tilt) {
  State& s = *state_;
  OdometryMeasurement out;
  out.frame = frame;
  out.t_s = t_s;
  out.extract_ms = frame_features.extract_ms;
  const vision::FeatureSet features = std::move(frame_features.features);
  std::vector<cv::Point2d> points = std::move(frame_features.undistorted_px);
  checkArgument(points.size() == std::size_t(features.size()), "VO features and keypoints disagree");
  s.last_features = features;

  if (!s.has_keyframe || s.keyframe_features.empty()) {
    s.makeKeyframe(frame, features, std::move(points), tilt);
    out.is_keyframe = true;
    return out;
  }

  auto start = std::chrono::steady_clock::now();
  vision::Matches matches;
  {
    const StageScope stage(stages, Stage::Match);
    matches = s.matcher->match(features, s.keyframe_features);
  }
  out.match_ms = elapsedMs(start);
  out.matches = matches.size();
  out.reference_frame = s.keyframe_index;

  start = std::chrono::steady_clock::now();
  bool tracked = false;
  std::optional<StageScope> pose_stage(std::in_place, stages, Stage::Pose);
  if (matches.size() >= s.options.min_inliers) {
    std::vector<vision::Point2d> in_frame, in_keyframe;
    in_frame.reserve(matches.size());
    in_keyframe.reserve(matches.size());
    for (int k = 0; k < matches.size(); ++k) {
      in_frame.push_back(toPoint(points[matches.index_a[k]]));
      in_keyframe.push_back(toPoint(s.keyframe_points[matches.index_b[k]]));
    }
    vision::RansacOptions ransac;
    ransac.model = vision::GeometricModelType::Homography;
    ransac.inlier_threshold_px = s.options.ransac_threshold_px;
    ransac.seed = s.options.seed + s.calls++;
    ransac.device = s.options.device;
    const vision::RansacResult fit =
        vision::estimateHomography(in_frame, in_keyframe, ransac, s.options.robust_estimator);
    out.inliers = fit.num_inliers;
    out.rms_error_px = fit.rms_inlier_error_px;
    const double ratio = double(fit.num_inliers) / std::max(1, matches.size());
    if (fit.found && fit.num_inliers >= s.options.min_inliers &&
        ratio >= s.options.min_inlier_ratio) {
      out.reference_from_frame = toMatx(fit.model);
      tracked = std::isfinite(cv::norm(out.reference_from_frame));
      if (tracked && tilt && s.keyframe_tilt) {
        std::vector<cv::Point2d> frame_inliers, keyframe_inliers;
        for (int k = 0; k < matches.size() && k < int(fit.inlier_mask.size()); ++k) {
          if (!fit.inlier_mask[std::size_t(k)]) continue;
          frame_inliers.push_back(points[matches.index_a[k]]);
          keyframe_inliers.push_back(s.keyframe_points[matches.index_b[k]]);
        }
        const int needed = std::max(s.options.min_inliers,
                                    int(std::ceil(s.options.tilt_model_min_inlier_share * fit.num_inliers)));
        if (const auto similarity = fitLoggedTiltSimilarity(s.camera, *tilt, *s.keyframe_tilt, frame_inliers,
                                                            keyframe_inliers, s.options.ransac_threshold_px,
                                                            needed)) {
          if (std::isfinite(cv::norm(*similarity))) {
            out.reference_from_frame = *similarity;
            out.tilt_model = true;
          }
        }
      }
    }
    if (tracked && s.options.overlay_inliers > 0) {
      const std::vector<cv::Point2f> frame_px = features.keypoints();
      const std::vector<cv::Point2f> keyframe_px = s.keyframe_features.keypoints();
      const int step = std::max(1, (fit.num_inliers + s.options.overlay_inliers - 1) / s.options.overlay_inliers);
      int seen = 0;
      for (int k = 0; k < matches.size() && k < int(fit.inlier_mask.size()); ++k) {
        if (!fit.inlier_mask[std::size_t(k)] || seen++ % step != 0) continue;
        out.inlier_frame_px.push_back(frame_px[std::size_t(matches.index_a[k])]);
        out.inlier_reference_px.push_back(keyframe_px[std::size_t(matches.index_b[k])]);
      }
    }
  }
  pose_stage.reset();
  out.pose_ms = elapsedMs(start);
  out.tracked = tracked;

  if (!tracked) {
    // Lost: this frame starts a new chain (the fusion bridges the gap).
    out.reference_frame = -1;
    s.makeKeyframe(frame, features, std::move(points), tilt);
    out.is_keyframe = true;
    return out;
  }
  const double overlap =
      overlapWithReference(out.reference_from_frame, s.camera.width_px, s.camera.height_px);
  if (overlap < s.options.keyframe_min_overlap || out.inliers < s.options.keyframe_min_inliers ||
      frame - s.keyframe_index >= s.options.keyframe_max_gap_frames) {
    s.makeKeyframe(frame, features, std::move(points), tilt);
    out.is_keyframe = true;
  }
  return out;
}

int odometryKeypointBudget(int budget_at_640x480, int width_px, int height_px) {
  const double area_ratio = double(width_px) * double(height_px) / (640.0 * 480.0);
  if (!(area_ratio > 1.0) || budget_at_640x480 >= kMaxOdometryKeypoints) return budget_at_640x480;
  const double scaled = std::min(double(kMaxOdometryKeypoints), std::round(budget_at_640x480 * area_ratio));
  return std::max(budget_at_640x480, int(scaled));
}

bool predictPoseFromKeyframe(const CameraModel& camera, const CameraPose& keyframe_pose,
                             const cv::Matx33d& reference_from_frame, double ground_up_m,
                             double t_s, CameraPose* frame_pose) {
  const cv::Matx33d image_from_ground_keyframe = imageFromGround(camera, keyframe_pose, ground_up_m);
  // frame pixels -> keyframe pixels -> ground: image_from_ground of the frame is
  // reference_from_frame^-1 * image_from_ground_keyframe.
  const cv::Matx33d image_from_ground_frame = reference_from_frame.inv() * image_from_ground_keyframe;
  return poseFromImageFromGround(camera, image_from_ground_frame, ground_up_m, t_s, frame_pose);
}

}  // namespace skytrace::nav
