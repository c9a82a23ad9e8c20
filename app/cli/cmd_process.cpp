// `skytrace-cli process`: video + basemaps (+ telemetry) -> georeferenced visual track,
// registration fixes, GNSS discrepancy report. Writes the results folder described in
// docs/process_output.md (app::processFlight does the work). Ctrl-C stops cleanly and
// keeps what was computed.
#include <QCommandLineParser>
#include <QTextStream>

#include <algorithm>
#include <chrono>
#include <cmath>

#include <unistd.h>

#include "app/cli/cancel_on_interrupt.h"
#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/app/flight_processing.h"
#include "core/engine/run_control.h"
#include "core/nav/model_choice.h"
#include "core/util/error.h"

namespace skytrace::cli {
namespace {

// Terminal progress: "[###...] 42% frame 126/300, 7.9 fps, ETA 0:22", at most 4x/s; a
// stage other than navigating (a global search being prepared) is named after it.
class ProgressBar {
 public:
  void update(double fraction, std::int64_t total_frames, const std::string& stage) {
    // 100 % once: the engine reports it until its last stage has drained.
    if (fraction >= 1.0) {
      if (complete_shown_) return;
      complete_shown_ = true;
    }
    const auto now = std::chrono::steady_clock::now();
    // A terminal gets a redrawn bar 4x per second; a log file a line per 5 % and at
    // least one every 10 s (a long global search does not advance the frames).
    if (interactive_) {
      if (now - last_ < std::chrono::milliseconds(250) && fraction < 1.0) return;
    } else {
      if (fraction < last_fraction_ + 0.05 && fraction < 1.0 && now - last_ < std::chrono::seconds(10))
        return;
      last_fraction_ = std::max(last_fraction_, fraction);
    }
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const std::int64_t frame = std::llround(fraction * double(total_frames));
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
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  double last_fraction_ = -1.0;
  int printed_width_ = 0;
  bool complete_shown_ = false;
  bool interactive_ = isatty(fileno(stderr)) != 0;
};

// The terminal's view of a run: the progress bar, warnings as they come, Ctrl-C.
class TerminalObserver final : public app::FlightObserver {
 public:
  explicit TerminalObserver(const engine::RunControl* control) : control_(control) {}
  void onProgress(std::int64_t frames_done, std::int64_t frames_total, const std::string& stage) override {
    if (stage == "loading models" || stage == "writing results" || stage == "smoothing") return;
    bar_.update(frames_total > 0 ? std::min(1.0, double(frames_done) / double(frames_total)) : 0.0,
                frames_total, stage);
  }
  void onWarning(const std::string& text) override {
    QTextStream(stderr) << "warning: " << QString::fromStdString(text) << "\n";
  }
  const engine::RunControl* control() const override { return control_; }

 private:
  const engine::RunControl* control_;
  ProgressBar bar_;
};

int runProcess(const QStringList& args) {
  QCommandLineParser parser;
  parser.addOptions({
      {"video", "Flight video (MP4/MOV/MKV/AVI) or image folder.", "FILE"},
      {"basemap", "Georeferenced basemap raster; repeat for several.", "FILE"},
      {"telemetry", "Flight log (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) to compare "
                    "against, or the --video image folder itself (its photos' EXIF GPS).", "FILE"},
      {"time-offset",
       "Seconds added to the flight log's clock to put it on the video's (video time = log time + S; "
       "e.g. -20 when the log started 20 s before the video). Default: 0 (DJI SRT logs run on the "
       "video's clock).",
       "S"},
      {"camera", "Camera JSON (default: camera.json beside the video, else --hfov-deg).", "FILE"},
      {"hfov-deg", "Horizontal field of view when there is no camera file (default 70).", "DEG"},
      {"device", "auto, cpu, cuda or cuda:N for every stage (default auto: cuda:0 when a GPU exists, else "
                 "cpu; the mode follows, see --mode).",
       "DEVICE"},
      {"vo-device", "Device of the visual odometry (overrides --device).", "DEVICE"},
      {"sat-device", "Device of the basemap registration (default: cuda:1 when two GPUs exist).",
       "DEVICE"},
      {"mode", "sequential (one thread; the default without a GPU), overlapped (the engine: decode "
               "thread, VO worker, background registration; the default on one GPU) or frame-parallel "
               "(overlapped, VO's feature extraction spread over --frame-devices; the default with two "
               "or more GPUs and no device named).", "MODE"},
      {"frame-devices", "Frame-parallel mode: its devices, e.g. cuda:0,cuda:1 (the first also "
                        "tracks, the last registers; default: every GPU).", "LIST"},
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
      {"height-filter-s",
       "Time constant of the filter that gives odometry its height above the ground: the height the "
       "images measure, pulled towards the log's over S seconds (default 20; 0: the log's height as it "
       "is, e.g. for an RTK or well-filtered barometric log).",
       "S"},
      {"no-registration", "Visual odometry only, from the log's first GNSS fix (for drift tests; "
                          "no --basemap needed)."},
      {"keyframe-policy",
       "Overlapped and frame-parallel modes: every (default: VO waits for the registration stage when it is busy, "
       "every keyframe is registered) or latest (VO never waits, requests made while it is busy "
       "are dropped: live use; on a fast GPU fixes then come late and the track can drift).",
       "POLICY", "every"},
      {"register-every-keyframe", "Same as --keyframe-policy every (the default)."},
      {"sat-sm-limit",
       "Overlapped mode on a GPU: registration runs on at most N of its GPU's SMs (a CUDA green "
       "context), so that VO on the same GPU keeps its latency; registration gets slower. "
       "Default 0: no limit.", "N"},
      {"robust-estimator",
       "Robust homography of VO and registration: auto (default: VO magsac-first on the CPU, "
       "registration and GPUs lo-ransac), magsac-first (MAGSAC++ through OpenCV's USAC, and also "
       "LO-RANSAC where it finds under half of the matches to be inliers), magsac or lo-ransac "
       "(Skytrace's batched LO-RANSAC) for both stages.", "NAME", "auto"},
      {"no-cuda-graphs", "GPU: run every model eagerly instead of replaying CUDA graphs (slower; for "
                         "comparisons)."},
      {"no-fused-kernels", "GPU: run ALIKED, SuperPoint's NMS, float16 LightGlue and LiteSAM's matching through "
                           "LibTorch's operators instead of Skytrace's fused kernels (slower; for "
                           "comparisons)."},
      {"lightglue-depth",
       "VO with LightGlue: adaptive (the original's early exit and point pruning; default) or full "
       "(every layer on every point: one fixed-shape pass, replayed as a CUDA graph on a GPU).",
       "DEPTH", "adaptive"},
      {"half-precision", "GPU: float16 in SuperPoint, LightGlue, DINOv2 and LiteSAM's dense stages "
                         "(ALIKED keeps its faster fused float32 kernels); faster, not exact "
                         "(report.json's precision says what ran)."},
  });
  int exit_code = kExitOk;
  addThreadsOption(parser);
  if (!parseArguments(parser,
                      QStringLiteral("Compute the camera's georeferenced trajectory from a video and "
                                     "basemaps; compare it with the flight log."),
                      args, &exit_code)) {
    return exit_code;
  }
  QString video;
  if (!requireOption(parser, "video", &video)) return kExitUsage;
  const QStringList basemaps = parser.values("basemap");
  if (basemaps.isEmpty() && !parser.isSet("no-registration")) {
    printError(QStringLiteral("missing --basemap FILE (at least one; odometry alone: --no-registration)"));
    return kExitUsage;
  }
  return runGuarded([&] {
    applyThreadsOption(parser);
    app::FlightRequest request;
    request.video_path = video.toStdString();
    for (const QString& b : basemaps) request.basemap_paths.push_back(b.toStdString());
    request.telemetry_path = parser.value("telemetry").toStdString();
    if (parser.isSet("time-offset")) {
      if (request.telemetry_path.empty()) throw InvalidArgument("--time-offset needs --telemetry");
      request.time_offset_s = numberOption(parser, "time-offset", 0.0);
    }
    if (parser.isSet("camera")) {
      request.camera.source = app::CameraChoice::Source::kFile;
      request.camera.file = parser.value("camera").toStdString();
    } else if (parser.isSet("hfov-deg")) {
      request.camera.source = app::CameraChoice::Source::kHorizontalFov;
      request.camera.hfov_deg = numberOption(parser, "hfov-deg", 70.0);
    }
    request.ground_alt_m = numberOption(parser, "ground-alt-m", std::nan(""));
    request.feature_model = parser.value("model").toStdString();
    request.weights_path = parser.value("weights").toStdString();
    request.vo_model = parser.value("vo-model").toStdString();
    request.vo_weights_path = parser.value("vo-weights").toStdString();
    request.matcher_weights_path = parser.value("matcher-weights").toStdString();
    request.satellite_model = parser.value("sat-model").toStdString();
    request.satellite_weights_path = parser.value("sat-weights").toStdString();
    request.retrieval_weights_path = parser.value("retrieval-weights").toStdString();
    if (parser.isSet("sat-size")) request.satellite_size_px = int(numberOption(parser, "sat-size", 512));
    request.device = parser.value("device").toStdString();
    request.vo_device = parser.value("vo-device").toStdString();
    request.satellite_device = parser.value("sat-device").toStdString();
    request.mode = parser.value("mode").toStdString();
    request.frame_devices = parser.value("frame-devices").toStdString();
    const std::string policy = parser.value("keyframe-policy").toStdString();
    if (policy != "every" && policy != "latest")
      throw InvalidArgument("--keyframe-policy must be every or latest, got '" + policy + "'");
    if (policy == "latest" && parser.isSet("register-every-keyframe"))
      throw InvalidArgument("--keyframe-policy latest contradicts --register-every-keyframe");
    request.register_every_keyframe = policy == "every";
    request.satellite_sm_limit = int(numberOption(parser, "sat-sm-limit", 0));
    request.use_gnss_prior = parser.isSet("use-gnss-prior");
    request.height_filter_s = numberOption(parser, "height-filter-s", std::nan(""));
    request.registration_enabled = !parser.isSet("no-registration");
    const GpuSwitches gpu = gpuSwitchesFromEnvironment();
    request.cuda_graphs = gpu.cuda_graphs && !parser.isSet("no-cuda-graphs");
    request.fused_kernels = gpu.fused_kernels && !parser.isSet("no-fused-kernels");
    request.half_precision = parser.isSet("half-precision");
    const std::string depth = parser.value("lightglue-depth").toStdString();
    if (depth != "adaptive" && depth != "full")
      throw InvalidArgument("--lightglue-depth must be adaptive or full, got '" + depth + "'");
    request.lightglue_full_depth = depth == "full";
    request.robust_estimator = parser.value("robust-estimator").toStdString();
    request.results_dir = parser.value("out").toStdString();
    request.skytrace_version = SKYTRACE_VERSION;

    engine::RunControl control;
    TerminalObserver observer(&control);
    app::FlightOutcome outcome;
    {
      const CancelOnInterrupt interrupt(&control);  // Ctrl+C / SIGTERM: partial results, exit 130 / 143
      outcome = app::processFlight(request, observer);
    }
    QTextStream(stderr) << "\n";

    const nav::NavigationResult& result = outcome.result;
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
    for (const auto& seg : result.discrepancy.segments) {
      o << "  " << QString::number(seg.start_s, 'f', 1) << "-" << QString::number(seg.end_s, 'f', 1)
        << " s: up to " << QString::number(seg.max_m, 'f', 1) << " m\n";
    }
    for (const auto& w : result.warnings) {
      if (w != result.not_localised_reason) o << "warning: " << QString::fromStdString(w) << "\n";
    }
    o << "wrote " << QString::fromStdString(outcome.results_dir) << "/ (" << QString::number(outcome.wall_s, 'f', 1)
      << " s, " << QString::number(result.frames_processed / std::max(1e-9, outcome.wall_s), 'f', 1) << " fps)\n";
    if (!result.completed) {
      o << "stopped early: the results cover the frames processed so far\n";
      // Ctrl-C or SIGTERM is a cancel; anything else (a truncated or damaged video) is a run that
      // could not see the whole flight: a failure, with what was computed kept.
      return outcome.cancelled ? stopSignalExitCode() : int(kExitFailure);
    }
    if (!result.not_localised_reason.empty()) {
      printError(QString::fromStdString(result.not_localised_reason));
      return int(kExitFailure);
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
