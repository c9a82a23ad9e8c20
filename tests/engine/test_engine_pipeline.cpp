// The overlapped engine and the sequential baseline with small fake payloads (no
// models): frame order, latest-wins drops, late fixes, pause, cancel/restart cycles,
// bounded shutdown, one error per run, the every-keyframe policy (back-pressure: no
// drops, VO's wait for room, and cancel / pause / a satellite error while VO waits),
// frame-parallel runs (front ends in several threads, several satellite workers), and
// the device placement rule.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "core/engine/device_placement.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/pipeline.h"
#include "core/engine/sequential_run.h"
#include "core/sim/synthetic_frame_source.h"
#include "core/util/error.h"

using namespace skytrace;
using namespace skytrace::engine;
using namespace skytrace::sim;
using namespace std::chrono_literals;

namespace {

// What the fake payloads saw, shared with the test (thread-safe).
struct Trace {
  std::size_t voFrameCount() {
    std::lock_guard<std::mutex> lock(mutex);
    return vo_frames.size();
  }
  std::size_t satelliteFrameCount() {
    std::lock_guard<std::mutex> lock(mutex);
    return satellite_frames.size();
  }
  int finishCalls() {
    std::lock_guard<std::mutex> lock(mutex);
    return finish_calls;
  }
  std::mutex mutex;
  std::vector<std::int64_t> vo_frames;          // processFrame order
  std::vector<std::int64_t> satellite_frames;   // process order
  std::vector<std::pair<std::int64_t, std::int64_t>> fixes;  // (fix frame, VO frame when applied)
  int finish_calls = 0;
  bool finish_completed = false;
  std::vector<std::int64_t> prepared_frames;   // processPrepared order
  std::map<std::int64_t, std::int64_t> paired_with;  // frame -> the frame its pair work saw
  std::map<std::int64_t, int> front_end_of_frame;  // which front end instance prepared it
  std::map<std::int64_t, int> satellite_of_frame;  // which satellite instance registered it
  std::atomic<int> vo_payloads_alive{0};
  std::atomic<int> satellite_payloads_alive{0};
  std::atomic<int> front_ends_alive{0};
  std::atomic<int> next_instance_id{0};
  std::atomic<int> satellite_steps_started{0};
  std::atomic<int> idle_units_done{0};       // SatellitePayload::prepareWhileIdle work done
  std::atomic<int> idle_calls_when_done{0};  // calls after the idle work was all done
};

struct FakeBehaviour {
  int keyframe_every = 1;
  std::chrono::milliseconds vo_step{0};
  std::chrono::milliseconds satellite_step{0};
  std::int64_t vo_throw_at = -1;    // frame where processFrame throws
  bool satellite_throws = false;
  std::int64_t satellite_throw_after = -1;  // keyframe whose processing throws after its step
  bool vo_awaits_fixes = false;  // VoPayload::awaitingFix() until each request's fix is back
  std::chrono::milliseconds front_end_step{0};
  std::int64_t front_end_throw_at = -1;  // frame where a front end throws
  int satellite_idle_units = 0;  // prepareWhileIdle work, one unit per call
  std::chrono::milliseconds satellite_idle_step{0};
};

struct FakePrepared final : PreparedFrame {
  int front_end = -1;
};

class FakeVo final : public VoPayload {
 public:
  FakeVo(std::shared_ptr<Trace> trace, FakeBehaviour behaviour) : trace_(std::move(trace)), b_(behaviour) {
    ++trace_->vo_payloads_alive;
  }
  ~FakeVo() override { --trace_->vo_payloads_alive; }
  std::string name() const override { return "fake VO"; }
  std::shared_ptr<KeyframeRequest> processFrame(const EngineFrame& frame, StageClock& clock) override {
    StageClock::Scope scope(clock, Stage::Extract);
    if (frame.index == b_.vo_throw_at) throw FormatError("fake VO: frame " + std::to_string(frame.index) + " is unreadable");
    std::this_thread::sleep_for(b_.vo_step);
    {
      std::lock_guard<std::mutex> lock(trace_->mutex);
      trace_->vo_frames.push_back(frame.index);
    }
    current_ = frame.index;
    if (frame.index % b_.keyframe_every != 0) return nullptr;
    auto request = std::make_shared<KeyframeRequest>();
    request->frame = frame.index;
    if (b_.vo_awaits_fixes) awaiting_ = frame.index;
    return request;
  }
  void applyFix(const SatelliteFix& fix) override {
    std::lock_guard<std::mutex> lock(trace_->mutex);
    trace_->fixes.emplace_back(fix.frame, current_);
    if (fix.frame == awaiting_) awaiting_ = -1;
  }
  std::shared_ptr<KeyframeRequest> processPrepared(const EngineFrame& frame, const PreparedFrame& prepared,
                                                   StageClock& clock) override {
    StageClock::Scope scope(clock, Stage::Pose);
    const auto* fake = dynamic_cast<const FakePrepared*>(&prepared);
    if (!fake || prepared.frame != frame.index || !frame.pixels)
      throw InvalidArgument("fake VO: prepared frame " + std::to_string(prepared.frame) + " handed over with frame " +
                            std::to_string(frame.index));
    {
      std::lock_guard<std::mutex> lock(trace_->mutex);
      trace_->prepared_frames.push_back(frame.index);
      trace_->front_end_of_frame[frame.index] = fake->front_end;
    }
    current_ = frame.index;
    if (frame.index % b_.keyframe_every != 0) return nullptr;
    auto request = std::make_shared<KeyframeRequest>();
    request->frame = frame.index;
    return request;
  }
  bool awaitingFix() const override { return awaiting_ >= 0; }
  void finish(bool completed) override {
    std::lock_guard<std::mutex> lock(trace_->mutex);
    ++trace_->finish_calls;
    trace_->finish_completed = completed;
  }

 private:
  std::shared_ptr<Trace> trace_;
  FakeBehaviour b_;
  std::int64_t current_ = -1;
  std::int64_t awaiting_ = -1;
};

// A front end that takes front_end_step per frame (so that several run at once only if
// they are in separate threads) and tags its result with its instance id.
class FakeFrontEnd final : public VoFrontEnd {
 public:
  FakeFrontEnd(std::shared_ptr<Trace> trace, FakeBehaviour behaviour)
      : trace_(std::move(trace)), b_(behaviour), id_(trace_->next_instance_id++) {
    ++trace_->front_ends_alive;
  }
  ~FakeFrontEnd() override { --trace_->front_ends_alive; }
  std::shared_ptr<PreparedFrame> prepare(const EngineFrame& frame, StageClock& clock) override {
    StageClock::Scope scope(clock, Stage::Extract);
    if (frame.index == b_.front_end_throw_at)
      throw FormatError("fake front end: frame " + std::to_string(frame.index) + " has no features");
    std::this_thread::sleep_for(b_.front_end_step);
    auto prepared = std::make_shared<FakePrepared>();
    prepared->frame = frame.index;
    prepared->front_end = id_;
    return prepared;
  }
  void preparePair(const PreparedFrame& previous, PreparedFrame& current, StageClock& clock) override {
    StageClock::Scope scope(clock, Stage::Match);
    std::lock_guard<std::mutex> lock(trace_->mutex);
    trace_->paired_with[current.frame] = previous.frame;
  }

 private:
  std::shared_ptr<Trace> trace_;
  FakeBehaviour b_;
  int id_;
};

class FakeSatellite final : public SatellitePayload {
 public:
  FakeSatellite(std::shared_ptr<Trace> trace, FakeBehaviour behaviour)
      : trace_(std::move(trace)), b_(behaviour), id_(trace_->next_instance_id++) {
    ++trace_->satellite_payloads_alive;
  }
  ~FakeSatellite() override { --trace_->satellite_payloads_alive; }
  std::string name() const override { return "fake satellite"; }
  std::shared_ptr<SatelliteFix> process(const KeyframeRequest& request, StageClock& clock,
                                        const RunControl&) override {
    StageClock::Scope scope(clock, Stage::FineMatch);
    ++trace_->satellite_steps_started;
    if (b_.satellite_throws) throw GeoreferenceError("fake satellite: basemap has no georeference");
    std::this_thread::sleep_for(b_.satellite_step);
    if (request.frame == b_.satellite_throw_after)
      throw IoError("fake satellite: tile cache for frame " + std::to_string(request.frame) + " is unreadable");
    {
      std::lock_guard<std::mutex> lock(trace_->mutex);
      trace_->satellite_frames.push_back(request.frame);
      trace_->satellite_of_frame[request.frame] = id_;
    }
    auto fix = std::make_shared<SatelliteFix>();
    fix->frame = request.frame;
    fix->accepted = true;
    return fix;
  }

  bool prepareWhileIdle(const RunControl& control) override {
    control.checkpoint();
    if (trace_->idle_units_done.load() >= b_.satellite_idle_units) {
      ++trace_->idle_calls_when_done;
      return false;
    }
    std::this_thread::sleep_for(b_.satellite_idle_step);
    return ++trace_->idle_units_done < b_.satellite_idle_units;
  }

 private:
  std::shared_ptr<Trace> trace_;
  FakeBehaviour b_;
  int id_;
};

PayloadFactories fakePayloads(const std::shared_ptr<Trace>& trace, FakeBehaviour behaviour,
                              bool with_satellite = true) {
  PayloadFactories factories;
  factories.vo = [trace, behaviour](const vision::DeviceSpec&) { return std::make_unique<FakeVo>(trace, behaviour); };
  if (with_satellite)
    factories.satellite = [trace, behaviour](const vision::DeviceSpec&) {
      return std::make_unique<FakeSatellite>(trace, behaviour);
    };
  factories.vo_front_end = [trace, behaviour](const vision::DeviceSpec&) {
    return std::make_unique<FakeFrontEnd>(trace, behaviour);
  };
  return factories;
}


Pipeline::SourceFactory smallFrames(std::int64_t count) {
  return [count] {
    SyntheticFrameOptions options;
    options.width_px = 64;
    options.height_px = 48;
    options.frame_count = count;
    return std::make_unique<SyntheticFrameSource>(options);
  };
}

PipelineOptions everyKeyframe() {
  PipelineOptions options;
  options.keyframe_queue_capacity = 1;
  options.keyframe_policy = KeyframePolicy::EveryKeyframe;
  return options;
}

// Two front ends and two satellite workers (all on the CPU), every keyframe registered.
PipelineOptions frameParallel() {
  PipelineOptions options = everyKeyframe();
  options.front_end_devices = {vision::parseDevice("cpu"), vision::parseDevice("cpu")};
  options.extra_satellite_devices = {vision::parseDevice("cpu")};
  return options;
}

// `frames` with the given fakes under the default policy (latest wins), run to the end
// (a default report, not completed, if it did not end within 30 s).
RunReport runLatestWins(std::int64_t frames, const std::shared_ptr<Trace>& trace, FakeBehaviour behaviour) {
  PipelineOptions options = everyKeyframe();
  options.keyframe_policy = KeyframePolicy::LatestWins;
  Pipeline pipeline(options, smallFrames(frames), fakePayloads(trace, behaviour), nullptr);
  pipeline.start();
  if (!pipeline.wait(30000)) return {};
  return pipeline.report();
}

// Waits until VO is blocked on the full keyframe queue: it has processed a few frames
// and its count stays put for 60 ms (each VO step is 1 ms; the satellite's must be
// longer than 60 ms, and the run longer than this wait: callers check isRunning()).
bool waitUntilVoIsBlocked(Trace& trace) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (trace.voFrameCount() < 3) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  std::size_t before = trace.voFrameCount();
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(60ms);
    const std::size_t now = trace.voFrameCount();
    if (now == before) return true;
    before = now;
  }
  return false;
}

// `cycles` times: start, sleep cycle % sleep_modulo ms, cancel; each run must end within
// 5 s without an error and leave no payload or front end alive. Returns the first
// failure, or an empty string.
QString startAndCancelCycles(Pipeline& pipeline, const Trace& trace, int cycles, int sleep_modulo) {
  for (int cycle = 0; cycle < cycles; ++cycle) {
    pipeline.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(cycle % sleep_modulo));
    pipeline.cancel();
    if (!pipeline.wait(5000)) return QString("cycle %1 did not end within 5 s").arg(cycle);
    const std::string error = pipeline.report().error;
    if (!error.empty()) return QString("cycle %1 failed: %2").arg(cycle).arg(QString::fromStdString(error));
    if (trace.vo_payloads_alive.load() != 0 || trace.satellite_payloads_alive.load() != 0 ||
        trace.front_ends_alive.load() != 0)
      return QString("cycle %1 left payloads alive (VO %2, satellite %3, front ends %4)")
          .arg(cycle)
          .arg(trace.vo_payloads_alive.load())
          .arg(trace.satellite_payloads_alive.load())
          .arg(trace.front_ends_alive.load());
  }
  return {};
}

// The runs' ends as Pipeline's on_end callback reports them (called on the VO thread).
class EndLog {
 public:
  // `options` with on_end recording here.
  PipelineOptions attach(PipelineOptions options) {
    options.on_end = [this](const std::string& error) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++ends_;
      if (!error.empty()) ++failures_;
    };
    return options;
  }
  int ends() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ends_;
  }
  int failures() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failures_;
  }

 private:
  mutable std::mutex mutex_;
  int ends_ = 0;
  int failures_ = 0;
};

// Starts `pipeline` and lets it run into its payload's error: the run must end within
// `timeout_ms`, neither completed nor cancelled, report its failure to on_end exactly once, and VO must
// have finished once without completing. *report receives the run's report. Returns the
// first failure, or an empty string.
QString runIntoError(Pipeline& pipeline, Trace& trace, int timeout_ms, RunReport* report, const EndLog& ends) {
  const int failed_before = ends.failures();
  pipeline.start();
  if (!pipeline.wait(timeout_ms)) return QString("the run did not end within %1 ms").arg(timeout_ms);
  *report = pipeline.report();
  if (report->completed || report->cancelled)
    return QString("the run ended %1, not failed").arg(report->completed ? "completed" : "cancelled");
  if (ends.failures() != failed_before + 1)
    return QString("on_end reported %1 failures").arg(ends.failures() - failed_before);
  if (trace.finishCalls() != 1 || trace.finish_completed)
    return QString("VO finished %1 times (completed: %2)").arg(trace.finishCalls()).arg(trace.finish_completed);
  return {};
}

bool isIncreasing(const std::vector<std::int64_t>& v) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] <= v[i - 1]) return false;
  return true;
}

}  // namespace

class TestEnginePipeline : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void processesEveryFrameInOrderAndAppliesEveryFix() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.keyframe_every = 5;
    LatencyRecorder recorder;
    PipelineOptions options;
    options.keyframe_queue_capacity = 8;  // room for every request: nothing may be dropped
    EndLog ends;
    Pipeline pipeline(ends.attach(options), smallFrames(40), fakePayloads(trace, behaviour), &recorder);
    pipeline.start();
    QVERIFY(pipeline.wait(20000));
    const RunReport report = pipeline.report();
    QVERIFY2(report.completed, report.error.c_str());
    QCOMPARE(report.frames, std::int64_t(40));
    QCOMPARE(trace->vo_frames.size(), std::size_t(40));
    for (std::size_t i = 0; i < trace->vo_frames.size(); ++i) QCOMPARE(trace->vo_frames[i], std::int64_t(i));
    QCOMPARE(report.keyframes_requested, std::int64_t(8));
    QCOMPARE(report.keyframes_dropped, std::int64_t(0));
    QCOMPARE(report.keyframes_processed, std::int64_t(8));
    QCOMPARE(report.fixes_applied, std::int64_t(8));  // the last ones after the video ended
    QCOMPARE(report.fixes_lost_at_end, std::int64_t(0));
    QCOMPARE(trace->finish_calls, 1);
    QVERIFY(trace->finish_completed);
    QCOMPARE(trace->vo_payloads_alive.load(), 0);  // destroyed on their threads
    QCOMPARE(ends.ends(), 1);  // before wait() returned, on the VO thread
    QCOMPARE(ends.failures(), 0);
    // Every frame has a decode and an extract sample; each keyframe a fine-match one.
    std::vector<LatencySample> samples;
    recorder.drain(&samples);
    int decode = 0, extract = 0, fine = 0, fusion = 0;
    for (const auto& s : samples) {
      decode += s.stage == Stage::Decode;
      extract += s.stage == Stage::Extract;
      fine += s.stage == Stage::FineMatch;
      fusion += s.stage == Stage::Fusion;
    }
    QCOMPARE(decode, 40);
    QCOMPARE(extract, 40);
    QCOMPARE(fine, 8);
    QCOMPARE(fusion, 8);
  }

  void slowSatelliteDropsOldRequestsAndFixesArriveLate() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.keyframe_every = 1;
    behaviour.vo_step = 1ms;
    behaviour.satellite_step = 40ms;
    PipelineOptions options;
    options.keyframe_queue_capacity = 1;
    Pipeline pipeline(options, smallFrames(60), fakePayloads(trace, behaviour), nullptr);
    pipeline.start();
    QVERIFY(pipeline.wait(20000));
    const RunReport report = pipeline.report();
    QVERIFY2(report.completed, report.error.c_str());
    QCOMPARE(report.frames, std::int64_t(60));
    QCOMPARE(report.keyframes_requested, std::int64_t(60));
    QVERIFY2(report.keyframes_dropped > 10, "a 40 ms satellite stage behind a 1 ms VO must drop");
    // Every request is either dropped or processed; the processed ones are the newest
    // at the time, so they increase.
    QCOMPARE(report.keyframes_processed + report.keyframes_dropped, report.keyframes_requested);
    QVERIFY(isIncreasing(trace->satellite_frames));
    QCOMPARE(report.fixes_applied, report.keyframes_processed);
    QVERIFY2(report.fixes_late > 0, "VO never waits: fixes must come in for frames it has passed");
    for (const auto& [fix_frame, vo_frame] : trace->fixes) QVERIFY(fix_frame <= vo_frame);
    QVERIFY(!report.satellite_ms.empty());
  }

  void voAloneWithoutSatelliteStage() {
    auto trace = std::make_shared<Trace>();
    Pipeline pipeline(PipelineOptions{}, smallFrames(12), fakePayloads(trace, {}, false), nullptr);
    pipeline.start();
    QVERIFY(pipeline.wait(20000));
    const RunReport report = pipeline.report();
    QVERIFY(report.completed);
    QCOMPARE(report.keyframes_requested, std::int64_t(0));
    QCOMPARE(report.vo_frame_ms.size(), std::size_t(12));
  }

  void pauseHoldsTheRunAndResumeFinishesIt() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.vo_step = 5ms;
    Pipeline pipeline(PipelineOptions{}, smallFrames(200), fakePayloads(trace, behaviour), nullptr);
    pipeline.start();
    QTRY_VERIFY_WITH_TIMEOUT(trace->voFrameCount() > 3, 10000);
    pipeline.setPaused(true);
    std::this_thread::sleep_for(100ms);  // let the current frame end
    std::size_t paused_at = 0;
    {
      std::lock_guard<std::mutex> lock(trace->mutex);
      paused_at = trace->vo_frames.size();
    }
    std::this_thread::sleep_for(200ms);
    {
      std::lock_guard<std::mutex> lock(trace->mutex);
      QCOMPARE(trace->vo_frames.size(), paused_at);
    }
    QVERIFY(pipeline.isRunning());
    pipeline.setPaused(false);
    QVERIFY(pipeline.wait(30000));
    QVERIFY(pipeline.report().completed);
    QCOMPARE(pipeline.report().frames, std::int64_t(200));
  }

  void cancelAndRestartManyTimesWithoutLeakOrDeadlock() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.keyframe_every = 2;
    behaviour.satellite_step = 1ms;
    Pipeline pipeline(PipelineOptions{}, smallFrames(1000), fakePayloads(trace, behaviour), nullptr);
    const auto started = std::chrono::steady_clock::now();
    for (int cycle = 0; cycle < 200; ++cycle) {
      pipeline.start();
      if (cycle % 3 == 1) std::this_thread::sleep_for(1ms);
      pipeline.cancel();
      QVERIFY2(pipeline.wait(5000), qPrintable(QString("cycle %1 did not end within 5 s").arg(cycle)));
      const RunReport report = pipeline.report();
      QVERIFY(!report.completed);
      QVERIFY(report.error.empty());
      QCOMPARE(trace->vo_payloads_alive.load(), 0);
      QCOMPARE(trace->satellite_payloads_alive.load(), 0);
    }
    // And a restart after all that still runs to the end.
    pipeline.start();
    QVERIFY(pipeline.wait(60000));
    QVERIFY(pipeline.report().completed);
    QCOMPARE(pipeline.report().frames, std::int64_t(1000));
    qInfo("200 start/cancel cycles + 1 full run: %.1f s",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }

  void shutdownIsBoundedAndNeverTerminates() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.satellite_step = 1500ms;  // a step that ignores cancel
    Pipeline pipeline(PipelineOptions{}, smallFrames(100), fakePayloads(trace, behaviour), nullptr);
    pipeline.start();
    QTRY_VERIFY_WITH_TIMEOUT(trace->satellite_steps_started.load() > 0, 10000);  // inside its long step
    pipeline.cancel();
    const auto before = std::chrono::steady_clock::now();
    const bool ended_quickly = pipeline.wait(200);
    const double waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before).count();
    QVERIFY2(!ended_quickly, "the satellite step is still running");
    QVERIFY2(waited_ms < 1000.0, "wait() must respect its bound");
    QVERIFY(pipeline.wait(5000));  // ends once the step returns
    QVERIFY(pipeline.report().cancelled);
  }

  void oneErrorPerRunFromVo() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.vo_throw_at = 7;
    EndLog ends;
    Pipeline pipeline(ends.attach(PipelineOptions{}), smallFrames(50), fakePayloads(trace, behaviour), nullptr);
    RunReport report;
    const QString failure = runIntoError(pipeline, *trace, 20000, &report, ends);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QVERIFY2(report.error.find("frame 7 is unreadable") != std::string::npos, report.error.c_str());
    QCOMPARE(report.frames, std::int64_t(7));
  }

  void oneErrorPerRunFromSatelliteEvenWhenEveryRequestFails() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.satellite_throws = true;
    behaviour.vo_step = 1ms;
    EndLog ends;
    Pipeline pipeline(ends.attach(PipelineOptions{}), smallFrames(100), fakePayloads(trace, behaviour), nullptr);
    for (int run = 0; run < 2; ++run) {  // once per run, again after a restart
      pipeline.start();
      QVERIFY(pipeline.wait(20000));
      const RunReport report = pipeline.report();
      QVERIFY(!report.completed);
      QVERIFY2(report.error.rfind("satellite stage: fake satellite: basemap has no georeference", 0) == 0,
               report.error.c_str());
      QVERIFY(report.frames < 100);  // the error stopped the run
      QCOMPARE(ends.failures(), run + 1);
    }
    QTest::qWait(100);
    QCOMPARE(ends.failures(), 2);
    QCOMPARE(ends.ends(), 2);
  }

  // Back-pressure: a satellite stage 15x slower than VO, a queue of one; every keyframe
  // is registered in order, nothing is dropped, VO waited, and its per-frame latency does
  // not contain the wait.
  void everyKeyframePolicyRegistersEveryKeyframe() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.keyframe_every = 1;
    behaviour.vo_step = 1ms;
    behaviour.satellite_step = 15ms;
    constexpr std::int64_t kFrames = 40;
    Pipeline pipeline(everyKeyframe(), smallFrames(kFrames), fakePayloads(trace, behaviour), nullptr);
    pipeline.start();
    QVERIFY(pipeline.wait(30000));
    const RunReport report = pipeline.report();
    QVERIFY2(report.completed, report.error.c_str());
    QCOMPARE(report.keyframe_policy, std::string("every"));
    QCOMPARE(report.frames, kFrames);
    QCOMPARE(report.keyframes_requested, kFrames);
    QCOMPARE(report.keyframes_dropped, std::int64_t(0));
    QCOMPARE(report.keyframes_processed, kFrames);
    QCOMPARE(report.fixes_applied, kFrames);
    QCOMPARE(report.fixes_lost_at_end, std::int64_t(0));
    QCOMPARE(trace->satellite_frames.size(), std::size_t(kFrames));
    for (std::size_t i = 0; i < trace->satellite_frames.size(); ++i)
      QCOMPARE(trace->satellite_frames[i], std::int64_t(i));
    // The run is bound by the satellite stage: 40 x 15 ms of which VO spent most waiting.
    QVERIFY2(report.wall_s >= 0.6, qPrintable(QString("wall %1 s").arg(report.wall_s)));
    QVERIFY2(report.keyframe_wait_ms > 300.0, qPrintable(QString("waited %1 ms").arg(report.keyframe_wait_ms)));
    // The parts of the run that are not frames: the first frame came early in it, the
    // finish (nothing left to apply) at its end.
    QVERIFY2(report.first_frame_s > 0.0 && report.first_frame_s < 0.5 * report.wall_s,
             qPrintable(QString("first frame %1 s of %2 s").arg(report.first_frame_s).arg(report.wall_s)));
    QVERIFY(report.finish_s >= 0.0 && report.finish_s < 0.5 * report.wall_s);
    // VO latency is measured before the hand-over: far below the 15 ms it waits per frame.
    std::vector<double> vo_ms = report.vo_frame_ms;
    QCOMPARE(vo_ms.size(), std::size_t(kFrames));
    std::sort(vo_ms.begin(), vo_ms.end());
    QVERIFY2(vo_ms[vo_ms.size() / 2] < 10.0, qPrintable(QString("VO p50 %1 ms").arg(vo_ms[vo_ms.size() / 2])));

    // The same workload under the default policy drops and never waits.
    const RunReport latest = runLatestWins(kFrames, std::make_shared<Trace>(), behaviour);
    QVERIFY2(latest.completed, latest.error.c_str());
    QCOMPARE(latest.keyframe_policy, std::string("latest"));
    QVERIFY(latest.keyframes_dropped > 0);
    QCOMPARE(latest.keyframe_wait_ms, 0.0);
  }

  // A VO payload that awaits its fixes (navigation without a position): under the
  // every-keyframe policy VO waits for each fix before its next frame, as the sequential
  // driver; under latest wins it goes on and the fixes arrive later.
  void everyKeyframePolicyWaitsForAwaitedFixes() {
    FakeBehaviour behaviour;
    behaviour.keyframe_every = 5;
    behaviour.vo_step = 1ms;
    behaviour.satellite_step = 20ms;
    behaviour.vo_awaits_fixes = true;
    constexpr std::int64_t kFrames = 30;
    auto trace = std::make_shared<Trace>();
    Pipeline pipeline(everyKeyframe(), smallFrames(kFrames), fakePayloads(trace, behaviour), nullptr);
    pipeline.start();
    QVERIFY(pipeline.wait(30000));
    const RunReport report = pipeline.report();
    QVERIFY2(report.completed, report.error.c_str());
    QCOMPARE(report.fixes_applied, kFrames / 5);
    QCOMPARE(trace->fixes.size(), std::size_t(kFrames / 5));
    for (const auto& [fix_frame, vo_frame] : trace->fixes)
      QVERIFY2(vo_frame == fix_frame, qPrintable(QString("fix %1 applied at VO frame %2").arg(fix_frame).arg(vo_frame)));
    QVERIFY2(report.keyframe_wait_ms > 80.0, qPrintable(QString("waited %1 ms").arg(report.keyframe_wait_ms)));

    auto latest_trace = std::make_shared<Trace>();
    const RunReport latest = runLatestWins(kFrames, latest_trace, behaviour);
    QVERIFY2(latest.completed, latest.error.c_str());
    QCOMPARE(latest.keyframe_wait_ms, 0.0);
    bool some_late = false;
    for (const auto& [fix_frame, vo_frame] : latest_trace->fixes) some_late = some_late || vo_frame > fix_frame;
    QVERIFY(some_late);
  }

  // cancel() while VO is blocked on the full queue: VO ends at once (the queue is
  // closed), even though the satellite worker is inside a long step that ignores cancel.
  void cancelWhileVoWaitsForRoomEndsVoPromptly() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.vo_step = 1ms;
    behaviour.satellite_step = 1000ms;
    Pipeline pipeline(everyKeyframe(), smallFrames(100), fakePayloads(trace, behaviour), nullptr);
    pipeline.start();
    QVERIFY(waitUntilVoIsBlocked(*trace));
    QVERIFY(pipeline.isRunning());
    const std::size_t blocked_at = trace->voFrameCount();
    const auto cancelled_at = std::chrono::steady_clock::now();
    pipeline.cancel();
    while (trace->finishCalls() == 0 && std::chrono::steady_clock::now() - cancelled_at < 5s)
      std::this_thread::sleep_for(2ms);
    const double vo_end_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cancelled_at).count();
    QCOMPARE(trace->finishCalls(), 1);  // VO finished (not completed) ...
    QVERIFY2(vo_end_ms < 300.0, qPrintable(QString("VO ended %1 ms after cancel").arg(vo_end_ms)));
    QVERIFY(!trace->finish_completed);
    QVERIFY(pipeline.wait(5000));  // ... and the whole run once the satellite step returns
    const RunReport report = pipeline.report();
    QVERIFY(report.cancelled);
    QVERIFY(report.error.empty());
    QCOMPARE(report.frames, static_cast<std::int64_t>(blocked_at));
    QVERIFY(report.keyframe_wait_ms > 0.0);
    QCOMPARE(trace->vo_payloads_alive.load(), 0);
    QCOMPARE(trace->satellite_payloads_alive.load(), 0);
  }

  // Pause while VO waits for room: VO and the satellite stage both hold; resume completes
  // the run with every keyframe registered.
  void pauseWhileVoWaitsForRoomThenResumeCompletes() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.vo_step = 1ms;
    behaviour.satellite_step = 80ms;
    Pipeline pipeline(everyKeyframe(), smallFrames(20), fakePayloads(trace, behaviour), nullptr);
    pipeline.start();
    QVERIFY(waitUntilVoIsBlocked(*trace));
    QVERIFY(pipeline.isRunning());
    pipeline.setPaused(true);
    std::this_thread::sleep_for(150ms);  // the satellite step in progress ends
    const std::size_t vo_paused_at = trace->voFrameCount();
    const std::size_t satellite_paused_at = trace->satelliteFrameCount();
    std::this_thread::sleep_for(250ms);
    QCOMPARE(trace->voFrameCount(), vo_paused_at);
    QCOMPARE(trace->satelliteFrameCount(), satellite_paused_at);
    QVERIFY(pipeline.isRunning());
    pipeline.setPaused(false);
    QVERIFY(pipeline.wait(30000));
    const RunReport report = pipeline.report();
    QVERIFY2(report.completed, report.error.c_str());
    QCOMPARE(report.frames, std::int64_t(20));
    QCOMPARE(report.keyframes_processed, std::int64_t(20));
    QCOMPARE(report.keyframes_dropped, std::int64_t(0));
    QCOMPARE(report.fixes_applied, std::int64_t(20));
  }

  // A satellite error while VO waits for room ends the run with that error (the worker
  // cancels the run and closes the queue on its way out), reported once.
  void satelliteErrorWhileVoWaitsForRoomEndsTheRun() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.vo_step = 1ms;
    behaviour.satellite_step = 150ms;
    behaviour.satellite_throw_after = 1;  // after ~300 ms: VO has long been blocked
    EndLog ends;
    Pipeline pipeline(ends.attach(everyKeyframe()), smallFrames(100), fakePayloads(trace, behaviour), nullptr);
    RunReport report;
    const QString failure = runIntoError(pipeline, *trace, 10000, &report, ends);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QVERIFY2(report.error.rfind("satellite stage: fake satellite: tile cache for frame 1 is unreadable", 0) == 0,
             report.error.c_str());
    QVERIFY2(report.frames < 10, "VO was held by the queue, not running ahead");
    QVERIFY(report.keyframe_wait_ms > 100.0);
  }

  void cancelAndRestartWithBackPressure() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.satellite_step = 2ms;
    Pipeline pipeline(everyKeyframe(), smallFrames(1000), fakePayloads(trace, behaviour), nullptr);
    const QString failure = startAndCancelCycles(pipeline, *trace, 50, 4);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
  }

  // Frame-parallel: front ends of 10 ms per frame in two threads, a 1 ms tracker, two
  // satellite workers of 12 ms. VO tracks every frame in order, each with the result
  // prepared for it; both front ends and both satellite workers share the work; every
  // keyframe is registered once; the run is faster than one front end could be.
  void frameParallelTracksEveryFrameInOrder() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.front_end_step = 10ms;
    behaviour.satellite_step = 12ms;
    constexpr std::int64_t kFrames = 60;
    LatencyRecorder recorder(1 << 12);
    Pipeline pipeline(frameParallel(), smallFrames(kFrames), fakePayloads(trace, behaviour), &recorder);
    pipeline.start();
    QVERIFY(pipeline.wait(30000));
    const RunReport report = pipeline.report();
    QVERIFY2(report.completed, report.error.c_str());
    QCOMPARE(report.frames, kFrames);
    QCOMPARE(report.satellite_device, std::string("cpu,cpu"));
    QVERIFY(trace->vo_frames.empty());  // processFrame is never called
    QCOMPARE(trace->prepared_frames.size(), std::size_t(kFrames));
    for (std::size_t i = 0; i < trace->prepared_frames.size(); ++i)
      QCOMPARE(trace->prepared_frames[i], std::int64_t(i));
    std::map<int, int> frames_per_front_end;
    for (const auto& [frame, front_end] : trace->front_end_of_frame) ++frames_per_front_end[front_end];
    QCOMPARE(frames_per_front_end.size(), std::size_t(2));
    for (const auto& [front_end, count] : frames_per_front_end) QCOMPARE(count, int(kFrames / 2));
    // Every frame but the first was paired with its predecessor, prepared by the other
    // front end.
    QCOMPARE(trace->paired_with.size(), std::size_t(kFrames - 1));
    for (const auto& [frame, previous] : trace->paired_with) {
      QCOMPARE(previous, frame - 1);
      QVERIFY(trace->front_end_of_frame[frame] != trace->front_end_of_frame[previous]);
    }
    // Every keyframe once, by either worker, and both worked.
    QCOMPARE(report.keyframes_requested, kFrames);
    QCOMPARE(report.keyframes_dropped, std::int64_t(0));
    QCOMPARE(report.keyframes_processed, kFrames);
    QCOMPARE(report.fixes_applied, kFrames);
    std::vector<std::int64_t> registered = trace->satellite_frames;
    std::sort(registered.begin(), registered.end());
    for (std::size_t i = 0; i < registered.size(); ++i) QCOMPARE(registered[i], std::int64_t(i));
    std::map<int, int> keyframes_per_worker;
    for (const auto& [frame, worker] : trace->satellite_of_frame) ++keyframes_per_worker[worker];
    QCOMPARE(keyframes_per_worker.size(), std::size_t(2));
    // One front end alone would need 60 x 10 ms and one satellite worker 60 x 12 ms.
    QVERIFY2(report.wall_s < 0.6, qPrintable(QString("wall %1 s").arg(report.wall_s)));
    // Each frame's extract and match (front ends) and pose (tracker) samples reach the
    // recorder; the first frame has no pair to match.
    std::vector<LatencySample> samples;
    recorder.drain(&samples);
    std::map<Stage, int> count;
    for (const LatencySample& sample : samples) ++count[sample.stage];
    QCOMPARE(count[Stage::Extract], int(kFrames));
    QCOMPARE(count[Stage::Match], int(kFrames - 1));
    QCOMPARE(count[Stage::Pose], int(kFrames));
    QCOMPARE(trace->front_ends_alive.load(), 0);
  }

  void frameParallelFrontEndErrorIsReportedOnce() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.front_end_throw_at = 9;
    EndLog ends;
    Pipeline pipeline(ends.attach(frameParallel()), smallFrames(50), fakePayloads(trace, behaviour), nullptr);
    RunReport report;
    const QString failure = runIntoError(pipeline, *trace, 20000, &report, ends);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QVERIFY2(report.error.rfind("visual odometry front end (cpu): fake front end: frame 9 has no features", 0) == 0,
             report.error.c_str());
    QVERIFY(report.frames <= 9);  // frames after the failed one are never tracked
  }

  void frameParallelCancelAndRestart() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.front_end_step = 1ms;
    behaviour.satellite_step = 2ms;
    Pipeline pipeline(frameParallel(), smallFrames(1000), fakePayloads(trace, behaviour), nullptr);
    const QString failure = startAndCancelCycles(pipeline, *trace, 50, 5);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    pipeline.start();
    QVERIFY(pipeline.wait(60000));
    QVERIFY(pipeline.report().completed);
    QCOMPARE(pipeline.report().frames, std::int64_t(1000));
  }

  void frameParallelNeedsAFrontEndAndExtraSatellitesASatelliteStage() {
    auto trace = std::make_shared<Trace>();
    PayloadFactories without_front_end = fakePayloads(trace, {});
    without_front_end.vo_front_end = nullptr;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, Pipeline(frameParallel(), smallFrames(4), without_front_end, nullptr));
    PipelineOptions extra_satellite;
    extra_satellite.extra_satellite_devices = {vision::parseDevice("cpu")};
    QVERIFY_THROWS_EXCEPTION(InvalidArgument,
                             Pipeline(extra_satellite, smallFrames(4), fakePayloads(trace, {}, false), nullptr));
  }

  void satelliteIdleWorkRunsBetweenRequests() {
    // 100 frames of 3 ms, a keyframe every 10: the satellite worker is idle most of the
    // run and does 20 units of 1 ms of idle work meanwhile; every keyframe is still
    // registered, and once the payload has no idle work left it is asked again only
    // after a request it processed (no polling loop).
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.keyframe_every = 10;
    behaviour.vo_step = std::chrono::milliseconds(3);
    behaviour.satellite_idle_units = 20;
    behaviour.satellite_idle_step = std::chrono::milliseconds(1);
    PipelineOptions options;
    options.keyframe_policy = KeyframePolicy::EveryKeyframe;
    Pipeline pipeline(options, smallFrames(100), fakePayloads(trace, behaviour), nullptr);
    pipeline.start();
    QVERIFY(pipeline.wait(20000));
    const RunReport report = pipeline.report();
    QVERIFY2(report.completed, report.error.c_str());
    QCOMPARE(report.keyframes_requested, std::int64_t(10));
    QCOMPARE(report.keyframes_processed, std::int64_t(10));
    QCOMPARE(report.fixes_applied, std::int64_t(10));
    QCOMPARE(trace->idle_units_done.load(), 20);
    QVERIFY2(trace->idle_calls_when_done.load() <= int(report.keyframes_processed) + 1,
             qPrintable(QString::number(trace->idle_calls_when_done.load())));
  }

  void keyframePolicyNames() {
    QCOMPARE(std::string(keyframePolicyName(KeyframePolicy::LatestWins)), std::string("latest"));
    QCOMPARE(std::string(keyframePolicyName(KeyframePolicy::EveryKeyframe)), std::string("every"));
    QVERIFY(parseKeyframePolicy("every") == KeyframePolicy::EveryKeyframe);
    QVERIFY(parseKeyframePolicy("latest") == KeyframePolicy::LatestWins);
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, parseKeyframePolicy("all"));
    PipelineOptions options;
    options.keyframe_policy = static_cast<KeyframePolicy>(7);
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, options.check());
  }

  void sequentialRegistersEveryKeyframeBeforeTheNextFrame() {
    auto trace = std::make_shared<Trace>();
    FakeBehaviour behaviour;
    behaviour.keyframe_every = 3;
    const std::unique_ptr<FrameSource> source = smallFrames(30)();
    LatencyRecorder recorder;
    const RunReport report = runSequential(SequentialOptions{}, *source, fakePayloads(trace, behaviour), &recorder);
    QVERIFY(report.completed);
    QCOMPARE(report.frames, std::int64_t(30));
    QCOMPARE(report.keyframes_requested, std::int64_t(10));
    QCOMPARE(report.fixes_applied, std::int64_t(10));
    QCOMPARE(report.fixes_late, std::int64_t(0));  // applied before the next frame
    for (const auto& [fix_frame, vo_frame] : trace->fixes) QCOMPARE(fix_frame, vo_frame);
    QCOMPARE(report.keyframe_policy, std::string("every"));  // by construction
  }

  // A cancel ends a sequential run with a report (as the Pipeline's does), not an
  // exception that loses what was done.
  void sequentialCancelReturnsItsReport() {
    auto trace = std::make_shared<Trace>();
    const std::unique_ptr<FrameSource> source = smallFrames(30)();
    RunControl control;
    control.requestCancel();
    const RunReport report =
        runSequential(SequentialOptions{}, *source, fakePayloads(trace, FakeBehaviour{}), nullptr, &control);
    QVERIFY(report.cancelled);
    QVERIFY(!report.completed);
    QCOMPARE(report.frames, std::int64_t(0));
    QCOMPARE(report.mode, std::string("sequential"));
  }

  void devicePlacementRule() {
    DevicePlacement p = resolveDevicePlacement("", "", "", 0);
    QVERIFY(!p.vo.cuda && !p.satellite.cuda);
    p = resolveDevicePlacement("", "", "", 1);
    QCOMPARE(p.vo.toString(), std::string("cuda:0"));
    QCOMPARE(p.satellite.toString(), std::string("cuda:0"));
    p = resolveDevicePlacement("", "", "", 2);  // two GPUs: satellite on the second
    QCOMPARE(p.vo.toString(), std::string("cuda:0"));
    QCOMPARE(p.satellite.toString(), std::string("cuda:1"));
    QVERIFY(p.splitAcrossDevices());
    p = resolveDevicePlacement("cuda:0", "", "", 2);  // --device is for everything
    QCOMPARE(p.satellite.toString(), std::string("cuda:0"));
    p = resolveDevicePlacement("cpu", "", "cuda:1", 2);
    QCOMPARE(p.vo.toString(), std::string("cpu"));
    QCOMPARE(p.satellite.toString(), std::string("cuda:1"));
    p = resolveDevicePlacement("", "cuda:1", "", 2);
    QCOMPARE(p.satellite.toString(), std::string("cuda:1"));  // follows VO when not cuda:0
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, resolveDevicePlacement("gpu0", "", "", 0));
    // "auto" is the same as not naming a device.
    p = resolveDevicePlacement("auto", "auto", "auto", 2);
    QCOMPARE(p.vo.toString(), std::string("cuda:0"));
    QCOMPARE(p.satellite.toString(), std::string("cuda:1"));
    QCOMPARE(p.reason, resolveDevicePlacement("", "", "", 2).reason);
    QVERIFY(!namesDevice("") && !namesDevice("auto"));
    QVERIFY(namesDevice("cpu") && namesDevice("cuda:1"));
    QCOMPARE(deviceListText({vision::parseDevice("cuda:0"), vision::parseDevice("cuda:1")}),
             std::string("cuda:0,cuda:1"));
    QCOMPARE(deviceListText({}), std::string());
  }
};

QTEST_GUILESS_MAIN(TestEnginePipeline)
#include "test_engine_pipeline.moc"
