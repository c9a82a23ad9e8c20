// The frame feed (decode thread + ring) and the synthetic source: order, buffer reuse
// without corruption, decode running ahead by at most the ring, cancel, decode errors
// reaching the consumer; the stage clock's samples.
#include <QtTest>

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "core/engine/engine_frame_impl.h"
#include "core/engine/frame_feed.h"
#include "core/engine/stage_clock.h"
#include "core/sim/synthetic_frame_source.h"
#include "core/util/error.h"
#include "core/vision/torch_runtime.h"

using namespace skytrace;
using namespace skytrace::engine;
using namespace skytrace::sim;
using namespace std::chrono_literals;

namespace {

SyntheticFrameOptions smallOptions(std::int64_t count) {
  SyntheticFrameOptions options;
  options.width_px = 96;
  options.height_px = 64;
  options.frame_count = count;
  return options;
}

// A source that fails at a given frame (a damaged video).
class FailingSource final : public FrameSource {
 public:
  explicit FailingSource(std::int64_t fail_at) : inner_(smallOptions(100)), fail_at_(fail_at) {}
  const FrameSourceInfo& info() const override { return inner_.info(); }
  bool read(std::int64_t* index, double* t_s, std::uint8_t* bgr, std::size_t stride) override {
    if (next_ == fail_at_) throw FormatError("flight.mp4: frame " + std::to_string(next_) + " cannot be decoded");
    ++next_;
    return inner_.read(index, t_s, bgr, stride);
  }

 private:
  SyntheticFrameSource inner_;
  std::int64_t fail_at_;
  std::int64_t next_ = 0;
};

}  // namespace

class TestFrameFeed : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void syntheticFramesMoveAndOverlap() {
    SyntheticFrameSource source(smallOptions(10));
    std::vector<std::uint8_t> a(96 * 64 * 3), b(96 * 64 * 3), again(96 * 64 * 3);
    source.render(0, a.data(), 96 * 3);
    source.render(1, b.data(), 96 * 3);
    source.render(0, again.data(), 96 * 3);
    QVERIFY(a == again);  // deterministic
    QVERIFY(a != b);      // the camera moves
    // Textured: a reasonable spread of values.
    const auto [lo, hi] = std::minmax_element(a.begin(), a.end());
    QVERIFY(*hi - *lo > 100);
    const HostImage tile = source.groundTile(0, 96, 64);
    QCOMPARE(tile.bgr.size(), a.size());
  }

  void framesArriveInOrderWithTheirOwnPixels() {
    const std::int64_t count = 25;
    SyntheticFrameSource reference(smallOptions(count));
    FrameFeedOptions options;
    options.ring_slots = 2;  // the slots are reused many times
    LatencyRecorder recorder;
    FrameFeed feed(std::make_unique<SyntheticFrameSource>(smallOptions(count)), options, &recorder, nullptr);
    feed.start();
    const DeviceStream consumer;
    std::vector<std::uint8_t> expected(96 * 64 * 3);
    std::int64_t next_index = 0;
    while (auto item = feed.next(consumer)) {
      QCOMPARE(item->frame.index, next_index);
      QCOMPARE(item->frame.t_s, next_index / 10.0);
      std::this_thread::sleep_for(2ms);  // the decoder runs ahead meanwhile
      reference.render(next_index, expected.data(), 96 * 3);
      const at::Tensor& pixels = item->frame.pixels->bgr;
      QCOMPARE(pixels.size(0), std::int64_t(64));
      QCOMPARE(pixels.size(1), std::int64_t(96));
      QVERIFY2(std::memcmp(pixels.data_ptr<std::uint8_t>(), expected.data(), expected.size()) == 0,
               qPrintable(QString("frame %1 pixels were overwritten while held").arg(next_index)));
      feed.release(*item, consumer);
      ++next_index;
    }
    QCOMPARE(next_index, count);
    const FrameFeedStats stats = feed.stats();
    QCOMPARE(stats.frames_decoded, count);
    QVERIFY(stats.max_ready_slots <= 2);
    std::vector<LatencySample> samples;
    recorder.drain(&samples);
    QCOMPARE(samples.size(), std::size_t(count));  // one decode sample per frame
    for (const auto& s : samples) QCOMPARE(s.stage, Stage::Decode);
  }

  void maxFramesStopsEarly() {
    FrameFeedOptions options;
    options.max_frames = 7;
    FrameFeed feed(std::make_unique<SyntheticFrameSource>(smallOptions(100)), options, nullptr, nullptr);
    feed.start();
    int frames = 0;
    while (auto item = feed.next(DeviceStream())) {
      feed.release(*item, DeviceStream());
      ++frames;
    }
    QCOMPARE(frames, 7);
  }

  void cancelEndsTheFeed() {
    RunControl control;
    FrameFeed feed(std::make_unique<SyntheticFrameSource>(smallOptions(100000)), FrameFeedOptions{}, nullptr, &control);
    feed.start();
    auto first = feed.next(DeviceStream());
    QVERIFY(first.has_value());
    feed.release(*first, DeviceStream());
    control.requestCancel();
    int after_cancel = 0;
    while (auto item = feed.next(DeviceStream())) {  // at most what was already decoded
      feed.release(*item, DeviceStream());
      ++after_cancel;
    }
    QVERIFY(after_cancel <= 4);
    feed.stop();
  }

  void pauseHoldsDecodingAndStopWhilePausedReturns() {
    RunControl control;
    control.setPaused(true);
    FrameFeed feed(std::make_unique<SyntheticFrameSource>(smallOptions(100)), FrameFeedOptions{}, nullptr, &control);
    feed.start();
    std::this_thread::sleep_for(100ms);
    QCOMPARE(feed.stats().frames_decoded, std::int64_t(0));
    control.setPaused(false);
    auto item = feed.next(DeviceStream());
    QVERIFY(item.has_value());
    QCOMPARE(item->frame.index, std::int64_t(0));
    feed.release(*item, DeviceStream());
    control.setPaused(true);
    const auto before = std::chrono::steady_clock::now();
    feed.stop();  // must not wait for a resume
    QVERIFY(std::chrono::steady_clock::now() - before < 1s);
  }

  void decodeErrorReachesTheConsumer() {
    FrameFeed feed(std::make_unique<FailingSource>(3), FrameFeedOptions{}, nullptr, nullptr);
    feed.start();
    int frames = 0;
    QString message;
    try {
      while (auto item = feed.next(DeviceStream())) {
        feed.release(*item, DeviceStream());
        ++frames;
      }
    } catch (const FormatError& e) {
      message = e.what();
    }
    QCOMPARE(frames, 3);
    QCOMPARE(message, QString("flight.mp4: frame 3 cannot be decoded"));
  }

  void badOptionsAreRefused() {
    FrameFeedOptions options;
    options.ring_slots = 1;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, options.check());
    vision::DeviceSpec cuda;
    cuda.cuda = true;
    options = FrameFeedOptions{};
    options.device = cuda;
    if (vision::cudaDeviceCount() == 0) {
      // The CPU build refuses CUDA with a reason (a CUDA build without a GPU does too).
      QVERIFY_THROWS_EXCEPTION(InvalidArgument,
                               FrameFeed(std::make_unique<SyntheticFrameSource>(smallOptions(3)), options, nullptr, nullptr));
    } else {
      FrameFeed accepted(std::make_unique<SyntheticFrameSource>(smallOptions(3)), options, nullptr, nullptr);
    }
  }

  void stageClockPushesOneSamplePerStage() {
    LatencyRecorder recorder;
    StageClock clock(&recorder, DeviceStream());
    clock.beginFrame(42);
    {
      StageClock::Scope extract(clock, Stage::Extract);
      std::this_thread::sleep_for(5ms);
    }
    clock.begin(Stage::Match);
    clock.end(Stage::Match);
    clock.addMeasured(Stage::Upload, 1.0, 0.25);
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, clock.end(Stage::Pose));
    const double frame_ms = clock.finishFrame();
    QVERIFY(frame_ms >= 5.0);
    std::vector<LatencySample> samples;
    recorder.drain(&samples);
    QCOMPARE(samples.size(), std::size_t(3));
    bool saw_extract = false;
    for (const auto& s : samples) {
      QCOMPARE(s.frame, std::int64_t(42));
      QCOMPARE(int(s.device), -1);
      if (s.stage == Stage::Extract) {
        saw_extract = true;
        QVERIFY(s.duration_ms >= 5.0 && s.duration_ms <= frame_ms);
      }
      if (s.stage == Stage::Upload) QCOMPARE(s.duration_ms, 0.25);
    }
    QVERIFY(saw_extract);
  }
};

QTEST_GUILESS_MAIN(TestFrameFeed)
#include "test_frame_feed.moc"
