#include "core/engine/video_frame_source.h"

#include <opencv2/core.hpp>

#include <cstring>

#include "core/io/video_source.h"
#include "core/util/error.h"

namespace skytrace::engine {

VideoFrameSource::VideoFrameSource(const std::string& path, std::shared_ptr<VideoEndNote> end_note)
    : video_(io::openVideoSource(path)), end_note_(std::move(end_note)) {
  const io::VideoInfo& info = video_->info();
  info_.description = "video " + path;
  info_.width_px = info.width_px;
  info_.height_px = info.height_px;
  info_.fps = info.fps;
  info_.frame_count = info.frame_count;
}

VideoFrameSource::~VideoFrameSource() = default;

bool VideoFrameSource::read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
                            std::size_t row_stride_bytes) {
  io::VideoFrame frame;
  if (!video_->read(&frame)) {
    if (end_note_ && !video_->earlyEnd().empty()) end_note_->set(video_->earlyEnd());
    return false;
  }
  if (frame.bgr.cols != info_.width_px || frame.bgr.rows != info_.height_px ||
      frame.bgr.type() != CV_8UC3)
    throw FormatError(info_.description + ": frame " + std::to_string(frame.index) +
                      " changed size or type mid-stream");
  const std::size_t row_bytes = static_cast<std::size_t>(info_.width_px) * 3;
  for (int y = 0; y < frame.bgr.rows; ++y)
    std::memcpy(bgr + static_cast<std::size_t>(y) * row_stride_bytes, frame.bgr.ptr<std::uint8_t>(y), row_bytes);
  *frame_index = frame.index;
  *t_s = frame.t_s;
  return true;
}

}  // namespace skytrace::engine
