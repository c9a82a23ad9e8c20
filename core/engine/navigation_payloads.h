// The navigation as the engine's payload (main build only: core/nav, GDAL):
//   NavigationVoPayload        NavigationSession on the VO thread: processFrame per frame,
//                              its registration requests become keyframe requests, fixes
//                              go to addFix in any order, finish() at the end;
//   NavigationVoFrontEnd       frame-parallel runs: VO's feature extraction on each
//                              front-end device (the session tracks them in order);
//   NavigationSatellitePayload BasemapRegistrar on the satellite thread: registerFrame.
// While the session has no position (before the first accepted fix, or lost), one
// registration attempt at a time, as in the sequential driver: requests the session makes
// while the newest one sent is unanswered are held back (counted in the log).
// Frames reach the session as the engine's device frames (no copy back to the host);
// the session and the registrar mark their stages (extract, match, pose, fusion;
// retrieval, fine_match) on the worker's StageClock: device events on a GPU.
// Usage: runNavigationEngine (what core/app's processFlight runs for `process`, `demo`
// and the GUI) in any layout; or by hand:
//   auto output = std::make_shared<NavigationRunOutput>();
//   Pipeline pipeline(options, source, makeNavigationPayloads(inputs, nav_options,
//                     frames_total, output), &sink);
//   pipeline.start(); pipeline.wait(...); output->result() -> writeNavigationResults.
// Live observers (the GUI) get every frame's result and every fix through a
// NavigationLiveSink, and pause/cancel/latency/progress through NavigationEngineHooks.
// Thread: factories run on the worker threads; NavigationRunOutput is thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "core/engine/device_placement.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/payload.h"
#include "core/engine/pipeline.h"
#include "core/engine/run_control.h"
#include "core/engine/run_report.h"
#include "core/nav/navigation_report.h"
#include "core/nav/navigation_session.h"

namespace skytrace::engine {

// Where the VO payload leaves the session's result (set once, by finish()).
class NavigationRunOutput {
 public:
  void setResult(nav::NavigationResult result);
  std::optional<nav::NavigationResult> result() const;
  // The VO model actually used and why it fell back (set when the session starts).
  void setModel(std::string model, std::string fallback_reason);
  std::string voModel() const;
  std::string fallbackReason() const;
  // The registration's local feature model actually used (set when its payload starts).
  void setRegistrationModel(std::string model);
  std::string registrationModel() const;
  // Where progress goes (NavigationEngineHooks::progress; empty: nowhere) and the
  // video's frame count; set before the run starts.
  void setProgressCallback(
      std::function<void(std::int64_t frames_done, std::int64_t frames_total, const std::string& stage)> callback,
      std::int64_t frames_total);
  // VO thread, after each frame: reports "navigating" at most every 100 ms.
  void frameDone(std::int64_t frames_done);
  // Satellite thread: progress of a global search's preparation (units of work done and
  // total; done == total when it is complete).
  void setSearchProgress(int done, int total);
  // Keyframes the registration downloaded from the device so far (satellite thread).
  void setKeyframeTransfers(const vision::ImageTransfers& transfers);
  vision::ImageTransfers keyframeTransfers() const;

 private:
  mutable std::mutex mutex_;
  std::optional<nav::NavigationResult> result_;
  std::string vo_model_;
  std::string fallback_reason_;
  std::string registration_model_;
  // Progress reporting (its own lock: the callback runs under it, never under mutex_).
  std::mutex progress_mutex_;
  std::function<void(std::int64_t, std::int64_t, const std::string&)> progress_;
  std::int64_t frames_total_ = 0;
  std::int64_t frames_done_ = 0;
  std::chrono::steady_clock::time_point last_progress_{};
  vision::ImageTransfers keyframe_transfers_;
};

// What a live view learns while the engine navigates: the same per-frame results and
// fixes the sequential driver has in hand, as they happen.
// Thread: all methods are called on the VO worker thread (the thread that owns the
// NavigationSession), never concurrently: onFrame right after each processFrame, in frame
// order; onFix when a fix is applied to the session (fixes are computed on the satellite
// thread and applied by the VO thread between frames, late and in any order: onFix may
// name a frame older than the last onFrame). The VO worker waits for these calls: copy
// what is needed and hand it to the consumer's thread (a queued signal), no heavy work.
// Exceptions thrown here fail the run like a VO error.
class NavigationLiveSink {
 public:
  virtual ~NavigationLiveSink() = default;
  // Once per run, when the session (its models) is ready, before the first frame: the
  // VO model actually used and why the requested one was replaced ("" when it was not).
  virtual void onSessionStarted(const std::string& vo_model, const std::string& fallback_reason) {}
  virtual void onFrame(const nav::FrameResult& frame) = 0;
  virtual void onFix(const nav::RegistrationFix& fix) = 0;
};

// `frames_total` is the video's frame count (for the result). The satellite factory is
// left empty when registration is disabled in `options`. `live` (may be null) must
// outlive every run of the factories' payloads.
PayloadFactories makeNavigationPayloads(const nav::NavigationInputs& inputs,
                                        const nav::NavigationOptions& options,
                                        std::int64_t frames_total,
                                        std::shared_ptr<NavigationRunOutput> output,
                                        NavigationLiveSink* live = nullptr);

// How a navigation run is laid out on the engine (`process --mode`).
enum class NavigationLayout {
  // One thread and one stream of the VO device: frames decoded into a pageable buffer and
  // uploaded synchronously, every keyframe registered before the next frame
  // (runSequential). The baseline; the CPU default.
  Sequential,
  // Decode thread and pinned ring, VO worker on a high-priority stream, registration on
  // the satellite thread (Pipeline). The GPU default.
  Overlapped,
  // Overlapped, with VO's feature extraction spread frame by frame over several devices
  // (front_end_devices, one thread each) and tracked in frame order on placement.vo;
  // registration on placement.satellite (one worker, so that fixes come back in the
  // order they were asked for). For several GPUs.
  FrameParallel,
};
// "sequential" / "overlapped" / "frame-parallel" (the names of `process --mode` and of
// report.json).
const char* navigationLayoutName(NavigationLayout layout);

struct NavigationEngineOptions {
  NavigationLayout layout = NavigationLayout::Overlapped;
  DevicePlacement placement;
  // Overlapped only: LatestWins (live use: VO never waits for registration, requests
  // made while it is busy are dropped) or EveryKeyframe (offline: VO waits, every
  // registration request is attempted, as in the sequential layout).
  KeyframePolicy keyframe_policy = KeyframePolicy::LatestWins;
  // Overlapped on CUDA, > 0: registration runs on at most that many of its GPU's SMs
  // (PipelineOptions::satellite_sm_limit), so that VO on the same GPU keeps its latency.
  int satellite_sm_limit = 0;
  // Overlapped: more registration workers (one per device) sharing the keyframe queue.
  std::vector<vision::DeviceSpec> extra_satellite_devices;
  // FrameParallel: the devices that extract VO's features (>= 1; placement.vo tracks).
  std::vector<vision::DeviceSpec> front_end_devices;

  void check() const;  // throws InvalidArgument
};

// The engine's options for a navigation run in an engine layout (Overlapped or
// FrameParallel; throws InvalidArgument for Sequential): what runNavigationEngine and the
// engine benchmark run. The keyframe queue holds one request: with more, keyframes wait
// longer and are registered with staler priors (a queue of 32 on two H200s: one of five
// runs of the test flight ended 5.95 m off instead of 1.51-1.54 m, for a few percent of
// frame rate).
PipelineOptions navigationPipelineOptions(const NavigationEngineOptions& engine_options);

// Optional attachments of runNavigationEngine for a front end (all may be null or empty;
// each must outlive the call). Nothing polls: every hook is called by the thread where
// the thing happens.
struct NavigationEngineHooks {
  // Per-frame results and fixes, on the VO worker thread (see NavigationLiveSink).
  NavigationLiveSink* live = nullptr;
  // Pause and cancel, set by the front end from any thread; the run's workers obey it
  // directly (RunControl::setParent). A cancel ends the run with the frames done so far.
  const RunControl* control = nullptr;
  // The run's latency samples in batches while it runs (at most every 40 ms, the rest
  // at the end), from the thread that completed the batch (see LatencyBatchListener).
  LatencyBatchListener* latency_listener = nullptr;
  // Progress: frames done of the video's frames_total and what is happening
  // ("navigating", "preparing the global search: 37%"). Called on an engine thread (the
  // VO worker after a frame, at most every 100 ms; the satellite worker while a global
  // search is prepared), never by two threads at once. Keep it short.
  std::function<void(std::int64_t frames_done, std::int64_t frames_total, const std::string& stage)> progress;
};

// A whole navigation run on the engine in the chosen layout. Throws skytrace::Error for
// setup failures (unreadable video, missing weights) and for the run's error; a cancel
// (hooks.control) returns what was computed (result.completed = false,
// report.cancelled = true), or throws Cancelled when it came before the first frame.
// Thread: any thread; needs no Qt event loop (the calling thread waits for the workers).
struct NavigationEngineRun {
  nav::NavigationResult result;
  RunReport report;
  std::vector<LatencySample> samples;  // every stage of every frame (latency.csv)
  std::string vo_model;
  std::string fallback_reason;
};
NavigationEngineRun runNavigationEngine(const std::string& video_path, nav::NavigationInputs inputs,
                                        const nav::NavigationOptions& options,
                                        const NavigationEngineOptions& engine_options,
                                        const NavigationEngineHooks& hooks = {});

// Per-stage summaries for report.json (nav::RunDescription::stages).
std::vector<nav::StageSummary> stageSummaries(const std::vector<LatencySample>& samples);

}  // namespace skytrace::engine
