// VideoSource over a video file through OpenCV's FFmpeg backend (cv::CAP_FFMPEG).
// Internal to core/io: use openVideoSource() from video_source.h.
// Thread: one thread at a time (the decoder is stateful).
#pragma once

#include <optional>
#include <string>

#include <opencv2/videoio.hpp>

#include "core/io/video_source.h"

namespace skytrace::io {

class VideoFileSource final : public VideoSource {
 public:
  // Throws IoError (missing/unreadable file) or FormatError (not a readable video).
  VideoFileSource(const std::string& path, const VideoSourceOptions& options);

  bool read(VideoFrame* frame) override;
  void seek(int index) override;
  int position() const override;

 private:
  // Decodes the next good frame at or after next_index_, skipping damaged frames.
  // After a reposition it trusts the container time to tell which frame it got and
  // decodes forward until it reaches next_index_.
  bool decodeNext(VideoFrame* frame);
  void reposition(int index);
  void openCapture();

  VideoSourceOptions options_;
  cv::VideoCapture capture_;
  int next_index_ = 0;     // index of the frame the decoder delivers next (best belief)
  int target_index_ = -1;  // frame a seek asked for, until it is decoded
  bool just_repositioned_ = true;
  bool exhausted_ = false;  // the stream ended (at its end or early); cleared by a seek
  double last_t_s_ = -1.0;
  std::optional<VideoFrame> pending_;  // decoded ahead (at open, by seek)
};

}  // namespace skytrace::io
