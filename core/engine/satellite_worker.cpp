#include "core/engine/satellite_worker.h"

#include <c10/core/InferenceMode.h>

#include <chrono>
#include <exception>
#include <optional>

#include "core/engine/gpu_streams.h"
#include "core/engine/stage_clock.h"
#include "core/util/error.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::engine {

SatelliteWorker::SatelliteWorker(SatelliteChannel channel) : channel_(std::move(channel)) {}

void SatelliteWorker::run() {
  // A stage confined to part of the GPU's SMs runs eagerly: CUDA graph replays ignore the
  // green context's partition (vision::ScopedNoCudaGraphs).
  std::optional<vision::ScopedNoCudaGraphs> eager;
  if (channel_.sm_limit > 0) eager.emplace();
  try {
    c10::InferenceMode inference_guard;
    const DeviceStream stream = DeviceStream::create(channel_.device, StreamPriority::Normal, channel_.sm_limit);
    StreamGuard stream_guard(stream);
    StageClock clock(channel_.recorder, stream);
    std::unique_ptr<SatellitePayload> payload = channel_.factory(channel_.device);
    bool idle_work = true;  // the payload may have work for idle time
    while (true) {
      // A pause or cancel wakes the queue (the Pipeline's control listener): read its
      // wake count before the checkpoint that acts on them.
      const std::uint64_t seen = channel_.requests->wakeCount();
      channel_.control->checkpoint();
      if (idle_work && channel_.requests->size() == 0 && !channel_.requests->isClosed()) {
        idle_work = payload->prepareWhileIdle(*channel_.control);
        continue;
      }
      std::optional<std::shared_ptr<KeyframeRequest>> request =
          idle_work ? channel_.requests->tryPop() : channel_.requests->popUntilWoken(seen);
      if (!request) {
        if (channel_.requests->isClosed() && channel_.requests->size() == 0) break;
        continue;
      }
      clock.beginFrame((*request)->frame);
      std::shared_ptr<SatelliteFix> fix = payload->process(**request, clock, *channel_.control);
      latencies_ms_.push_back(clock.finishFrame());
      if (fix) channel_.fixes->push(std::move(fix));
      idle_work = true;  // a request may have made new idle work (another resolution)
    }
  } catch (const Cancelled&) {
    // cancelled: nothing to report
  } catch (const std::exception& e) {
    reported_error_ = channel_.errors->report(std::string("satellite stage: ") + e.what());
    channel_.control->requestCancel();
  } catch (...) {
    reported_error_ = channel_.errors->report("satellite stage: unknown exception");
    channel_.control->requestCancel();
  }
  channel_.requests->close();  // no consumer any more: wake a producer waiting for room
  try {
    peak_device_bytes_ = engine::peakDeviceBytes(channel_.device);
  } catch (...) {
    peak_device_bytes_ = -1;  // the device itself was unusable (already reported)
  }
  done_.store(true, std::memory_order_release);
}

}  // namespace skytrace::engine
