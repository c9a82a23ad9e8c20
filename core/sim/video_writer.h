// Writes frames to a video file through OpenCV's FFmpeg backend. H.264 in MP4 by
// default (fourcc 'avc1', libx264 in Debian's FFmpeg); when H.264 is unavailable it
// falls back to MPEG-4 Part 2 ('mp4v') and records a warning. MJPEG ('MJPG', for AVI)
// is offered for tests that need independently decodable frames.
// The file appears atomically: frames go to a temporary sibling which close() renames
// onto the target; a writer destroyed without close() leaves an existing target intact.
// Thread: one thread at a time.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace skytrace::sim {

enum class VideoCodec { H264, Mpeg4, Mjpeg };

struct VideoWriterOptions {
  double fps = 30.0;
  VideoCodec codec = VideoCodec::H264;

  void check() const;  // throws InvalidArgument
};

class VideoWriter {
 public:
  // Opens the encoder for frames of `frame_size_px`. Throws InvalidArgument (bad size or
  // options) or IoError (no encoder could open the file, e.g. unwritable folder).
  VideoWriter(std::filesystem::path path, cv::Size frame_size_px,
              const VideoWriterOptions& options = {});
  ~VideoWriter();
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  // Appends one frame: CV_8UC3 BGR (CV_8UC1 grey is converted) of the opened size.
  // Throws InvalidArgument on a wrong size/type, IoError after close().
  void write(const cv::Mat& frame);

  // Finishes the file and moves it onto the target path. Throws IoError.
  void close();

  const std::filesystem::path& path() const { return path_; }
  // The fourcc the encoder really uses ("avc1", "mp4v" or "MJPG").
  const std::string& fourcc() const { return fourcc_; }
  int framesWritten() const { return frames_written_; }
  // Non-fatal notes, e.g. the H.264 fallback.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::filesystem::path path_;
  cv::Size frame_size_px_;
  std::string fourcc_;
  int frames_written_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace skytrace::sim
