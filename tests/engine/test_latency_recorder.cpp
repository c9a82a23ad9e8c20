#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <set>
#include <thread>

#include "core/engine/latency_recorder.h"

using namespace skytrace::engine;

class TestLatencyRecorder : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Four producers push while one consumer drains: every sample arrives exactly once.
  void concurrentProducersLoseNothing() {
    LatencyRecorder recorder(1 << 10);
    constexpr int kProducers = 4;
    constexpr int kPerProducer = 20000;
    std::atomic<bool> producing{true};
    std::vector<LatencySample> received;
    std::thread consumer([&] {
      while (producing.load() || recorder.drain(&received) > 0) {
        recorder.drain(&received);
        std::this_thread::yield();
      }
      recorder.drain(&received);
    });
    std::vector<std::thread> producers;
    std::atomic<int> rejected{0};
    for (int p = 0; p < kProducers; ++p) {
      producers.emplace_back([&, p] {
        for (int i = 0; i < kPerProducer; ++i) {
          LatencySample s;
          s.frame = p * kPerProducer + i;
          s.duration_ms = 1.0;
          while (!recorder.push(s)) {
            rejected.fetch_add(1);
            std::this_thread::yield();  // ring full: retry (the engine would drop instead)
          }
        }
      });
    }
    for (auto& t : producers) t.join();
    producing = false;
    consumer.join();
    QCOMPARE(int(received.size()), kProducers * kPerProducer);
    std::set<std::int64_t> frames;
    for (const auto& s : received) frames.insert(s.frame);
    QCOMPARE(int(frames.size()), kProducers * kPerProducer);
    QCOMPARE(recorder.droppedCount(), std::uint64_t(rejected.load()));
  }

  // LatencyLog keeps every sample of a run whatever its length (no ring to overflow),
  // pushed from several threads, and hands each one exactly once to its listener, in
  // batches cut as samples arrive (no thread polls), one listener call at a time.
  void latencyLogKeepsEverythingAndHandsItOverInBatches() {
    class Listener final : public LatencyBatchListener {
     public:
      void onLatencyBatch(std::vector<LatencySample> batch) override {
        if (in_call.exchange(true)) overlapped = true;
        ++batches;
        received.insert(received.end(), batch.begin(), batch.end());
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // a slow consumer
        in_call = false;
      }
      std::atomic<bool> in_call{false};
      std::atomic<bool> overlapped{false};
      int batches = 0;  // guarded by the log's one-call-at-a-time contract
      std::vector<LatencySample> received;
    } listener;
    LatencyLog log(&listener, 2.0);
    constexpr int kThreads = 3, kPerThread = 2000;
    std::vector<std::thread> producers;
    std::atomic<int> refused{0};
    for (int t = 0; t < kThreads; ++t)
      producers.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          LatencySample s;
          s.frame = t * kPerThread + i;
          s.stage = Stage::Extract;
          s.start_ms = log.nowMs();
          if (!log.push(s)) ++refused;
          if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      });
    for (auto& p : producers) p.join();
    log.flush();
    QCOMPARE(refused.load(), 0);
    const std::vector<LatencySample> all = log.samples();
    QCOMPARE(int(all.size()), kThreads * kPerThread);
    std::set<std::int64_t> frames;
    for (const auto& s : all) frames.insert(s.frame);
    QCOMPARE(int(frames.size()), kThreads * kPerThread);
    // The listener saw the log's samples in the log's order, in more than one batch
    // (cut while the run went on) and far fewer batches than samples.
    QVERIFY(!listener.overlapped);
    QCOMPARE(listener.received.size(), all.size());
    for (std::size_t i = 0; i < all.size(); ++i) QCOMPARE(listener.received[i].frame, all[i].frame);
    QVERIFY2(listener.batches > 1 && listener.batches < kThreads * kPerThread / 10,
             qPrintable(QString::number(listener.batches)));
    const int batches = listener.batches;
    log.flush();  // nothing new: no call
    QCOMPARE(listener.batches, batches);

    LatencyLog alone;  // no listener: it only keeps
    QVERIFY(alone.nowMs() >= 0.0 && alone.nowMs() < 1000.0);
    QVERIFY(alone.push(LatencySample{}));
    alone.flush();
    QCOMPARE(alone.samples().size(), std::size_t(1));
  }

  void fullRingDropsAndCounts() {
    LatencyRecorder recorder(8);
    int accepted = 0;
    for (int i = 0; i < 20; ++i) accepted += recorder.push(LatencySample{}) ? 1 : 0;
    QCOMPARE(accepted, 8);
    QCOMPARE(recorder.droppedCount(), std::uint64_t(12));
    std::vector<LatencySample> out;
    QCOMPARE(recorder.drain(&out), std::size_t(8));
    QVERIFY(recorder.push(LatencySample{}));  // space again after draining
  }

  void percentilesAreNearestRank() {
    std::vector<LatencySample> samples;
    for (int i = 1; i <= 100; ++i) {
      LatencySample s;
      s.stage = Stage::Extract;
      s.duration_ms = i;
      samples.push_back(s);
    }
    LatencySample other;
    other.stage = Stage::Match;
    other.duration_ms = 7.0;
    samples.push_back(other);
    const auto stats = computeStageStatistics(samples);
    QCOMPARE(int(stats.size()), 2);
    QCOMPARE(stats[0].stage, Stage::Extract);
    QCOMPARE(stats[0].count, std::size_t(100));
    QCOMPARE(stats[0].p50_ms, 50.0);
    QCOMPARE(stats[0].p99_ms, 99.0);
    QCOMPARE(stats[0].max_ms, 100.0);
    QCOMPARE(stats[0].mean_ms, 50.5);
    QCOMPARE(stats[1].p99_ms, 7.0);
  }

  void scopedTimerMeasuresTheScope() {
    LatencyRecorder recorder;
    {
      ScopedStageTimer timer(&recorder, 42, Stage::Pose);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::vector<LatencySample> out;
    recorder.drain(&out);
    QCOMPARE(int(out.size()), 1);
    QCOMPARE(out[0].frame, std::int64_t(42));
    QCOMPARE(out[0].stage, Stage::Pose);
    QVERIFY(out[0].duration_ms >= 19.0);
    QVERIFY(out[0].duration_ms < 2000.0);
  }

  void csvHasHeaderAndOneRowPerSample() {
    QTemporaryDir dir;
    std::vector<LatencySample> samples(3);
    samples[1].stage = Stage::FineMatch;
    samples[1].device = 1;
    const std::string path = dir.filePath("latency.csv").toStdString();
    writeLatencyCsv(path, samples);
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    QCOMPARE(QString::fromStdString(line),
             QStringLiteral("frame,stage,start_ms,duration_ms,device,device_bytes_in_use"));
    int rows = 0;
    bool saw_cuda = false;
    while (std::getline(in, line)) {
      ++rows;
      saw_cuda |= line.find(",fine_match,") != std::string::npos &&
                  line.find(",cuda:1,") != std::string::npos;
    }
    QCOMPARE(rows, 3);
    QVERIFY(saw_cuda);
  }
};

QTEST_GUILESS_MAIN(TestLatencyRecorder)
#include "test_latency_recorder.moc"
