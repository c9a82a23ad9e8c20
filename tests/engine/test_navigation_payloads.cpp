// The live attachments of runNavigationEngine (NavigationEngineHooks) on a real sequence
// (KITTI 00, 20 frames, ORB, australia orthophoto as the basemap):
// - the NavigationLiveSink sees the session start once, then every frame in order and
//   every fix the session fused (the same frames as the result's fixes), all on one
//   thread that is not the caller's (the VO worker); without a position, registration
//   attempts do not overlap (each made after the previous one's fix was fused);
// - every latency sample of the run is forwarded to the front end's recorder;
// - the front end's RunControl pauses the pipeline (no frame progresses while paused)
//   and cancels it (partial result, report.cancelled);
// - bad hook settings are rejected before anything starts.
#include <QtTest>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/engine/navigation_payloads.h"
#include "core/nav/camera_model.h"
#include "core/nav/navigation_session.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

constexpr int kFrames = 20;

class RecordingSink final : public engine::NavigationLiveSink {
 public:
  void onSessionStarted(const std::string& vo_model, const std::string&) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++sessions;
    started_before_frames = frames.empty();
    model = vo_model;
    threads[std::this_thread::get_id()]++;
  }
  void onFrame(const nav::FrameResult& frame) override {
    std::lock_guard<std::mutex> lock(mutex);
    frames.push_back(frame.frame);
    localised[frame.frame] = frame.online.has_pose;
    threads[std::this_thread::get_id()]++;
    last_frame.store(frame.frame);
  }
  void onFix(const nav::RegistrationFix& fix) override {
    std::lock_guard<std::mutex> lock(mutex);
    fixes.push_back(fix.frame);
    fix_accepted.push_back(fix.accepted);
    last_frame_at_fix.push_back(frames.empty() ? -1 : frames.back());
    threads[std::this_thread::get_id()]++;
  }

  std::mutex mutex;
  int sessions = 0;
  bool started_before_frames = false;
  std::string model;
  std::vector<std::int64_t> frames;
  std::vector<std::int64_t> fixes;               // in the order they were fused
  std::vector<bool> fix_accepted;
  std::vector<std::int64_t> last_frame_at_fix;   // the newest frame VO had done by then
  std::map<std::int64_t, bool> localised;        // per frame: the session had a position
  std::map<std::thread::id, int> threads;
  std::atomic<std::int64_t> last_frame{-1};
};

}  // namespace

// The batches a run hands to its latency listener.
class BatchCollector final : public engine::LatencyBatchListener {
 public:
  void onLatencyBatch(std::vector<engine::LatencySample> batch) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++batches_;
    all_.insert(all_.end(), batch.begin(), batch.end());
  }
  std::vector<engine::LatencySample> all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return all_;
  }
  int batches() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return batches_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<engine::LatencySample> all_;
  int batches_ = 0;
};

class TestNavigationPayloads : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() { SKYTRACE_REQUIRE_SHARED(); }

  void liveSinkAndLatencyForwardSeeTheWholeRun() {
    RecordingSink sink;
    BatchCollector forward;
    engine::NavigationEngineHooks hooks;
    hooks.live = &sink;
    hooks.latency_listener = &forward;
    const engine::NavigationEngineRun run = engine::runNavigationEngine(folder(), inputs(), options(), onCpu(), hooks);

    QVERIFY2(run.result.completed, run.report.error.c_str());
    QCOMPARE(sink.sessions, 1);
    QVERIFY(sink.started_before_frames);
    QCOMPARE(sink.model, std::string("orb"));
    QCOMPARE(int(sink.frames.size()), kFrames);
    for (int i = 0; i < kFrames; ++i) QCOMPARE(sink.frames[std::size_t(i)], std::int64_t(i));
    // Every fix the result holds was handed out live, no other.
    std::vector<std::int64_t> result_fixes;
    for (const auto& fix : run.result.fixes) result_fixes.push_back(fix.frame);
    std::vector<std::int64_t> live_fixes = sink.fixes;
    std::sort(live_fixes.begin(), live_fixes.end());
    QCOMPARE(live_fixes, result_fixes);
    QVERIFY2(!live_fixes.empty(), "registration ran");
    // Without a position, one attempt at a time: an attempt made while the session had
    // no position came after the previous attempt's fix had been fused.
    for (std::size_t i = 0; i + 1 < sink.fixes.size(); ++i)
      if (!sink.localised[sink.fixes[i + 1]])
        QVERIFY2(sink.fixes[i + 1] > sink.last_frame_at_fix[i],
               qPrintable(QString("attempt %1 made at frame %2, before the fix of frame %3 (fused after frame %4)")
                              .arg(i + 1).arg(sink.fixes[i + 1]).arg(sink.fixes[i]).arg(sink.last_frame_at_fix[i])));
    int accepted = 0;
    for (const auto& fix : run.result.fixes) accepted += fix.accepted;
    qInfo("%d frames, %d requests sent, %d dropped, %d fixes (%d accepted)", kFrames,
          int(run.report.keyframes_requested), int(run.report.keyframes_dropped), int(run.result.fixes.size()),
          accepted);
    // One thread made every call, and it was not this one.
    QCOMPARE(int(sink.threads.size()), 1);
    QVERIFY(sink.threads.begin()->first != std::this_thread::get_id());

    // Every sample of the run reached the listener, in batches, in the order recorded.
    const std::vector<engine::LatencySample> forwarded = forward.all();
    QCOMPARE(forwarded.size(), run.samples.size());
    for (std::size_t i = 0; i < forwarded.size(); ++i) {
      QCOMPARE(forwarded[i].frame, run.samples[i].frame);
      QCOMPARE(int(forwarded[i].stage), int(run.samples[i].stage));
    }
    QVERIFY2(forward.batches() >= 1 && forward.batches() < int(forwarded.size()),
             qPrintable(QString("%1 batches of %2 samples").arg(forward.batches()).arg(forwarded.size())));
  }

  void runControlPausesAndCancels() {
    RecordingSink sink;
    engine::RunControl control;
    engine::NavigationEngineHooks hooks;
    hooks.live = &sink;
    hooks.control = &control;
    std::atomic<bool> paused_held{false};
    std::atomic<std::int64_t> at_pause{-1}, after_pause{-1};
    // The front end: pause after frame 3, watch 600 ms, then cancel while paused.
    std::thread front_end([&] {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (sink.last_frame.load() < 3 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      control.setPaused(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the frame in flight ends
      at_pause = sink.last_frame.load();
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
      after_pause = sink.last_frame.load();
      paused_held = true;
      control.requestCancel();
    });
    engine::NavigationEngineRun run;
    try {
      run = engine::runNavigationEngine(folder(), inputs(), options(), onCpu(), hooks);
    } catch (...) {
      front_end.join();
      throw;
    }
    front_end.join();
    QVERIFY(paused_held);
    QCOMPARE(after_pause.load(), at_pause.load());
    QVERIFY(run.report.cancelled);
    QVERIFY(!run.result.completed);
    QVERIFY2(run.result.frames_processed >= 4 && run.result.frames_processed < kFrames,
             qPrintable(QString::number(run.result.frames_processed)));
    QCOMPARE(run.result.frames_processed, std::int64_t(sink.frames.size()));
  }

  // Progress comes from the engine's threads as it happens (no thread of the caller
  // polls), one call at a time, frames in order, in both layouts.
  void progressComesFromTheEngineThreads() {
    for (const auto layout : {engine::NavigationLayout::Overlapped, engine::NavigationLayout::Sequential}) {
      engine::NavigationEngineOptions engine_options = onCpu();
      engine_options.layout = layout;
      std::atomic<int> inside{0};
      std::atomic<bool> overlapped_calls{false};
      std::vector<std::int64_t> frames_done;
      std::set<std::thread::id> threads;
      std::set<std::int64_t> totals;
      std::set<std::string> stages;
      engine::NavigationEngineHooks hooks;
      hooks.progress = [&](std::int64_t done, std::int64_t total, const std::string& stage) {
        if (inside.fetch_add(1) != 0) overlapped_calls = true;
        frames_done.push_back(done);
        threads.insert(std::this_thread::get_id());
        totals.insert(total);
        stages.insert(stage.rfind("preparing the global search", 0) == 0 ? "preparing" : stage);
        std::this_thread::sleep_for(std::chrono::milliseconds(120));  // the next report waits for its interval
        inside.fetch_sub(1);
      };
      const engine::NavigationEngineRun run =
          engine::runNavigationEngine(folder(), inputs(), options(), engine_options, hooks);
      QVERIFY2(run.result.completed, run.report.error.c_str());
      QVERIFY(!overlapped_calls);
      QCOMPARE(totals, std::set<std::int64_t>{kFrames});
      QVERIFY(stages.count("navigating") == 1);
      for (const std::string& stage : stages) QVERIFY2(stage == "navigating" || stage == "preparing", stage.c_str());
      QVERIFY2(frames_done.size() >= 2, qPrintable(QString::number(frames_done.size())));
      QVERIFY(std::is_sorted(frames_done.begin(), frames_done.end()));
      QVERIFY(frames_done.back() <= kFrames);
      if (layout == engine::NavigationLayout::Overlapped)
        QVERIFY(threads.count(std::this_thread::get_id()) == 0);
      // Every frame's VO stages are on the stage clock in both layouts.
      std::map<engine::Stage, int> per_stage;
      for (const auto& s : run.samples) per_stage[s.stage]++;
      QCOMPARE(per_stage[engine::Stage::Extract], kFrames);
      // Fusion: each frame's, and each fix applied between frames.
      QCOMPARE(std::int64_t(per_stage[engine::Stage::Fusion]), kFrames + run.report.fixes_applied);
      QCOMPARE(per_stage[engine::Stage::Decode], kFrames);
      QVERIFY(per_stage[engine::Stage::FineMatch] >= 1);
      QVERIFY(per_stage[engine::Stage::FineMatch] <= int(run.result.fixes.size()));
      // On the CPU nothing crosses a bus.
      QCOMPARE(run.result.vo_frame_transfers.uploads + run.result.vo_frame_transfers.downloads, std::int64_t(0));
      QCOMPARE(run.result.keyframe_transfers.downloads, std::int64_t(0));
    }
  }

 private:
  static std::string folder() { return test::sharedPath("data/sequences/kitti_00").toStdString(); }
  static nav::NavigationInputs inputs() {
    const nav::CameraModel camera = nav::CameraModel::fromHorizontalFov(1241, 376, 80.0);
    const std::string basemap = test::sharedPath("data/orthophotos/australia.tif").toStdString();
    return nav::makeNavigationInputs(camera, {basemap}, std::nullopt);
  }
  static nav::NavigationOptions options() {
    nav::NavigationOptions options;
    options.vo_features.model = "orb";
    options.registration.features.model = "orb";
    options.registration.features.max_keypoints = 1024;
    return options;
  }
  static engine::NavigationEngineOptions onCpu() {
    engine::NavigationEngineOptions engine_options;
    engine_options.placement = engine::resolveDevicePlacement("cpu", "", "", 0);
    return engine_options;
  }
};

QTEST_GUILESS_MAIN(TestNavigationPayloads)
#include "test_navigation_payloads.moc"
