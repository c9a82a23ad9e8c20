// PreloadedFrameSource: the frames it serves are the original source's, byte for byte,
// with their indices and times, into packed or padded rows; max_frames limits the
// preload; an empty source is an error; sources over one preload are independent.
#include <QtTest>

#include <cstdint>
#include <vector>

#include "core/sim/preloaded_frame_source.h"
#include "core/sim/synthetic_frame_source.h"
#include "core/util/error.h"

using namespace skytrace;
using namespace skytrace::engine;
using namespace skytrace::sim;

namespace {

SyntheticFrameOptions smallOptions(std::int64_t count) {
  SyntheticFrameOptions options;
  options.width_px = 48;
  options.height_px = 32;
  options.frame_count = count;
  return options;
}

class EmptySource final : public FrameSource {
 public:
  const FrameSourceInfo& info() const override { return info_; }
  bool read(std::int64_t*, double*, std::uint8_t*, std::size_t) override { return false; }

 private:
  FrameSourceInfo info_{"empty", 8, 8, 10.0, 0};
};

}  // namespace

class TestPreloadedFrameSource : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void servesTheSourceFramesWithIndicesAndTimes() {
    SyntheticFrameSource original(smallOptions(5));
    const auto frames = preloadFrames(original, -1);
    QCOMPARE(frames->info.frame_count, std::int64_t{5});
    QCOMPARE(frames->info.width_px, 48);

    SyntheticFrameSource reference(smallOptions(5));
    PreloadedFrameSource source(frames);
    const std::size_t bytes = 48 * 32 * 3;
    std::vector<std::uint8_t> expected(bytes), got(bytes);
    for (int k = 0; k < 5; ++k) {
      std::int64_t expected_index = -1, got_index = -1;
      double expected_t = -1.0, got_t = -2.0;
      QVERIFY(reference.read(&expected_index, &expected_t, expected.data(), 48 * 3));
      QVERIFY(source.read(&got_index, &got_t, got.data(), 48 * 3));
      QCOMPARE(got_index, expected_index);
      QCOMPARE(got_t, expected_t);
      QVERIFY(got == expected);
    }
    std::int64_t index = 0;
    double t_s = 0.0;
    QVERIFY(!source.read(&index, &t_s, got.data(), 48 * 3));
  }

  void writesPaddedRowsAndLeavesThePaddingAlone() {
    SyntheticFrameSource original(smallOptions(2));
    const auto frames = preloadFrames(original, 1);
    QCOMPARE(frames->frames.size(), std::size_t{1});
    const std::size_t stride = 48 * 3 + 16;
    std::vector<std::uint8_t> padded(stride * 32, 0xAB);
    PreloadedFrameSource source(frames);
    std::int64_t index = -1;
    double t_s = 0.0;
    QVERIFY(source.read(&index, &t_s, padded.data(), stride));
    for (int y = 0; y < 32; ++y) {
      QVERIFY(std::equal(padded.begin() + y * stride, padded.begin() + y * stride + 48 * 3,
                         frames->frames[0].begin() + y * 48 * 3));
      for (std::size_t x = 48 * 3; x < stride; ++x) QCOMPARE(padded[y * stride + x], std::uint8_t{0xAB});
    }
  }

  void sourcesOverOnePreloadAreIndependent() {
    SyntheticFrameSource original(smallOptions(3));
    const auto frames = preloadFrames(original, -1);
    PreloadedFrameSource first(frames), second(frames);
    std::vector<std::uint8_t> buffer(48 * 32 * 3);
    std::int64_t index = -1;
    double t_s = 0.0;
    QVERIFY(first.read(&index, &t_s, buffer.data(), 48 * 3));
    QVERIFY(first.read(&index, &t_s, buffer.data(), 48 * 3));
    QVERIFY(second.read(&index, &t_s, buffer.data(), 48 * 3));
    QCOMPARE(index, frames->indices[0]);
  }

  void anEmptySourceIsAnError() {
    EmptySource empty;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, preloadFrames(empty, -1));
  }
};

QTEST_GUILESS_MAIN(TestPreloadedFrameSource)
#include "test_preloaded_frame_source.moc"
