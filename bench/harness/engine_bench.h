// The engine benchmark behind `skytrace-cli bench` and `skytrace-bench-engine`: the
// product's navigation (the classes `skytrace-cli process` runs: core/app's processing
// choice, core/engine/navigation_payloads.h: NavigationSession and BasemapRegistrar) run
// in several engine modes within one process, written as JSON. Workloads:
//   --flight DIR       a rendered flight (`skytrace-cli render` output); each mode's
//                      track scored against the flight's truth.csv ("accuracy": ATE RMSE,
//                      within 5 m, localised fraction), so a speed-up that breaks
//                      navigation shows;
//   --synthetic WxH    (the default, 640x480) the same on a flight rendered first into a
//                      temporary folder: a procedural basemap (as `skytrace-cli demo`'s)
//                      and a WxH video of --frames frames over it, with its log and truth;
//   --video PATH       a recorded video navigated on --basemap (with --telemetry and
//                      --camera as `process` takes them): speed and fixes, no truth.
// Modes:
//   sequential  one thread, one stream, pageable copies, every keyframe registered
//               before the next frame (the baseline; `process --mode sequential`);
//   vo_only     the overlapped engine with registration off (VO latency alone);
//   overlapped  the engine: decode thread + pinned ring + copy stream, VO worker on a
//               high-priority stream, registration thread (same GPU, or --sat-device);
//               `process --mode overlapped`;
//   multi_gpu   as overlapped with registration on cuda:1 (two GPUs only);
//   multi_gpu_frames
//               `process --mode frame-parallel`: VO's feature extraction of alternate
//               frames on cuda:0 / cuda:1 in parallel, VO tracking (match, pose) in frame
//               order on the first device, one registration worker on the last;
//               --frame-parallel-devices picks other devices.
// Per mode: per-stage count/mean/p50/p99/max, VO ms per frame, registration ms per
// keyframe, end-to-end fps after warm-up, keyframes requested/processed/dropped and VO's
// wait for room, fixes, peak device memory, the accuracy of the track; plus H2D GB/s
// pinned vs pageable, and a summary of ratios. --pace-fps F delivers the frames at F per
// second (real-time video) instead of free-running. --keyframe-policy every makes the
// engine modes register every keyframe (VO waits for registration), as `process` does.
// Thread: the calling thread (which needs no Qt event loop); runs Pipelines inside.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/engine/pipeline.h"

namespace skytrace::engine {

struct EngineBenchOptions {
  // The workload: flight_dir, else video_path, else a synthetic flight of
  // synthetic_width_px x synthetic_height_px.
  std::string flight_dir;          // --flight: a folder as `skytrace-cli render` writes it
  std::string video_path;          // --video: a recorded video (needs basemap)
  int synthetic_width_px = 640;    // --synthetic WxH
  int synthetic_height_px = 480;
  std::uint64_t synthetic_seed = 1;  // --seed: the synthetic flight's map, path and noise
  // --basemap: the map navigated on (--flight: default the one flight.json names;
  // --video: required; --synthetic: default the procedural one).
  std::string basemap;
  std::string telemetry_path;      // --video: its flight log (optional)
  std::string camera_path;         // --video: camera JSON (default as `process`)
  bool flight_telemetry = true;    // --flight/--synthetic: the flight's log crops the first search
  std::int64_t frames = 200;       // frames per mode (for a video: at most this many)
  int warmup_frames = 10;          // excluded from statistics and fps

  // Models, as `process --vo-model / --sat-model` (empty satellite_model: process's
  // default, the VO model's features with VLAD retrieval).
  std::string vo_model = "aliked-n16rot";  // FEATURES[+MATCHER]
  int vo_keypoints = 1024;         // for a 640x480 frame; larger frames keep the density (as process)
  std::string satellite_model;
  int satellite_keypoints = 0;     // registration's local features; 0: process's default
  std::string weights_dir;         // the model directory for this run (SKYTRACE_MODEL_DIR wins)
  int register_every_n_keyframes = 1;  // --keyframe-interval: every n-th VO keyframe registered
  int retrieval_candidates = 0;    // global search: tiles fine-matched; 0: process's default
  int retrieval_input_px = 0;      // DINOv2 input (shorter side, px); 0: its default (224)
  int dense_size_px = 0;           // LiteSAM input (long side, px); 0: its default (512)
  // LightGlue (VO and registration): the original's early exit and pruning (true, as
  // `process`), or every layer on every point (false: --lightglue-depth full).
  bool lightglue_adaptive = true;
  // ALIKED extractors (VO and registration) run their dense part in float16 (CUDA only).
  bool aliked_float16 = false;
  // As `process --half-precision`: float16 where it is faster, on GPU stages.
  bool half_precision = false;
  // As `process --no-cuda-graphs / --no-fused-kernels` (false: for comparisons).
  bool cuda_graphs = true;
  bool fused_kernels = true;

  std::string device, vo_device, sat_device;  // as DevicePlacement (empty: automatic)
  std::vector<std::string> modes = {"sequential", "vo_only", "overlapped", "multi_gpu", "multi_gpu_frames"};
  int ring_slots = 4;
  // The engine modes (and the warm-up run): every keyframe registered (as `process`) or
  // latest wins (the live behaviour).
  KeyframePolicy keyframe_policy = KeyframePolicy::LatestWins;
  int transfer_mib = 64;           // H2D measurement: copy size and repetitions
  int transfer_repeats = 20;
  int threads = 0;                 // LibTorch intra-op threads (0: leave as configured)
  // Decode every frame into host memory before the modes run (PreloadedFrameSource):
  // "decode" then measures a copy, so the GPU stages, not the CPU decoder, bound the
  // throughput that modes are compared by.
  bool preload_frames = false;
  // Deliver every mode's frames at this rate (PacedFrameSource; > 0), as a video played in
  // real time arrives, instead of as fast as the pipeline takes them (0: free-running).
  // Applies to every mode, sequential included, and to the preloaded frames; not to the
  // warm-up run. A paced run's fps cannot exceed pace_fps and its "decode" stage includes
  // the wait for each frame's due time, so the throughput ratios of the summary lose their
  // meaning; the latency figures (vo_frame p50/p99, vo_p99_loaded_over_alone) are what a
  // paced run is for.
  double pace_fps = 0.0;
  // multi_gpu_frames: its devices, >= 2 (the first also tracks, the last registers).
  // Empty: cuda:0 and cuda:1 when there are two GPUs (else the mode is skipped).
  std::vector<std::string> frame_parallel_devices;
  // Engine modes: the registration worker's kernels on at most this many SMs of its GPU
  // (`process --sat-sm-limit`; 0: no limit).
  int satellite_sm_limit = 0;
  // Options of earlier versions that no longer apply (--tiles), kept so that scripts
  // still run; the report lists them.
  std::vector<std::string> ignored_options;

  void check() const;  // throws InvalidArgument
};

// Parses the benchmark's options ("--frames 100", "--synthetic 640x480", ...; see
// engineBenchUsage()). Throws InvalidArgument naming the bad option.
EngineBenchOptions parseEngineBenchArguments(const std::vector<std::string>& args);
std::string engineBenchUsage();

// Runs every requested mode and returns the report (see the file comment). Progress
// lines go to `log` (may be empty). Throws skytrace::Error when the workload cannot be
// set up (ModelError for a missing weight file, checked for every model before the first
// mode; unreadable video or map); a mode that fails is reported in its entry. The
// report's "workload" records the models, a description of both stages and the inputs.
nlohmann::json runEngineBench(const EngineBenchOptions& options, const std::function<void(const std::string&)>& log);

}  // namespace skytrace::engine
