#include "core/sim/video_writer.h"

#include <optional>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "core/util/atomic_file.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/log.h"

namespace skytrace::sim {
namespace {

constexpr const char* kLogCategory = "io.video_writer";

int fourccCode(const std::string& fourcc) {
  return cv::VideoWriter::fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]);
}

}  // namespace

struct VideoWriter::Impl {
  std::optional<AtomicFile> file;
  cv::VideoWriter writer;
  bool closed = false;
};

void VideoWriterOptions::check() const {
  checkArgument(fps > 0.0 && fps <= 1000.0,
                "video writer fps must be in (0, 1000], got " + std::to_string(fps));
}

VideoWriter::VideoWriter(std::filesystem::path path, cv::Size frame_size_px,
                         const VideoWriterOptions& options)
    : impl_(std::make_unique<Impl>()), path_(std::move(path)), frame_size_px_(frame_size_px) {
  options.check();
  checkArgument(frame_size_px.width > 0 && frame_size_px.height > 0,
                path_.string() + ": video frame size must be positive");
  checkArgument((frame_size_px.width % 2 == 0 && frame_size_px.height % 2 == 0) ||
                    options.codec == VideoCodec::Mjpeg,
                path_.string() + ": H.264/MPEG-4 need an even frame width and height, got " +
                    std::to_string(frame_size_px.width) + "x" +
                    std::to_string(frame_size_px.height));
  impl_->file.emplace(path_);
  const std::string temporary = impl_->file->temporaryPath().string();

  std::vector<std::string> candidates;
  switch (options.codec) {
    case VideoCodec::H264: candidates = {"avc1", "mp4v"}; break;
    case VideoCodec::Mpeg4: candidates = {"mp4v"}; break;
    case VideoCodec::Mjpeg: candidates = {"MJPG"}; break;
  }
  for (const std::string& fourcc : candidates) {
    bool opened = false;
    try {
      opened = impl_->writer.open(temporary, cv::CAP_FFMPEG, fourccCode(fourcc), options.fps,
                                  frame_size_px, true);
    } catch (const cv::Exception&) {
      opened = false;
    }
    if (opened) {
      fourcc_ = fourcc;
      break;
    }
  }
  if (fourcc_.empty())
    throw IoError(path_.string() + ": no video encoder could write this file (check that the "
                                   "folder is writable and the extension is .mp4/.mkv/.avi)");
  if (options.codec == VideoCodec::H264 && fourcc_ != "avc1") {
    warnings_.push_back("H.264 encoder unavailable; wrote MPEG-4 Part 2 ('" + fourcc_ + "')");
    SKYTRACE_LOG(Warning, kLogCategory) << path_.string() << ": " << warnings_.back();
  }
}

VideoWriter::~VideoWriter() {
  // Without close() the temporary file is removed by AtomicFile; the target is untouched.
  if (impl_ && impl_->writer.isOpened()) impl_->writer.release();
}

void VideoWriter::write(const cv::Mat& frame) {
  if (impl_->closed) throw IoError(path_.string() + ": write() after close()");
  checkArgument(frame.size() == frame_size_px_,
                path_.string() + ": frame is " + std::to_string(frame.cols) + "x" +
                    std::to_string(frame.rows) + ", the video is " +
                    std::to_string(frame_size_px_.width) + "x" +
                    std::to_string(frame_size_px_.height));
  checkArgument(frame.type() == CV_8UC3 || frame.type() == CV_8UC1,
                path_.string() + ": frames must be 8-bit BGR or grey");
  if (frame.type() == CV_8UC1) {
    cv::Mat bgr;
    cv::cvtColor(frame, bgr, cv::COLOR_GRAY2BGR);
    impl_->writer.write(bgr);
  } else {
    impl_->writer.write(frame);
  }
  ++frames_written_;
}

void VideoWriter::close() {
  if (impl_->closed) return;
  impl_->writer.release();
  impl_->closed = true;
  if (frames_written_ == 0) throw IoError(path_.string() + ": no frames were written");
  // The encoder reports no write error (a full disk leaves an MP4 without its index):
  // the file must open and announce every frame before it replaces anything.
  int readable_frames = 0;
  try {
    cv::VideoCapture check(impl_->file->temporaryPath().string(), cv::CAP_FFMPEG);
    if (check.isOpened()) readable_frames = static_cast<int>(check.get(cv::CAP_PROP_FRAME_COUNT));
  } catch (const cv::Exception&) {
    readable_frames = 0;
  }
  if (readable_frames < frames_written_) {
    throw IoError(path_.string() + ": the written video does not read back (" +
                  std::to_string(readable_frames) + " of " + std::to_string(frames_written_) +
                  " frames; disk full?)");
  }
  impl_->file->commit();
}

}  // namespace skytrace::sim
