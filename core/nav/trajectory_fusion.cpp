#include "core/nav/trajectory_fusion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/nav/ground_projection.h"
#include "core/nav/pose_graph_smoother.h"
#include "core/util/check.h"
#include "core/util/log.h"
#include "core/util/statistics.h"

namespace skytrace::nav {
namespace {

double blendAngleDeg(double a_deg, double b_deg, double weight_b) {
  return wrapAngleDeg(a_deg + weight_b * wrapAngleDeg(b_deg - a_deg));
}

// Time over which a coasting estimate (VO lost) measures its velocity, seconds.
constexpr double kVelocityBaselineS = 1.0;
// The longest chained step, seconds, whose height the height filter takes from the
// homography (longer: the log's). Video keyframes are at most 30 frames apart (3 s at
// 10 frames/s).
constexpr double kMaxHeightFilterStepS = 5.0;

double horizontalDistance(const CameraPose& a, const CameraPose& b) {
  return std::hypot(a.position_enu[0] - b.position_enu[0], a.position_enu[1] - b.position_enu[1]);
}

}  // namespace

void FusionOptions::check() const {
  checkArgument(vo_sigma_px > 0, "fusion vo_sigma_px must be > 0");
  checkArgument(vo_drift_per_m >= 0, "fusion vo_drift_per_m must be >= 0");
  checkArgument(vo_sigma_per_frame_m >= 0, "fusion vo_sigma_per_frame_m must be >= 0");
  checkArgument(height_prior_sigma_m > 0, "fusion height_prior_sigma_m must be > 0");
  checkArgument(height_filter_time_constant_s >= 0, "fusion height_filter_time_constant_s must be >= 0");
  checkArgument(velocity_sigma_mps2 > 0, "fusion velocity_sigma_mps2 must be > 0");
  checkArgument(fix_loss_scale > 0, "fusion fix_loss_scale must be > 0");
  checkArgument(max_solver_iterations >= 1, "fusion max_solver_iterations must be >= 1");
  checkArgument(max_speed_mps > 0, "fusion max_speed_mps must be > 0");
}

struct TrajectoryFusion::State {
  CameraModel camera;
  double ground_up_m = 0.0;
  FusionOptions options;

  struct Record {
    OdometryMeasurement odometry;
    double height_above_ground_m = std::numeric_limits<double>::quiet_NaN();
    double pitch_hint_deg = std::numeric_limits<double>::quiet_NaN();
    double roll_hint_deg = std::numeric_limits<double>::quiet_NaN();
    double yaw_hint_deg = std::numeric_limits<double>::quiet_NaN();
  };
  std::vector<Record> records;                 // in frame order
  std::vector<FusedPose> online;               // the online estimate of each record
  std::map<std::int64_t, std::size_t> index;   // frame -> records index
  std::map<std::int64_t, PoseAnchor> anchors;  // accepted fixes and priors by frame
  std::map<std::int64_t, PoseAnchor> pending;  // anchors for frames not added yet
  std::set<std::int64_t> relocalised_frames;   // anchors that replace, not blend
  std::int64_t rejected_odometry_steps = 0;    // implausible VO steps (addOdometry)

  // Whether record i's online pose, chained by VO, is reachable from the previous
  // record's at options.max_speed_mps (true when either has no pose or no time passed).
  bool plausibleStep(std::size_t i) const {
    if (i == 0) return true;
    const FusedPose& previous = online[i - 1];
    const FusedPose& current = online[i];
    const double dt = current.t_s - previous.t_s;
    if (!previous.has_pose || !current.has_pose || dt <= 0) return true;
    return horizontalDistance(previous.pose, current.pose) <= options.max_speed_mps * dt;
  }

  std::size_t indexOf(std::int64_t frame) const {
    auto it = index.find(frame);
    return it == index.end() ? records.size() : it->second;
  }

  // A pose decomposed from a homography `dt_s` after the pose it was chained from, given
  // the record's filtered height (filteredHeightM), then its logged gimbal pitch/roll
  // (constrainAttitude), where it has them.
  void placeAtLoggedAttitude(const Record& rec, double dt_s, CameraPose* pose) const {
    if (std::isfinite(rec.height_above_ground_m)) {
      pose->position_enu[2] =
          ground_up_m + filteredHeightM(rec.height_above_ground_m, pose->position_enu[2] - ground_up_m, dt_s);
    }
    if (std::isfinite(rec.pitch_hint_deg)) {
      *pose = constrainAttitude(camera, *pose, rec.pitch_hint_deg,
                                std::isfinite(rec.roll_hint_deg) ? rec.roll_hint_deg : 0.0, ground_up_m);
    }
  }

  // The height above the ground of a pose chained `dt_s` (either direction) from another:
  // `measured_m`, the height the homography gives it, pulled towards the log's by
  // 1 - exp(-dt / time constant). A measured height outside half to twice the log's is
  // a degenerate homography's: the log's then. So is a step longer than
  // kMaxHeightFilterStepS: the filter is for video-rate chains; photos seconds apart
  // (toledo_2015, 7 s) drifted 9 % from their EXIF altitude through it.
  double filteredHeightM(double logged_m, double measured_m, double dt_s) const {
    const double tau_s = options.height_filter_time_constant_s;
    if (tau_s <= 0 || std::abs(dt_s) > kMaxHeightFilterStepS ||
        !(measured_m > 0.5 * logged_m && measured_m < 2.0 * logged_m)) {
      return logged_m;
    }
    const double gain = 1.0 - std::exp(-std::abs(dt_s) / tau_s);
    return measured_m + gain * (logged_m - measured_m);
  }

  // Pose of record i predicted from earlier records (no anchor at i applied).
  // `anchors_in_use` decides which anchors count (all, or only the first: raw odometry).
  FusedPose predict(std::size_t i, const std::vector<FusedPose>& poses,
                    const std::map<std::int64_t, PoseAnchor>& anchors_in_use) const {
    const Record& rec = records[i];
    FusedPose out;
    out.frame = rec.odometry.frame;
    out.t_s = rec.odometry.t_s;
    const OdometryMeasurement& m = rec.odometry;
    if (m.tracked && index.count(m.reference_frame)) {
      std::size_t base = indexOf(m.reference_frame);
      cv::Matx33d base_from_frame = m.reference_from_frame;
      // The latest anchor between the keyframe and this frame shares its keyframe: chain
      // from the anchor instead, so that a fix corrects every later frame.
      auto it = anchors_in_use.upper_bound(m.frame - 1);
      if (it != anchors_in_use.begin()) {
        --it;
        const std::size_t a = indexOf(it->first);
        if (it->first > m.reference_frame && a < i &&
            records[a].odometry.tracked &&
            records[a].odometry.reference_frame == m.reference_frame) {
          base = a;
          base_from_frame = records[a].odometry.reference_from_frame.inv() * m.reference_from_frame;
        }
      }
      const FusedPose& b = poses[base];
      if (b.has_pose) {
        CameraPose pose;
        if (predictPoseFromKeyframe(camera, b.pose, base_from_frame, ground_up_m, m.t_s, &pose)) {
          placeAtLoggedAttitude(rec, m.t_s - b.t_s, &pose);
          out.pose = pose;
          out.has_pose = true;
          out.sigma_m = b.sigma_m + options.vo_drift_per_m * horizontalDistance(b.pose, pose) +
                        options.vo_sigma_per_frame_m * double(i - base);
          return out;
        }
      }
    }
    // Not tracked (or degenerate): on from the latest pose at the velocity of the poses
    // over the kVelocityBaselineS before it (coastVelocity). Not from the two latest poses
    // alone: a fix moves its frame against the one before, and that step, taken as motion
    // over one frame interval, sent a coasting estimate off at 90 m/s.
    const std::size_t none = records.size();
    std::size_t latest = none, baseline = none;
    for (std::size_t j = i; j-- > 0;) {
      if (!poses[j].has_pose) continue;
      if (latest == none) {
        latest = j;
        continue;
      }
      baseline = j;
      if (poses[latest].t_s - poses[j].t_s >= kVelocityBaselineS) break;
    }
    if (latest == none) return out;
    return coast(i, poses[latest], baseline == none ? cv::Vec3d() : coastVelocity(i, poses, baseline, latest));
  }

  // The log's heading at record `index` (NaN: none logged, or no such record).
  double loggedYawDeg(std::size_t index) const {
    return index < records.size() ? records[index].yaw_hint_deg : std::numeric_limits<double>::quiet_NaN();
  }

  // The velocity record i coasts at, measured over the poses of records first..last
  // (first < last, the baseline next to i on either side). Where the log states every
  // heading there, each step's speed and its direction relative to the log's heading are
  // taken, and the velocity is their medians turned to the heading logged at i: a loss
  // in a turn follows the turn instead of leaving along its tangent, and one bad step
  // (a degenerate homography just before a loss, a fix's jump) does not steer it. Only
  // heading changes count, so a compass bias does no harm. Else the baseline's chord.
  cv::Vec3d coastVelocity(std::size_t i, const std::vector<FusedPose>& poses, std::size_t first,
                          std::size_t last) const {
    const double span_s = poses[last].t_s - poses[first].t_s;
    if (span_s <= 0) return {};
    const cv::Vec3d chord = (poses[last].pose.position_enu - poses[first].pose.position_enu) / span_s;
    std::vector<double> speeds_mps, relative_directions_deg;
    std::size_t previous = first;
    for (std::size_t j = first + 1; j <= last; ++j) {
      if (!poses[j].has_pose) continue;
      const double dt = poses[j].t_s - poses[previous].t_s;
      const cv::Vec3d step = poses[j].pose.position_enu - poses[previous].pose.position_enu;
      const double yaw_deg = blendAngleDeg(records[previous].yaw_hint_deg, records[j].yaw_hint_deg, 0.5);
      if (!std::isfinite(yaw_deg) || !std::isfinite(records[i].yaw_hint_deg)) return chord;
      if (dt > 0) {
        speeds_mps.push_back(std::hypot(step[0], step[1]) / dt);
        relative_directions_deg.push_back(std::atan2(step[0], step[1]) * 180.0 / M_PI - yaw_deg);
      }
      previous = j;
    }
    if (speeds_mps.size() < 3) return chord;
    // Directions as deviations from the first, so that the median does not straddle +-180.
    const double reference_deg = relative_directions_deg.front();
    for (double& d : relative_directions_deg) d = wrapAngleDeg(d - reference_deg);
    const double direction_rad =
        (records[i].yaw_hint_deg + reference_deg + median(relative_directions_deg)) * M_PI / 180.0;
    const double speed_mps = median(speeds_mps);
    return {speed_mps * std::sin(direction_rad), speed_mps * std::cos(direction_rad), chord[2]};
  }

  // Record i coasting from `from` (forwards or backwards in time) at `velocity`
  // (coastVelocity; zero: none measured, the position held); sigma grows by 1 m plus half
  // the distance coasted.
  FusedPose coast(std::size_t i, const FusedPose& from, const cv::Vec3d& velocity) const {
    const Record& rec = records[i];
    FusedPose out;
    out.frame = rec.odometry.frame;
    out.t_s = rec.odometry.t_s;
    out.has_pose = true;
    out.pose = from.pose;
    out.pose.t_s = out.t_s;
    const double dt = out.t_s - from.t_s;
    out.pose.position_enu += velocity * dt;
    const double speed_mps = cv::norm(velocity);
    // The height held from `from`, filtered towards the log's as a chained pose's is (a
    // loss does not reset it to the log's noisy height of the moment).
    if (std::isfinite(rec.height_above_ground_m)) {
      out.pose.position_enu[2] =
          ground_up_m + filteredHeightM(rec.height_above_ground_m, from.pose.position_enu[2] - ground_up_m, dt);
    }
    const double turned_deg = wrapAngleDeg(rec.yaw_hint_deg - loggedYawDeg(indexOf(from.frame)));
    if (std::isfinite(turned_deg)) out.pose.yaw_deg = wrapAngleDeg(out.pose.yaw_deg + turned_deg);
    out.sigma_m = from.sigma_m + 1.0 + 0.5 * speed_mps * std::abs(dt);
    return out;
  }

  // Where the log states the height, an anchored pose keeps the predicted (filtered)
  // height, or takes the log's where nothing was predicted: a fix's height comes from a
  // homography over the map (78 m for a frame 90 m up over a 4x coarser map was seen),
  // and the height filter would carry its error into the scale of the frames after it.
  void keepLoggedHeight(const Record& rec, const FusedPose& predicted, FusedPose* anchored) const {
    if (!std::isfinite(rec.height_above_ground_m)) return;
    anchored->pose.position_enu[2] =
        predicted.has_pose ? predicted.pose.position_enu[2] : ground_up_m + rec.height_above_ground_m;
  }

  static FusedPose applyAnchor(FusedPose predicted, PoseAnchor anchor) {
    // Blending angles near nadir only makes sense for the observable heading.
    foldRollIntoYawNearNadir(&predicted.pose);
    foldRollIntoYawNearNadir(&anchor.pose);
    // An anchor without a heading (a position prior from a log that states none) keeps
    // the predicted one, or north when there is none yet.
    if (!std::isfinite(anchor.pose.yaw_deg)) anchor.pose.yaw_deg = predicted.has_pose ? predicted.pose.yaw_deg : 0.0;
    FusedPose out = predicted;
    out.has_pose = true;
    if (!predicted.has_pose) {
      out.pose = anchor.pose;
      out.pose.t_s = predicted.t_s;
      out.sigma_m = anchor.sigma_m;
      return out;
    }
    const double var_p = predicted.sigma_m * predicted.sigma_m;
    const double var_a = anchor.sigma_m * anchor.sigma_m;
    const double w = var_p / (var_p + var_a);  // weight of the anchor
    out.pose.position_enu = predicted.pose.position_enu +
                            w * (anchor.pose.position_enu - predicted.pose.position_enu);
    out.pose.yaw_deg = blendAngleDeg(predicted.pose.yaw_deg, anchor.pose.yaw_deg, w);
    out.pose.pitch_deg = predicted.pose.pitch_deg + w * (anchor.pose.pitch_deg - predicted.pose.pitch_deg);
    out.pose.roll_deg = blendAngleDeg(predicted.pose.roll_deg, anchor.pose.roll_deg, w);
    out.sigma_m = std::sqrt(var_p * var_a / (var_p + var_a));
    return out;
  }

  void computeFrom(std::size_t first, std::vector<FusedPose>* poses,
                   const std::map<std::int64_t, PoseAnchor>& anchors_in_use) const {
    poses->resize(records.size());
    for (std::size_t i = first; i < records.size(); ++i) {
      FusedPose p = predict(i, *poses, anchors_in_use);
      auto it = anchors_in_use.find(records[i].odometry.frame);
      if (it != anchors_in_use.end()) {
        FusedPose unpredicted = p;
        if (relocalised_frames.count(it->first)) unpredicted.has_pose = false;  // replace
        p = applyAnchor(unpredicted, it->second);
        keepLoggedHeight(records[i], unpredicted, &p);
      }
      (*poses)[i] = p;
    }
  }

  // The pose of keyframe record k from a later record j tracked into it: the keyframe's
  // image_from_ground is reference_from_frame * the frame's (the homography VO measured
  // between them), its uncertainty the frame's plus the drift over the distance between.
  FusedPose keyframeBefore(std::size_t k, std::size_t j, const FusedPose& at_j) const {
    const Record& rec = records[k];
    FusedPose out;
    out.frame = rec.odometry.frame;
    out.t_s = rec.odometry.t_s;
    const cv::Matx33d image_from_ground =
        records[j].odometry.reference_from_frame * imageFromGround(camera, at_j.pose, ground_up_m);
    CameraPose pose;
    if (!poseFromImageFromGround(camera, image_from_ground, ground_up_m, out.t_s, &pose)) return out;
    placeAtLoggedAttitude(rec, out.t_s - at_j.t_s, &pose);
    out.pose = pose;
    out.has_pose = true;
    out.sigma_m = at_j.sigma_m + options.vo_drift_per_m * horizontalDistance(at_j.pose, pose) +
                  options.vo_sigma_per_frame_m * double(j - k);
    return out;
  }

  // Record i (VO lost the frame after it) coasting backwards from record i + 1 at the
  // velocity of the next kVelocityBaselineS of poses.
  FusedPose coastBefore(std::size_t i, const std::vector<FusedPose>& poses) const {
    std::size_t later = i + 1;
    for (std::size_t j = i + 2; j < poses.size(); ++j) {
      if (!poses[j].has_pose) continue;
      later = j;
      if (poses[j].t_s - poses[i + 1].t_s >= kVelocityBaselineS) break;
    }
    return coast(i, poses[i + 1], later == i + 1 ? cv::Vec3d() : coastVelocity(i, poses, i + 1, later));
  }

  // `poses` (one per record) with the records before the first pose placed by chaining
  // the odometry backwards from it: a video-only flight's first fix may come long after
  // VO started. Keyframes take their pose from a later frame tracked into them
  // (keyframeBefore), the frames tracked into them follow forward (predict), and where
  // VO lost the frame the estimate coasts backwards (coastBefore). `placed` (may be
  // null) gets the number of records placed.
  std::vector<FusedPose> backfilled(std::vector<FusedPose> poses, std::int64_t* placed) const {
    if (placed) *placed = 0;
    std::size_t first = 0;
    while (first < poses.size() && !poses[first].has_pose) ++first;
    if (first == 0 || first == poses.size()) return poses;
    // The earliest placed record tracked into each keyframe record before `first`.
    std::map<std::size_t, std::size_t> tracked_into;
    const auto note = [&](std::size_t j) {
      const OdometryMeasurement& m = records[j].odometry;
      if (!m.tracked) return;
      const std::size_t k = indexOf(m.reference_frame);
      if (k >= first || k >= j) return;
      const auto it = tracked_into.find(k);
      if (it == tracked_into.end() || j < it->second) tracked_into[k] = j;
    };
    for (std::size_t j = first; j < poses.size(); ++j) note(j);
    std::int64_t count = 0;
    for (std::size_t i = first; i-- > 0;) {
      const auto it = tracked_into.find(i);
      if (it != tracked_into.end()) {
        poses[i] = keyframeBefore(i, it->second, poses[it->second]);
      } else if (poses[i + 1].has_pose && !records[i + 1].odometry.tracked) {
        poses[i] = coastBefore(i, poses);
      }
      if (poses[i].has_pose) {
        ++count;
        note(i);
      }
    }
    // The frames tracked into those keyframes, forward from them.
    for (std::size_t i = 0; i < first; ++i) {
      if (poses[i].has_pose) continue;
      poses[i] = predict(i, poses, {});
      count += poses[i].has_pose ? 1 : 0;
    }
    if (placed) *placed = count;
    return poses;
  }

  // In place: record i's prediction reads only the estimates before it. Costs the
  // records from `first` on, not the whole flight.
  void recomputeOnline(std::size_t first) { computeFrom(first, &online, anchors); }

  // Erases the anchors before `frame` that reach it through tracked odometry: back to
  // the latest record before it that VO lost (or the first record).
  void dropAnchorsChainedTo(std::int64_t frame) {
    std::size_t i = indexOf(frame);  // records.size() when the frame is not added yet
    while (i > 0 && (i == records.size() || records[i].odometry.tracked)) --i;
    const std::int64_t chain_start = records.empty() ? frame : records[i].odometry.frame;
    for (auto it = anchors.lower_bound(chain_start); it != anchors.end() && it->first < frame;)
      it = anchors.erase(it);
  }

  void addAnchor(std::int64_t frame, const PoseAnchor& anchor) {
    if (!index.count(frame)) {
      pending[frame] = anchor;
      return;
    }
    anchors[frame] = anchor;
    recomputeOnline(indexOf(frame));
  }
};

TrajectoryFusion::TrajectoryFusion(CameraModel camera, double ground_up_m, FusionOptions options)
    : state_(std::make_unique<State>()) {
  camera.check();
  options.check();
  state_->camera = camera;
  state_->ground_up_m = ground_up_m;
  state_->options = options;
}

TrajectoryFusion::~TrajectoryFusion() = default;

FusedPose TrajectoryFusion::addOdometry(const OdometryMeasurement& measurement,
                                        double height_above_ground_m, double pitch_deg,
                                        double roll_deg, double yaw_deg) {
  State& s = *state_;
  checkArgument(s.records.empty() || measurement.frame > s.records.back().odometry.frame,
                "fusion: frames must be added in increasing order");
  State::Record rec;
  rec.odometry = measurement;
  // The overlay points are for the live views only: a record is kept for every frame of
  // the flight, so it keeps nothing that grows with the image.
  rec.odometry.inlier_frame_px = {};
  rec.odometry.inlier_reference_px = {};
  rec.height_above_ground_m = height_above_ground_m;
  rec.pitch_hint_deg = pitch_deg;
  rec.roll_hint_deg = roll_deg;
  rec.yaw_hint_deg = yaw_deg;
  s.index[measurement.frame] = s.records.size();
  s.records.push_back(rec);
  auto pending = s.pending.find(measurement.frame);
  if (pending != s.pending.end()) {
    s.anchors[measurement.frame] = pending->second;
    s.pending.erase(pending);
  }
  const std::size_t i = s.records.size() - 1;
  s.recomputeOnline(i);
  // A VO step no UAV flies (a degenerate homography: ~440 m in one frame of a fast turn
  // over asphalt was seen) is not motion: the frame counts as lost instead. Not judged
  // where an anchor sets the frame's pose.
  if (measurement.tracked && !s.anchors.count(measurement.frame) && !s.plausibleStep(i)) {
    if (s.rejected_odometry_steps == 0)  // once: the run's warnings give the count
      SKYTRACE_LOG(Warning, "nav.fusion") << "frame " << measurement.frame
                                          << ": visual odometry implies more than " << s.options.max_speed_mps
                                          << " m/s; the frame is treated as lost";
    s.records[i].odometry.tracked = false;
    s.records[i].odometry.reference_frame = -1;
    ++s.rejected_odometry_steps;
    s.recomputeOnline(i);
  }
  return s.online.back();
}

std::int64_t TrajectoryFusion::rejectedOdometrySteps() const { return state_->rejected_odometry_steps; }

bool fixFarFromTrack(double track_offset_m, double sigma_m, const FusionOptions& options) {
  return track_offset_m > 3.0 * options.fix_loss_scale * std::max(sigma_m, 0.1);
}

bool TrajectoryFusion::addFix(const RegistrationFix& fix, bool relocalise) {
  if (!fix.accepted || !fix.has_pose) return false;
  State& s = *state_;
  PoseAnchor anchor;
  anchor.pose = fix.pose;
  anchor.sigma_m = std::max(0.1, fix.sigma_m);
  anchor.image_from_ground = fix.image_from_ground;
  anchor.has_homography = true;
  // Gate against the online estimate of that frame: a fix far outside both
  // uncertainties is a wrong registration (repetitive texture), not a correction.
  const auto online = onlinePose(fix.frame);
  bool consistent = true;
  if (online && online->has_pose) {
    const double combined = std::hypot(online->sigma_m, anchor.sigma_m);
    consistent = horizontalDistance(online->pose, anchor.pose) <= 5.0 * combined + 10.0;
  }
  if (!consistent && !relocalise) return false;
  if (!consistent) {
    // Relocalisation against an online estimate the fix contradicts: the fix replaces the
    // estimate at its frame. The anchors that led there through unbroken odometry (since
    // the last frame VO lost) contradict it too and go; the smoother carries the fix
    // backwards over their frames. Anchors before that loss are independent evidence and
    // stay: a relocalisation after a turn over water must not erase a flight's history.
    s.dropAnchorsChainedTo(fix.frame);
    s.relocalised_frames.insert(fix.frame);
  }
  s.addAnchor(fix.frame, anchor);
  return true;
}

void TrajectoryFusion::addPosePrior(std::int64_t frame, const CameraPose& pose, double sigma_m) {
  PoseAnchor anchor;
  anchor.pose = pose;
  anchor.sigma_m = std::max(0.1, sigma_m);
  state_->addAnchor(frame, anchor);
}

std::optional<FusedPose> TrajectoryFusion::onlinePose(std::int64_t frame) const {
  const std::size_t i = state_->indexOf(frame);
  if (i >= state_->records.size()) return std::nullopt;
  return state_->online[i];
}

std::optional<FusedPose> TrajectoryFusion::latestPose() const {
  if (state_->records.empty()) return std::nullopt;
  return state_->online.back();
}

std::vector<FusedPose> TrajectoryFusion::onlineTrajectory() const {
  return state_->backfilled(state_->online, nullptr);
}

std::int64_t TrajectoryFusion::backfilledFrames() const {
  std::int64_t placed = 0;
  state_->backfilled(state_->online, &placed);
  return placed;
}

std::vector<FusedPose> TrajectoryFusion::odometryTrajectory() const {
  const State& s = *state_;
  std::map<std::int64_t, PoseAnchor> first_only;
  if (!s.anchors.empty()) first_only.insert(*s.anchors.begin());
  std::vector<FusedPose> poses(s.records.size());
  s.computeFrom(0, &poses, first_only);
  return s.backfilled(std::move(poses), nullptr);
}

std::vector<FusedPose> TrajectoryFusion::smooth() const {
  const State& s = *state_;
  const std::vector<FusedPose> initial = s.backfilled(s.online, nullptr);
  std::vector<PoseGraphFrame> frames;
  frames.reserve(s.records.size());
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    const State::Record& r = s.records[i];
    PoseGraphFrame f;
    f.odometry = r.odometry;
    f.height_above_ground_m = r.height_above_ground_m;
    f.attitude_from_log = std::isfinite(r.pitch_hint_deg);
    f.initial = initial[i];
    auto it = s.anchors.find(r.odometry.frame);
    if (it != s.anchors.end()) f.anchor = it->second;
    frames.push_back(std::move(f));
  }
  return smoothPoseGraph(s.camera, s.ground_up_m, s.options, frames);
}

}  // namespace skytrace::nav
