#include "core/engine/front_end_lanes.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "core/engine/engine_frame_impl.h"
#include "core/engine/stage_clock.h"
#include "core/util/error.h"

namespace skytrace::engine {

namespace {
// How often a thread waiting here looks at cancel (and pause, for the VO worker).
constexpr std::chrono::milliseconds kWaitCheckInterval(50);
}  // namespace

struct FrontEndLanes::State {
  std::vector<vision::DeviceSpec> devices;
  Factory factory;
  LatencyRecorder* recorder = nullptr;
  RunControl* control = nullptr;
  ErrorLatch* errors = nullptr;

  std::mutex mutex;
  std::condition_variable job_queued;      // lanes wait here
  std::condition_variable result_posted;   // the VO worker waits here
  std::vector<std::deque<EngineFrame>> jobs;  // per lane, in frame order
  std::map<std::int64_t, Result> results;
  bool closed = false;
  std::vector<std::thread> threads;
};

FrontEndLanes::FrontEndLanes(std::vector<vision::DeviceSpec> devices, Factory factory,
                             LatencyRecorder* recorder, RunControl* control, ErrorLatch* errors)
    : state_(std::make_unique<State>()) {
  if (devices.empty()) throw InvalidArgument("frame-parallel VO needs at least one front-end device");
  if (!factory) throw InvalidArgument("frame-parallel VO needs a payload with a front end");
  state_->devices = std::move(devices);
  state_->factory = std::move(factory);
  state_->recorder = recorder;
  state_->control = control;
  state_->errors = errors;
  state_->jobs.resize(state_->devices.size());
  for (std::size_t lane = 0; lane < state_->devices.size(); ++lane)
    state_->threads.emplace_back([this, lane] { runLane(lane); });
}

FrontEndLanes::~FrontEndLanes() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closed = true;
  }
  state_->job_queued.notify_all();
  for (std::thread& thread : state_->threads) thread.join();
}

std::size_t FrontEndLanes::laneCount() const { return state_->devices.size(); }

void FrontEndLanes::submit(const EngineFrame& frame, const DeviceStream& current) {
  const std::size_t lane = static_cast<std::size_t>(frame.index) % state_->devices.size();
  const vision::DeviceSpec& device = state_->devices[lane];
  EngineFrame copy = frame;
  copy.device = device;
  auto pixels = std::make_shared<EngineFrame::Pixels>();
  // Between GPUs ATen copies on the source device's current stream (`current`) and orders
  // the destination's current stream after it; on the same device this is a clone on
  // `current`. Either way the copy is done once `current` is.
  pixels->bgr = frame.pixels->bgr.to(atDevice(device), /*non_blocking=*/false, /*copy=*/true);
  current.synchronize();
  copy.pixels = std::move(pixels);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->jobs[lane].push_back(std::move(copy));
  }
  state_->job_queued.notify_all();
}

FrontEndLanes::Result FrontEndLanes::take(std::int64_t index) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  while (true) {
    const auto found = state_->results.find(index);
    if (found != state_->results.end()) {
      Result result = std::move(found->second);
      state_->results.erase(found);
      return result;
    }
    lock.unlock();
    state_->control->checkpoint();  // a lane's error cancels the run: Cancelled here
    lock.lock();
    state_->result_posted.wait_for(lock, kWaitCheckInterval,
                                   [&] { return state_->results.count(index) > 0; });
  }
}

void FrontEndLanes::runLane(std::size_t lane) {
  const vision::DeviceSpec device = state_->devices[lane];
  try {
    c10::InferenceMode inference_guard;
    const DeviceStream stream = DeviceStream::create(device, StreamPriority::High);
    StreamGuard stream_guard(stream);
    StageClock clock(state_->recorder, stream);
    std::unique_ptr<VoFrontEnd> front_end = state_->factory(device);
    while (true) {
      EngineFrame frame;
      {
        std::unique_lock<std::mutex> lock(state_->mutex);
        state_->job_queued.wait_for(lock, kWaitCheckInterval,
                                    [&] { return state_->closed || !state_->jobs[lane].empty(); });
        if (state_->closed) return;
        if (state_->jobs[lane].empty()) {
          if (state_->control->isCancelled()) return;
          continue;
        }
        frame = std::move(state_->jobs[lane].front());
        state_->jobs[lane].pop_front();
      }
      state_->control->checkpoint();
      clock.beginFrame(frame.index);
      Result result;
      result.prepared = front_end->prepare(frame, clock);
      result.front_end_ms = clock.finishFrame();
      result.frame = std::move(frame);
      {
        std::lock_guard<std::mutex> lock(state_->mutex);
        state_->results.emplace(result.frame.index, std::move(result));
      }
      state_->result_posted.notify_all();
    }
  } catch (const Cancelled&) {
    // the run was cancelled: nothing to report
  } catch (const std::exception& e) {
    state_->errors->report("visual odometry front end (" + device.toString() + "): " + e.what());
    state_->control->requestCancel();
  } catch (...) {
    state_->errors->report("visual odometry front end (" + device.toString() + "): unknown exception");
    state_->control->requestCancel();
  }
}

}  // namespace skytrace::engine
