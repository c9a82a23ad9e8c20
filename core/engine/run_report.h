// What one engine run did: counts, per-frame latencies and the first error. Filled by
// Pipeline (overlapped) and runSequential; read by the benchmark and the CLI.
// Thread: a value type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skytrace::engine {

struct RunReport {
  std::string mode;                    // "sequential", "overlapped", ...
  std::string vo_device, satellite_device;
  // "latest" or "every" (keyframePolicyName): runSequential registers every keyframe by
  // construction; a Pipeline run says its policy, or "" when it has no satellite stage.
  std::string keyframe_policy;
  bool completed = false;              // every frame processed, all outstanding fixes in
  bool cancelled = false;
  std::string error;                   // the run's (first) error, empty when none
  std::int64_t frames = 0;             // frames processed by VO
  std::int64_t keyframes_requested = 0;
  std::int64_t keyframes_dropped = 0;  // evicted (latest wins) or discarded at cancel/close
  std::int64_t keyframes_processed = 0;
  std::int64_t fixes_applied = 0;
  std::int64_t fixes_late = 0;         // applied after VO had moved past their frame
  std::int64_t fixes_out_of_order = 0; // for a frame older than a fix applied before
  std::int64_t fixes_lost_at_end = 0;  // still outstanding when the final wait timed out
  // EveryKeyframe: total time VO was blocked waiting for the satellite stage: for room in
  // the keyframe queue, and for a fix its payload awaited (VoPayload::awaitingFix). Not
  // part of vo_frame_ms, which ends before the request is handed over; 0 otherwise.
  double keyframe_wait_ms = 0.0;
  double wall_s = 0.0;
  // Seconds from the run's start until VO finished its first frame (the workers' models
  // loaded, the first passes planned and captured); -1 when no frame was processed.
  double first_frame_s = -1.0;
  // Seconds VO spent finishing after its last frame (the outstanding fixes applied, the
  // track smoothed: VoPayload::finish).
  double finish_s = 0.0;
  std::vector<double> frame_done_ms;   // recorder clock, when VO finished each frame
  std::vector<double> vo_frame_ms;     // VO latency per frame (device time on GPU)
  std::vector<double> satellite_ms;    // satellite latency per processed keyframe
  std::vector<std::int64_t> applied_fix_frames;  // in the order fixes were applied
  std::int64_t peak_vo_device_bytes = -1;
  std::int64_t peak_satellite_device_bytes = -1;
};

}  // namespace skytrace::engine
