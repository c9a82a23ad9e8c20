// The satellite stage's worker. run() executes on the worker's own thread (the
// Pipeline's std::thread): it creates its stream (normal priority, below VO's
// high-priority stream) and its payload there, then takes keyframe requests from the
// keyframe queue until the queue is closed and empty or the run is cancelled, and posts
// every fix to the VO side's inbox. Errors go to the run's ErrorLatch (and cancel the
// run). When it stops, for whatever reason, it closes the queue (a VO worker blocked on
// a full queue must not wait for a consumer that is gone) and returns.
// Thread: constructed on the controlling thread, then used only on its thread; its
// results (latencies) are read after run() has returned.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "core/engine/latency_recorder.h"
#include "core/engine/keyframe_queue.h"
#include "core/engine/payload.h"
#include "core/engine/run_control.h"
#include "core/engine/worker_support.h"

namespace skytrace::engine {

struct SatelliteChannel {
  KeyframeQueue<std::shared_ptr<KeyframeRequest>>* requests = nullptr;
  FixInbox* fixes = nullptr;
  RunControl* control = nullptr;
  ErrorLatch* errors = nullptr;
  LatencySink* recorder = nullptr;  // may be null
  vision::DeviceSpec device;
  int sm_limit = 0;  // > 0 (CUDA): the worker's kernels run on at most this many SMs
  std::function<std::unique_ptr<SatellitePayload>(const vision::DeviceSpec&)> factory;
};

class SatelliteWorker {
 public:
  explicit SatelliteWorker(SatelliteChannel channel);

  bool isDone() const { return done_.load(std::memory_order_acquire); }
  // Valid once isDone(): per processed keyframe, ms; peak device memory.
  const std::vector<double>& latenciesMs() const { return latencies_ms_; }
  std::int64_t peakDeviceBytes() const { return peak_device_bytes_; }
  // Set when the worker's first error came from its error latch report (tests).
  bool reportedError() const { return reported_error_; }

  // The worker's whole life on its thread; returns when it stopped (never throws).
  void run();

 private:
  SatelliteChannel channel_;
  std::vector<double> latencies_ms_;
  std::int64_t peak_device_bytes_ = -1;
  bool reported_error_ = false;
  std::atomic<bool> done_{false};
};

}  // namespace skytrace::engine
