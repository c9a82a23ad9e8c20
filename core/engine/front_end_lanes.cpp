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

struct FrontEndLanes::State {
  std::vector<vision::DeviceSpec> devices;
  Factory factory;
  LatencySink* recorder = nullptr;
  RunControl* control = nullptr;
  ErrorLatch* errors = nullptr;

  struct Job {
    EngineFrame frame;
    std::int64_t previous = -1;  // the frame submitted before it (-1: none)
  };

  std::mutex mutex;
  std::condition_variable job_queued;      // lanes wait here
  std::condition_variable result_posted;   // the VO worker and lanes (pair work) wait here
  std::vector<std::deque<Job>> jobs;       // per lane, in frame order
  std::map<std::int64_t, Result> results;  // for the VO worker
  // Prepared frames whose successor's pair work has not taken them yet.
  std::map<std::int64_t, std::shared_ptr<const PreparedFrame>> pair_sources;
  std::int64_t submitted = 0;
  std::int64_t last_submitted = -1;
  bool closed = false;
  std::vector<std::thread> threads;
  // A pause, resume or cancel wakes every thread waiting here. Last member: it ends
  // before what it wakes.
  RunControl::Listener control_wake;
};

FrontEndLanes::FrontEndLanes(std::vector<vision::DeviceSpec> devices, Factory factory,
                             LatencySink* recorder, RunControl* control, ErrorLatch* errors)
    : state_(std::make_unique<State>()) {
  if (devices.empty()) throw InvalidArgument("frame-parallel VO needs at least one front-end device");
  if (!factory) throw InvalidArgument("frame-parallel VO needs a payload with a front end");
  state_->devices = std::move(devices);
  state_->factory = std::move(factory);
  state_->recorder = recorder;
  state_->control = control;
  state_->errors = errors;
  state_->jobs.resize(state_->devices.size());
  State* state = state_.get();
  state_->control_wake = control->listen([state] {
    { std::lock_guard<std::mutex> lock(state->mutex); }
    state->job_queued.notify_all();
    state->result_posted.notify_all();
  });
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
  const std::size_t lane = static_cast<std::size_t>(state_->submitted % static_cast<std::int64_t>(state_->devices.size()));
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
    state_->jobs[lane].push_back({std::move(copy), state_->last_submitted});
    state_->last_submitted = frame.index;
    ++state_->submitted;
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
    const RunControl& control = *state_->control;
    if (control.isPaused() || control.isCancelled()) {
      lock.unlock();
      control.checkpoint();  // blocks while paused; a lane's error cancels the run: Cancelled here
      lock.lock();
      continue;
    }
    state_->result_posted.wait(lock, [&] {
      return state_->results.count(index) > 0 || control.isPaused() || control.isCancelled();
    });
  }
}

std::shared_ptr<const PreparedFrame> FrontEndLanes::takePairSource(std::int64_t index) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  while (true) {
    const auto found = state_->pair_sources.find(index);
    if (found != state_->pair_sources.end()) {
      std::shared_ptr<const PreparedFrame> source = std::move(found->second);
      state_->pair_sources.erase(found);
      return source;
    }
    if (state_->closed) return nullptr;
    if (state_->control->isCancelled()) throw Cancelled();
    state_->result_posted.wait(lock, [&] {
      return state_->closed || state_->pair_sources.count(index) > 0 || state_->control->isCancelled();
    });
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
      State::Job job;
      {
        std::unique_lock<std::mutex> lock(state_->mutex);
        state_->job_queued.wait(lock, [&] {
          return state_->closed || !state_->jobs[lane].empty() || state_->control->isCancelled();
        });
        if (state_->closed) return;
        if (state_->jobs[lane].empty()) return;  // cancelled
        job = std::move(state_->jobs[lane].front());
        state_->jobs[lane].pop_front();
      }
      state_->control->checkpoint();
      const std::int64_t index = job.frame.index;
      Result result;
      clock.beginFrame(index);
      result.prepared = front_end->prepare(job.frame, clock);
      result.front_end_ms = clock.finishFrame();
      if (job.previous >= 0) {
        // The previous frame comes from another lane (or this one, earlier): its result
        // is posted once that lane is done, never later than this lane's own next frame.
        const std::shared_ptr<const PreparedFrame> previous = takePairSource(job.previous);
        if (!previous) return;  // closed while waiting
        clock.beginFrame(index);
        front_end->preparePair(*previous, *result.prepared, clock);
        result.front_end_ms += clock.finishFrame();
      }
      result.frame = std::move(job.frame);
      {
        std::lock_guard<std::mutex> lock(state_->mutex);
        state_->pair_sources.emplace(index, result.prepared);
        state_->results.emplace(index, std::move(result));
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
