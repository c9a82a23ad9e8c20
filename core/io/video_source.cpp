#include "core/io/video_source.h"

#include <filesystem>

#include "core/io/image_sequence_source.h"
#include "core/io/video_file_source.h"
#include "core/util/check.h"
#include "core/util/error.h"

namespace skytrace::io {

double VideoInfo::frameTimeS(int index) const {
  if (index >= 0 && static_cast<std::size_t>(index) < frame_times_s.size()) return frame_times_s[index];
  return fps > 0.0 ? index / fps : 0.0;
}

void VideoSourceOptions::check() const {
  checkArgument(image_sequence_fps > 0.0 && image_sequence_fps <= 1000.0,
                "image sequence fps must be in (0, 1000], got " +
                    std::to_string(image_sequence_fps));
  checkArgument(max_consecutive_damaged_frames >= 1,
                "max_consecutive_damaged_frames must be at least 1");
}

void VideoSource::addWarning(int frame_index, std::string message) {
  for (const VideoWarning& existing : warnings_) {
    if (existing.frame_index == frame_index && existing.message == message) return;
  }
  warnings_.push_back(VideoWarning{frame_index, std::move(message)});
}

std::unique_ptr<VideoSource> openVideoSource(const std::string& path,
                                             const VideoSourceOptions& options) {
  options.check();
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw IoError(path + ": file or folder not found");
  if (fs::is_directory(status)) return std::make_unique<ImageSequenceSource>(path, options);
  return std::make_unique<VideoFileSource>(path, options);
}

int framesHeld(VideoSource& source) {
  const VideoInfo& info = source.info();
  if (info.kind != VideoSourceKind::File || info.frame_count <= 1) return info.frame_count;
  // Seek to the last frame offered; where that fails, the source says where its data
  // ended, which can still be a frame or two past the last whole one (the cut frame):
  // step back until the last frame decodes. Each step costs one keyframe interval.
  constexpr int kMaxSteps = 8;
  int held = info.frame_count;
  for (int step = 0; step < kMaxSteps && held > 1; ++step) {
    source.seek(held - 1);
    VideoFrame last;
    if (source.read(&last) && last.index >= held - 1) return held;
    if (source.earlyEnd().empty()) return held;  // not a truncated file: a damaged last frame
    const int end = source.warnings().empty() ? -1 : source.warnings().back().frame_index;
    held = end > 0 && end < held ? end : held - 1;
  }
  return held;
}

const char* videoSourceKindName(VideoSourceKind kind) {
  switch (kind) {
    case VideoSourceKind::File: return "file";
    case VideoSourceKind::ImageSequence: return "image sequence";
  }
  return "unknown";
}

}  // namespace skytrace::io
