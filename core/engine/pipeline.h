// The overlapped engine (DESIGN.md "Data flow"): a decode thread feeds a pinned frame
// ring (FrameFeed), the VO worker (foreground, high-priority stream) processes every
// frame, keyframe requests go through a bounded queue (KeyframeQueue) to the satellite
// worker (its own thread, normal-priority stream or a second GPU), and
// fixes come back to the VO thread, which applies them between frames in whatever
// order they arrive. What VO does when the queue is full is the KeyframePolicy: by
// default latest wins (VO never waits for the satellite stage; drops counted), or
// back-pressure (VO waits for room; every keyframe registered).
// Several GPUs (a throughput layout, PipelineOptions::front_end_devices and
// extra_satellite_devices): VO's per-frame front end (feature extraction) runs on
// alternate devices in parallel (FrontEndLanes) while the VO worker tracks the frames in
// order, and more satellite workers share the keyframe queue (whichever is free takes the
// next keyframe). Every device then carries part of both stages.
//
// Run control: start() -> [setPaused] -> the run ends (or cancel()); start() again after
// the run ended restarts from the first frame with fresh payloads. Errors: the first
// error of a run (from any thread) cancels it and is reported once (the on_end callback,
// and report().error). Shutdown is bounded: wait(ms) returns false on timeout, threads
// are never terminated; the destructor cancels and waits for the current step to end.
// Threads: plain std::threads owned by the Pipeline (DESIGN.md "Errors and threads"):
// the VO worker (which also starts and stops the decode thread) and one per satellite
// worker; wait() is woken by their ends, nothing polls. Every public method is called
// from the controlling thread (the one that created the Pipeline: GUI or CLI).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/device_placement.h"
#include "core/engine/frame_source.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/payload.h"
#include "core/engine/run_control.h"
#include "core/engine/run_report.h"

namespace skytrace::engine {

// What the VO worker does with a keyframe request when the keyframe queue is full.
enum class KeyframePolicy {
  // Live use (the default): the oldest queued request is dropped (RunReport::
  // keyframes_dropped); VO never waits, the satellite stage works on the newest frames.
  LatestWins,
  // Offline processing and throughput comparisons (completeness over latency): VO waits
  // for room (back-pressure; RunReport::keyframe_wait_ms), so every keyframe is
  // registered and the frame rate is bounded by the slower of VO and the satellite
  // stage. Pause and cancel still work while VO waits.
  EveryKeyframe,
};
// "latest" / "every" (the names of the CLI options and of the reports).
const char* keyframePolicyName(KeyframePolicy policy);
// Parses "latest" or "every"; throws InvalidArgument naming the accepted values.
KeyframePolicy parseKeyframePolicy(const std::string& name);

struct PipelineOptions {
  DevicePlacement placement;         // VO and satellite devices
  int ring_slots = 4;                // frame ring depth (>= 2)
  bool pinned_host_memory = true;    // CUDA: page-locked ring (false only for comparisons)
  std::size_t keyframe_queue_capacity = 1;  // requests waiting for the satellite stage
  KeyframePolicy keyframe_policy = KeyframePolicy::LatestWins;  // when that queue is full
  std::int64_t max_frames = -1;      // -1: the whole source
  // At the end of the video, how long VO waits for the satellite stage's outstanding
  // fixes before finishing without them (counted as fixes_lost_at_end).
  int final_fix_timeout_ms = 30000;
  std::string mode_name = "overlapped";  // label in the RunReport
  // Frame-parallel VO: the payload's front end (VoFrontEnd: extraction, then the pair
  // work with the previous frame) runs on front_end_devices in turn, frame by frame, each
  // device in its own thread; the VO worker on placement.vo tracks the results in frame
  // order (VoPayload::processPrepared), keeping up to 2n frames in flight. Needs a payload with
  // a front end (PayloadFactories::vo_front_end). For throughput (offline): a frame's
  // pose comes after the next 2n - 1 frames have arrived. Empty (the default): VO
  // extracts every frame itself.
  std::vector<vision::DeviceSpec> front_end_devices;
  // More satellite workers, one per entry, besides the one on placement.satellite; all
  // take keyframes from the same queue. Needs a satellite stage.
  std::vector<vision::DeviceSpec> extra_satellite_devices;
  // CUDA: > 0 confines each satellite worker's kernels to this many of its GPU's SMs (a
  // green context; DeviceStream::create), so that VO on the same GPU contends for those
  // SMs only and keeps the others to itself; the satellite stage gets slower. 0 (the
  // default): no limit. No effect on the CPU.
  int satellite_sm_limit = 0;
  // A front end's pause and cancel (may be null; must outlive the run): the run's
  // workers obey it as they obey setPaused() and cancel(), with no thread in between.
  const RunControl* control = nullptr;

  // Called once per run when VO has ended (completed, cancelled or failed), on the VO
  // thread, with the run's first error ("" unless it failed); the satellite workers may
  // still be stopping (wait() for them). Keep it short. May be empty.
  std::function<void(const std::string& error)> on_end;

  void check() const;  // throws InvalidArgument
};

class Pipeline {
 public:
  using SourceFactory = std::function<std::unique_ptr<FrameSource>()>;

  // `recorder` (may be null) receives every stage sample; it must outlive the Pipeline.
  Pipeline(PipelineOptions options, SourceFactory source, PayloadFactories payloads, LatencySink* recorder);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Starts a run. Throws InvalidArgument if one is still running.
  void start();
  void setPaused(bool paused);
  void cancel();
  bool isRunning() const;
  // Waits up to `timeout_ms` for the run's threads to end; true when they all did.
  bool wait(int timeout_ms);
  // The last run's report (complete once wait() returned true).
  RunReport report() const;

 private:
  struct Run;
  void runVo(Run* run);
  void releaseFinishedRun();

  PipelineOptions options_;
  SourceFactory source_;
  PayloadFactories payloads_;
  LatencySink* recorder_;
  std::unique_ptr<Run> run_;
};

}  // namespace skytrace::engine
