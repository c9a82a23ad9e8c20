// Frames decoded once into host memory and served again from there: for benchmarks that
// measure the GPU pipeline rather than the decoder (the synthetic renderer costs 5-10 ms
// per 640x480 frame on one CPU thread, which would bound every mode's throughput).
// A PreloadedFrameSource's read() is one row-wise memcpy into the caller's buffer (a
// pinned ring slot), so the "decode" stage then measures that copy.
// No torch, Qt or OpenCV types.
// Thread: PreloadedFrames is immutable after preloadFrames() returns and may be shared
// by any number of sources on any threads; each PreloadedFrameSource is used by one
// thread at a time (the decode thread), like every engine::FrameSource.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/engine/frame_source.h"

namespace skytrace::sim {

struct PreloadedFrames {
  engine::FrameSourceInfo info;              // the original source's, frame_count = frames.size()
  std::vector<std::int64_t> indices;  // frame index as the original source reported it
  std::vector<double> times_s;
  std::vector<std::vector<std::uint8_t>> frames;  // BGR, rows packed (width * 3 bytes)
};

// Reads up to `max_frames` frames (all when < 0) from `source` into memory. Throws what
// the source throws; InvalidArgument when the source yields no frame.
std::shared_ptr<const PreloadedFrames> preloadFrames(engine::FrameSource& source, std::int64_t max_frames);

class PreloadedFrameSource final : public engine::FrameSource {
 public:
  explicit PreloadedFrameSource(std::shared_ptr<const PreloadedFrames> frames);

  const engine::FrameSourceInfo& info() const override { return frames_->info; }
  bool read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
            std::size_t row_stride_bytes) override;

 private:
  std::shared_ptr<const PreloadedFrames> frames_;
  std::size_t next_ = 0;
};

}  // namespace skytrace::sim
