#include "core/io/video_file_source.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <vector>

#include "core/io/mp4_creation_time.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/log.h"

namespace skytrace::io {
namespace {

constexpr const char* kLogCategory = "io.video";

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty() && ext.front() == '.') ext.erase(0, 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// OpenCV does not expose FFmpeg's demuxer name; the extension is what chose it.
std::string containerName(const std::string& path) {
  static const std::map<std::string, std::string> kNames = {
      {"mp4", "MPEG-4"},       {"m4v", "MPEG-4"},         {"mov", "QuickTime"},
      {"mkv", "Matroska"},     {"webm", "WebM"},          {"avi", "AVI"},
      {"ts", "MPEG-TS"},       {"mts", "MPEG-TS"},        {"mpg", "MPEG-PS"},
      {"mpeg", "MPEG-PS"},     {"flv", "Flash Video"},
  };
  const std::string ext = lowerExtension(path);
  const auto it = kNames.find(ext);
  const std::string name = it != kNames.end() ? it->second : std::string("unknown");
  return ext.empty() ? name : name + " (" + ext + ")";
}

std::string fourccString(double value) {
  const auto code = static_cast<unsigned int>(value);
  std::string text;
  for (int shift = 0; shift < 32; shift += 8) {
    const char c = static_cast<char>((code >> shift) & 0xFF);
    if (c >= 32 && c < 127) text.push_back(c);
  }
  return text.empty() ? std::string("unknown") : text;
}

bool readFrame(cv::VideoCapture& capture, cv::Mat* bgr) {
  try {
    return capture.read(*bgr) && !bgr->empty();
  } catch (const cv::Exception&) {
    return false;  // OpenCV may throw on a broken packet; treat as an undecodable frame
  }
}

bool grabFrame(cv::VideoCapture& capture) {
  try {
    return capture.grab();
  } catch (const cv::Exception&) {
    return false;
  }
}

// Forward seeks up to this many frames decode on instead of seeking.
constexpr int kMaxForwardStep = 48;
// Frames without a usable container time after a seek before reading gives up (more
// than a typical GOP: x264's default keyframe interval is 250).
constexpr int kMaxUnplaceableFrames = 600;

}  // namespace

VideoFileSource::VideoFileSource(const std::string& path, const VideoSourceOptions& options)
    : options_(options) {
  options_.check();
  info_.path = path;
  info_.kind = VideoSourceKind::File;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw IoError(path + ": file not found");
  if (!fs::is_regular_file(path, ec)) throw IoError(path + ": not a regular file");
  if (!std::ifstream(path, std::ios::binary).good())
    throw IoError(path + ": cannot be opened for reading (check permissions)");
  if (fs::file_size(path, ec) == 0) throw FormatError(path + ": is empty, not a readable video");

  openCapture();
  info_.frame_timing = "container timestamps";
  info_.container = containerName(path);
  info_.codec_fourcc = fourccString(capture_.get(cv::CAP_PROP_FOURCC));
  info_.creation_unix_s = readMp4CreationUnixSeconds(path).value_or(std::numeric_limits<double>::quiet_NaN());
  if (std::isfinite(info_.creation_unix_s)) info_.creation_source = "mp4 movie header";
  info_.width_px = static_cast<int>(capture_.get(cv::CAP_PROP_FRAME_WIDTH));
  info_.height_px = static_cast<int>(capture_.get(cv::CAP_PROP_FRAME_HEIGHT));
  info_.fps = capture_.get(cv::CAP_PROP_FPS);
  if (!(info_.fps > 0.0 && info_.fps <= 1000.0)) {
    addWarning(-1, "container reports no usable frame rate; assuming 30 fps");
    info_.fps = 30.0;
  }
  const double count = capture_.get(cv::CAP_PROP_FRAME_COUNT);
  info_.frame_count = std::isfinite(count) && count > 0 ? static_cast<int>(std::lround(count)) : 0;
  if (info_.frame_count == 0) {
    // No count in the container: count by decoding headers (grab) once, then reopen.
    int counted = 0;
    while (capture_.grab()) ++counted;
    info_.frame_count = counted;
    openCapture();
  }
  if (info_.width_px <= 0 || info_.height_px <= 0 || info_.frame_count <= 0)
    throw FormatError(path + ": not a readable video (no video stream with frames)");

  // Decode the first good frame now so that a file whose frames cannot be decoded at
  // all fails here, with one clear message, rather than on the first read().
  VideoFrame first;
  if (!decodeNext(&first))
    throw FormatError(path + ": not a readable video (no frame could be decoded)");
  pending_ = std::move(first);
}

void VideoFileSource::openCapture() {
  bool opened = false;
  try {
    capture_.release();
    opened = capture_.open(info_.path, cv::CAP_FFMPEG) && capture_.isOpened();
  } catch (const cv::Exception& e) {
    throw FormatError(info_.path + ": not a readable video (" + e.what() + ")");
  }
  if (!opened)
    throw FormatError(info_.path +
                      ": not a readable video (FFmpeg could not open the container or it "
                      "has no video stream)");
  next_index_ = 0;
  just_repositioned_ = true;
  last_t_s_ = -1.0;
}

int VideoFileSource::position() const {
  return pending_ ? pending_->index : std::max(next_index_, target_index_);
}

bool VideoFileSource::read(VideoFrame* frame) {
  checkArgument(frame != nullptr, "VideoSource::read needs a frame to fill");
  if (pending_) {
    *frame = std::move(*pending_);
    pending_.reset();
    return true;
  }
  return decodeNext(frame);
}

void VideoFileSource::seek(int index) {
  checkArgument(index >= 0 && index < info_.frame_count,
                info_.path + ": frame " + std::to_string(index) + " is outside [0, " +
                    std::to_string(info_.frame_count) + ")");
  if (position() == index) return;
  pending_.reset();
  // A short step forward is cheaper by decoding on than by seeking, which restarts at the
  // previous keyframe (x264's default GOP is 250 frames).
  bool stepped = false;
  if (target_index_ < 0 && index >= next_index_ && index - next_index_ <= kMaxForwardStep) {
    stepped = true;
    for (int i = next_index_; i < index && stepped; ++i) stepped = grabFrame(capture_);
    if (stepped) {
      next_index_ = index;
      last_t_s_ = -1.0;
    }
  }
  if (!stepped) reposition(index);
  VideoFrame frame;
  if (decodeNext(&frame)) pending_ = std::move(frame);
}

void VideoFileSource::reposition(int index) {
  bool ok = false;
  try {
    ok = capture_.set(cv::CAP_PROP_POS_FRAMES, index);
  } catch (const cv::Exception&) {
    ok = false;
  }
  if (!ok) {
    // The backend refused to seek: reopen and decode forward to the frame.
    openCapture();
  }
  if (ok) next_index_ = index;
  // else next_index_ is 0 after openCapture(); decodeNext() walks forward to target_
  target_index_ = index;
  just_repositioned_ = true;
  exhausted_ = false;
  last_t_s_ = -1.0;
}

bool VideoFileSource::decodeNext(VideoFrame* frame) {
  if (exhausted_) return false;  // decoding on would hand over drained or stale frames
  std::vector<int> damaged;  // consecutive undecodable frame indices, reported on recovery
  const int target = std::max(next_index_, target_index_);
  int last_failure = -1;      // where the previous read failed
  bool recovery_seek = false;  // the last reposition skipped a damaged frame
  int unplaceable = 0;         // frames after such a reposition without a usable time
  bool data_ended = false;     // decoding forward from a seek failed again at the same place
  int data_end_index = -1;     // where the data ends, when a seek showed it
  for (;;) {
    cv::Mat bgr;
    if (!readFrame(capture_, &bgr)) {
      if (next_index_ >= info_.frame_count) break;  // the end of the stream
      if (next_index_ <= last_failure) {
        // A seek past the failure decoded forward from an earlier keyframe and failed at
        // the same frame again: the file's data ends there (a truncated file whose index
        // announces more frames).
        data_ended = true;
        break;
      }
      last_failure = next_index_;
      damaged.push_back(next_index_);
      if (static_cast<int>(damaged.size()) > options_.max_consecutive_damaged_frames) break;
      reposition(next_index_ + 1);
      recovery_seek = true;
      continue;
    }
    // Which frame is this? Count, unless the container time says otherwise right after
    // a reposition (seeks can land early; the time stamp is the truth then). FFmpeg
    // reports time 0 for frames drained at the end of some streams: not a valid time.
    const double msec = capture_.get(cv::CAP_PROP_POS_MSEC);
    const bool time_valid = std::isfinite(msec) && (msec > 0.0 || next_index_ == 0) &&
                            msec / 1000.0 > last_t_s_;
    if (just_repositioned_ && !recovery_seek && !time_valid && target > 0) {
      // A caller's seek past the end of a truncated file: OpenCV decodes forward from the
      // last keyframe, runs out of data, and hands over the last frame the file holds
      // (time 0). Its frame counter says where decoding stopped; counting would label
      // that frame with the requested index.
      const double reached = capture_.get(cv::CAP_PROP_POS_FRAMES);
      if (std::isfinite(reached) && reached >= 1.0 && reached < target + 1) {
        data_end_index = static_cast<int>(reached);
        data_ended = true;
        break;
      }
    }
    if (recovery_seek && just_repositioned_ && !time_valid) {
      // After a seek past a damaged frame only the container time says which frame this
      // is; in a truncated file the seek lands on an earlier keyframe (time 0). Counting
      // would give it the requested frame's index and invent frames the file does not
      // hold: skip it, and give up when a whole stretch of frames cannot be placed.
      // (A caller's seek() is exact: OpenCV decodes forward to the frame, and drained
      // last frames of some streams report time 0, so those frames are counted.)
      if (++unplaceable > kMaxUnplaceableFrames) {
        data_ended = true;
        break;
      }
      continue;
    }
    const int index = just_repositioned_ && time_valid
                          ? static_cast<int>(std::lround(msec * info_.fps / 1000.0))
                          : next_index_;
    just_repositioned_ = false;
    next_index_ = index + 1;
    last_t_s_ = time_valid ? msec / 1000.0 : index / info_.fps;
    if (index < target) continue;  // landed before the requested frame: decode forward
    for (int d : damaged) {
      if (d < index) addWarning(d, "frame " + std::to_string(d) + " could not be decoded; skipped");
    }
    target_index_ = -1;
    if (index >= info_.frame_count) {
      // Containers without an exact count (FFmpeg estimated it from the duration) may
      // hold more frames than announced: keep reading and correct the count.
      addWarning(-1, "the container announced fewer frames than the stream holds; "
                     "frame_count grows while reading");
      info_.frame_count = index + 1;
    }
    frame->index = index;
    frame->t_s = last_t_s_;
    frame->bgr = std::move(bgr);
    return true;
  }
  if (!damaged.empty() || data_ended) {
    const int first = data_end_index >= 0 ? data_end_index : damaged.empty() ? next_index_ : damaged.front();
    const bool gave_up = static_cast<int>(damaged.size()) > options_.max_consecutive_damaged_frames;
    addWarning(first, gave_up ? "frames from " + std::to_string(first) +
                                    " on could not be decoded although the container announces " +
                                    std::to_string(info_.frame_count) +
                                    " frames (damaged or truncated file); reading stopped there"
                              : "stream ended at frame " + std::to_string(first) +
                                    " although the container announces " +
                                    std::to_string(info_.frame_count) +
                                    " frames (truncated or damaged file)");
    SKYTRACE_LOG(Warning, kLogCategory) << info_.path << ": " << warnings_.back().message;
    early_end_ = warnings_.back().message;
  }
  target_index_ = -1;
  next_index_ = info_.frame_count;
  exhausted_ = true;
  return false;
}

}  // namespace skytrace::io
