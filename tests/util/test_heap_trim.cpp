// BackgroundHeapTrim (core/util/heap_trim.h): trims on its own thread at its interval
// while it lives, and its destruction is prompt however long the interval.
#include <QtTest>

#include <chrono>
#include <thread>

#include "core/util/heap_trim.h"

using namespace std::chrono_literals;
using skytrace::BackgroundHeapTrim;

class TestHeapTrim : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void trimsAtItsIntervalOnItsOwnThread() {
    const BackgroundHeapTrim trim(20ms);
    std::this_thread::sleep_for(250ms);
    QVERIFY2(trim.trims() >= 3, qPrintable(QString::number(trim.trims())));
  }

  void destructionIsPrompt() {
    const auto start = std::chrono::steady_clock::now();
    { const BackgroundHeapTrim trim(std::chrono::hours(1)); }
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(ms < 1000.0, qPrintable(QString::number(ms)));
  }
};

QTEST_GUILESS_MAIN(TestHeapTrim)
#include "test_heap_trim.moc"
