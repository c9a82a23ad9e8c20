#include "ui/navigation_runner.h"

#include <QCoreApplication>

#include <chrono>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/engine/navigation_payloads.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/video_source.h"
#include "core/nav/basemap_registration.h"
#include "core/nav/camera_pose.h"
#include "core/nav/model_choice.h"
#include "core/nav/navigation_report.h"
#include "core/nav/navigation_session.h"
#include "core/util/atomic_folder.h"
#include "core/util/error.h"
#include "core/vision/torch_runtime.h"
#include "ui/processing_choice.h"

namespace skytrace::ui {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The camera as the project says (the same rules as `skytrace-cli process`).
nav::CameraModel cameraFor(const io::Project& project, const io::VideoInfo& video, std::string* source,
                           ProcessingSink& sink) {
  namespace fs = std::filesystem;
  switch (project.camera.source) {
    case io::CameraSource::File:
      *source = project.camera.file_path;
      return nav::readCameraFile(project.camera.file_path);
    case io::CameraSource::HorizontalFov:
      *source = "hfov";
      return nav::CameraModel::fromHorizontalFov(video.width_px, video.height_px, project.camera.hfov_deg);
    case io::CameraSource::Telemetry:
      sink.warning("the flight log names no camera model this version reads: using the default camera");
      [[fallthrough]];
    case io::CameraSource::Default:
      break;
  }
  const fs::path beside = fs::path(project.video_path).parent_path() / "camera.json";
  std::error_code ec;
  if (fs::is_regular_file(beside, ec)) {
    *source = beside.string();
    return nav::readCameraFile(beside);
  }
  *source = "default";
  return nav::CameraModel::fromHorizontalFov(video.width_px, video.height_px, 70.0);
}

// The navigation's per-frame results and fixes as the GUI's live updates. Called on the
// engine's VO worker thread (overlapped) or the processing thread (sequential), one
// call at a time; ProcessingSink is thread-safe and queues everything to the GUI thread.
class LiveUpdates final : public engine::NavigationLiveSink {
 public:
  LiveUpdates(ProcessingSink& sink, const geo::LocalEnuFrame& enu, std::int64_t frames_total)
      : sink_(sink), enu_(enu), frames_total_(frames_total) {}

  void onSessionStarted(const std::string&, const std::string& fallback_reason) override {
    if (!fallback_reason.empty()) sink_.warning(fallback_reason);
  }

  void onFrame(const nav::FrameResult& r) override {
    LiveFrameUpdate update;
    update.frame = r.frame;
    update.t_s = r.t_s;
    if (r.online.has_pose) {
      update.has_pose = true;
      update.online = nav::trackPoseFromCameraPose(r.online.pose, enu_, r.frame);
      update.online.t_s = r.t_s;
      update.online.sigma_m = r.online.sigma_m;
      update.online.source = geo::PoseSource::Visual;
    }
    // The VO inliers for the video overlay: this frame's keypoints and where they were
    // in the reference keyframe.
    update.keypoints_px.reserve(int(r.odometry.inlier_frame_px.size()));
    for (const cv::Point2f& p : r.odometry.inlier_frame_px) update.keypoints_px.append(QPointF(p.x, p.y));
    update.matches_from_px.reserve(int(r.odometry.inlier_reference_px.size()));
    for (const cv::Point2f& p : r.odometry.inlier_reference_px) update.matches_from_px.append(QPointF(p.x, p.y));
    sink_.frameProcessed(update);
    sink_.progress(r.frame + 1, frames_total_, "navigating");
  }

  void onFix(const nav::RegistrationFix& fix) override {
    RegistrationFixRecord record;
    record.frame = fix.frame;
    record.t_s = fix.t_s;
    record.accepted = fix.accepted;
    record.reason = fix.reason;
    record.mode = fix.global_mode ? "global" : "prior";
    record.inliers = fix.inliers;
    record.inlier_ratio = fix.inlier_ratio;
    record.sigma_m = fix.sigma_m;
    if (fix.has_pose) {
      const geo::TrackPose p = nav::trackPoseFromCameraPose(fix.pose, enu_, fix.frame);
      record.lat_deg = p.lat_deg;
      record.lon_deg = p.lon_deg;
      record.alt_m = p.alt_m;
      record.yaw_deg = p.yaw_deg;
    }
    sink_.fixComputed(record);
  }

 private:
  ProcessingSink& sink_;
  geo::LocalEnuFrame enu_;
  std::int64_t frames_total_;
};

// The device a stage's sample is recorded on (-1: CPU), as the engine records them.
std::int8_t deviceOf(engine::Stage stage, const engine::DevicePlacement& placement) {
  if (stage == engine::Stage::Decode) return -1;
  const bool satellite = stage == engine::Stage::Retrieval || stage == engine::Stage::FineMatch;
  const vision::DeviceSpec& device = satellite ? placement.satellite : placement.vo;
  return device.cuda ? static_cast<std::int8_t>(device.index) : std::int8_t(-1);
}

// What either driver leaves for the results folder.
struct RunOutcome {
  nav::NavigationResult result;
  std::vector<engine::LatencySample> samples;
  std::string vo_features_model;  // the extractor actually used (after a fallback)
  // "latest" or "every" as the run applied it (the engine's report; the sequential
  // driver registers every keyframe).
  std::string keyframe_policy = engine::keyframePolicyName(engine::KeyframePolicy::EveryKeyframe);
  bool cancelled = false;
};

// The sequential driver: every step on this thread, every keyframe registered before the
// next frame. Latency samples go to the sink's recorder as they are measured.
RunOutcome runSequential(const std::string& video_path, nav::NavigationInputs inputs,
                         const ProcessingChoice& choice, std::int64_t frames_total, LiveUpdates& live,
                         ProcessingSink& sink) {
  auto video = io::openVideoSource(video_path);
  nav::BasemapRegistrar registrar(inputs.basemap_paths, inputs.enu, inputs.ground_up_m, inputs.camera,
                                  choice.options.registration);
  nav::NavigationSession session(std::move(inputs), choice.options);
  live.onSessionStarted(session.voModelName(), session.fallbackReason());

  RunOutcome outcome;
  engine::LatencyRecorder* recorder = sink.latencyRecorder();
  auto record = [&](std::int64_t frame, engine::Stage stage, double start_ms, double duration_ms) {
    engine::LatencySample s;
    s.frame = frame;
    s.stage = stage;
    s.start_ms = start_ms;
    s.duration_ms = duration_ms;
    s.device = deviceOf(stage, choice.placement);
    outcome.samples.push_back(s);
    recorder->push(s);
  };

  io::VideoFrame frame;
  std::int64_t frames_read = 0;
  // A global search's preparation can take minutes: progress and cancel reach it too.
  registrar.setSearchMonitor([&](int done, int total) {
    sink.progress(frames_read, frames_total, nav::globalSearchStage(done, total));
    sink.control().checkpoint();
  });
  while (true) {
    try {
      sink.control().checkpoint();
    } catch (const Cancelled&) {
      outcome.cancelled = true;
      break;
    }
    const double frame_start_ms = recorder->nowMs();
    const auto decode_start = Clock::now();
    if (!video->read(&frame)) break;
    frames_read = frame.index + 1;
    record(frame.index, engine::Stage::Decode, frame_start_ms, msSince(decode_start));
    const nav::FrameResult r = session.processFrame(frame.index, frame.t_s, frame.bgr);
    record(frame.index, engine::Stage::Extract, frame_start_ms, r.odometry.extract_ms);
    record(frame.index, engine::Stage::Match, frame_start_ms, r.odometry.match_ms);
    record(frame.index, engine::Stage::Pose, frame_start_ms, r.odometry.pose_ms);
    record(frame.index, engine::Stage::Fusion, frame_start_ms, r.fusion_ms);
    live.onFrame(r);

    if (auto request = session.takeRegistrationRequest()) {
      const double registration_start_ms = recorder->nowMs();
      nav::RegistrationFix fix;
      try {
        fix = registrar.registerFrame(*request);
      } catch (const Cancelled&) {  // cancelled inside a global search
        outcome.cancelled = true;
        break;
      }
      if (fix.global_mode) record(fix.frame, engine::Stage::Retrieval, registration_start_ms, fix.retrieval_ms);
      record(fix.frame, engine::Stage::FineMatch, registration_start_ms + (fix.global_mode ? fix.retrieval_ms : 0.0),
             fix.fine_match_ms);
      session.addFix(fix);
      live.onFix(fix);
    }
  }
  sink.progress(frames_read, frames_total, "smoothing");
  outcome.vo_features_model = session.voModelName();
  outcome.result = session.finish(!outcome.cancelled, std::max(frames_total, frames_read));
  return outcome;
}

// The engine: decode thread, VO worker, registration on the satellite QThread, with the
// project's keyframe policy. The engine's samples are forwarded to the sink's recorder
// while it runs.
RunOutcome runOverlapped(const std::string& video_path, nav::NavigationInputs inputs,
                         const ProcessingChoice& choice, LiveUpdates& live, ProcessingSink& sink) {
  engine::NavigationEngineHooks hooks;
  hooks.live = &live;
  hooks.control = &sink.control();
  hooks.latency_forward = sink.latencyRecorder();
  engine::NavigationEngineRun run =
      engine::runNavigationEngine(video_path, std::move(inputs), choice.options, choice.placement, {}, hooks,
                                  choice.keyframe_policy);
  RunOutcome outcome;
  outcome.keyframe_policy = !run.report.keyframe_policy.empty() ? run.report.keyframe_policy
                                                                : engine::keyframePolicyName(choice.keyframe_policy);
  outcome.result = std::move(run.result);
  outcome.samples = std::move(run.samples);
  outcome.vo_features_model = run.vo_model;
  outcome.cancelled = run.report.cancelled;
  return outcome;
}

}  // namespace

void NavigationRunner::run(const io::Project& project, ProcessingSink& sink) {
  const auto started = Clock::now();
  const ProcessingChoice choice = processingChoiceFor(project, vision::cudaDeviceCount());
  // Weights a chosen model cannot do without: fail before any thread starts (the message
  // names the file and where the authors publish it). Fallbacks are reported by the
  // session when it starts.
  for (const MissingWeights& missing : missingWeights(choice.options))
    if (!missing.falls_back) throw ModelError(missing.stage + ": " + missing.message);
  vision::configureTorchRuntime(0);
  // Checked before any work; replaced as a whole at the end (never two runs mixed).
  AtomicFolder results(project.results_dir, "report.json");
  io::VideoInfo info;
  {
    auto video = io::openVideoSource(project.video_path);  // fails early on an unreadable video
    info = video->info();
  }
  std::string camera_source;
  const nav::CameraModel camera = cameraFor(project, info, &camera_source, sink);

  std::optional<io::TelemetrySeries> telemetry;
  std::vector<std::string> warnings;
  if (!project.telemetry_path.empty()) {
    telemetry = io::readTelemetry(project.telemetry_path);
    for (const std::string& line : io::warningLines(*telemetry)) warnings.push_back(line);
    if (telemetry->format != "dji-srt")
      warnings.push_back("the log's clock is assumed to start with the video (offset 0 s): only "
                         "DJI SRT logs carry the video clock");
  }
  nav::NavigationInputs inputs = nav::makeNavigationInputs(camera, project.basemap_paths, telemetry);
  const geo::LocalEnuFrame enu = inputs.enu;
  // The ground plane VO and registration use, in the track's altitudes (origin altitude +
  // ENU up; the origin sits at the logged ground height, or at 0 when it is unknown and
  // then so do the track's altitudes): what camera footprints are drawn against.
  const double ground_alt_m = enu.origin().alt_m + inputs.ground_up_m;
  sink.groundAltitude(ground_alt_m);

  sink.progress(0, info.frame_count, "loading models");
  LiveUpdates live(sink, enu, info.frame_count);
  RunOutcome outcome = choice.overlapped
                           ? runOverlapped(project.video_path, std::move(inputs), choice, live, sink)
                           : runSequential(project.video_path, std::move(inputs), choice, info.frame_count,
                                           live, sink);
  sink.progress(outcome.result.frames_processed, info.frame_count, "writing results");

  nav::NavigationResult& result = outcome.result;
  result.warnings.insert(result.warnings.end(), warnings.begin(), warnings.end());
  nav::NavigationOptions used = choice.options;
  if (!outcome.vo_features_model.empty()) used.vo_features.model = outcome.vo_features_model;
  if (!result.registration_features_model.empty())
    used.registration.features.model = result.registration_features_model;
  nav::RunDescription run;
  run.skytrace_version = QCoreApplication::applicationVersion().toStdString();
  run.video_path = project.video_path;
  run.basemap_paths = project.basemap_paths;
  run.telemetry_path = project.telemetry_path;
  run.camera_source = camera_source;
  const engine::DevicePlacement& placement = choice.placement;
  run.device = placement.splitAcrossDevices()
                   ? "vo " + placement.vo.toString() + ", registration " + placement.satellite.toString()
                   : placement.vo.toString();
  run.feature_model = nav::visualOdometryModelName(used);
  run.registration_model = nav::satelliteModelName(used.registration);
  for (const std::string& w : result.warnings)
    if (w.find("weights") != std::string::npos) run.fallback_reason = w;
  run.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  run.stages = engine::stageSummaries(outcome.samples);
  nlohmann::json extra = {{"ground_alt_m", ground_alt_m},
                          {"runner", name()},
                          {"mode", choice.overlapped ? "overlapped" : "sequential"},
                          {"keyframe_policy", outcome.keyframe_policy},
                          {"device_placement", placement.reason}};
  run.extra = &extra;
  nav::writeNavigationResults(results.stagingPath().string(), result, camera, enu, run);
  engine::writeLatencyCsv((results.stagingPath() / "latency.csv").string(), outcome.samples);
  results.commit();
  if (outcome.cancelled) throw Cancelled();
}

}  // namespace skytrace::ui
