#include <QtTest>

#include <thread>

#include "core/engine/latest_wins_queue.h"
#include "core/engine/run_control.h"
#include "core/util/error.h"

using namespace skytrace::engine;
using namespace std::chrono_literals;

class TestLatestWinsQueue : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void keepsTheNewestWhenFull() {
    LatestWinsQueue<int> queue(2);
    QVERIFY(queue.push(1));
    QVERIFY(queue.push(2));
    QVERIFY(!queue.push(3));  // 1 is evicted
    QVERIFY(!queue.push(4));  // 2 is evicted
    QCOMPARE(queue.droppedCount(), std::uint64_t(2));
    QCOMPARE(*queue.tryPop(), 3);
    QCOMPARE(*queue.tryPop(), 4);
    QVERIFY(!queue.tryPop().has_value());
  }

  void closeWakesWaitingConsumer() {
    LatestWinsQueue<int> queue(4);
    std::optional<int> got = 123;
    std::thread consumer([&] { got = queue.popFor(10s); });
    std::this_thread::sleep_for(20ms);
    const auto t0 = std::chrono::steady_clock::now();
    queue.close();
    consumer.join();
    QVERIFY(!got.has_value());
    QVERIFY(std::chrono::steady_clock::now() - t0 < 2s);
    QVERIFY(!queue.push(5));  // discarded after close
    queue.reset();
    QVERIFY(queue.push(6));
    QCOMPARE(*queue.tryPop(), 6);
  }

  // A slow consumer never blocks the producer; it sees increasing, most recent items.
  void slowConsumerSeesLatestItems() {
    LatestWinsQueue<int> queue(1);
    std::vector<int> seen;
    std::thread consumer([&] {
      while (auto item = queue.popFor(200ms)) {
        seen.push_back(*item);
        std::this_thread::sleep_for(2ms);
      }
    });
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) queue.push(i);
    QVERIFY(std::chrono::steady_clock::now() - t0 < 1s);  // producer never waited
    queue.close();
    consumer.join();
    QVERIFY(!seen.empty());
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), 1999);
    QCOMPARE(queue.droppedCount() + seen.size(), std::uint64_t(2000));
  }

  void runControlPausesAndCancels() {
    RunControl control;
    control.checkpoint();  // not paused, not cancelled: returns
    control.setPaused(true);
    std::atomic<bool> passed{false};
    std::thread worker([&] {
      control.checkpoint();
      passed = true;
    });
    std::this_thread::sleep_for(100ms);
    QVERIFY(!passed.load());  // held while paused
    control.setPaused(false);
    worker.join();
    QVERIFY(passed.load());

    control.setPaused(true);
    bool cancelled = false;
    std::thread worker2([&] {
      try {
        control.checkpoint();
      } catch (const skytrace::Cancelled&) {
        cancelled = true;
      }
    });
    control.requestCancel();  // cancel wins over pause
    worker2.join();
    QVERIFY(cancelled);
    control.reset();
    control.checkpoint();
  }
};

QTEST_GUILESS_MAIN(TestLatestWinsQueue)
#include "test_latest_wins_queue.moc"
