// OrderedPrefetch (core/util/ordered_prefetch.h): items come in order, each made once on
// the prefetch thread; no more than `ahead` wait untaken; what `make` throws comes back
// from take(), once made items are taken; destruction stops after the item under way.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/util/error.h"
#include "core/util/ordered_prefetch.h"

using namespace std::chrono_literals;
using skytrace::OrderedPrefetch;

class TestOrderedPrefetch : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void itemsComeInOrderFromItsThread() {
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> off_thread{0};
    std::atomic<std::size_t> taken{0};
    std::atomic<int> too_far_ahead{0};
    constexpr std::size_t kAhead = 3;
    OrderedPrefetch<std::string> prefetch(20, kAhead, [&](std::size_t index) {
      if (std::this_thread::get_id() != caller) ++off_thread;
      // Made only when fewer than kAhead wait: index < taken + kAhead, give or take the
      // take() whose count the caller has not stored yet.
      if (index > taken.load() + kAhead) ++too_far_ahead;
      return "tile " + std::to_string(index);
    });
    QCOMPARE(prefetch.count(), std::size_t(20));
    for (std::size_t i = 0; i < 20; ++i) {
      if (i % 5 == 0) std::this_thread::sleep_for(5ms);  // let the prefetch run ahead
      QCOMPARE(prefetch.nextIndex(), i);
      QCOMPARE(prefetch.take(), "tile " + std::to_string(i));
      taken = i + 1;
    }
    QCOMPARE(off_thread.load(), 20);
    QCOMPARE(too_far_ahead.load(), 0);
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument, prefetch.take());  // all taken
  }

  void anErrorComesBackAfterTheItemsMadeBeforeIt() {
    std::atomic<int> made{0};
    OrderedPrefetch<int> prefetch(10, 4, [&](std::size_t index) {
      ++made;
      if (index == 2) throw skytrace::FormatError("tile 2 is truncated");
      return int(index);
    });
    QCOMPARE(prefetch.take(), 0);
    QCOMPARE(prefetch.take(), 1);
    QVERIFY_THROWS_EXCEPTION(skytrace::FormatError, prefetch.take());
    QVERIFY_THROWS_EXCEPTION(skytrace::FormatError, prefetch.take());  // and stays failed
    QCOMPARE(prefetch.nextIndex(), std::size_t(2));
    QCOMPARE(made.load(), 3);  // nothing made after the failure
  }

  void destructionStopsAfterTheItemUnderWay() {
    std::atomic<int> made{0};
    const auto start = std::chrono::steady_clock::now();
    {
      OrderedPrefetch<int> prefetch(1000, 2, [&](std::size_t index) {
        std::this_thread::sleep_for(20ms);
        ++made;
        return int(index);
      });
      QCOMPARE(prefetch.take(), 0);  // then nothing is taken: the prefetch fills up and waits
      std::this_thread::sleep_for(100ms);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(made.load() <= 3, qPrintable(QString::number(made.load())));  // one taken + two ahead
    QVERIFY2(ms < 2000.0, qPrintable(QString::number(ms)));
  }

  void badArgumentsAreRefused() {
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument,
                             OrderedPrefetch<int>(3, 0, [](std::size_t i) { return int(i); }));
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument, OrderedPrefetch<int>(3, 1, {}));
  }
};

QTEST_GUILESS_MAIN(TestOrderedPrefetch)
#include "test_ordered_prefetch.moc"
