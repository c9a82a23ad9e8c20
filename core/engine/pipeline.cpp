#include "core/engine/pipeline.h"

#include <QDeadlineTimer>
#include <QThread>

#include <c10/core/InferenceMode.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/engine/frame_feed.h"
#include "core/engine/gpu_streams.h"
#include "core/engine/keyframe_queue.h"
#include "core/engine/run_control.h"
#include "core/engine/satellite_worker.h"
#include "core/engine/stage_clock.h"
#include "core/engine/worker_support.h"
#include "core/util/error.h"
#include "core/util/log.h"

namespace skytrace::engine {

namespace {
// How often VO, blocked on a full keyframe queue (EveryKeyframe), looks at pause and
// cancel. Cancel by Pipeline::cancel() and satellite errors also close the queue, which
// wakes VO at once.
constexpr std::chrono::milliseconds kKeyframeWaitCheckInterval(20);

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

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
  keyframePolicyName(keyframe_policy);  // throws for a value outside the enum
}

struct Pipeline::Run {
  explicit Run(std::size_t queue_capacity) : requests(queue_capacity) {}

  RunControl control;
  KeyframeQueue<std::shared_ptr<KeyframeRequest>> requests;
  FixInbox fixes;
  ErrorLatch errors;
  RunReport report;  // written by the VO thread until vo_done
  std::thread vo_thread;
  QThread* satellite_thread = nullptr;
  SatelliteWorker* satellite_worker = nullptr;
  std::mutex mutex;
  std::condition_variable vo_finished;
  bool vo_done = false;
};

Pipeline::Pipeline(PipelineOptions options, SourceFactory source, PayloadFactories payloads,
                   LatencyRecorder* recorder, QObject* parent)
    : QObject(parent),
      options_(std::move(options)),
      source_(std::move(source)),
      payloads_(std::move(payloads)),
      recorder_(recorder) {
  options_.check();
  if (!source_) throw InvalidArgument("Pipeline: no frame source factory");
  if (!payloads_.vo) throw InvalidArgument("Pipeline: no VO payload factory");
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
  run->report.mode = options_.mode_name;
  run->report.vo_device = options_.placement.vo.toString();
  const bool satellite = static_cast<bool>(payloads_.satellite);
  run->report.satellite_device = satellite ? options_.placement.satellite.toString() : "";
  run->report.keyframe_policy = satellite ? keyframePolicyName(options_.keyframe_policy) : "";
  try {
    resetPeakDeviceBytes(options_.placement.vo);
    if (satellite) resetPeakDeviceBytes(options_.placement.satellite);
  } catch (...) {
    // an unusable device is reported by the worker that opens it
  }
  if (satellite) {
    SatelliteChannel channel;
    channel.requests = &run->requests;
    channel.fixes = &run->fixes;
    channel.control = &run->control;
    channel.errors = &run->errors;
    channel.recorder = recorder_;
    channel.device = options_.placement.satellite;
    channel.factory = payloads_.satellite;
    run->satellite_thread = new QThread();
    run->satellite_thread->setObjectName(QStringLiteral("skytrace-satellite"));
    run->satellite_worker = new SatelliteWorker(std::move(channel));
    run->satellite_worker->moveToThread(run->satellite_thread);
    connect(run->satellite_thread, &QThread::started, run->satellite_worker, &SatelliteWorker::run);
    run->satellite_thread->start(QThread::LowPriority);
  }
  run->vo_thread = std::thread([this, run] { runVo(run); });
}

void Pipeline::runVo(Run* run) {
  const auto started = std::chrono::steady_clock::now();
  RunReport& report = run->report;
  std::unique_ptr<VoPayload> vo;
  std::int64_t last_frame = -1;
  bool completed = false;
  std::chrono::steady_clock::duration fix_wait{};  // EveryKeyframe: VO waiting for a fix
  auto applyArrivedFixes = [&](std::chrono::milliseconds timeout) {
    for (const auto& fix : run->fixes.takeAll(timeout))
      applyFix(*vo, *fix, last_frame, recorder_, &report);
  };
  try {
    c10::InferenceMode inference_guard;
    const DeviceStream stream = DeviceStream::create(options_.placement.vo, StreamPriority::High);
    StreamGuard stream_guard(stream);
    StageClock clock(recorder_, stream);
    vo = payloads_.vo(options_.placement.vo);
    FrameFeedOptions feed_options;
    feed_options.device = options_.placement.vo;
    feed_options.ring_slots = options_.ring_slots;
    feed_options.pinned_host_memory = options_.pinned_host_memory;
    feed_options.max_frames = options_.max_frames;
    FrameFeed feed(source_(), feed_options, recorder_, &run->control);
    feed.start();
    while (true) {
      run->control.checkpoint();
      applyArrivedFixes(std::chrono::milliseconds(0));
      std::optional<FeedFrame> item = feed.next(stream);
      if (!item) {
        run->control.checkpoint();  // a cancel ends the feed too: report it as such
        break;
      }
      clock.beginFrame(item->frame.index);
      std::shared_ptr<KeyframeRequest> request = vo->processFrame(item->frame, clock);
      if (const auto upload = feed.uploadTiming(*item))
        clock.addMeasured(Stage::Upload, upload->first, upload->second);
      report.vo_frame_ms.push_back(clock.finishFrame());
      feed.release(*item, stream);
      report.frame_done_ms.push_back(recorder_ ? recorder_->nowMs() : secondsSince(started) * 1e3);
      ++report.frames;
      last_frame = item->frame.index;
      // vo_frame_ms above ends before the hand-over: a wait for room is not VO latency.
      if (request && run->satellite_worker) {
        ++report.keyframes_requested;
        if (options_.keyframe_policy == KeyframePolicy::EveryKeyframe) {
          // Pause and cancel (the user's, or a satellite error's) reach VO while it
          // waits; the satellite worker closes the queue when it stops.
          run->requests.pushWaitingForRoom(std::move(request), kKeyframeWaitCheckInterval,
                                           [&] { run->control.checkpoint(); });
        } else {
          run->requests.pushEvictingOldest(std::move(request));
        }
      }
      if (options_.keyframe_policy == KeyframePolicy::EveryKeyframe && run->satellite_worker &&
          vo->awaitingFix()) {
        // The payload would hold its next requests back until this fix is in: wait for
        // it, as the sequential driver does (pause and cancel still reach VO here).
        const auto wait_start = std::chrono::steady_clock::now();
        while (vo->awaitingFix() && !run->satellite_worker->isDone()) {
          run->control.checkpoint();
          applyArrivedFixes(kKeyframeWaitCheckInterval);
        }
        fix_wait += std::chrono::steady_clock::now() - wait_start;
      }
    }
    feed.stop();
    run->requests.close();
    // The outstanding keyframes: wait (bounded) for their fixes.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(options_.final_fix_timeout_ms);
    while (run->satellite_worker && !run->satellite_worker->isDone() &&
           std::chrono::steady_clock::now() < deadline) {
      run->control.checkpoint();
      applyArrivedFixes(std::chrono::milliseconds(20));
    }
    applyArrivedFixes(std::chrono::milliseconds(0));
    run->control.checkpoint();  // a satellite error cancels the run
    if (run->satellite_worker && !run->satellite_worker->isDone()) {
      report.fixes_lost_at_end = std::max<std::int64_t>(
          0, report.keyframes_requested - static_cast<std::int64_t>(run->requests.droppedCount()) -
                 report.fixes_applied);
      run->control.requestCancel();  // stop the satellite stage
    }
    vo->finish(true);
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
  if (!report.error.empty()) {
    SKYTRACE_LOG(Warning, "engine.pipeline") << "engine run failed: " << report.error;
    Q_EMIT failed(QString::fromStdString(report.error));
  }
  Q_EMIT finished();
  {
    std::lock_guard<std::mutex> lock(run->mutex);
    run->vo_done = true;
  }
  run->vo_finished.notify_all();
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
  {
    std::lock_guard<std::mutex> lock(run_->mutex);
    if (!run_->vo_done) return true;
  }
  return run_->satellite_thread && !run_->satellite_thread->isFinished();
}

bool Pipeline::wait(int timeout_ms) {
  if (!run_) return true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  {
    std::unique_lock<std::mutex> lock(run_->mutex);
    if (!run_->vo_finished.wait_until(lock, deadline, [&] { return run_->vo_done; })) return false;
  }
  if (run_->vo_thread.joinable()) run_->vo_thread.join();
  if (run_->satellite_thread) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!run_->satellite_thread->wait(QDeadlineTimer(std::max<qint64>(0, left.count()))))
      return false;
  }
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
  if (run_->satellite_worker && run_->satellite_worker->isDone()) {
    copy.satellite_ms = run_->satellite_worker->latenciesMs();
    copy.keyframes_processed = static_cast<std::int64_t>(copy.satellite_ms.size());
    copy.peak_satellite_device_bytes = run_->satellite_worker->peakDeviceBytes();
  }
  return copy;
}

void Pipeline::releaseFinishedRun() {
  if (!run_) return;
  if (run_->vo_thread.joinable()) run_->vo_thread.join();
  if (run_->satellite_thread) {
    run_->satellite_thread->wait();
    delete run_->satellite_worker;
    delete run_->satellite_thread;
  }
  run_.reset();
}

}  // namespace skytrace::engine
