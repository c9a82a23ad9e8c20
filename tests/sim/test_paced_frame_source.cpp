// PacedFrameSource: frame k is never delivered before start + k / rate (checked against a
// steady-clock instant taken before the first read, which is no later than the source's
// start), the inner frames pass unchanged (indices, times, pixels, compared with a second
// synthetic source of the same seed), the end passes through and then costs no wait, a
// late consumer gets the overdue frames at once without a drop and without the schedule
// moving, and invalid rates or a missing source are rejected.
#include <QtTest>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "core/sim/paced_frame_source.h"
#include "core/sim/synthetic_frame_source.h"
#include "core/util/error.h"

using namespace skytrace;
using namespace skytrace::engine;
using namespace skytrace::sim;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 48;
constexpr int kHeight = 32;
constexpr std::size_t kStride = kWidth * 3;

SyntheticFrameOptions smallOptions(std::int64_t count) {
  SyntheticFrameOptions options;
  options.width_px = kWidth;
  options.height_px = kHeight;
  options.frame_count = count;
  return options;
}

std::unique_ptr<FrameSource> synthetic(std::int64_t count) {
  return std::make_unique<SyntheticFrameSource>(smallOptions(count));
}

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

double msBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

class TestPacedFrameSource : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void deliversNoFrameBeforeItsDueTime() {
    constexpr double kRateHz = 200.0;
    constexpr int kFrames = 10;
    PacedFrameSource source(synthetic(kFrames), kRateHz);
    std::vector<std::uint8_t> buffer(kStride * kHeight);
    std::int64_t index = -1;
    double t_s = 0.0;
    const Clock::duration tolerance = std::chrono::milliseconds(1);
    const Clock::time_point before_first_read = Clock::now();
    Clock::time_point last_return;
    for (int k = 0; k < kFrames; ++k) {
      QVERIFY(source.read(&index, &t_s, buffer.data(), kStride));
      last_return = Clock::now();
      const Clock::time_point due = before_first_read + seconds(k / kRateHz);
      QVERIFY2(last_return >= due - tolerance,
               qPrintable(QString("frame %1 returned %2 ms after the first read, due at %3 ms")
                              .arg(k)
                              .arg(msBetween(before_first_read, last_return))
                              .arg(1000.0 * k / kRateHz)));
    }
    const double run_ms = msBetween(before_first_read, last_return);
    QVERIFY2(run_ms >= 1000.0 * (kFrames - 1) / kRateHz - 1.0, qPrintable(QString::number(run_ms)));
  }

  void forwardsTheInnerFramesUnchanged() {
    PacedFrameSource source(synthetic(5), 1000.0);
    SyntheticFrameSource reference(smallOptions(5));
    std::vector<std::uint8_t> expected(kStride * kHeight), got(kStride * kHeight);
    for (int k = 0; k < 5; ++k) {
      std::int64_t expected_index = -1, got_index = -2;
      double expected_t = -1.0, got_t = -2.0;
      QVERIFY(reference.read(&expected_index, &expected_t, expected.data(), kStride));
      QVERIFY(source.read(&got_index, &got_t, got.data(), kStride));
      QCOMPARE(got_index, expected_index);
      QCOMPARE(got_t, expected_t);
      QVERIFY2(got == expected, qPrintable(QString("pixels of frame %1 differ").arg(k)));
    }
    QCOMPARE(source.info().width_px, kWidth);
    QCOMPARE(source.info().height_px, kHeight);
    QCOMPARE(source.info().frame_count, std::int64_t{5});
    QCOMPARE(source.info().fps, reference.info().fps);  // the recording's rate, unchanged
    QVERIFY(source.info().description.find("paced at 1000 fps") != std::string::npos);
  }

  void passesTheEndThroughAndThenReturnsAtOnce() {
    constexpr double kRateHz = 20.0;  // 50 ms per frame: a wait would be visible
    PacedFrameSource source(synthetic(2), kRateHz);
    std::vector<std::uint8_t> buffer(kStride * kHeight);
    std::int64_t index = -1;
    double t_s = 0.0;
    QVERIFY(source.read(&index, &t_s, buffer.data(), kStride));
    QVERIFY(source.read(&index, &t_s, buffer.data(), kStride));
    QCOMPARE(index, std::int64_t{1});
    QVERIFY(!source.read(&index, &t_s, buffer.data(), kStride));  // the end, at its due time
    const Clock::time_point after_end = Clock::now();
    for (int i = 0; i < 3; ++i) QVERIFY(!source.read(&index, &t_s, buffer.data(), kStride));
    const double ms = msBetween(after_end, Clock::now());
    QVERIFY2(ms < 40.0, qPrintable(QString("reads after the end took %1 ms").arg(ms)));
  }

  // The consumer stalls for 15 frame periods after frame 0. The overdue frames come at
  // once and none is dropped; the schedule stays anchored at the first read, so the
  // whole run ends near (N-1)/rate, not 15 periods later as a re-anchored schedule would.
  void aLateConsumerGetsTheOverdueFramesWithoutADrop() {
    constexpr double kRateHz = 100.0;
    constexpr int kFrames = 20;
    constexpr double kStallS = 0.15;
    PacedFrameSource source(synthetic(kFrames), kRateHz);
    std::vector<std::uint8_t> buffer(kStride * kHeight);
    std::int64_t index = -1;
    double t_s = 0.0;
    const Clock::time_point before_first_read = Clock::now();
    QVERIFY(source.read(&index, &t_s, buffer.data(), kStride));
    QCOMPARE(index, std::int64_t{0});
    std::this_thread::sleep_for(seconds(kStallS));
    for (int k = 1; k < kFrames; ++k) {
      QVERIFY(source.read(&index, &t_s, buffer.data(), kStride));
      QCOMPARE(index, std::int64_t{k});
      QVERIFY(Clock::now() >= before_first_read + seconds(k / kRateHz) - std::chrono::milliseconds(1));
    }
    const double run_ms = msBetween(before_first_read, Clock::now());
    const double scheduled_ms = 1000.0 * (kFrames - 1) / kRateHz;  // 190 ms
    QVERIFY(run_ms >= scheduled_ms - 1.0);
    QVERIFY2(run_ms < scheduled_ms + 1000.0 * kStallS - 40.0,
             qPrintable(QString("%1 ms: the schedule moved after the stall").arg(run_ms)));
  }

  void rejectsInvalidRatesAndAMissingSource() {
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, PacedFrameSource(synthetic(2), 0.0));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, PacedFrameSource(synthetic(2), -25.0));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument,
                             PacedFrameSource(synthetic(2), std::numeric_limits<double>::quiet_NaN()));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument,
                             PacedFrameSource(synthetic(2), std::numeric_limits<double>::infinity()));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, PacedFrameSource(nullptr, 30.0));
  }
};

QTEST_GUILESS_MAIN(TestPacedFrameSource)
#include "test_paced_frame_source.moc"
