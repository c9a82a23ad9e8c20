#include "core/nav/navigation_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <utility>

#include "core/geo/geoid_heights.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/io/video_source.h"
#include "core/nav/ground_projection.h"
#include "core/nav/relocalisation_policy.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/log.h"
#include "core/util/statistics.h"

namespace skytrace::nav {
namespace {

using Clock = std::chrono::steady_clock;

// 1-sigma of a logged GNSS position used to crop the search before the first fix.
constexpr double kTelemetryPriorSigmaM = 30.0;

double elapsedMs(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

geo::Track trackFrom(const std::vector<FusedPose>& poses, const geo::LocalEnuFrame& enu,
                     geo::PoseSource source, const std::string& name, const std::string& alt_reference) {
  geo::Track track;
  track.name = name;
  track.alt_reference = alt_reference;
  for (const auto& p : poses) {
    if (!p.has_pose) continue;
    CameraPose reported = p.pose;
    foldRollIntoYawNearNadir(&reported);
    geo::TrackPose tp = trackPoseFromCameraPose(reported, enu, p.frame);
    tp.source = source;
    tp.sigma_m = p.sigma_m;
    track.poses.push_back(tp);
  }
  return track;
}

// Why a run that registered keyframes has no position at all, for the user.
std::string notLocalisedReason(const std::vector<RegistrationFix>& fixes, bool has_log) {
  std::map<std::string, int> by_reason;
  for (const auto& f : fixes) ++by_reason[f.reason.empty() ? std::string("unknown") : f.reason];
  std::string reasons;
  for (const auto& [reason, count] : by_reason) {
    reasons += (reasons.empty() ? "" : ", ") + reason + ": " + std::to_string(count);
  }
  std::string text = "no frame was placed on the basemaps: " + std::to_string(fixes.size()) +
                     " registration attempts, none accepted" + (reasons.empty() ? "" : " (" + reasons + ")") +
                     "; the track is empty";
  if (has_log) text += " and the flight log was not checked";
  return text + ". Check that the basemaps cover the flight and that the camera model fits the video.";
}

// The median time between consecutive frames of `track` (0 when it has fewer than two).
double frameIntervalS(const geo::Track& track) {
  std::vector<double> steps;
  for (std::size_t i = 1; i < track.poses.size(); ++i) {
    const std::int64_t frames = track.poses[i].frame - track.poses[i - 1].frame;
    if (frames > 0) steps.push_back((track.poses[i].t_s - track.poses[i - 1].t_s) / double(frames));
  }
  return steps.empty() ? 0.0 : median(std::move(steps));
}

// The log's height above the ground at `t_s`: above the take-off point, else its absolute
// altitude above the ground's (NaN without either).
double loggedHeightM(const NavigationInputs& inputs, double t_s) {
  constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  if (!inputs.telemetry) return kUnknown;
  const auto sample = inputs.telemetry->interpolate(t_s);
  if (!sample) return kUnknown;
  if (std::isfinite(sample->alt_rel_m)) return sample->alt_rel_m;
  // Only an absolute altitude (a camera's EXIF GPS, a GPX track): above the ground
  // when the ground's altitude is known (--ground-alt-m).
  if (std::isfinite(sample->alt_abs_m) && std::isfinite(inputs.log_ground_alt_m))
    return sample->alt_abs_m - inputs.log_ground_alt_m;
  return kUnknown;
}

// RegistrationFix::track_offset_m of every accepted fix with a pose whose frame has a pose
// in `track` (the session's final track, ENU).
void setTrackOffsets(const std::vector<FusedPose>& track, std::vector<RegistrationFix>* fixes) {
  std::map<std::int64_t, const FusedPose*> by_frame;
  for (const FusedPose& pose : track)
    if (pose.has_pose) by_frame[pose.frame] = &pose;
  for (RegistrationFix& fix : *fixes) {
    if (!fix.accepted || !fix.has_pose) continue;
    const auto it = by_frame.find(fix.frame);
    if (it == by_frame.end()) continue;
    const CameraPose& on_track = it->second->pose;
    fix.track_offset_m = std::hypot(fix.pose.position_enu[0] - on_track.position_enu[0],
                                    fix.pose.position_enu[1] - on_track.position_enu[1]);
  }
}

}  // namespace

void NavigationOptions::check() const {
  vo_features.check();
  vo_match.check();
  vo.check();
  registration.check();
  fusion.check();
  discrepancy.check();
  checkArgument(register_every_n_keyframes >= 1, "register_every_n_keyframes must be >= 1");
  checkArgument(register_max_interval_s > 0, "register_max_interval_s must be > 0");
  checkArgument(default_height_m > 0, "default_height_m must be > 0");
}

NavigationInputs makeNavigationInputs(CameraModel camera, std::vector<std::string> basemap_paths,
                                      std::optional<io::TelemetrySeries> telemetry,
                                      double ground_alt_m_override) {
  checkArgument(!basemap_paths.empty() || (telemetry && telemetry->positionCount() > 0),
                "at least one basemap, or a flight log with positions, is needed");
  double ground_alt = ground_alt_m_override;
  double log_ground_alt = std::numeric_limits<double>::quiet_NaN();
  std::optional<geo::GeoPoint> origin;
  if (telemetry) {
    for (const auto& s : telemetry->samples) {
      if (!s.hasPosition()) continue;
      origin = geo::GeoPoint{s.lat_deg, s.lon_deg, 0.0};
      if (!std::isfinite(ground_alt) && std::isfinite(s.alt_abs_m) && std::isfinite(s.alt_rel_m)) {
        ground_alt = s.alt_abs_m - s.alt_rel_m;
        log_ground_alt = ground_alt;
      }
      break;
    }
    if (origin && std::isfinite(ground_alt_m_override)) {
      log_ground_alt = ground_alt_m_override;
      if (telemetry->abs_alt_reference == "msl") {
        try {
          log_ground_alt -= geo::GeoidModel().undulationM(origin->lat_deg, origin->lon_deg);
        } catch (const Error&) {
          log_ground_alt = std::numeric_limits<double>::quiet_NaN();  // no geoid grid: heights unknown
        }
      }
    }
  }
  if (!origin) origin = defaultEnuOrigin(basemap_paths.front(), 0.0);
  origin->alt_m = std::isfinite(ground_alt) ? ground_alt : 0.0;
  NavigationInputs inputs;
  inputs.camera = camera;
  inputs.basemap_paths = std::move(basemap_paths);
  inputs.telemetry = std::move(telemetry);
  inputs.enu = geo::LocalEnuFrame(*origin);
  inputs.ground_up_m = 0.0;
  inputs.ground_alt_m = ground_alt;
  inputs.log_ground_alt_m = log_ground_alt;
  return inputs;
}

struct NavigationSession::State {
  NavigationInputs inputs;
  NavigationOptions options;
  std::string fallback_reason;
  std::unique_ptr<VisualOdometry> vo;
  std::unique_ptr<TrajectoryFusion> fusion;
  std::optional<RegistrationRequest> pending_request;
  std::vector<RegistrationFix> fixes;
  int keyframes = 0;
  int lost_frames = 0;
  std::vector<geo::FrameSpan> lost_spans;
  bool previous_frame_lost = false;
  int tilt_model_steps = 0;
  double last_request_t_s = -1e9;
  double last_height_m = std::numeric_limits<double>::quiet_NaN();
  std::int64_t frames_processed = 0;
  bool finished = false;
  // Drift evidence: per accepted fix, the online error it corrected and the distance
  // flown on odometry alone before it.
  std::vector<std::pair<double, double>> innovations;  // (error_m, distance_m)
  std::int64_t last_anchor_frame = -1;
  RelocalisationPolicy relocalisation;  // when attempts stop searching around the estimate
  int requests_without_prior = 0;
  // A lone anchor: the estimate rests on one fix (the first, or the one it was relocalised
  // on), and `lone_anchor_inliers` is that fix's. `contradiction` is the latest good fix
  // rejected only because it contradicts that estimate (outvotesLoneAnchor).
  int fixes_on_estimate = 0;
  int lone_anchor_inliers = 0;
  std::optional<RegistrationFix> contradiction;

  // Two fixes outvote a lone anchor: `fix`, rejected only as inconsistent with an estimate
  // that rests on one fix, and the previous such rejection agree with each other through
  // the odometry between them (3 sigma of both fixes and of the odometry's growth), and
  // each has more inliers than the anchor. A false first fix from a global search (a
  // repeated pattern, 67 inliers) otherwise held the estimate 20 m off for 4 s while
  // prior-mode fixes with 270-330 inliers kept finding the right place.
  bool outvotesLoneAnchor(const RegistrationFix& fix) const {
    if (fixes_on_estimate != 1 || !contradiction || contradiction->frame >= fix.frame) return false;
    const RegistrationFix& earlier = *contradiction;
    if (earlier.inliers <= lone_anchor_inliers || fix.inliers <= lone_anchor_inliers) return false;
    const auto then = fusion->onlinePose(earlier.frame);
    const auto now = fusion->onlinePose(fix.frame);
    if (!then || !now || !then->has_pose || !now->has_pose) return false;
    const double flown_e = now->pose.position_enu[0] - then->pose.position_enu[0];
    const double flown_n = now->pose.position_enu[1] - then->pose.position_enu[1];
    const double odometry_sigma = options.fusion.vo_drift_per_m * std::hypot(flown_e, flown_n) +
                                  options.fusion.vo_sigma_per_frame_m * double(fix.frame - earlier.frame);
    const double apart = std::hypot(earlier.pose.position_enu[0] + flown_e - fix.pose.position_enu[0],
                                    earlier.pose.position_enu[1] + flown_n - fix.pose.position_enu[1]);
    return apart <= 3.0 * std::sqrt(earlier.sigma_m * earlier.sigma_m + fix.sigma_m * fix.sigma_m +
                                    odometry_sigma * odometry_sigma);
  }

  // What a logged pose's heading is when the log has no gimbal yaw.
  enum class UnloggedHeading {
    kGuess,    // the aircraft's yaw, else north: a search prior (registration tries it)
    kUnknown,  // NaN: a fusion anchor, which must not pull the heading anywhere
  };
  // The logged camera pose at `t_s` (the log's position, height `height_m` above ground
  // or the default height, the gimbal's angles), when the log has a position there.
  std::optional<CameraPose> loggedPose(double t_s, double height_m,
                                       UnloggedHeading unlogged = UnloggedHeading::kGuess) const {
    if (!inputs.telemetry) return std::nullopt;
    const auto sample = inputs.telemetry->interpolate(t_s);
    if (!sample || !sample->hasPosition()) return std::nullopt;
    const double h = std::isfinite(height_m) ? height_m : options.default_height_m;
    const geo::EnuPoint p = inputs.enu.toEnu({sample->lat_deg, sample->lon_deg, 0.0});
    CameraPose pose;
    pose.t_s = t_s;
    pose.position_enu = {p.east_m, p.north_m, inputs.ground_up_m + h};
    const double guess_deg = unlogged == UnloggedHeading::kUnknown ? std::numeric_limits<double>::quiet_NaN()
                             : std::isfinite(sample->yaw_deg)      ? sample->yaw_deg
                                                                   : 0.0;
    const double true_yaw_deg = std::isfinite(sample->gimbal_yaw_deg) ? sample->gimbal_yaw_deg : guess_deg;
    pose.yaw_deg = true_yaw_deg + inputs.enu.northAzimuthDeg({sample->lat_deg, sample->lon_deg, 0.0});
    pose.pitch_deg = std::isfinite(sample->gimbal_pitch_deg) ? sample->gimbal_pitch_deg : -90.0;
    pose.roll_deg = std::isfinite(sample->gimbal_roll_deg) ? sample->gimbal_roll_deg : 0.0;
    return pose;
  }

  // Whether the log states a camera or vehicle heading at `t_s` (loggedPose guesses
  // north otherwise).
  bool loggedHeadingKnown(double t_s) const {
    if (!inputs.telemetry) return false;
    const auto sample = inputs.telemetry->interpolate(t_s);
    return sample && (std::isfinite(sample->gimbal_yaw_deg) || std::isfinite(sample->yaw_deg));
  }

  double heightAt(double t_s) const { return loggedHeightM(inputs, t_s); }

  // The log's gimbal tilt at `t_s`, for VO, when it states a pitch.
  std::optional<LoggedTilt> loggedTilt(double t_s) const {
    if (!inputs.telemetry) return std::nullopt;
    const auto sample = inputs.telemetry->interpolate(t_s);
    if (!sample || !std::isfinite(sample->gimbal_pitch_deg)) return std::nullopt;
    LoggedTilt tilt;
    tilt.pitch_deg = sample->gimbal_pitch_deg;
    tilt.roll_deg = std::isfinite(sample->gimbal_roll_deg) ? sample->gimbal_roll_deg : 0.0;
    return tilt;
  }
};

NavigationSession::NavigationSession(NavigationInputs inputs, NavigationOptions options)
    : state_(std::make_unique<State>()) {
  options.check();
  inputs.camera.check();
  State& s = *state_;
  s.inputs = std::move(inputs);
  s.options = options;
  auto extractor = vision::createFeatureExtractorOrFallback(options.vo_features, "orb",
                                                            &s.fallback_reason);
  auto matcher = vision::createMatcher(options.vo_matcher, options.vo_match);
  s.vo = std::make_unique<VisualOdometry>(s.inputs.camera, std::move(extractor), std::move(matcher),
                                          options.vo);
  s.fusion = std::make_unique<TrajectoryFusion>(s.inputs.camera, s.inputs.ground_up_m, options.fusion);
}

NavigationSession::~NavigationSession() = default;

const NavigationInputs& NavigationSession::inputs() const { return state_->inputs; }
const NavigationOptions& NavigationSession::options() const { return state_->options; }
std::string NavigationSession::voModelName() const { return state_->vo->extractorName(); }
std::string NavigationSession::fallbackReason() const { return state_->fallback_reason; }
vision::ImageTransfers NavigationSession::voImageTransfers() const { return state_->vo->imageTransfers(); }

FrameResult NavigationSession::processFrame(std::int64_t frame, double t_s,
                                            const vision::Image& image, StageMarker* stages) {
  checkArgument(!state_->finished, "navigation session already finished");
  return afterOdometry(state_->vo->track(frame, t_s, image, stages, state_->loggedTilt(t_s)), image, stages);
}

FrameResult NavigationSession::processExtractedFrame(std::int64_t frame, double t_s, const vision::Image& image,
                                                     OdometryFrameFeatures features, StageMarker* stages) {
  checkArgument(!state_->finished, "navigation session already finished");
  return afterOdometry(
      state_->vo->trackFeatures(frame, t_s, std::move(features), stages, state_->loggedTilt(t_s)), image, stages);
}

FrameResult NavigationSession::afterOdometry(OdometryMeasurement odometry, const vision::Image& image,
                                             StageMarker* stages) {
  State& s = *state_;
  FrameResult out;
  out.frame = odometry.frame;
  out.t_s = odometry.t_s;
  out.odometry = std::move(odometry);
  const std::int64_t frame = out.frame;
  const double t_s = out.t_s;
  if (out.odometry.is_keyframe) ++s.keyframes;
  if (out.odometry.tilt_model) ++s.tilt_model_steps;
  out.odometry_lost = !out.odometry.tracked && out.odometry.reference_frame < 0 && s.frames_processed > 0;
  if (out.odometry_lost) {
    ++s.lost_frames;
    geo::addFrameToRuns(s.lost_spans, frame, t_s, s.previous_frame_lost);
  }
  s.previous_frame_lost = out.odometry_lost;
  const double height = s.heightAt(t_s);
  if (s.options.use_gnss_prior) {
    // The same logged pose as a registration prior's (height above the ground plane),
    // but a heading the log does not state is left unknown, not anchored at north.
    if (const std::optional<CameraPose> prior = s.loggedPose(t_s, height, State::UnloggedHeading::kUnknown))
      s.fusion->addPosePrior(frame, *prior, 3.0);
  }
  const auto start = Clock::now();
  double pitch_hint = std::numeric_limits<double>::quiet_NaN();
  double roll_hint = std::numeric_limits<double>::quiet_NaN();
  double yaw_hint = std::numeric_limits<double>::quiet_NaN();
  if (s.inputs.telemetry) {
    if (const auto sample = s.inputs.telemetry->interpolate(t_s)) {
      pitch_hint = sample->gimbal_pitch_deg;
      roll_hint = sample->gimbal_roll_deg;
      yaw_hint = std::isfinite(sample->gimbal_yaw_deg) ? sample->gimbal_yaw_deg : sample->yaw_deg;
    }
  }
  {
    const StageScope stage(stages, Stage::Fusion);
    out.online = s.fusion->addOdometry(out.odometry, height, pitch_hint, roll_hint, yaw_hint);
  }
  out.fusion_ms = elapsedMs(start);
  if (out.online.has_pose) s.last_height_m = out.online.pose.position_enu[2] - s.inputs.ground_up_m;
  ++s.frames_processed;

  if (s.options.registration_enabled) {
    const bool localised = out.online.has_pose;
    const double since = t_s - s.last_request_t_s;
    bool request = false;
    if (!localised) {
      request = since >= 0.5 * s.options.register_max_interval_s;
    } else {
      request = (out.odometry.is_keyframe && s.keyframes % s.options.register_every_n_keyframes == 0 &&
                 since >= 0.25 * s.options.register_max_interval_s) ||
                since >= s.options.register_max_interval_s;
    }
    if (request) {
      RegistrationRequest r;
      r.frame = frame;
      r.t_s = t_s;
      r.image = image.clone();
      // Around the estimate while it is trusted. Otherwise (not localised yet, or a
      // distrusted estimate) the logged position crops the search (the fix still comes
      // from the images, and is checked against this prior), and every other attempt
      // searches the whole basemap in case the log is wrong; while failed global searches
      // back off, a distrusted estimate is searched around instead of the basemap.
      const bool trusted = localised && !s.relocalisation.distrustsEstimate();
      const bool global_due = !localised || s.relocalisation.globalSearchDue(t_s);
      const std::optional<CameraPose> logged = trusted ? std::nullopt : s.loggedPose(t_s, height);
      if (trusted) {
        r.prior = out.online.pose;
        r.prior_sigma_m = out.online.sigma_m;
      } else if (logged && (s.requests_without_prior++ % 2 == 0 || !global_due)) {
        r.prior = logged;
        r.prior_sigma_m = kTelemetryPriorSigmaM;
        r.prior_from_telemetry = true;
        r.prior_heading_known = s.loggedHeadingKnown(t_s);
      } else if (!global_due) {
        r.prior = out.online.pose;
        r.prior_sigma_m = out.online.sigma_m;
      }
      if (s.inputs.telemetry) {
        if (const auto sample = s.inputs.telemetry->interpolate(t_s)) {
          r.pitch_hint_deg = sample->gimbal_pitch_deg;
          r.roll_hint_deg = sample->gimbal_roll_deg;
        }
      }
      // Unknown before the first fix without a logged height: 0, every search height.
      r.height_hint_m = std::isfinite(height)            ? height
                        : std::isfinite(s.last_height_m) ? s.last_height_m
                                                         : 0.0;
      s.pending_request = std::move(r);
      s.last_request_t_s = t_s;
      out.registration_requested = true;
    }
  }
  return out;
}

std::optional<RegistrationRequest> NavigationSession::takeRegistrationRequest() {
  std::optional<RegistrationRequest> out = std::move(state_->pending_request);
  state_->pending_request.reset();
  return out;
}

void NavigationSession::addFix(const RegistrationFix& fix) {
  State& s = *state_;
  RegistrationFix stored = fix;
  if (fix.accepted) {
    const auto before = s.fusion->onlinePose(fix.frame);
    const bool relocalise = s.relocalisation.distrustsEstimate() && (fix.global_mode || fix.prior_from_telemetry);
    if (!s.fusion->addFix(fix, relocalise)) {
      stored.accepted = false;
      stored.reason = "inconsistent_with_odometry";
    } else {
      s.fixes_on_estimate = relocalise ? 1 : s.fixes_on_estimate + 1;
      if (s.fixes_on_estimate == 1) s.lone_anchor_inliers = fix.inliers;
      s.contradiction.reset();
    }
    if (stored.accepted && before && before->has_pose && s.last_anchor_frame >= 0 && fix.frame > s.last_anchor_frame) {
      // Distance flown since the previous anchor, along the odometry.
      const auto previous = s.fusion->onlinePose(s.last_anchor_frame);
      if (previous && previous->has_pose) {
        const double error = std::hypot(before->pose.position_enu[0] - fix.pose.position_enu[0],
                                        before->pose.position_enu[1] - fix.pose.position_enu[1]);
        const double distance =
            std::hypot(before->pose.position_enu[0] - previous->pose.position_enu[0],
                       before->pose.position_enu[1] - previous->pose.position_enu[1]);
        s.innovations.emplace_back(error, distance);
      }
    }
    if (stored.accepted) s.last_anchor_frame = std::max(s.last_anchor_frame, fix.frame);
  }
  // A good fix that only contradicts an estimate resting on one fix: with the previous
  // such fix it may outvote that fix, and then replaces it as a relocalisation does.
  if (!stored.accepted && stored.reason == "inconsistent_with_odometry" && fix.has_pose &&
      !fix.prior_from_telemetry && s.fixes_on_estimate == 1) {
    if (s.outvotesLoneAnchor(fix)) {
      RegistrationFix outvoting = fix;
      outvoting.accepted = true;
      outvoting.reason.clear();
      if (s.fusion->addFix(outvoting, /*relocalise=*/true)) {
        stored = outvoting;
        s.fixes_on_estimate = 2;  // it and the fix before it agree: no lone anchor now
        s.last_anchor_frame = std::max(s.last_anchor_frame, fix.frame);
      }
      s.contradiction.reset();
    } else {
      s.contradiction = fix;
    }
  }
  s.relocalisation.record(fix, stored.accepted);
  s.fixes.push_back(stored);
}

NavigationResult NavigationSession::finish(bool completed, std::int64_t frames_total) {
  State& s = *state_;
  checkArgument(!s.finished, "navigation session already finished");
  s.finished = true;
  NavigationResult result;
  result.completed = completed;
  result.frames_total = frames_total;
  result.frames_processed = s.frames_processed;
  result.keyframes = s.keyframes;
  result.lost_frames = s.lost_frames;
  result.lost_spans = s.lost_spans;
  result.tilt_model_steps = s.tilt_model_steps;
  result.rejected_odometry_steps = s.fusion->rejectedOdometrySteps();
  if (result.rejected_odometry_steps > 0)
    result.warnings.push_back(std::to_string(result.rejected_odometry_steps) +
                              " frames' visual odometry implied more than " +
                              std::to_string(int(s.options.fusion.max_speed_mps)) +
                              " m/s (a wrong match, not motion); they were treated as lost");
  result.backfilled_frames = s.fusion->backfilledFrames();
  result.vo_features_model = s.vo->extractorName();
  result.vo_frame_transfers = s.vo->imageTransfers();
  const std::string alt_reference =
      std::isfinite(s.inputs.ground_alt_m)
          ? (s.inputs.telemetry ? s.inputs.telemetry->abs_alt_reference : std::string("ellipsoid"))
          : std::string("ground");
  std::vector<FusedPose> smoothed;
  try {
    smoothed = s.fusion->smooth();
  } catch (const Error& e) {
    result.warnings.push_back(std::string("smoothing failed, online track kept: ") + e.what());
    smoothed = s.fusion->onlineTrajectory();
  }
  result.track = trackFrom(smoothed, s.inputs.enu, geo::PoseSource::Visual, "visual", alt_reference);
  result.online_track = trackFrom(s.fusion->onlineTrajectory(), s.inputs.enu, geo::PoseSource::Visual,
                                  "online", alt_reference);
  result.odometry_track = trackFrom(s.fusion->odometryTrajectory(), s.inputs.enu,
                                    geo::PoseSource::Odometry, "odometry", alt_reference);
  // The video's clock in UTC where the log states absolute time (exports then carry it).
  if (s.inputs.telemetry) {
    for (geo::Track* track : {&result.track, &result.online_track, &result.odometry_track})
      track->start_unix_s = io::videoStartUnixSeconds(*s.inputs.telemetry);
  }
  std::sort(s.fixes.begin(), s.fixes.end(),
            [](const RegistrationFix& a, const RegistrationFix& b) { return a.frame < b.frame; });
  result.fixes = s.fixes;
  setTrackOffsets(smoothed, &result.fixes);
  for (const RegistrationFix& fix : result.fixes)
    result.fixes_far_from_track += fixFarFromTrack(fix.track_offset_m, fix.sigma_m, s.options.fusion) ? 1 : 0;
  if (s.inputs.telemetry) {
    result.gnss_track = io::gnssTrackFromTelemetry(*s.inputs.telemetry);
    result.discrepancy = analyzeGnssDiscrepancy(result.track, *result.gnss_track, s.options.discrepancy);
    result.log_time_offset_s = s.inputs.telemetry->time_offset_s;
    result.log_alignment = estimateLogAlignment(result.track, *result.gnss_track);
    if (const std::optional<std::string> warning = logClockWarning(*result.log_alignment, result.log_time_offset_s,
                                                                    frameIntervalS(result.track)))
      result.warnings.push_back(*warning);
  }
  double error_sum = 0.0, distance_sum = 0.0;
  for (const auto& [error, distance] : s.innovations) {
    error_sum += error;
    distance_sum += distance;
  }
  if (distance_sum > 10.0) result.drift_estimate_percent = 100.0 * error_sum / distance_sum;
  if (!s.fallback_reason.empty()) result.warnings.push_back(s.fallback_reason);
  if (s.options.registration_enabled && result.frames_processed > 0 && result.track.poses.empty()) {
    result.not_localised_reason = notLocalisedReason(result.fixes, s.inputs.telemetry.has_value());
    result.warnings.push_back(result.not_localised_reason);
  }
  return result;
}

double firstRequestHeightM(const NavigationInputs& inputs, double first_frame_t_s) {
  // As the request of a frame without a position (processFrame): no height of its own yet.
  const double logged = loggedHeightM(inputs, first_frame_t_s);
  return std::isfinite(logged) ? logged : 0.0;
}

void checkVideoFrameSize(const std::string& video_path, int width_px, int height_px) {
  if (width_px < kMinFrameSidePx || height_px < kMinFrameSidePx) {
    throw FormatError(video_path + ": frames of " + std::to_string(width_px) + "x" + std::to_string(height_px) +
                      " pixels are too small to navigate (at least " + std::to_string(kMinFrameSidePx) + "x" +
                      std::to_string(kMinFrameSidePx) + ")");
  }
}

void markVideoEndedEarly(const std::string& video_path, const std::string& reason, NavigationResult* result) {
  if (reason.empty()) return;
  result->completed = false;
  result->warnings.push_back(video_path + ": " + reason + "; the results end at the last decoded frame");
}

}  // namespace skytrace::nav
