// The engine benchmark behind `skytrace-cli bench` and `skytrace-bench-engine`: one
// workload run in several modes within one process, written as JSON. Workloads:
//   --flight DIR  the product: a rendered flight (`skytrace-cli render` output) navigated
//                 by the classes `skytrace-cli process` runs (core/app's processing
//                 choice, core/engine/navigation_payloads.h: NavigationSession and
//                 BasemapRegistrar), each mode's track scored against the flight's
//                 truth.csv ("accuracy": ATE RMSE, within 5 m, localised fraction), so a
//                 speed-up that breaks navigation shows;
//   --synthetic WxH / --video PATH  the models alone: tensor-level VO and satellite stages
//                 (vision_payloads.h) on synthetic frames and tiles, or on a video's frames
//                 with frames of it as tiles (no map, no accuracy).
// Modes:
//   sequential  one thread, one stream, pageable copies, every keyframe registered
//               before the next frame (the baseline);
//   vo_only     the overlapped engine without the satellite stage (VO latency alone);
//   overlapped  the engine: decode thread + pinned ring + copy stream, VO worker on a
//               high-priority stream, satellite QThread (same GPU, or --sat-device);
//   multi_gpu   as overlapped with the satellite stage on cuda:1 (two GPUs only);
//   multi_gpu_frames
//               both stages on both GPUs: VO's front end (feature extraction) of
//               alternate frames on cuda:0 / cuda:1 in parallel, VO tracking (match, pose)
//               in frame order on cuda:0, one satellite worker per GPU sharing the
//               keyframe queue (PipelineOptions::front_end_devices /
//               extra_satellite_devices); --frame-parallel-devices picks other devices.
// Per mode: per-stage count/mean/p50/p99/max, VO ms per frame, satellite ms per
// keyframe, end-to-end fps after warm-up, keyframes requested/processed/dropped and VO's
// wait for room, fixes, peak device memory; plus H2D GB/s pinned vs pageable, and a
// summary of ratios. --pace-fps F delivers the frames at F per second (real-time video)
// instead of free-running. --keyframe-policy every makes overlapped and multi_gpu register
// every keyframe (VO waits for the satellite stage), as sequential does.
// Thread: the calling thread (which needs no Qt event loop); runs Pipelines inside.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/engine/frame_source.h"
#include "core/engine/pipeline.h"
#include "bench/harness/vision_payloads.h"

namespace skytrace::engine {

struct EngineBenchOptions {
  // The flight workload: a folder as `skytrace-cli render` writes it (flight.json,
  // flight.mp4, camera.json, truth.csv, flight.srt). Empty: synthetic frames or video_path.
  std::string flight_dir;
  std::string flight_basemap;      // the map navigated on (default: the one flight.json names)
  bool flight_telemetry = true;    // the flight's log crops the first search (as process --telemetry)
  bool satellite_model_given = false;  // --sat-model was given (the flight workload keeps process's default otherwise)
  std::string video_path;          // empty: synthetic frames
  int width_px = 640;              // synthetic frame size
  int height_px = 480;
  std::int64_t frames = 200;       // frames per mode (for a video: at most this many)
  int warmup_frames = 10;          // excluded from statistics and fps
  VisionPayloadOptions payload;
  std::string device, vo_device, sat_device;  // as DevicePlacement (empty: automatic)
  std::vector<std::string> modes = {"sequential", "vo_only", "overlapped", "multi_gpu", "multi_gpu_frames"};
  int tiles = 8;                   // basemap-like tiles for the satellite stage
  int ring_slots = 4;
  // overlapped and multi_gpu (and the warm-up run): latest wins (the live default) or
  // every keyframe registered (back-pressure: the "every frame registered" comparison).
  KeyframePolicy keyframe_policy = KeyframePolicy::LatestWins;
  int transfer_mib = 64;           // H2D measurement: copy size and repetitions
  int transfer_repeats = 20;
  int threads = 0;                 // LibTorch intra-op threads (0: leave as configured)
  // Decode every frame into host memory before the modes run (PreloadedFrameSource):
  // "decode" then measures a copy, so the GPU stages, not the CPU renderer/decoder,
  // bound the throughput that modes are compared by.
  bool preload_frames = false;
  // Deliver every mode's frames at this rate (PacedFrameSource; > 0), as a video played in
  // real time arrives, instead of as fast as the pipeline takes them (0: free-running).
  // Applies to every mode, sequential included, and to the preloaded frames; not to the
  // warm-up run. A paced run's fps cannot exceed pace_fps and its "decode" stage includes
  // the wait for each frame's due time, so the throughput ratios of the summary lose their
  // meaning; the latency figures (vo_frame p50/p99, vo_p99_loaded_over_alone) are what a
  // paced run is for.
  double pace_fps = 0.0;
  // multi_gpu_frames: its devices, >= 2 (the first also runs VO tracking). Empty: cuda:0
  // and cuda:1 when there are two GPUs (else the mode is skipped).
  std::vector<std::string> frame_parallel_devices;
  // Pipeline modes: each satellite worker's kernels on at most this many SMs of its GPU
  // (PipelineOptions::satellite_sm_limit; 0: no limit).
  int satellite_sm_limit = 0;

  void check() const;  // throws InvalidArgument
};

// Parses the benchmark's options ("--frames 100", "--synthetic 640x480", ...; see
// engineBenchUsage()). Throws InvalidArgument naming the bad option.
EngineBenchOptions parseEngineBenchArguments(const std::vector<std::string>& args);
std::string engineBenchUsage();

// Opens a video file as a FrameSource (the main build passes one over core/io; the
// GPU-only build has none and accepts synthetic frames only).
using VideoSourceOpener = std::function<std::unique_ptr<FrameSource>(const std::string& path)>;

// Runs every requested mode and returns the report (see the file comment). Progress
// lines go to `log` (may be empty). Throws skytrace::Error when the workload cannot be
// set up (ModelError for a missing weight file, checked for every model before the first
// mode; unreadable video); a mode that fails is reported in its entry. The report's
// "workload" records the model names, a description of both pipelines and every
// weight file.
nlohmann::json runEngineBench(const EngineBenchOptions& options, const VideoSourceOpener& open_video,
                              const std::function<void(const std::string&)>& log);

}  // namespace skytrace::engine
