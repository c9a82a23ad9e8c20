#include "core/engine/pipeline.h"

#include <c10/core/InferenceMode.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <pthread.h>

#include "core/engine/device_placement.h"
#include "core/engine/frame_feed.h"
#include "core/engine/front_end_lanes.h"
#include "core/engine/gpu_streams.h"
#include "core/engine/keyframe_queue.h"
#include "core/engine/run_control.h"
#include "core/engine/satellite_worker.h"
#include "core/engine/stage_clock.h"
#include "core/engine/worker_support.h"
#include "core/util/error.h"
#include "core/util/log.h"

namespace skytrace::engine {

std::shared_ptr<KeyframeRequest> VoPayload::processPrepared(const EngineFrame&, const PreparedFrame&,
                                                            StageClock&) {
  throw InvalidArgument("VO payload '" + name() + "' has no front end for frame-parallel runs");
}

const char* keyframePolicyName(KeyframePolicy policy) {
  switch (policy) {
    case KeyframePolicy::LatestWins:
      return "latest";
    case KeyframePolicy::EveryKeyframe:
      return "every";
  }
  throw InvalidArgument("unknown keyframe policy " + std::to_string(static_cast<int>(policy)));
}

KeyframePolicy parseKeyframePolicy(const std::string& name) {
  if (name == "latest") return KeyframePolicy::LatestWins;
  if (name == "every") return KeyframePolicy::EveryKeyframe;
  throw InvalidArgument("unknown keyframe policy '" + name +
                        "' (latest: drop the oldest request when the satellite stage is busy; "
                        "every: VO waits, every keyframe is registered)");
}

void PipelineOptions::check() const {
  if (ring_slots < 2) throw InvalidArgument("the frame ring needs at least 2 slots");
  if (keyframe_queue_capacity < 1) throw InvalidArgument("the keyframe queue needs capacity >= 1");
  if (max_frames == 0 || max_frames < -1) throw InvalidArgument("max_frames must be -1 or >= 1");
  if (final_fix_timeout_ms < 0) throw InvalidArgument("final_fix_timeout_ms must be >= 0");
  if (satellite_sm_limit < 0) throw InvalidArgument("satellite_sm_limit must be >= 0 (0: no limit)");
  keyframePolicyName(keyframe_policy);  // throws for a value outside the enum
}

namespace {
// The thread's name in debuggers and `top -H` (Linux: at most 15 characters).
void nameThisThread(const std::string& name) { pthread_setname_np(pthread_self(), name.substr(0, 15).c_str()); }
}  // namespace

struct Pipeline::Run {
  explicit Run(std::size_t queue_capacity) : requests(queue_capacity) {}

  struct Satellite {
    std::unique_ptr<SatelliteWorker> worker;
    std::thread thread;
  };
  bool hasSatellite() const { return !satellites.empty(); }
  // True once every satellite worker has stopped (no fix will arrive any more).
  bool satellitesDone() const {
    for (const Satellite& satellite : satellites)
      if (!satellite.worker->isDone()) return false;
    return true;
  }

  RunControl control;
  KeyframeQueue<std::shared_ptr<KeyframeRequest>> requests;
  FixInbox fixes;
  ErrorLatch errors;
  RunReport report;  // written by the VO thread until vo_done
  std::thread vo_thread;
  std::vector<Satellite> satellites;  // empty: no satellite stage
  std::mutex mutex;                 // vo_done, satellites_ended
  std::condition_variable thread_ended;  // notified as each thread's work ends
  bool vo_done = false;
  std::size_t satellites_ended = 0;
  bool allEnded() const { return vo_done && satellites_ended == satellites.size(); }  // mutex held
  // A pause or cancel (the run's own, or the front end's) wakes VO wherever it waits for
  // the satellite stage. Last member: it ends before what it wakes.
  RunControl::Listener control_wake;
};

Pipeline::Pipeline(PipelineOptions options, SourceFactory source, PayloadFactories payloads, LatencySink* recorder)
    : options_(std::move(options)),
      source_(std::move(source)),
      payloads_(std::move(payloads)),
      recorder_(recorder) {
  options_.check();
  if (!source_) throw InvalidArgument("Pipeline: no frame source factory");
  if (!payloads_.vo) throw InvalidArgument("Pipeline: no VO payload factory");
  if (!options_.front_end_devices.empty() && !payloads_.vo_front_end)
    throw InvalidArgument("Pipeline: frame-parallel VO (front-end devices) needs a VO payload with a "
                          "front end; this one extracts every frame itself");
  if (!options_.extra_satellite_devices.empty() && !payloads_.satellite)
    throw InvalidArgument("Pipeline: extra satellite devices given but there is no satellite stage");
}

Pipeline::~Pipeline() {
  if (!run_) return;
  cancel();
  while (!wait(2000)) {
    SKYTRACE_LOG(Warning, "engine.pipeline") << "engine: still waiting for a worker to finish its current step "
                             "after cancel (threads are never terminated)";
  }
  releaseFinishedRun();
}

void Pipeline::start() {
  if (isRunning()) throw InvalidArgument("Pipeline::start: a run is still in progress (cancel and wait first)");
  releaseFinishedRun();
  run_ = std::make_unique<Run>(options_.keyframe_queue_capacity);
  Run* run = run_.get();
  run->control.setParent(options_.control);
  run->control_wake = run->control.listen([run] {
    run->requests.wake();
    run->fixes.wake();
  });
  run->report.mode = options_.mode_name;
  run->report.vo_device = options_.placement.vo.toString();
  const bool satellite = static_cast<bool>(payloads_.satellite);
  std::vector<vision::DeviceSpec> satellite_devices;
  if (satellite) {
    satellite_devices.push_back(options_.placement.satellite);
    satellite_devices.insert(satellite_devices.end(), options_.extra_satellite_devices.begin(),
                             options_.extra_satellite_devices.end());
  }
  run->report.satellite_device = deviceListText(satellite_devices);
  run->report.keyframe_policy = satellite ? keyframePolicyName(options_.keyframe_policy) : "";
  try {
    resetPeakDeviceBytes(options_.placement.vo);
    for (const vision::DeviceSpec& device : satellite_devices) resetPeakDeviceBytes(device);
    for (const vision::DeviceSpec& device : options_.front_end_devices) resetPeakDeviceBytes(device);
  } catch (...) {
    // an unusable device is reported by the worker that opens it
  }
  for (std::size_t i = 0; i < satellite_devices.size(); ++i) {
    SatelliteChannel channel;
    channel.requests = &run->requests;
    channel.fixes = &run->fixes;
    channel.control = &run->control;
    channel.errors = &run->errors;
    channel.recorder = recorder_;
    channel.device = satellite_devices[i];
    channel.sm_limit = options_.satellite_sm_limit;
    channel.factory = payloads_.satellite;
    run->satellites.emplace_back();
    run->satellites.back().worker = std::make_unique<SatelliteWorker>(std::move(channel));
  }
  // Every thread object exists before any starts (allEnded counts them).
  for (std::size_t i = 0; i < run->satellites.size(); ++i) {
    SatelliteWorker* worker = run->satellites[i].worker.get();
    run->satellites[i].thread = std::thread([run, worker, i] {
      nameThisThread("skytrace-sat-" + std::to_string(i));
      worker->run();
      run->fixes.wake();  // VO may wait for a fix this worker will not send
      {
        std::lock_guard<std::mutex> lock(run->mutex);
        ++run->satellites_ended;
      }
      run->thread_ended.notify_all();
    });
  }
  run->vo_thread = std::thread([this, run] {
    nameThisThread("skytrace-vo");
    runVo(run);
  });
}

void Pipeline::runVo(Run* run) {
  const auto started = std::chrono::steady_clock::now();
  RunReport& report = run->report;
  std::unique_ptr<VoPayload> vo;
  std::int64_t last_frame = -1;
  bool completed = false;
  std::chrono::steady_clock::duration fix_wait{};  // EveryKeyframe: VO waiting for a fix
  auto applyFixes = [&](const std::vector<std::shared_ptr<SatelliteFix>>& fixes) {
    for (const auto& fix : fixes) applyFix(*vo, *fix, last_frame, recorder_, &report);
  };
  // Waits for fixes until `deadline` or until the satellite stage is done, applying them
  // as they come, while `more()` holds; a pause or cancel reaches checkpoint() at once
  // (the control's listener wakes the inbox).
  auto applyFixesWhile = [&](auto&& more, std::chrono::steady_clock::time_point deadline) {
    while (more() && std::chrono::steady_clock::now() < deadline) {
      const std::uint64_t seen = run->fixes.wakeCount();  // before the checks it guards
      if (run->satellitesDone()) break;
      run->control.checkpoint();
      applyFixes(run->fixes.takeAllWaiting(seen, deadline));
    }
    applyFixes(run->fixes.takeAll());
  };
  // After VO finished frame `index`: the report, then the keyframe hand-over.
  auto frameDone = [&](std::int64_t index, double vo_ms, std::shared_ptr<KeyframeRequest> request) {
    report.vo_frame_ms.push_back(vo_ms);
    report.frame_done_ms.push_back(recorder_ ? recorder_->nowMs() : secondsSince(started) * 1e3);
    if (report.frames == 0) report.first_frame_s = secondsSince(started);
    ++report.frames;
    last_frame = index;
    // vo_frame_ms above ends before the hand-over: a wait for room is not VO latency.
    if (request && run->hasSatellite()) {
      ++report.keyframes_requested;
      if (options_.keyframe_policy == KeyframePolicy::EveryKeyframe) {
        // Pause and cancel (the user's, or a satellite error's) reach VO while it
        // waits; the satellite workers close the queue when they stop.
        run->requests.pushWaitingForRoom(std::move(request), [&] { run->control.checkpoint(); });
      } else {
        run->requests.pushEvictingOldest(std::move(request));
      }
    }
    if (options_.keyframe_policy == KeyframePolicy::EveryKeyframe && run->hasSatellite() &&
        vo->awaitingFix()) {
      // The payload would hold its next requests back until this fix is in: wait for
      // it, as the sequential driver does (pause and cancel still reach VO here).
      const auto wait_start = std::chrono::steady_clock::now();
      applyFixesWhile([&] { return vo->awaitingFix(); }, std::chrono::steady_clock::time_point::max());
      fix_wait += std::chrono::steady_clock::now() - wait_start;
    }
  };
  try {
    c10::InferenceMode inference_guard;
    const DeviceStream stream = DeviceStream::create(options_.placement.vo, StreamPriority::High);
    StreamGuard stream_guard(stream);
    StageClock clock(recorder_, stream);
    // The feed starts before the VO payload is made: frames decode while models load.
    FrameFeedOptions feed_options;
    feed_options.device = options_.placement.vo;
    feed_options.ring_slots = options_.ring_slots;
    feed_options.pinned_host_memory = options_.pinned_host_memory;
    feed_options.max_frames = options_.max_frames;
    FrameFeed feed(source_(), feed_options, recorder_, &run->control);
    feed.start();
    if (options_.front_end_devices.empty()) {
      vo = payloads_.vo(options_.placement.vo);
      while (true) {
        run->control.checkpoint();
        applyFixes(run->fixes.takeAll());
        std::optional<FeedFrame> item = feed.next(stream);
        if (!item) {
          run->control.checkpoint();  // a cancel ends the feed too: report it as such
          break;
        }
        clock.beginFrame(item->frame.index);
        std::shared_ptr<KeyframeRequest> request = vo->processFrame(item->frame, clock);
        if (const auto upload = feed.uploadTiming(*item))
          clock.addMeasured(Stage::Upload, upload->first, upload->second);
        const double vo_ms = clock.finishFrame();
        feed.release(*item, stream);
        frameDone(item->frame.index, vo_ms, std::move(request));
      }
    } else {
      // Frame-parallel: keep up to 2 frames per front end in flight, track in order. The
      // lanes start first: their models and first frames get ready on their devices
      // while this thread makes the VO payload.
      FrontEndLanes lanes(options_.front_end_devices, payloads_.vo_front_end, recorder_, &run->control,
                          &run->errors);
      struct InFlight {
        std::int64_t index;
        std::optional<std::pair<double, double>> upload;
      };
      std::deque<InFlight> in_flight;
      const std::size_t window = 2 * lanes.laneCount();
      bool source_ended = false;
      auto submitUpToWindow = [&] {
        while (!source_ended && in_flight.size() < window) {
          std::optional<FeedFrame> item = feed.next(stream);
          if (!item) {
            run->control.checkpoint();
            source_ended = true;
            break;
          }
          lanes.submit(item->frame, stream);  // the lane's own copy: the slot is free again
          in_flight.push_back({item->frame.index, feed.uploadTiming(*item)});
          feed.release(*item, stream);
        }
      };
      submitUpToWindow();
      vo = payloads_.vo(options_.placement.vo);
      while (true) {
        run->control.checkpoint();
        applyFixes(run->fixes.takeAll());
        submitUpToWindow();
        if (in_flight.empty()) break;
        const InFlight next = in_flight.front();
        in_flight.pop_front();
        FrontEndLanes::Result prepared = lanes.take(next.index);
        clock.beginFrame(next.index);
        std::shared_ptr<KeyframeRequest> request =
            vo->processPrepared(prepared.frame, *prepared.prepared, clock);
        if (next.upload) clock.addMeasured(Stage::Upload, next.upload->first, next.upload->second);
        // The frame's VO work on all devices (front end + tracking), not its wall latency.
        const double vo_ms = prepared.front_end_ms + clock.finishFrame();
        frameDone(next.index, vo_ms, std::move(request));
      }
    }
    feed.stop();
    run->requests.close();
    // The outstanding keyframes: wait (bounded) for their fixes.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(options_.final_fix_timeout_ms);
    applyFixesWhile([&] { return run->hasSatellite(); }, deadline);
    run->control.checkpoint();  // a satellite error cancels the run
    if (run->hasSatellite() && !run->satellitesDone()) {
      report.fixes_lost_at_end = std::max<std::int64_t>(
          0, report.keyframes_requested - static_cast<std::int64_t>(run->requests.droppedCount()) -
                 report.fixes_applied);
      run->control.requestCancel();  // stop the satellite stage
    }
    const auto finish_start = std::chrono::steady_clock::now();
    vo->finish(true);
    report.finish_s = secondsSince(finish_start);
    completed = true;
  } catch (const Cancelled&) {
    report.cancelled = true;
  } catch (const std::exception& e) {
    run->errors.report(std::string("visual odometry: ") + e.what());
    run->control.requestCancel();
  } catch (...) {
    run->errors.report("visual odometry: unknown exception");
    run->control.requestCancel();
  }
  run->requests.close();
  if (!completed && vo) {
    try {
      vo->finish(false);
    } catch (const std::exception& e) {
      run->errors.report(std::string("visual odometry (finishing): ") + e.what());
    }
  }
  vo.reset();  // GPU state dies on the thread that made it
  report.completed = completed;
  report.error = run->errors.message();
  if (!report.error.empty()) report.cancelled = false;  // failed, not cancelled by the user
  report.keyframes_dropped = static_cast<std::int64_t>(run->requests.droppedCount());
  report.keyframe_wait_ms =
      std::chrono::duration<double, std::milli>(run->requests.waitedForRoom() + fix_wait).count();
  report.wall_s = secondsSince(started);
  try {
    report.peak_vo_device_bytes = peakDeviceBytes(options_.placement.vo);
  } catch (...) {
  }
  if (!report.error.empty()) SKYTRACE_LOG(Warning, "engine.pipeline") << "engine run failed: " << report.error;
  if (options_.on_end) {
    try {
      options_.on_end(report.error);
    } catch (...) {
      // a front end's callback must not take the VO thread down
    }
  }
  {
    std::lock_guard<std::mutex> lock(run->mutex);
    run->vo_done = true;
  }
  run->thread_ended.notify_all();
}

void Pipeline::setPaused(bool paused) {
  if (run_) run_->control.setPaused(paused);
}

void Pipeline::cancel() {
  if (run_) {
    run_->control.requestCancel();
    run_->requests.close();
  }
}

bool Pipeline::isRunning() const {
  if (!run_) return false;
  std::lock_guard<std::mutex> lock(run_->mutex);
  return !run_->allEnded();
}

bool Pipeline::wait(int timeout_ms) {
  if (!run_) return true;
  {
    std::unique_lock<std::mutex> lock(run_->mutex);
    if (!run_->thread_ended.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return run_->allEnded(); }))
      return false;
  }
  // Every thread's work has ended: the joins return at once.
  if (run_->vo_thread.joinable()) run_->vo_thread.join();
  for (Run::Satellite& satellite : run_->satellites)
    if (satellite.thread.joinable()) satellite.thread.join();
  return true;
}

RunReport Pipeline::report() const {
  if (!run_) return {};
  RunReport copy;
  {
    std::lock_guard<std::mutex> lock(run_->mutex);
    if (!run_->vo_done) return {};
    copy = run_->report;
  }
  if (run_->hasSatellite() && run_->satellitesDone()) {
    for (const Run::Satellite& satellite : run_->satellites) {
      const std::vector<double>& ms = satellite.worker->latenciesMs();
      copy.satellite_ms.insert(copy.satellite_ms.end(), ms.begin(), ms.end());
      copy.peak_satellite_device_bytes =
          std::max(copy.peak_satellite_device_bytes, satellite.worker->peakDeviceBytes());
    }
    copy.keyframes_processed = static_cast<std::int64_t>(copy.satellite_ms.size());
  }
  return copy;
}

void Pipeline::releaseFinishedRun() {
  if (!run_) return;
  if (run_->vo_thread.joinable()) run_->vo_thread.join();
  for (Run::Satellite& satellite : run_->satellites)
    if (satellite.thread.joinable()) satellite.thread.join();
  run_.reset();
}

}  // namespace skytrace::engine
