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
#include "core/nav/navigation_report.h"
#include "core/nav/navigation_session.h"
#include "core/util/error.h"
#include "core/vision/torch_runtime.h"

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

}  // namespace

void NavigationRunner::run(const io::Project& project, ProcessingSink& sink) {
  const auto started = Clock::now();
  const vision::DeviceSpec device = vision::parseDevice(project.device);
  vision::configureTorchRuntime(0);
  auto video = io::openVideoSource(project.video_path);
  const io::VideoInfo info = video->info();
  std::string camera_source;
  const nav::CameraModel camera = cameraFor(project, info, &camera_source, sink);

  std::optional<io::TelemetrySeries> telemetry;
  std::vector<std::string> warnings;
  if (!project.telemetry_path.empty()) {
    telemetry = io::readTelemetry(project.telemetry_path);
    if (telemetry->format != "dji-srt")
      warnings.push_back("the log's clock is assumed to start with the video (offset 0 s): only "
                         "DJI SRT logs carry the video clock");
  }
  nav::NavigationInputs inputs = nav::makeNavigationInputs(camera, project.basemap_paths, telemetry);
  const geo::LocalEnuFrame enu = inputs.enu;
  const double ground_up_m = inputs.ground_up_m;
  // The ground plane VO and registration use, in the track's altitudes (origin altitude +
  // ENU up; the origin sits at the logged ground height, or at 0 when it is unknown and
  // then so do the track's altitudes): what camera footprints are drawn against.
  const double ground_alt_m = enu.origin().alt_m + ground_up_m;
  sink.groundAltitude(ground_alt_m);

  nav::NavigationOptions options;
  options.vo_features.model = project.feature_model;
  options.vo_features.device = device;
  options.vo.device = device;
  options.registration.features = options.vo_features;
  options.registration.features.max_keypoints = 2048;

  sink.progress(0, info.frame_count, "loading models");
  nav::NavigationSession session(std::move(inputs), options);
  nav::BasemapRegistrar registrar(project.basemap_paths, enu, ground_up_m, camera, options.registration);

  engine::LatencyRecorder* recorder = sink.latencyRecorder();
  std::vector<engine::LatencySample> samples;
  const std::int8_t device_index = device.cuda ? static_cast<std::int8_t>(device.index) : -1;
  auto record = [&](std::int64_t frame, engine::Stage stage, double start_ms, double duration_ms) {
    engine::LatencySample s;
    s.frame = frame;
    s.stage = stage;
    s.start_ms = start_ms;
    s.duration_ms = duration_ms;
    s.device = stage == engine::Stage::Decode ? -1 : device_index;
    samples.push_back(s);
    recorder->push(s);
  };

  bool cancelled = false;
  io::VideoFrame frame;
  while (true) {
    try {
      sink.control().checkpoint();
    } catch (const Cancelled&) {
      cancelled = true;
      break;
    }
    const double frame_start_ms = recorder->nowMs();
    const auto decode_start = Clock::now();
    if (!video->read(&frame)) break;
    record(frame.index, engine::Stage::Decode, frame_start_ms, msSince(decode_start));
    const nav::FrameResult r = session.processFrame(frame.index, frame.t_s, frame.bgr);
    record(frame.index, engine::Stage::Extract, frame_start_ms, r.odometry.extract_ms);
    record(frame.index, engine::Stage::Match, frame_start_ms, r.odometry.match_ms);
    record(frame.index, engine::Stage::Pose, frame_start_ms, r.odometry.pose_ms);
    record(frame.index, engine::Stage::Fusion, frame_start_ms, r.fusion_ms);

    LiveFrameUpdate update;
    update.frame = frame.index;
    update.t_s = frame.t_s;
    if (r.online.has_pose) {
      update.has_pose = true;
      update.online = nav::trackPoseFromCameraPose(r.online.pose, enu, frame.index);
      update.online.t_s = frame.t_s;
      update.online.sigma_m = r.online.sigma_m;
      update.online.source = geo::PoseSource::Visual;
    }
    sink.frameProcessed(update);

    if (auto request = session.takeRegistrationRequest()) {
      const nav::RegistrationFix fix = registrar.registerFrame(*request);
      if (fix.global_mode) record(fix.frame, engine::Stage::Retrieval, recorder->nowMs(), fix.retrieval_ms);
      record(fix.frame, engine::Stage::FineMatch, recorder->nowMs(), fix.fine_match_ms);
      session.addFix(fix);
      RegistrationFixRecord record_out;
      record_out.frame = fix.frame;
      record_out.t_s = fix.t_s;
      record_out.accepted = fix.accepted;
      record_out.reason = fix.reason;
      record_out.mode = fix.global_mode ? "global" : "prior";
      record_out.inliers = fix.inliers;
      record_out.inlier_ratio = fix.inlier_ratio;
      record_out.sigma_m = fix.sigma_m;
      if (fix.has_pose) {
        const geo::TrackPose p = nav::trackPoseFromCameraPose(fix.pose, enu, fix.frame);
        record_out.lat_deg = p.lat_deg;
        record_out.lon_deg = p.lon_deg;
        record_out.alt_m = p.alt_m;
        record_out.yaw_deg = p.yaw_deg;
      }
      sink.fixComputed(record_out);
    }
    sink.progress(frame.index + 1, info.frame_count, "navigating");
  }

  sink.progress(frame.index + 1, info.frame_count, "smoothing");
  nav::NavigationResult result =
      session.finish(!cancelled, std::max<std::int64_t>(info.frame_count, frame.index + 1));
  result.warnings.insert(result.warnings.end(), warnings.begin(), warnings.end());
  nav::RunDescription run;
  run.skytrace_version = QCoreApplication::applicationVersion().toStdString();
  run.video_path = project.video_path;
  run.basemap_paths = project.basemap_paths;
  run.telemetry_path = project.telemetry_path;
  run.camera_source = camera_source;
  run.device = device.toString();
  run.feature_model = session.voModelName();
  run.registration_model = options.registration.features.model;
  for (const std::string& w : result.warnings)
    if (w.find("weights") != std::string::npos) run.fallback_reason = w;
  run.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  run.stages = engine::stageSummaries(samples);
  nlohmann::json extra = {{"ground_alt_m", ground_alt_m}, {"runner", name()}};
  run.extra = &extra;
  nav::writeNavigationResults(project.results_dir, result, camera, enu, run);
  engine::writeLatencyCsv(project.results_dir + "/latency.csv", samples);
  if (cancelled) throw Cancelled();
}

}  // namespace skytrace::ui
