// The navigation as the engine's payload (main build only: core/nav, GDAL):
//   NavigationVoPayload        NavigationSession on the VO thread: processFrame per frame,
//                              its registration requests become keyframe requests, fixes
//                              go to addFix in any order, finish() at the end;
//   NavigationSatellitePayload BasemapRegistrar on the satellite thread: registerFrame.
// While the session has no position (before the first accepted fix, or lost), one
// registration attempt at a time, as in the sequential driver: requests the session makes
// while the newest one sent is unanswered are held back (counted in the log).
// Stage timings come from the session's own per-step measurements (extract, match,
// pose, fusion; retrieval and fine_match from the fix), host clock.
// Usage (what `skytrace-cli process` does through the engine):
//   auto output = std::make_shared<NavigationRunOutput>();
//   Pipeline pipeline(options, source, makeNavigationPayloads(inputs, nav_options,
//                     frames_total, output), &recorder);
//   pipeline.start(); pipeline.wait(...); output->result() -> writeNavigationResults.
// Live observers (the GUI) get every frame's result and every fix through a
// NavigationLiveSink, and pause/cancel/latency through NavigationEngineHooks.
// Thread: factories run on the worker threads; NavigationRunOutput is thread-safe.
#pragma once

#include <cstdint>
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
#include "core/util/progress.h"

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
  // Progress of a global search's preparation on the satellite thread (units of work
  // done and total; done == total when none is under way).
  void setSearchProgress(int done, int total);
  std::pair<int, int> searchProgress() const;

 private:
  mutable std::mutex mutex_;
  std::optional<nav::NavigationResult> result_;
  std::string vo_model_;
  std::string fallback_reason_;
  std::string registration_model_;
  std::pair<int, int> search_progress_{0, 0};
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

// Optional attachments of runNavigationEngine for a live front end (all may be null;
// each must outlive the call).
struct NavigationEngineHooks {
  // Per-frame results and fixes, on the VO worker thread (see NavigationLiveSink).
  NavigationLiveSink* live = nullptr;
  // Pause and cancel requested by the front end (its own RunControl, set from any
  // thread), mirrored onto the pipeline by the calling thread every poll interval.
  // A cancel ends the run like a progress callback returning false.
  const RunControl* control = nullptr;
  // Every latency sample of the run is also pushed here, by the calling thread at every
  // poll (at most `poll_interval_ms` late): e.g. the recorder a LatencyPublisher drains.
  LatencyRecorder* latency_forward = nullptr;
  int poll_interval_ms = 40;  // in [1, 1000]
};

// A whole navigation run through the overlapped engine: decode thread, VO worker,
// registration on the satellite QThread. `progress` is called on the calling thread
// about every 100 ms (fraction of frames done); returning false cancels (the result
// then holds what was computed, completed = false, report.cancelled = true). Throws
// skytrace::Error for setup failures (unreadable video, missing weights) and for the
// run's error. `hooks` attach a live front end (see NavigationEngineHooks).
// `keyframe_policy`: LatestWins (live use: VO never waits for registration, requests
// made while it is busy are dropped) or EveryKeyframe (offline: VO waits, every
// registration request is attempted, as in the sequential driver).
// `satellite_sm_limit` > 0 (CUDA): registration runs on at most that many of its GPU's
// SMs (PipelineOptions::satellite_sm_limit), so that VO on the same GPU keeps its latency.
// Thread: any thread; needs no Qt event loop (the calling thread polls the pipeline).
struct NavigationEngineRun {
  nav::NavigationResult result;
  RunReport report;
  std::vector<LatencySample> samples;  // every stage of every frame (latency.csv)
  std::string vo_model;
  std::string fallback_reason;
};
NavigationEngineRun runNavigationEngine(const std::string& video_path, nav::NavigationInputs inputs,
                                        const nav::NavigationOptions& options,
                                        const DevicePlacement& placement,
                                        const ProgressCallback& progress,
                                        const NavigationEngineHooks& hooks = {},
                                        KeyframePolicy keyframe_policy = KeyframePolicy::LatestWins,
                                        int satellite_sm_limit = 0);

// Per-stage summaries for report.json (nav::RunDescription::stages).
std::vector<nav::StageSummary> stageSummaries(const std::vector<LatencySample>& samples);

}  // namespace skytrace::engine
