// A FrameSource over a decoded video file or image folder (core/io VideoSource). Main
// build only (OpenCV videoio); the GPU-only engine build has synthetic frames only.
// Thread: the decode thread (one thread at a time).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "core/engine/frame_source.h"

namespace skytrace::io {
class VideoSource;
}

namespace skytrace::engine {

// Why a video ended before the frame count its container announced (truncated or
// damaged file; io::VideoSource::earlyEnd). Written by the decode thread when the
// source's read() ends, read by the run's owner: thread-safe.
class VideoEndNote {
 public:
  void set(std::string reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    reason_ = std::move(reason);
  }
  std::string reason() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return reason_;
  }

 private:
  mutable std::mutex mutex_;
  std::string reason_;  // empty: the video ended where announced (or has not ended)
};

class VideoFrameSource final : public FrameSource {
 public:
  // Opens `path` (throws IoError / FormatError like io::openVideoSource). `end_note`
  // (may be null) receives the reason when the stream ends early.
  explicit VideoFrameSource(const std::string& path, std::shared_ptr<VideoEndNote> end_note = nullptr);
  ~VideoFrameSource() override;

  const FrameSourceInfo& info() const override { return info_; }
  bool read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
            std::size_t row_stride_bytes) override;

 private:
  std::unique_ptr<io::VideoSource> video_;
  std::shared_ptr<VideoEndNote> end_note_;
  FrameSourceInfo info_;
};

}  // namespace skytrace::engine
