// "Process a flight": from what the user asked for (a FlightRequest: the options of
// `skytrace-cli process`, or a GUI project turned into them) to a finished results folder
// (docs/process_output.md). The one place that resolves the camera, reads the flight
// log, chooses models, weights, devices and the engine layout, runs the navigation,
// writes report.json / latency.csv / the tracks, and handles cancel. `skytrace-cli
// process`, `skytrace-cli demo` and the GUI's in-process runner are thin callers.
//
// Threads: processFlight runs on the calling thread (the CLI's main thread, the GUI's
// processing thread); the overlapped layout adds the engine's decode, VO and satellite
// threads for the duration of the call. FlightObserver says which thread calls what.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/device_placement.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/navigation_payloads.h"
#include "core/engine/pipeline.h"
#include "core/engine/run_control.h"
#include "core/geo/geodesy.h"
#include "core/io/project_file.h"
#include "core/io/telemetry/telemetry_series.h"
#include "core/io/video_source.h"
#include "core/nav/camera_model.h"
#include "core/nav/navigation_report.h"
#include "core/nav/navigation_session.h"

namespace skytrace::app {

// Where the camera model comes from.
struct CameraChoice {
  enum class Source {
    kAutomatic,      // camera.json beside the video, else (a photo folder) the first photo's
                     // EXIF 35 mm equivalent focal length, else a 70 deg horizontal field of view
    kFile,           // `file`
    kHorizontalFov,  // `hfov_deg` over the video's frame size
  };
  Source source = Source::kAutomatic;
  std::string file;
  double hfov_deg = 70.0;
};

// What to process and how: the options of `skytrace-cli process` (README, `process
// --help`); empty strings mean "the default" there.
struct FlightRequest {
  std::string video_path;
  std::vector<std::string> basemap_paths;  // at least one
  std::string telemetry_path;              // empty: none
  // Seconds that put the log on the video's clock: video time = log time + offset
  // (--time-offset). Unset: the log's own relation (DJI SRT runs on the video's clock;
  // other logs are assumed to start with the video, with a warning).
  std::optional<double> time_offset_s;
  CameraChoice camera;
  double ground_alt_m = std::numeric_limits<double>::quiet_NaN();  // NaN: from the log, else unknown

  // Models (core/nav/model_choice.h specs) and weights (empty: the model directory).
  std::string feature_model = "aliked-n16rot";  // both stages' local features (--model)
  std::string weights_path;                     // of feature_model (--weights)
  std::string vo_model;                         // FEATURES[+MATCHER] (--vo-model)
  std::string vo_weights_path;                  // of vo_model's features (--vo-weights)
  std::string matcher_weights_path;             // LightGlue (--matcher-weights)
  std::string satellite_model;                  // RETRIEVAL+FINE (--sat-model)
  std::string satellite_weights_path;           // --sat-weights
  std::string retrieval_weights_path;           // --retrieval-weights
  int satellite_size_px = 0;                    // dense matcher input, 0: its default (--sat-size)

  // Devices and layout. Device names as resolveDevicePlacement takes them ("" = auto).
  std::string device, vo_device, satellite_device;
  // "sequential", "overlapped", "frame-parallel"; "": frame-parallel over every GPU when
  // there are two or more and no device was named, overlapped on one GPU, else sequential.
  std::string mode;
  // frame-parallel: the devices that extract VO's features ("cuda:0,cuda:1"; the first
  // also tracks, the last registers); "": every GPU.
  std::string frame_devices;
  // Overlapped: VO waits for registration when it is busy (every keyframe registered),
  // else latest wins. Every by default: frames of a recorded video come as fast as they
  // decode, and with latest wins on a fast GPU fixes arrive many frames late and a track
  // can drift (H200: ATE 10.2 m latest vs 1.48 m every on the same flight).
  bool register_every_keyframe = true;
  int satellite_sm_limit = 0;            // overlapped on CUDA: SMs of the satellite stage, 0 = all
  // On a GPU: CUDA graph replays (--no-cuda-graphs) and ALIKED's fused kernels
  // (--no-fused-kernels) in every model; nav::setGpuExecution.
  bool cuda_graphs = true;
  bool fused_kernels = true;
  // On a GPU: float16 where it is faster (--half-precision; nav::setHalfPrecision).
  bool half_precision = false;
  // VO's LightGlue: every layer on every point (--lightglue-depth full: one fixed-shape
  // body, a CUDA graph on a GPU) instead of the original's early exit and pruning.
  bool lightglue_full_depth = false;
  // Robust homography of VO and registration (--robust-estimator): auto (each stage's
  // default), magsac-first, magsac or lo-ransac (vision::RobustEstimator).
  std::string robust_estimator = "auto";

  bool use_gnss_prior = false;
  bool registration_enabled = true;
  // Time constant of the filter that takes VO's height from the homographies' scale and
  // the log's height (--height-filter-s; nav::FusionOptions::height_filter_time_constant_s);
  // NaN: its default, 0: the log's height as it is.
  double height_filter_s = std::numeric_limits<double>::quiet_NaN();

  std::string results_dir = "out/process";
  std::string skytrace_version;  // for report.json

  // Throws InvalidArgument naming the bad field by its `process` option: no video, no
  // basemap, a camera file source without a file, a field of view outside (1, 179), a
  // time offset that is not finite or without a flight log, a negative SM limit, no
  // results folder. (Models, devices and the layout are checked by processingChoiceFor.)
  void check() const;
};

// The camera `request` asks for, for a video of `video`'s frame size; `source` is what
// report.json names: the file, "hfov" (a field of view given) or "default" (70 deg,
// nothing given, no camera.json beside the video). Throws IoError / FormatError for an
// unreadable camera file.
nav::CameraModel resolveCamera(const FlightRequest& request, const io::VideoInfo& video, std::string* source);

// Puts `telemetry` on the video's clock (sets its time_offset_s: video time = log time +
// offset) and returns where the offset came from (report.json's
// telemetry_time_offset_source): "given" (`given_offset_s`, finite); "video clock" (a
// DJI SRT, written on the video's clock: 0); "recording time" (the video's recording
// time against the log's UTC, when both are known and the log then overlaps the video; a
// camera writing local time as UTC would put it hours away: then ignored with a
// warning); else "assumed" (0, with a warning naming how to give the offset). What
// `process` and the GUI both apply.
std::string placeLogOnVideoClock(std::optional<double> given_offset_s, const io::VideoInfo& video,
                                 io::TelemetrySeries* telemetry, std::vector<std::string>* warnings);

// The request of a GUI project (its models, devices, mode and keyframe policy; the
// weights from the model directory). A processing field the project leaves unset keeps
// FlightRequest's default, so an io::Project() processes exactly as `process` with no
// options. The project's "telemetry" camera source, which no log this version reads can
// fill, becomes the automatic choice with a warning.
FlightRequest flightRequestFromProject(const io::Project& project, std::vector<std::string>* warnings);

// The navigation options, device placement, layout and keyframe policy of a request, by
// the rules `process --help` states. Throws InvalidArgument naming the bad part.
// `cuda_device_count`: vision::cudaDeviceCount() in production.
struct ProcessingChoice {
  nav::NavigationOptions options;
  engine::DevicePlacement placement;
  // Sequential: everything on the calling thread; the others: the engine's threads.
  engine::NavigationLayout layout = engine::NavigationLayout::Overlapped;
  std::vector<vision::DeviceSpec> front_end_devices;  // frame-parallel only
  engine::KeyframePolicy keyframe_policy = engine::KeyframePolicy::LatestWins;
  int satellite_sm_limit = 0;
};
ProcessingChoice processingChoiceFor(const FlightRequest& request, int cuda_device_count);

// The devices of a choice as report.json's "device" names them: "cuda:0", "vo cuda:0,
// registration cuda:1", "frame-parallel cuda:0,cuda:1".
std::string devicesText(const ProcessingChoice& choice);

// One weights file a choice needs and does not find.
struct MissingWeights {
  std::string stage;        // "visual odometry" or "satellite"
  std::string message;      // ModelError text: the file expected, the folders searched, where published
  bool falls_back = false;  // true: that stage runs ORB instead (a warning); false: the run fails
};
// Every learned component of `options` checked without loading anything.
std::vector<MissingWeights> missingWeights(const nav::NavigationOptions& options);

// What a run is set up with, told to the observer before the first frame.
struct FlightSetup {
  geo::LocalEnuFrame enu{geo::GeoPoint{}};  // the run's local frame
  double ground_alt_m = 0.0;  // ellipsoidal ground height the track's altitudes refer to
  std::int64_t frames_total = 0;  // the video's frame count (an estimate for some containers)
  nav::CameraModel camera;
  ProcessingChoice choice;
};

// What a caller watches and controls. Every method has a default that does nothing.
class FlightObserver : public engine::NavigationLiveSink, public engine::LatencyBatchListener {
 public:
  // Processing thread, once, before the models load.
  virtual void onSetup(const FlightSetup& setup) {}
  // At least every 100 ms of progress and at every stage change ("loading models",
  // "navigating", "preparing the global search: 37%", "writing results"): the processing
  // thread before and after the run, an engine thread (VO or satellite worker) during
  // it; never two calls at once.
  virtual void onProgress(std::int64_t frames_done, std::int64_t frames_total, const std::string& stage) {}
  // Processing thread: something the user should know that does not stop the run.
  virtual void onWarning(const std::string& text) {}
  // NavigationLiveSink (onSessionStarted, onFrame, onFix): the VO thread, one call at a
  // time, only when wantsLiveResults(); keep them short.
  void onFrame(const nav::FrameResult&) override {}
  void onFix(const nav::RegistrationFix&) override {}
  virtual bool wantsLiveResults() const { return false; }
  // The run's latency samples (the stage clock's: device events on a GPU), in batches
  // while it runs, at most every 40 ms and the rest at its end, only when
  // wantsLatencyBatches(): an engine thread (whichever completed the batch) or the
  // processing thread at the end, one call at a time, in order. Keep it short.
  void onLatencyBatch(std::vector<engine::LatencySample>) override {}
  virtual bool wantsLatencyBatches() const { return false; }
  // Pause and cancel of the run (null: neither). Any thread may set it.
  virtual const engine::RunControl* control() const { return nullptr; }
};

// The navigation of prepared inputs in the chosen layout: what processFlight runs
// between reading the inputs and writing the results (for tests and tools that bring
// their own inputs): engine::runNavigationEngine in the choice's layout (sequential:
// every step on the calling thread, every keyframe registered before the next frame;
// overlapped: the engine's threads). Latency samples on the stage clock either way.
struct NavigationRun {
  nav::NavigationResult result;
  std::vector<engine::LatencySample> samples;  // every stage of every frame (latency.csv)
  std::string keyframe_policy;                 // as the run applied it ("latest", "every")
  bool cancelled = false;
  // The run itself, seconds: the workers' models loaded, every frame decoded and
  // navigated, the last fixes applied, the track smoothed (not reading the inputs or
  // writing the results).
  double navigation_s = 0.0;
  nav::NavigationTimeParts navigation_parts;  // parts of it besides the frames
};
NavigationRun runNavigation(const std::string& video_path, nav::NavigationInputs inputs,
                            const ProcessingChoice& choice, std::int64_t frames_total, FlightObserver& observer);

// What processFlight did. The results folder is written in every case but a failure.
struct FlightOutcome {
  nav::NavigationResult result;  // completed = false when cancelled or the video ended early
  bool cancelled = false;        // by the observer's control
  double wall_s = 0.0;
  std::string results_dir;
};

// Processes the flight and writes the results folder (checked before any work, replaced
// as a whole at the end: never two runs' files in one folder). Throws skytrace::Error
// subclasses for bad input (InvalidArgument, IoError, FormatError, ModelError naming the
// missing weights file) before the first frame, and for a run's failure.
FlightOutcome processFlight(const FlightRequest& request, FlightObserver& observer);

}  // namespace skytrace::app
