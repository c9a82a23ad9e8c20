// `skytrace-cli process`: video + basemaps (+ telemetry) -> georeferenced visual track,
// registration fixes, GNSS discrepancy report. Writes the results folder described in
// docs/process_output.md. Ctrl-C stops cleanly and keeps what was computed.
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTextStream>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/engine/device_placement.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/navigation_payloads.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/video_source.h"
#include "core/nav/model_choice.h"
#include "core/nav/navigation_report.h"
#include "core/nav/navigation_session.h"
#include "core/util/atomic_folder.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void onInterrupt(int) { g_interrupted.store(true); }

// Terminal progress: "[###...] 42% frame 126/300, 7.9 fps, ETA 0:22", at most 4x/s; a
// stage other than navigating (a global search being prepared) is named after it.
class ProgressBar {
 public:
  bool update(double fraction, int total_frames, const std::string& stage) {
    const auto now = std::chrono::steady_clock::now();
    // A terminal gets a redrawn bar 4x per second; a log file a line per 5 % and at
    // least one every 10 s (a long global search does not advance the frames).
    if (interactive_) {
      if (now - last_ < std::chrono::milliseconds(250) && fraction < 1.0) return !g_interrupted.load();
    } else {
      if (fraction < last_fraction_ + 0.05 && fraction < 1.0 && now - last_ < std::chrono::seconds(10))
        return !g_interrupted.load();
      last_fraction_ = std::max(last_fraction_, fraction);
    }
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const int frame = int(std::lround(fraction * total_frames));
    const double fps = elapsed > 0 ? frame / elapsed : 0.0;
    const double eta = fps > 0 ? (total_frames - frame) / fps : 0.0;
    const int width = 30;
    const int filled = int(fraction * width);
    QString line = QStringLiteral("[%1%2] %3% frame %4/%5, %6 fps, ETA %7:%8")
                       .arg(QString(filled, '#'), QString(width - filled, '.'))
                       .arg(100.0 * fraction, 0, 'f', 0)
                       .arg(frame)
                       .arg(total_frames)
                       .arg(fps, 0, 'f', 1)
                       .arg(int(eta) / 60)
                       .arg(int(eta) % 60, 2, 10, QChar('0'));
    if (stage != "navigating") line += QStringLiteral(", ") + QString::fromStdString(stage);
    QTextStream err(stderr);
    if (interactive_) {
      // Blank what a longer previous line left behind.
      err << '\r' << line.leftJustified(std::max(printed_width_, int(line.size())));
      printed_width_ = int(line.size());
    } else {
      err << line << '\n';
    }
    err.flush();
    return !g_interrupted.load();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  double last_fraction_ = -1.0;
  int printed_width_ = 0;
  bool interactive_ = isatty(fileno(stderr)) != 0;
};

int runProcess(const QStringList& args) {
  QCommandLineParser parser;
  parser.addOptions({
      {"video", "Flight video (MP4/MOV/MKV/AVI) or image folder.", "FILE"},
      {"basemap", "Georeferenced basemap raster; repeat for several.", "FILE"},
      {"telemetry", "Flight log (DJI SRT, PX4 ULog, GPX, CSV) to compare against.", "FILE"},
      {"camera", "Camera JSON (default: camera.json beside the video, else --hfov-deg).", "FILE"},
      {"hfov-deg", "Horizontal field of view when there is no camera file (default 70).", "DEG"},
      {"device", "cpu, cuda or cuda:N for every stage (default: cuda:0 when a GPU exists, else cpu).",
       "DEVICE"},
      {"vo-device", "Device of the visual odometry (overrides --device).", "DEVICE"},
      {"sat-device", "Device of the basemap registration (default: cuda:1 when two GPUs exist).",
       "DEVICE"},
      {"mode", "sequential (one thread) or overlapped (the engine: decode thread, VO worker, "
               "background registration; default when VO runs on a GPU).", "MODE"},
      {"model", "Feature model: aliked-n16rot (default; falls back to orb when its weights are "
                "not found), orb, sift, aliked-t16, ...", "NAME", "aliked-n16rot"},
      {"weights", "Weights file of --model.", "FILE"},
      {"vo-model", "Visual odometry as FEATURES[+MATCHER], e.g. superpoint+lightglue or "
                   "aliked-n16rot+lightglue (default: --model with mnn).", "NAME"},
      {"vo-weights", "Weights of the --vo-model features (default: the model directory).", "FILE"},
      {"matcher-weights", "Weights of the VO matcher (LightGlue; default: the published "
                          "<features>_lightglue.pth in the model directory).", "FILE"},
      {"sat-model", QString::fromStdString("Basemap registration models: " + nav::satelliteModelSyntax() +
                                           " (default: --model with VLAD retrieval)."),
       "SPEC"},
      {"sat-weights", "Weights of the --sat-model fine matcher (LiteSAM checkpoint) or features "
                      "(default: the model directory).", "FILE"},
      {"retrieval-weights", "Weights of the --sat-model DINOv2 retrieval (default: the published "
                            "dinov2_*_pretrain.pth in the model directory).", "FILE"},
      {"sat-size", "Dense matcher input: long side of the larger image of a pair, pixels "
                   "(default 512; smaller is faster and coarser).", "PX"},
      {"out", "Results folder (default out/process).", "DIR", "out/process"},
      {"ground-alt-m", "Ellipsoidal height of the ground (default: from the log, else unknown).", "M"},
      {"use-gnss-prior", "Use the logged GNSS as a prior (default: judge it independently)."},
      {"no-registration", "Visual odometry only (from the first GNSS fix; for drift tests)."},
      {"register-every-keyframe",
       "Overlapped mode: VO waits for the registration stage instead of dropping requests made "
       "while it is busy (completeness over latency; sequential mode always does)."},
      {"sat-sm-limit",
       "Overlapped mode on a GPU: registration runs on at most N of its GPU's SMs (a CUDA green "
       "context), so that VO on the same GPU keeps its latency; registration gets slower. "
       "Default 0: no limit.", "N"},
  });
  int exit_code = kExitOk;
  if (!parseArguments(parser,
                      QStringLiteral("Compute the camera's georeferenced trajectory from a video and "
                                     "basemaps; compare it with the flight log."),
                      args, &exit_code)) {
    return exit_code;
  }
  QString video;
  if (!requireOption(parser, "video", &video)) return kExitUsage;
  const QStringList basemaps = parser.values("basemap");
  if (basemaps.isEmpty()) {
    printError(QStringLiteral("missing --basemap FILE (at least one)"));
    return kExitUsage;
  }
  return runGuarded([&] {
    const auto started = std::chrono::steady_clock::now();
    const engine::DevicePlacement placement = engine::resolveDevicePlacement(
        parser.value("device").toStdString(), parser.value("vo-device").toStdString(),
        parser.value("sat-device").toStdString(), vision::cudaDeviceCount());
    const vision::DeviceSpec device = placement.vo;
    const std::string mode = parser.isSet("mode") ? parser.value("mode").toStdString()
                             : device.cuda           ? std::string("overlapped")
                                                     : std::string("sequential");
    checkArgument(mode == "sequential" || mode == "overlapped",
                  "--mode must be sequential or overlapped, got '" + mode + "'");
    const int satellite_sm_limit = int(numberOption(parser, "sat-sm-limit", 0));
    checkArgument(satellite_sm_limit >= 0, "--sat-sm-limit must be >= 0 (0: no limit)");
    checkArgument(satellite_sm_limit == 0 || mode == "overlapped",
                  "--sat-sm-limit needs --mode overlapped (the registration stage of the engine)");
    vision::configureTorchRuntime(0);
    // The results folder is checked (and staged beside its place) before any work, and
    // replaced as a whole at the end: never two runs' files in one folder.
    AtomicFolder results(parser.value("out").toStdString(), "report.json");

    auto source = io::openVideoSource(video.toStdString());
    const io::VideoInfo info = source->info();
    source.reset();

    // Camera: explicit file, camera.json beside the video, or a field of view.
    nav::CameraModel camera;
    std::string camera_source;
    QString camera_path = parser.value("camera");
    const QString beside = QFileInfo(video).absoluteDir().filePath("camera.json");
    if (camera_path.isEmpty() && QFileInfo::exists(beside) && !parser.isSet("hfov-deg")) {
      camera_path = beside;
    }
    if (!camera_path.isEmpty()) {
      camera = nav::readCameraFile(camera_path.toStdString());
      camera_source = camera_path.toStdString();
    } else {
      camera = nav::CameraModel::fromHorizontalFov(info.width_px, info.height_px,
                                                   numberOption(parser, "hfov-deg", 70.0));
      camera_source = "hfov";
    }

    std::optional<io::TelemetrySeries> telemetry;
    std::vector<std::string> warnings;
    if (parser.isSet("telemetry")) {
      telemetry = io::readTelemetry(parser.value("telemetry").toStdString());
      // As the GUI: a log without positions has nothing to compare the track with.
      if (telemetry->positionCount() == 0) {
        throw FormatError(parser.value("telemetry").toStdString() +
                          ": the log holds no GNSS positions (" + std::to_string(telemetry->samples.size()) +
                          " samples); it cannot be compared with the visual track: omit --telemetry");
      }
      for (const std::string& line : io::warningLines(*telemetry)) warnings.push_back(line);
      if (telemetry->format != "dji-srt") {
        warnings.push_back("the log's clock is assumed to start with the video (offset 0 s): only "
                           "DJI SRT logs carry the video clock");
      }
    }

    std::vector<std::string> basemap_paths;
    for (const QString& b : basemaps) basemap_paths.push_back(b.toStdString());
    nav::NavigationInputs inputs = nav::makeNavigationInputs(
        camera, basemap_paths, telemetry, numberOption(parser, "ground-alt-m", std::nan("")));
    const geo::LocalEnuFrame enu = inputs.enu;

    // --model/--weights: both stages' local features; --vo-model and --sat-model refine.
    nav::NavigationOptions options;
    nav::applyVisualOdometryModel(parser.value("model").toStdString(), options);
    options.vo_features.weights_path = parser.value("weights").toStdString();
    options.vo_features.device = device;
    options.vo.device = device;
    options.registration.features = options.vo_features;
    options.registration.features.device = placement.satellite;
    options.registration.features.max_keypoints = 2048;
    if (parser.isSet("vo-model")) {
      const std::string base_model = options.vo_features.model;
      nav::applyVisualOdometryModel(parser.value("vo-model").toStdString(), options);
      if (options.vo_features.model != base_model)
        options.vo_features.weights_path = parser.value("vo-weights").toStdString();
    }
    options.vo_match.device = placement.vo;
    options.vo_match.weights_path = parser.value("matcher-weights").toStdString();
    if (parser.isSet("sat-model")) {
      const std::string base_model = options.registration.features.model;
      nav::applySatelliteModel(parser.value("sat-model").toStdString(), options.registration);
      if (options.registration.features.model != base_model) options.registration.features.weights_path.clear();
    }
    nav::setSatelliteWeights(parser.value("sat-weights").toStdString(),
                             parser.value("retrieval-weights").toStdString(), options.registration);
    if (parser.isSet("sat-size"))
      options.registration.dense_matcher.resize_long_side_px = int(numberOption(parser, "sat-size", 512));
    options.use_gnss_prior = parser.isSet("use-gnss-prior");
    options.registration_enabled = !parser.isSet("no-registration");
    if (!options.registration_enabled) options.use_gnss_prior = true;  // the only absolute start
    if (options.use_gnss_prior && !telemetry) {
      throw InvalidArgument(options.registration_enabled
                                ? "--use-gnss-prior needs --telemetry"
                                : "--no-registration needs --telemetry (its GNSS gives the start)");
    }

    // Missing satellite weights fail here, before any frame (the engine creates the
    // registrar later, on its own thread).
    if (options.registration_enabled) {
      try {
        nav::checkRegistrationWeights(options.registration);
      } catch (const ModelError& e) {
        throw ModelError(std::string(e.what()) +
                         ". For the satellite stage: --sat-weights FILE (LiteSAM or the features), "
                         "--retrieval-weights FILE (DINOv2)");
      }
    }

    g_interrupted.store(false);
    auto previous_handler = std::signal(SIGINT, onInterrupt);
    ProgressBar bar;
    const double ground_alt_m = inputs.ground_alt_m;
    const ProgressCallback progress = [&](double fraction, const std::string& stage) {
      return bar.update(fraction, info.frame_count, stage);
    };
    // Sequential mode registers every keyframe by construction.
    const engine::KeyframePolicy keyframe_policy =
        mode == "sequential" || parser.isSet("register-every-keyframe") ? engine::KeyframePolicy::EveryKeyframe
                                                                        : engine::KeyframePolicy::LatestWins;
    std::vector<engine::LatencySample> samples;
    std::vector<nav::StageSummary> stage_summaries;
    nav::NavigationResult result;
    if (mode == "overlapped") {
      engine::NavigationEngineRun run =
          engine::runNavigationEngine(video.toStdString(), std::move(inputs), options, placement, progress, {},
                                      keyframe_policy, satellite_sm_limit);
      result = std::move(run.result);
      samples = std::move(run.samples);
      stage_summaries = engine::stageSummaries(samples);
    } else {
      std::vector<nav::StageTiming> timings;
      result = nav::runNavigationSequential(video.toStdString(), std::move(inputs), options, progress,
                                            &timings);
      samples = engine::latencySamplesFromTimings(timings, device);
      stage_summaries = engine::stageSummaries(samples);
    }
    std::signal(SIGINT, previous_handler);
    QTextStream(stderr) << "\n";
    result.warnings.insert(result.warnings.end(), warnings.begin(), warnings.end());

    nav::RunDescription run;
    run.skytrace_version = SKYTRACE_VERSION;
    run.video_path = video.toStdString();
    run.basemap_paths = basemap_paths;
    run.telemetry_path = parser.value("telemetry").toStdString();
    run.camera_source = camera_source;
    run.device = placement.splitAcrossDevices()
                     ? "vo " + placement.vo.toString() + ", registration " + placement.satellite.toString()
                     : device.toString();
    // The models that ran: a learned one without its weights falls back to a classical one.
    if (!result.vo_features_model.empty()) options.vo_features.model = result.vo_features_model;
    if (!result.registration_features_model.empty())
      options.registration.features.model = result.registration_features_model;
    run.feature_model = nav::visualOdometryModelName(options);
    run.registration_model = nav::satelliteModelName(options.registration);
    run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    run.stages = stage_summaries;
    nlohmann::json extra = {{"mode", mode},
                            {"keyframe_policy", engine::keyframePolicyName(keyframe_policy)},
                            {"device_placement", placement.reason},
                            {"ground_alt_m", std::isfinite(ground_alt_m) ? nlohmann::json(ground_alt_m)
                                                                         : nlohmann::json(nullptr)}};
    const nav::RegistrationOptions& sat = options.registration;
    auto weightsOrModelDirectory = [](const std::string& path) {
      return path.empty() ? nlohmann::json("model directory") : nlohmann::json(path);
    };
    const bool dense = sat.fine_matching == nav::FineMatching::kDenseMatcher;
    const bool learned_retrieval = sat.retrieval == nav::RetrievalMethod::kGlobalDescriptor;
    extra["satellite_models"] = {
        {"retrieval", learned_retrieval ? sat.retrieval_descriptor.model : "vlad"},
        {"retrieval_weights", learned_retrieval ? weightsOrModelDirectory(sat.retrieval_descriptor.weights_path)
                                                : nlohmann::json(nullptr)},
        {"fine_matching", dense ? sat.dense_matcher.model : sat.features.model},
        {"fine_weights", dense ? weightsOrModelDirectory(sat.dense_matcher.weights_path)
                               : nlohmann::json(nullptr)}};
    run.extra = &extra;
    for (const auto& w : result.warnings) {
      if (w.find("weights") != std::string::npos) run.fallback_reason = w;
    }
    const std::string out = parser.value("out").toStdString();
    nav::writeNavigationResults(results.stagingPath().string(), result, camera, enu, run);
    engine::writeLatencyCsv((results.stagingPath() / "latency.csv").string(), samples);
    results.commit();

    std::int64_t with_position = std::int64_t(result.track.poses.size());
    int accepted = 0;
    for (const auto& f : result.fixes) accepted += f.accepted ? 1 : 0;
    QTextStream o(stdout);
    o << "frames: " << result.frames_processed << "/" << result.frames_total
      << ", with position: " << with_position << " ("
      << QString::number(100.0 * with_position / std::max<std::int64_t>(1, result.frames_processed), 'f', 1)
      << "%)\n"
      << "fixes: " << accepted << " accepted of " << result.fixes.size() << "\n"
      << "GNSS discrepancy segments: " << result.discrepancy.segments.size() << "\n";
    for (const auto& s : result.discrepancy.segments) {
      o << "  " << QString::number(s.start_s, 'f', 1) << "-" << QString::number(s.end_s, 'f', 1)
        << " s: up to " << QString::number(s.max_m, 'f', 1) << " m\n";
    }
    for (const auto& w : result.warnings) o << "warning: " << QString::fromStdString(w) << "\n";
    o << "wrote " << QString::fromStdString(out) << "/ (" << QString::number(run.wall_s, 'f', 1)
      << " s, " << QString::number(result.frames_processed / std::max(1e-9, run.wall_s), 'f', 1) << " fps)\n";
    if (!result.completed) {
      o << "stopped early: the results cover the frames processed so far\n";
      // Ctrl-C is a cancel; anything else (a truncated or damaged video) is a run that
      // could not see the whole flight: a failure, with what was computed kept.
      return int(g_interrupted.load() ? kExitCancelled : kExitFailure);
    }
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("process"),
     QStringLiteral("Video + basemaps (+ log) -> georeferenced visual track, fixes, GNSS check"),
     runProcess}};

}  // namespace
}  // namespace skytrace::cli
