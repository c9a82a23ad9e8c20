// A FrameSource over a decoded video file or image folder (core/io VideoSource). Main
// build only (OpenCV videoio); the GPU-only engine build has synthetic frames only.
// Thread: the decode thread (one thread at a time).
#pragma once

#include <memory>
#include <string>

#include "core/engine/frame_source.h"

namespace skytrace::io {
class VideoSource;
}

namespace skytrace::engine {

class VideoFrameSource final : public FrameSource {
 public:
  // Opens `path` (throws IoError / FormatError like io::openVideoSource).
  explicit VideoFrameSource(const std::string& path);
  ~VideoFrameSource() override;

  const FrameSourceInfo& info() const override { return info_; }
  bool read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
            std::size_t row_stride_bytes) override;

 private:
  std::unique_ptr<io::VideoSource> video_;
  FrameSourceInfo info_;
};

}  // namespace skytrace::engine
