// Frame-parallel VO front ends (PipelineOptions::front_end_devices): one thread per
// device runs the payload's VoFrontEnd on the frames routed to it (the k-th submitted
// frame to devices[k % n]): prepare() (feature extraction), then preparePair() with the
// previously submitted frame's result once that is ready (e.g. matching the pair, on this
// lane's device); the VO worker takes the results back in frame order and tracks them.
// With n devices, n frames are extracted and matched at once, so that work no longer
// bounds the frame rate of one device; the VO worker keeps only the order-dependent work
// (pose, keyframe decision).
// Each submitted frame is first copied onto its lane's device (the copy is complete
// when submit() returns, so the caller may release the ring slot at once). Results
// carry that copy and the front end's output, both complete on their device.
// Errors: a front end's exception is reported once to the run's ErrorLatch, cancels the
// run, and wakes a VO worker waiting in take() with Cancelled.
// Thread: constructed, fed (submit), drained (take) and destroyed by the VO worker;
// the lane threads are internal and joined by the destructor (bounded by one
// front-end step each).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/engine/gpu_streams.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/payload.h"
#include "core/engine/run_control.h"
#include "core/engine/worker_support.h"

namespace skytrace::engine {

class FrontEndLanes {
 public:
  using Factory = std::function<std::unique_ptr<VoFrontEnd>(const vision::DeviceSpec&)>;

  struct Result {
    EngineFrame frame;                       // the lane's copy of the frame (its device)
    std::shared_ptr<PreparedFrame> prepared;
    double front_end_ms = 0.0;               // the lane's stage time (device time on GPU)
  };

  // Starts one thread per device (>= 1 device; a device may appear twice). `recorder`
  // (may be null) receives the lanes' stage samples.
  FrontEndLanes(std::vector<vision::DeviceSpec> devices, Factory factory, LatencySink* recorder,
                RunControl* control, ErrorLatch* errors);
  ~FrontEndLanes();
  FrontEndLanes(const FrontEndLanes&) = delete;
  FrontEndLanes& operator=(const FrontEndLanes&) = delete;

  std::size_t laneCount() const;

  // Copies `frame` onto its lane's device and queues it there. `current` is the calling
  // thread's current stream on the frame's device (the copy goes there and is waited
  // for). Frames must be submitted in increasing index order (gaps allowed: the pair work
  // pairs each frame with the one submitted before it).
  void submit(const EngineFrame& frame, const DeviceStream& current);

  // The result for frame `index` (submitted before), waiting for it. Throws Cancelled
  // when the run is cancelled (by a lane's error too) while waiting.
  Result take(std::int64_t index);

 private:
  struct State;
  void runLane(std::size_t lane);
  // The prepared frame `index` for a successor's pair work, waiting until it is posted;
  // null once the lanes are closed; Cancelled when the run is.
  std::shared_ptr<const PreparedFrame> takePairSource(std::int64_t index);
  std::unique_ptr<State> state_;
};

}  // namespace skytrace::engine
