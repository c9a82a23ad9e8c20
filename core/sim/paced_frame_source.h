// Frames delivered at a fixed rate, as a camera or a video played in real time delivers
// them: a engine::FrameSource decorator for benchmarks that measure latency under a realistic
// frame rate rather than with frames pushed as fast as the pipeline takes them.
//
// Schedule: frame k (k = 0, 1, ... counted from the first read()) is due at
// start + k / rate_hz, where start is the steady-clock moment of the first read(). read()
// sleeps until the frame's due time, then reads it from the inner source (so the inner
// source's decode time comes after the due time). The schedule is absolute and never
// re-anchored:
//   - a frame is never delivered before its due time;
//   - a consumer that falls behind gets the frames that are already due at once, one per
//     read(), until it is back on schedule; nothing is dropped, and no frame is delivered
//     earlier than it would have been without the delay (the "burst" is only the backlog);
//   - the end of the inner source is passed through (found by the read() of a due frame);
//     once it was reported, read() returns false at once, without waiting.
// A pipeline that reads through this source therefore runs at most at rate_hz, and its
// decode stage timing includes the wait for the due time. A stop request reaches the
// reading thread at the latest one frame period (1 / rate_hz) later.
//
// info() is the inner source's, with " paced at F fps" appended to the description; its
// fps stays the recording's (frame times t_s are forwarded unchanged).
// No torch, Qt or OpenCV types. Thread: one thread at a time (the decode thread), like
// every engine::FrameSource; info() is immutable after construction.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "core/engine/frame_source.h"

namespace skytrace::sim {

class PacedFrameSource final : public engine::FrameSource {
 public:
  // Throws InvalidArgument when `inner` is null or `rate_hz` is not finite and > 0.
  PacedFrameSource(std::unique_ptr<engine::FrameSource> inner, double rate_hz);

  const engine::FrameSourceInfo& info() const override { return info_; }
  bool read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
            std::size_t row_stride_bytes) override;

  double rateHz() const { return rate_hz_; }

 private:
  std::unique_ptr<engine::FrameSource> inner_;
  double rate_hz_;
  engine::FrameSourceInfo info_;
  std::chrono::steady_clock::time_point start_;
  std::int64_t delivered_ = 0;  // frames released so far: the next frame's k
  bool ended_ = false;          // the inner source reported its end
};

}  // namespace skytrace::sim
