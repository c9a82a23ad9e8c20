// The navigation as the engine's payload (main build only: core/nav, GDAL):
//   NavigationVoPayload        NavigationSession on the VO thread: processFrame per frame,
//                              its registration requests become keyframe requests, fixes
//                              go to addFix in any order, finish() at the end;
//   NavigationSatellitePayload BasemapRegistrar on the satellite thread: registerFrame.
// Stage timings come from the session's own per-step measurements (extract, match,
// pose, fusion; retrieval and fine_match from the fix), host clock.
// Usage (what `skytrace-cli process` does through the engine):
//   auto output = std::make_shared<NavigationRunOutput>();
//   Pipeline pipeline(options, source, makeNavigationPayloads(inputs, nav_options,
//                     frames_total, output), &recorder);
//   pipeline.start(); pipeline.wait(...); output->result() -> writeNavigationResults.
// Thread: factories run on the worker threads; NavigationRunOutput is thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "core/engine/device_placement.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/payload.h"
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

 private:
  mutable std::mutex mutex_;
  std::optional<nav::NavigationResult> result_;
  std::string vo_model_;
  std::string fallback_reason_;
};

// `frames_total` is the video's frame count (for the result). The satellite factory is
// left empty when registration is disabled in `options`.
PayloadFactories makeNavigationPayloads(const nav::NavigationInputs& inputs,
                                        const nav::NavigationOptions& options,
                                        std::int64_t frames_total,
                                        std::shared_ptr<NavigationRunOutput> output);

// A whole navigation run through the overlapped engine: decode thread, VO worker,
// registration on the satellite QThread. `progress` is called on the calling thread
// about every 100 ms (fraction of frames done); returning false cancels (the result
// then holds what was computed, completed = false). Throws skytrace::Error for setup
// failures (unreadable video, missing weights) and for the run's error.
// Thread: any thread; needs no Qt event loop.
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
                                        const ProgressCallback& progress);

// The sequential driver's per-frame timings (nav::runNavigationSequential) as latency
// samples on `device` (host clock; no start times): the same CSV and summaries as an
// engine run. Timings of stages the engine does not name are left out.
std::vector<LatencySample> latencySamplesFromTimings(const std::vector<nav::StageTiming>& timings,
                                                     const vision::DeviceSpec& device);

// Per-stage summaries for report.json (nav::RunDescription::stages).
std::vector<nav::StageSummary> stageSummaries(const std::vector<LatencySample>& samples);

}  // namespace skytrace::engine
