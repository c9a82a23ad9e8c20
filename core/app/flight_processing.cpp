#include "core/app/flight_processing.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <sstream>
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/app/photo_log.h"
#include "core/engine/navigation_payloads.h"
#include "core/geo/photo_metadata.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/video_source.h"
#include "core/nav/basemap_registration.h"
#include "core/nav/model_choice.h"
#include "core/nav/navigation_report.h"
#include "core/nav/visual_odometry.h"
#include "core/util/atomic_folder.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/heap_trim.h"
#include "core/util/thread_budget.h"
#include "core/vision/aliked_config.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/lightglue_matcher.h"
#include "core/vision/litesam_matcher.h"
#include "core/vision/model_paths.h"
#include "core/vision/superpoint_extractor.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::app {
namespace {

using Clock = std::chrono::steady_clock;

bool isAliked(const std::string& model) { return model.rfind("aliked", 0) == 0; }

// "a,b, c" -> {"a", "b", "c"} (blanks around items dropped, empty items skipped).
std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream stream(text);
  while (std::getline(stream, item, ',')) {
    const auto first = item.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    items.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
  }
  return items;
}

// Resolves the weights file of a learned local-feature model as its extractor would
// (classical models need none). Throws ModelError when it is missing.
void resolveFeatureWeights(const vision::ExtractorOptions& features) {
  if (isAliked(features.model))
    vision::resolveWeightsPath(features.model, features.weights_path,
                               vision::alikedConfig(features.model).published_file, vision::kAlikedWeightsUrl);
  else if (features.model == "superpoint")
    vision::superPointWeightsPath(features);
}

void checkWeights(const char* stage, bool falls_back, const std::function<void()>& resolve,
                  std::vector<MissingWeights>* out) {
  try {
    resolve();
  } catch (const ModelError& e) {
    out->push_back({stage, e.what(), falls_back});
  }
}


// The observer's live sink when it wants live results, else none.
engine::NavigationLiveSink* liveSinkOf(FlightObserver& observer) {
  return observer.wantsLiveResults() ? &observer : nullptr;
}

}  // namespace

std::string placeLogOnVideoClock(std::optional<double> given_offset_s, const io::VideoInfo& video,
                                 io::TelemetrySeries* telemetry, std::vector<std::string>* warnings) {
  if (given_offset_s && std::isfinite(*given_offset_s)) {
    telemetry->time_offset_s = *given_offset_s;
    return "given";
  }
  if (telemetry->format == "dji-srt" || telemetry->format == "photo-exif") {
    telemetry->time_offset_s = 0.0;  // subtitles, or the photo folder's own frame times
    return "video clock";
  }
  const bool timed = std::isfinite(video.creation_unix_s) && std::isfinite(telemetry->start_unix_s) &&
                     !telemetry->samples.empty();
  if (timed) {
    const double offset = io::estimateTimeOffset(*telemetry, video.creation_unix_s);
    const double first_s = telemetry->samples.front().log_t_s + offset;
    const double last_s = telemetry->samples.back().log_t_s + offset;
    if (last_s >= 0.0 && first_s <= video.duration_s()) {
      telemetry->time_offset_s = offset;
      return "recording time";
    }
    char text[320];
    std::snprintf(text, sizeof text,
                  "the video's recording time (%.0f s after the log's start) puts the whole log outside the video; "
                  "it is ignored (a camera clock in local time?)",
                  video.creation_unix_s - telemetry->start_unix_s);
    warnings->push_back(text);
  }
  warnings->push_back(std::string("the log's clock is assumed to start with the video (offset 0 s): only DJI SRT "
                                  "logs carry the video clock, and ") +
                      (timed ? "the video's recording time does not fit the log"
                             : "the video or the log states no UTC time") +
                      "; give the offset with --time-offset (a project's telemetry_time_offset_s)");
  telemetry->time_offset_s = 0.0;
  return "assumed";
}

void FlightRequest::check() const {
  checkArgument(!video_path.empty(), "no video to process (--video)");
  checkArgument(!basemap_paths.empty() || !registration_enabled,
                "no basemap: registration needs at least one (--basemap)");
  checkArgument(!basemap_paths.empty() || !telemetry_path.empty(),
                "odometry without a basemap starts from the flight log's first position: give --telemetry");
  for (const std::string& basemap : basemap_paths) checkArgument(!basemap.empty(), "an empty --basemap path");
  checkArgument(camera.source != CameraChoice::Source::kFile || !camera.file.empty(),
                "a camera from a file, but no file (--camera)");
  checkArgument(camera.source != CameraChoice::Source::kHorizontalFov ||
                    (camera.hfov_deg > 1.0 && camera.hfov_deg < 179.0),
                "--hfov-deg must be within (1, 179), got " + std::to_string(camera.hfov_deg));
  if (time_offset_s) {
    checkArgument(std::isfinite(*time_offset_s), "the time offset must be a finite number of seconds (--time-offset)");
    checkArgument(!telemetry_path.empty(), "--time-offset needs --telemetry");
  }
  checkArgument(satellite_sm_limit >= 0, "--sat-sm-limit must be >= 0 (0: no limit)");
  checkArgument(std::isnan(height_filter_s) || (height_filter_s >= 0 && height_filter_s <= 3600),
                "--height-filter-s must be within 0..3600 s (0: the log's height as it is)");
  checkArgument(!results_dir.empty(), "no results folder (--out)");
}

nav::CameraModel resolveCamera(const FlightRequest& request, const io::VideoInfo& video, std::string* source) {
  namespace fs = std::filesystem;
  switch (request.camera.source) {
    case CameraChoice::Source::kFile:
      *source = request.camera.file;
      return nav::readCameraFile(request.camera.file);
    case CameraChoice::Source::kHorizontalFov:
      *source = "hfov";
      return nav::CameraModel::fromHorizontalFov(video.width_px, video.height_px, request.camera.hfov_deg);
    case CameraChoice::Source::kAutomatic:
      break;
  }
  const fs::path beside = fs::path(request.video_path).parent_path() / "camera.json";
  std::error_code ec;
  if (fs::is_regular_file(beside, ec)) {
    *source = beside.string();
    return nav::readCameraFile(beside.string());
  }
  // A photo folder: the first photo's 35 mm equivalent focal length (EXIF).
  if (video.kind == io::VideoSourceKind::ImageSequence) {
    const std::vector<std::string> photos = io::listSequenceImages(request.video_path);
    if (!photos.empty()) {
      try {
        const double hfov_deg = geo::readPhotoMetadata(photos.front()).horizontalFovDeg();
        if (std::isfinite(hfov_deg) && hfov_deg > 1.0 && hfov_deg < 179.0) {
          *source = "exif focal length";
          return nav::CameraModel::fromHorizontalFov(video.width_px, video.height_px, hfov_deg);
        }
      } catch (const Error&) {
        // Unreadable metadata: the default below.
      }
    }
  }
  *source = "default";
  return nav::CameraModel::fromHorizontalFov(video.width_px, video.height_px, 70.0);
}

NavigationRun runNavigation(const std::string& video_path, nav::NavigationInputs inputs,
                            const ProcessingChoice& choice, std::int64_t frames_total, FlightObserver& observer) {
  engine::NavigationEngineOptions layout;
  layout.layout = choice.layout;
  layout.placement = choice.placement;
  layout.front_end_devices = choice.front_end_devices;
  layout.keyframe_policy = choice.keyframe_policy;
  layout.satellite_sm_limit = choice.satellite_sm_limit;
  engine::NavigationEngineHooks hooks;
  hooks.live = liveSinkOf(observer);
  hooks.control = observer.control();
  hooks.latency_listener = observer.wantsLatencyBatches() ? &observer : nullptr;
  // Bounded resident memory over long videos (core/util/heap_trim.h), on its own thread.
  const BackgroundHeapTrim heap_trim;
  // Called by the engine's threads one at a time (NavigationEngineHooks::progress).
  hooks.progress = [&](std::int64_t frames_done, std::int64_t total, const std::string& stage) {
    observer.onProgress(frames_done, total > 0 ? total : frames_total, stage);
  };
  const auto navigation_start = Clock::now();
  engine::NavigationEngineRun run =
      engine::runNavigationEngine(video_path, std::move(inputs), choice.options, layout, hooks);
  const double navigation_s = std::chrono::duration<double>(Clock::now() - navigation_start).count();
  if (!hooks.live && !run.fallback_reason.empty()) observer.onWarning(run.fallback_reason);
  NavigationRun outcome;
  outcome.keyframe_policy = !run.report.keyframe_policy.empty() ? run.report.keyframe_policy
                                                                : engine::keyframePolicyName(choice.keyframe_policy);
  outcome.result = std::move(run.result);
  outcome.samples = std::move(run.samples);
  outcome.cancelled = run.report.cancelled;
  outcome.navigation_s = navigation_s;
  outcome.navigation_parts.first_frame_s = run.report.first_frame_s;
  outcome.navigation_parts.registration_wait_s = run.report.keyframe_wait_ms / 1e3;
  outcome.navigation_parts.finish_s = run.report.finish_s;
  return outcome;
}

namespace {

// report.json's description of the satellite stage's models and their weights.
nlohmann::json satelliteModelsJson(const nav::RegistrationOptions& sat) {
  auto weightsOrModelDirectory = [](const std::string& path) {
    return path.empty() ? nlohmann::json("model directory") : nlohmann::json(path);
  };
  const bool dense = sat.fine_matching == nav::FineMatching::kDenseMatcher;
  const bool learned_retrieval = sat.retrieval == nav::RetrievalMethod::kGlobalDescriptor;
  return {{"retrieval", learned_retrieval ? sat.retrieval_descriptor.model : "vlad"},
          {"retrieval_weights", learned_retrieval ? weightsOrModelDirectory(sat.retrieval_descriptor.weights_path)
                                                  : nlohmann::json(nullptr)},
          {"fine_matching", dense ? sat.dense_matcher.model : sat.features.model},
          {"fine_weights", dense ? weightsOrModelDirectory(sat.dense_matcher.weights_path) : nlohmann::json(nullptr)}};
}

}  // namespace

FlightRequest flightRequestFromProject(const io::Project& project, std::vector<std::string>* warnings) {
  FlightRequest request;
  request.video_path = project.video_path;
  request.basemap_paths = project.basemap_paths;
  request.telemetry_path = project.telemetry_path;
  request.time_offset_s = project.telemetry_time_offset_s;
  switch (project.camera.source) {
    case io::CameraSource::File:
      request.camera.source = CameraChoice::Source::kFile;
      request.camera.file = project.camera.file_path;
      break;
    case io::CameraSource::HorizontalFov:
      request.camera.source = CameraChoice::Source::kHorizontalFov;
      request.camera.hfov_deg = project.camera.hfov_deg;
      break;
    case io::CameraSource::Telemetry:
      if (warnings)
        warnings->push_back("the flight log names no camera model this version reads: using the default camera");
      [[fallthrough]];
    case io::CameraSource::Default:
      request.camera.source = CameraChoice::Source::kAutomatic;
      break;
  }
  // Unset fields keep the request's defaults: the ones of `process`.
  if (!project.feature_model.empty()) request.feature_model = project.feature_model;
  request.vo_model = project.vo_model;
  request.satellite_model = project.satellite_model;
  if (project.processing_mode != "frame-parallel") {  // frame-parallel: every GPU
    // "" and "auto": resolveDevicePlacement's rules.
    request.vo_device = project.effectiveVoDevice();
    request.satellite_device = project.effectiveSatelliteDevice();
  }
  request.mode = project.processing_mode;  // "": the automatic layout
  request.register_every_keyframe = project.register_every_keyframe;
  request.half_precision = project.half_precision;
  request.lightglue_full_depth = project.lightglue_depth == "full";
  request.results_dir = project.results_dir;
  return request;
}

ProcessingChoice processingChoiceFor(const FlightRequest& request, int cuda_device_count) {
  ProcessingChoice choice;
  choice.placement = engine::resolveDevicePlacement(request.device, request.vo_device, request.satellite_device,
                                                    cuda_device_count);
  const bool devices_named = engine::namesDevice(request.device) || engine::namesDevice(request.vo_device) ||
                             engine::namesDevice(request.satellite_device) ||
                             !request.frame_devices.empty();
  std::string mode = request.mode;
  if (mode.empty()) {
    mode = !choice.placement.vo.cuda                       ? "sequential"
           : cuda_device_count >= 2 && !devices_named ? "frame-parallel"
                                                           : "overlapped";
  }
  checkArgument(mode == "sequential" || mode == "overlapped" || mode == "frame-parallel",
                "--mode must be sequential, overlapped or frame-parallel, got '" + mode + "'");
  choice.layout = mode == "sequential"   ? engine::NavigationLayout::Sequential
                  : mode == "overlapped" ? engine::NavigationLayout::Overlapped
                                         : engine::NavigationLayout::FrameParallel;
  checkArgument(request.frame_devices.empty() || choice.layout == engine::NavigationLayout::FrameParallel,
                "--frame-devices needs --mode frame-parallel");
  if (choice.layout == engine::NavigationLayout::FrameParallel) {
    if (!request.frame_devices.empty()) {
      for (const std::string& name : splitList(request.frame_devices))
        choice.front_end_devices.push_back(vision::parseDevice(name));
    } else {
      for (int i = 0; i < cuda_device_count; ++i)
        choice.front_end_devices.push_back(vision::parseDevice("cuda:" + std::to_string(i)));
    }
    checkArgument(choice.front_end_devices.size() >= 2,
                  "--mode frame-parallel needs two or more devices (found " + std::to_string(cuda_device_count) +
                      " GPUs): name them with --frame-devices, e.g. cuda:0,cuda:1");
    checkArgument(!engine::namesDevice(request.vo_device) && !engine::namesDevice(request.satellite_device) &&
                      (!engine::namesDevice(request.device) || request.device == "cuda"),
                  "--mode frame-parallel places both stages itself: use --frame-devices, not --device, "
                  "--vo-device or --sat-device");
    // VO tracks on the first device, registration runs on the last: one registration
    // worker, so that fixes come back in the order they were asked for (two workers on
    // two H200s: fixes out of order, and 2 of 4 runs of the test flight ended 10-12.6 m
    // off instead of 1.64 m).
    choice.placement.vo = choice.front_end_devices.front();
    choice.placement.satellite = choice.front_end_devices.back();
    choice.placement.reason = "frame-parallel over " + engine::deviceListText(choice.front_end_devices) +
                              ": VO features on each, tracking on " +
                              choice.placement.vo.toString() + ", registration on " +
                              choice.placement.satellite.toString();
  }
  // Read by the overlapped layout (sequential registers every keyframe by construction).
  choice.keyframe_policy = request.register_every_keyframe ? engine::KeyframePolicy::EveryKeyframe
                                                           : engine::KeyframePolicy::LatestWins;
  // Messages name the options of `process` (FlightRequest mirrors them).
  checkArgument(request.satellite_sm_limit >= 0, "--sat-sm-limit must be >= 0 (0: no limit)");
  checkArgument(request.satellite_sm_limit == 0 || choice.layout != engine::NavigationLayout::Sequential,
                "--sat-sm-limit needs --mode overlapped or frame-parallel (the registration stage of the engine)");
  choice.satellite_sm_limit = request.satellite_sm_limit;

  // The feature model: both stages' local features; the per-stage specs refine it.
  nav::NavigationOptions& options = choice.options;
  nav::applyVisualOdometryModel(request.feature_model, options);
  options.vo_features.weights_path = request.weights_path;
  options.registration.features = options.vo_features;
  options.registration.features.max_keypoints = 2048;
  if (!request.vo_model.empty()) {
    const std::string base_model = options.vo_features.model;
    nav::applyVisualOdometryModel(request.vo_model, options);
    if (options.vo_features.model != base_model) options.vo_features.weights_path = request.vo_weights_path;
  }
  options.vo_match.weights_path = request.matcher_weights_path;
  if (!request.satellite_model.empty()) {
    const std::string base_model = options.registration.features.model;
    nav::applySatelliteModel(request.satellite_model, options.registration);
    if (options.registration.features.model != base_model) options.registration.features.weights_path.clear();
  }
  nav::setSatelliteWeights(request.satellite_weights_path, request.retrieval_weights_path, options.registration);
  if (request.satellite_size_px > 0) options.registration.dense_matcher.resize_long_side_px = request.satellite_size_px;
  options.vo_features.device = choice.placement.vo;
  options.vo.device = choice.placement.vo;
  options.vo_match.device = choice.placement.vo;
  options.registration.features.device = choice.placement.satellite;  // the whole stage's device
  nav::setGpuExecution(request.cuda_graphs, request.fused_kernels, options);
  nav::setHalfPrecision(request.half_precision, options);
  if (request.lightglue_full_depth) {
    options.vo_match.depth_confidence = -1.0;
    options.vo_match.width_confidence = -1.0;
  }
  // auto keeps each stage's default (VO: magsac-first on the CPU; registration: LO-RANSAC).
  const vision::RobustEstimator estimator = vision::parseRobustEstimator(request.robust_estimator);
  if (estimator != vision::RobustEstimator::Auto) {
    options.vo.robust_estimator = estimator;
    options.registration.robust_estimator = estimator;
  }
  options.use_gnss_prior = request.use_gnss_prior;
  if (!std::isnan(request.height_filter_s)) options.fusion.height_filter_time_constant_s = request.height_filter_s;
  options.registration_enabled = request.registration_enabled;
  options.check();
  return choice;
}

std::string devicesText(const ProcessingChoice& choice) {
  const engine::DevicePlacement& placement = choice.placement;
  if (!choice.front_end_devices.empty()) return "frame-parallel " + engine::deviceListText(choice.front_end_devices);
  return placement.splitAcrossDevices()
             ? "vo " + placement.vo.toString() + ", registration " + placement.satellite.toString()
             : placement.vo.toString();
}

std::vector<MissingWeights> missingWeights(const nav::NavigationOptions& options) {
  std::vector<MissingWeights> missing;
  const char* vo = "visual odometry";
  const char* satellite = "satellite";
  checkWeights(vo, true, [&] { resolveFeatureWeights(options.vo_features); }, &missing);
  if (options.vo_matcher == "lightglue")
    checkWeights(vo, false, [&] { vision::lightGlueWeightsPath(options.vo_match); }, &missing);
  if (!options.registration_enabled) return missing;
  const nav::RegistrationOptions& registration = options.registration;
  const bool uses_features = registration.fine_matching == nav::FineMatching::kLocalFeatures ||
                             registration.retrieval == nav::RetrievalMethod::kVlad;
  if (uses_features)
    checkWeights(satellite, registration.features_fallback, [&] { resolveFeatureWeights(registration.features); },
                 &missing);
  if (registration.fine_matching == nav::FineMatching::kDenseMatcher && registration.dense_matcher.model == "litesam") {
    const vision::DenseMatcherOptions& dense = registration.dense_matcher;
    checkWeights(satellite, false, [&] {
      vision::resolveWeightsPath("litesam", dense.weights_path, vision::kLiteSamPublishedFile,
                                 vision::kLiteSamWeightsUrl);
    }, &missing);
  }
  if (registration.retrieval == nav::RetrievalMethod::kGlobalDescriptor) {
    const vision::GlobalDescriptorOptions& descriptor = registration.retrieval_descriptor;
    checkWeights(satellite, false, [&] {
      vision::resolveWeightsPath(descriptor.model, descriptor.weights_path,
                                 vision::dinov2Config(descriptor.model).published_file, vision::kDinov2WeightsUrl);
    }, &missing);
  }
  return missing;
}

FlightOutcome processFlight(const FlightRequest& request, FlightObserver& observer) {
  const auto started = Clock::now();
  request.check();
  ProcessingChoice choice = processingChoiceFor(request, vision::cudaDeviceCount());
  // Weights a chosen model cannot do without: fail before any work (the message names
  // the file and where its authors publish it). Fallbacks are reported when the session
  // starts.
  for (const MissingWeights& missing : missingWeights(choice.options)) {
    if (missing.falls_back) continue;
    throw ModelError(missing.stage + ": " + missing.message +
                     (missing.stage == "satellite"
                          ? ". For the satellite stage: --sat-weights FILE (LiteSAM or the features), "
                            "--retrieval-weights FILE (DINOv2)"
                          : std::string()));
  }
  vision::configureTorchRuntime(0);
  // Checked (and staged beside its place) before any work; replaced as a whole at the end.
  AtomicFolder results(request.results_dir, "report.json");

  io::VideoInfo info;
  {
    auto video = io::openVideoSource(request.video_path);  // fails early on an unreadable video
    info = video->info();
  }
  nav::checkVideoFrameSize(request.video_path, info.width_px, info.height_px);
  std::string camera_source;
  const nav::CameraModel camera = resolveCamera(request, info, &camera_source);
  checkArgument(info.width_px == camera.width_px && info.height_px == camera.height_px,
                request.video_path + ": frames are " + std::to_string(info.width_px) + "x" +
                    std::to_string(info.height_px) + " but the camera model is " + std::to_string(camera.width_px) +
                    "x" + std::to_string(camera.height_px));
  // VO's keypoint budget is stated for 640x480: larger frames keep its density.
  choice.options.vo_features.max_keypoints =
      nav::odometryKeypointBudget(choice.options.vo_features.max_keypoints, camera.width_px, camera.height_px);

  std::optional<io::TelemetrySeries> telemetry;
  std::vector<std::string> warnings;
  std::string time_offset_source;
  if (!request.telemetry_path.empty()) {
    telemetry = readFlightLog(request.telemetry_path);
    // A log without positions has nothing to compare the track with.
    if (telemetry->positionCount() == 0) {
      throw FormatError(request.telemetry_path + ": the log holds no GNSS positions (" +
                        std::to_string(telemetry->samples.size()) +
                        " samples); it cannot be compared with the visual track: omit --telemetry");
    }
    for (const std::string& line : io::warningLines(*telemetry)) warnings.push_back(line);
    time_offset_source = placeLogOnVideoClock(request.time_offset_s, info, &*telemetry, &warnings);
  }
  nav::NavigationInputs inputs =
      nav::makeNavigationInputs(camera, request.basemap_paths, telemetry, request.ground_alt_m);
  const geo::LocalEnuFrame enu = inputs.enu;

  FlightSetup setup;
  setup.enu = enu;
  // The ground plane VO and registration use, in the track's altitudes (origin altitude
  // + ENU up): what camera footprints are drawn against.
  setup.ground_alt_m = enu.origin().alt_m + inputs.ground_up_m;
  setup.frames_total = info.frame_count;
  setup.camera = camera;
  setup.choice = choice;
  observer.onSetup(setup);
  observer.onProgress(0, info.frame_count, "loading models");

  NavigationRun outcome = runNavigation(request.video_path, std::move(inputs), choice, info.frame_count, observer);
  observer.onProgress(outcome.result.frames_processed, info.frame_count, "writing results");

  nav::NavigationResult& result = outcome.result;
  result.warnings.insert(result.warnings.end(), warnings.begin(), warnings.end());
  // The tracks' UTC: the log's when it states absolute time (set by the navigation), else
  // the video's own recording time (MP4 movie header, an image folder's EXIF time).
  std::string video_start_source;
  if (std::isfinite(result.track.start_unix_s)) {
    video_start_source = "flight log";
  } else if (std::isfinite(info.creation_unix_s)) {
    for (geo::Track* track : {&result.track, &result.online_track, &result.odometry_track})
      track->start_unix_s = info.creation_unix_s;
    video_start_source = info.creation_source;
  }
  // The models that ran: a learned one without its weights falls back to a classical one.
  nav::NavigationOptions used = choice.options;
  if (!result.vo_features_model.empty()) used.vo_features.model = result.vo_features_model;
  if (!result.registration_features_model.empty())
    used.registration.features.model = result.registration_features_model;

  nav::RunDescription run;
  run.skytrace_version = request.skytrace_version;
  run.video_path = request.video_path;
  run.basemap_paths = request.basemap_paths;
  run.telemetry_path = request.telemetry_path;
  if (telemetry) run.telemetry_time_offset_s = telemetry->time_offset_s;
  run.telemetry_time_offset_source = time_offset_source;
  run.camera_source = camera_source;
  run.video_start_unix_s = result.track.start_unix_s;
  run.video_start_source = video_start_source;
  run.video_frame_timing = info.frame_timing;
  const engine::DevicePlacement& placement = choice.placement;
  run.device = devicesText(choice);
  run.feature_model = nav::visualOdometryModelName(used);
  run.registration_model = nav::satelliteModelName(used.registration);
  run.vo_keypoint_budget = choice.options.vo_features.max_keypoints;
  for (const std::string& w : result.warnings)
    if (w.find("weights") != std::string::npos) run.fallback_reason = w;
  run.stages = engine::stageSummaries(outcome.samples);
  const ThreadBudget threads = threadBudget();
  nlohmann::json extra = {
      {"mode", engine::navigationLayoutName(choice.layout)},
      {"keyframe_policy", outcome.keyframe_policy},
      {"device_placement", placement.reason},
      // The ground plane of the run in the track's altitudes (camera footprints).
      {"ground_alt_m", setup.ground_alt_m},
      {"satellite_models", satelliteModelsJson(used.registration)},
      // The number format each model ran in (--half-precision: float16 where a model has it).
      {"precision",
       {{"vo_features", used.vo_features.half_precision ? "float16" : "float32"},
        {"vo_matcher", used.vo_matcher == "lightglue" && used.vo_match.half_precision ? "float16" : "float32"},
        {"registration_features", used.registration.features.half_precision ? "float16" : "float32"},
        {"retrieval", used.registration.retrieval_descriptor.precision},
        {"fine_matcher", used.registration.fine_matching == nav::FineMatching::kDenseMatcher &&
                                 used.registration.dense_matcher.half_precision
                             ? "float16"
                             : "float32"}}},
      // The robust homography estimator each stage ran (robust_homography.h).
      {"robust_estimator",
       {{"vo", vision::toString(vision::resolveRobustEstimator(used.vo.robust_estimator, used.vo.device))},
        {"registration",
         vision::toString(vision::resolveRobustEstimator(used.registration.robust_estimator,
                                                         used.registration.features.device))}}},
      // The time constant of the odometry's height filter (--height-filter-s; 0: the log's).
      {"height_filter_s", used.fusion.height_filter_time_constant_s},
      // The CPU threads the heavy work used, and what granted them (thread_budget.h).
      {"cpu_threads",
       {{"count", threads.threads}, {"source", threads.source}, {"libtorch", vision::torchCpuThreads()}}}};
  // VO's LightGlue: adaptive (early exit, pruning) or full (--lightglue-depth).
  if (used.vo_matcher == "lightglue")
    extra["lightglue_depth"] =
        used.vo_match.depth_confidence <= 0 && used.vo_match.width_confidence <= 0 ? "full" : "adaptive";
  run.extra = &extra;
  run.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  run.navigation_s = outcome.navigation_s;
  run.navigation_parts = outcome.navigation_parts;
  nav::writeNavigationResults(results.stagingPath().string(), result, camera, enu, run);
  engine::writeLatencyCsv((results.stagingPath() / "latency.csv").string(), outcome.samples);
  results.commit();

  FlightOutcome out;
  out.result = std::move(outcome.result);
  out.cancelled = outcome.cancelled;
  out.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  out.results_dir = request.results_dir;
  return out;
}

}  // namespace skytrace::app
