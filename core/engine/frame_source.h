// Where the engine's frames come from: a decoded video (video_frame_source.h, main build
// only) or, in tests and benchmarks, core/sim's sources (synthetic, preloaded, paced). A
// source writes 8-bit BGR pixels straight into the buffer it is given (a slot of the pinned
// host ring), so a frame is never copied on the host after decoding.
// No torch, Qt or OpenCV types. Thread: one thread at a time (the decode thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace skytrace::engine {

struct FrameSourceInfo {
  std::string description;   // "video flight.mp4", "synthetic 640x480"
  int width_px = 0;
  int height_px = 0;
  double fps = 0.0;
  std::int64_t frame_count = -1;  // -1: unknown / endless
};

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  virtual const FrameSourceInfo& info() const = 0;
  // Decodes the next frame into `bgr` (height x width x 3 bytes, rows `row_stride_bytes`
  // apart). Returns false at the end of the stream. Throws skytrace::Error on failure.
  virtual bool read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
                    std::size_t row_stride_bytes) = 0;
};

}  // namespace skytrace::engine
