// KeyframeQueue (both push policies: latest wins, and back-pressure; wake()) and
// RunControl (pause, cancel, parents, listeners).
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/engine/keyframe_queue.h"
#include "core/engine/run_control.h"
#include "core/util/error.h"

using namespace skytrace::engine;
using namespace std::chrono_literals;

class TestKeyframeQueue : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void keepsTheNewestWhenFull() {
    KeyframeQueue<int> queue(2);
    QVERIFY(queue.pushEvictingOldest(1));
    QVERIFY(queue.pushEvictingOldest(2));
    QVERIFY(!queue.pushEvictingOldest(3));  // 1 is evicted
    QVERIFY(!queue.pushEvictingOldest(4));  // 2 is evicted
    QCOMPARE(queue.droppedCount(), std::uint64_t(2));
    QCOMPARE(*queue.tryPop(), 3);
    QCOMPARE(*queue.tryPop(), 4);
    QVERIFY(!queue.tryPop().has_value());
  }

  void closeWakesWaitingConsumer() {
    KeyframeQueue<int> queue(4);
    std::optional<int> got = 123;
    std::thread consumer([&] { got = queue.popFor(10s); });
    std::this_thread::sleep_for(20ms);
    const auto t0 = std::chrono::steady_clock::now();
    queue.close();
    consumer.join();
    QVERIFY(!got.has_value());
    QVERIFY(std::chrono::steady_clock::now() - t0 < 2s);
    QVERIFY(!queue.pushEvictingOldest(5));  // discarded after close
    queue.reset();
    QVERIFY(queue.pushEvictingOldest(6));
    QCOMPARE(*queue.tryPop(), 6);
  }

  // A slow consumer never blocks the producer; it sees increasing, most recent items.
  void slowConsumerSeesLatestItems() {
    KeyframeQueue<int> queue(1);
    std::vector<int> seen;
    std::thread consumer([&] {
      while (auto item = queue.popFor(200ms)) {
        seen.push_back(*item);
        std::this_thread::sleep_for(2ms);
      }
    });
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) queue.pushEvictingOldest(i);
    QVERIFY(std::chrono::steady_clock::now() - t0 < 1s);  // producer never waited
    queue.close();
    consumer.join();
    QVERIFY(!seen.empty());
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), 1999);
    QCOMPARE(queue.droppedCount() + seen.size(), std::uint64_t(2000));
  }

  // Back-pressure: a producer on a full queue waits until a consumer pops, then its item
  // is queued behind the others; nothing is dropped.
  void waitingPushBlocksUntilAPop() {
    KeyframeQueue<int> queue(1);
    QVERIFY(queue.pushWaitingForRoom(1, [] {}));  // room: no wait
    QCOMPARE(queue.waitedForRoom().count(), std::chrono::steady_clock::duration::rep(0));
    std::atomic<bool> pushed{false};
    std::atomic<int> callbacks{0};
    bool queued = false;
    std::thread producer([&] {
      queued = queue.pushWaitingForRoom(2, [&] { ++callbacks; });
      pushed = true;
    });
    std::this_thread::sleep_for(150ms);
    QVERIFY2(!pushed.load(), "the queue is full: the producer must wait");
    QCOMPARE(callbacks.load(), 0);  // nothing polls: the callback runs on wake() only
    queue.wake();
    QTRY_COMPARE_WITH_TIMEOUT(callbacks.load(), 1, 2000);
    QVERIFY2(!pushed.load(), "a wake is not room");
    const auto popped_at = std::chrono::steady_clock::now();
    QCOMPARE(*queue.tryPop(), 1);
    producer.join();
    QVERIFY2(std::chrono::steady_clock::now() - popped_at < 1s, "a pop wakes the producer");
    QVERIFY(queued);
    QCOMPARE(*queue.tryPop(), 2);
    QCOMPARE(queue.droppedCount(), std::uint64_t(0));
    QCOMPARE(queue.pushedCount(), std::uint64_t(2));
    const double waited_ms = std::chrono::duration<double, std::milli>(queue.waitedForRoom()).count();
    QVERIFY2(waited_ms >= 50.0 && waited_ms < 2000.0, qPrintable(QString("waited %1 ms").arg(waited_ms)));
  }

  void waitingPushReturnsPromptlyOnClose() {
    KeyframeQueue<int> queue(1);
    QVERIFY(queue.pushWaitingForRoom(1, [] {}));
    std::optional<bool> queued;
    std::thread producer([&] { queued = queue.pushWaitingForRoom(2, [] {}); });
    std::this_thread::sleep_for(50ms);
    const auto t0 = std::chrono::steady_clock::now();
    queue.close();
    producer.join();
    QVERIFY2(std::chrono::steady_clock::now() - t0 < 1s, "close() wakes the producer");
    QVERIFY(queued.has_value());
    QVERIFY(!*queued);                                  // discarded ...
    QCOMPARE(queue.droppedCount(), std::uint64_t(1));   // ... and counted
    QCOMPARE(*queue.tryPop(), 1);                       // what was queued stays poppable
    QVERIFY(!queue.tryPop().has_value());
    QVERIFY(!queue.pushWaitingForRoom(3, [] {}));  // after close: at once, discarded
    QCOMPARE(queue.droppedCount(), std::uint64_t(2));
  }

  // An exception from the callback (the VO thread's checkpoint() throwing Cancelled)
  // propagates; the item is discarded and counted, and the queue keeps working.
  void exceptionFromTheWaitCallbackLeavesTheQueueConsistent() {
    KeyframeQueue<int> queue(1);
    QVERIFY(queue.pushWaitingForRoom(1, [] {}));
    RunControl control;
    const RunControl::Listener wake = control.listen([&] { queue.wake(); });  // as the Pipeline wires it
    bool cancelled = false;
    std::thread producer([&] {
      try {
        queue.pushWaitingForRoom(2, [&] { control.checkpoint(); });
      } catch (const skytrace::Cancelled&) {
        cancelled = true;
      }
    });
    std::this_thread::sleep_for(50ms);
    control.requestCancel();
    producer.join();
    QVERIFY(cancelled);
    QCOMPARE(queue.size(), std::size_t(1));
    QCOMPARE(queue.droppedCount(), std::uint64_t(1));
    QCOMPARE(*queue.tryPop(), 1);
    QVERIFY(queue.pushWaitingForRoom(3, [] { throw std::logic_error("not called: there is room"); }));
    QCOMPARE(*queue.tryPop(), 3);
  }

  // A paused callback holds the producer even when room appears; resuming lets it in.
  void pausedCallbackHoldsTheProducer() {
    KeyframeQueue<int> queue(1);
    QVERIFY(queue.pushWaitingForRoom(1, [] {}));
    RunControl control;
    const RunControl::Listener wake = control.listen([&] { queue.wake(); });
    std::atomic<bool> done{false};
    std::thread producer([&] {
      queue.pushWaitingForRoom(2, [&] { control.checkpoint(); });
      done = true;
    });
    std::this_thread::sleep_for(50ms);  // the producer waits for room
    control.setPaused(true);            // wakes it: it runs its callback and blocks there
    std::this_thread::sleep_for(100ms);
    QCOMPARE(*queue.tryPop(), 1);
    std::this_thread::sleep_for(150ms);
    QVERIFY2(!done.load(), "paused: the producer stays in its callback");
    control.setPaused(false);
    producer.join();
    QCOMPARE(*queue.tryPop(), 2);
  }

  // A run's control that follows the front end's (RunControl::setParent): the worker
  // blocks while the parent is paused, resumes with it, and stops on the parent's cancel;
  // the run's own cancel (an error) does not reach the parent.
  void childControlObeysItsParent() {
    RunControl front_end, run;
    run.setParent(&front_end);
    front_end.setPaused(true);
    QVERIFY(run.isPaused());
    std::atomic<int> checkpoints{0};
    std::atomic<bool> cancelled{false};
    std::thread worker([&] {
      try {
        while (true) {
          run.checkpoint();
          ++checkpoints;
          std::this_thread::sleep_for(1ms);
        }
      } catch (const skytrace::Cancelled&) {
        cancelled = true;
      }
    });
    std::this_thread::sleep_for(120ms);
    QCOMPARE(checkpoints.load(), 0);  // held by the parent's pause
    front_end.setPaused(false);
    const auto give_up = std::chrono::steady_clock::now() + 5s;
    while (checkpoints.load() < 5 && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(5ms);
    QVERIFY(checkpoints.load() >= 5);  // resumed with the parent
    front_end.requestCancel();
    worker.join();
    QVERIFY(cancelled.load());
    QVERIFY(run.isCancelled());

    RunControl parent, child;
    child.setParent(&parent);
    child.requestCancel();
    QVERIFY(child.isCancelled());
    QVERIFY(!parent.isCancelled());
    child.setParent(nullptr);
    parent.requestCancel();
    child.reset();
    QVERIFY(!child.isCancelled());  // no parent any more
  }

  // Several producers and consumers with back-pressure: every item arrives exactly once,
  // the queue is never over capacity, nothing is dropped.
  void manyProducersAndConsumersLoseNothing() {
    constexpr int kProducers = 3, kConsumers = 2, kPerProducer = 500;
    KeyframeQueue<int> queue(2);
    std::mutex seen_mutex;
    std::vector<std::vector<int>> seen_by_producer(kProducers);
    std::atomic<bool> over_capacity{false};
    std::vector<std::thread> consumers;
    for (int c = 0; c < kConsumers; ++c)
      consumers.emplace_back([&] {
        while (auto item = queue.popFor(2s)) {
          if (queue.size() > queue.capacity()) over_capacity = true;
          std::lock_guard<std::mutex> lock(seen_mutex);
          seen_by_producer[static_cast<std::size_t>(*item / kPerProducer)].push_back(*item % kPerProducer);
        }
      });
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; ++p)
      producers.emplace_back([&, p] {
        for (int i = 0; i < kPerProducer; ++i) queue.pushWaitingForRoom(p * kPerProducer + i, [] {});
      });
    for (auto& t : producers) t.join();
    queue.close();
    for (auto& t : consumers) t.join();
    QVERIFY(!over_capacity.load());
    QCOMPARE(queue.droppedCount(), std::uint64_t(0));
    for (auto& items : seen_by_producer) {
      QCOMPARE(static_cast<int>(items.size()), kPerProducer);
      std::sort(items.begin(), items.end());
      for (int i = 0; i < kPerProducer; ++i) QCOMPARE(items[static_cast<std::size_t>(i)], i);
    }
  }

  // Listeners hear every change of pause and cancel, the parent's too, on the changing
  // thread, until their Listener ends; a consumer waiting for a keyframe wakes on wake().
  void listenersHearEveryChangeUntilTheyEnd() {
    RunControl parent, child;
    child.setParent(&parent);
    std::atomic<int> calls{0};
    {
      const RunControl::Listener listener = child.listen([&] { ++calls; });
      parent.setPaused(true);
      QCOMPARE(calls.load(), 1);
      parent.requestCancel();
      QCOMPARE(calls.load(), 2);
      child.setPaused(false);
      QCOMPARE(calls.load(), 3);
    }
    parent.reset();
    child.requestCancel();
    QCOMPARE(calls.load(), 3);  // ended with its Listener

    KeyframeQueue<int> queue(1);
    const std::uint64_t seen = queue.wakeCount();
    std::optional<int> got = 7;
    std::thread consumer([&] { got = queue.popUntilWoken(seen); });
    std::this_thread::sleep_for(50ms);
    queue.wake();
    consumer.join();
    QVERIFY(!got.has_value());
    queue.pushEvictingOldest(5);
    QCOMPARE(*queue.popUntilWoken(queue.wakeCount()), 5);
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

QTEST_GUILESS_MAIN(TestKeyframeQueue)
#include "test_keyframe_queue.moc"
