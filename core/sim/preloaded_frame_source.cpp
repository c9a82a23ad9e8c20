#include "core/sim/preloaded_frame_source.h"

#include <cstring>
#include <utility>

#include "core/util/error.h"

namespace skytrace::sim {

std::shared_ptr<const PreloadedFrames> preloadFrames(engine::FrameSource& source, std::int64_t max_frames) {
  auto preloaded = std::make_shared<PreloadedFrames>();
  preloaded->info = source.info();
  const std::size_t row_bytes = static_cast<std::size_t>(preloaded->info.width_px) * 3;
  const std::size_t frame_bytes = row_bytes * static_cast<std::size_t>(preloaded->info.height_px);
  while (max_frames < 0 || static_cast<std::int64_t>(preloaded->frames.size()) < max_frames) {
    std::vector<std::uint8_t> frame(frame_bytes);
    std::int64_t index = -1;
    double t_s = 0.0;
    if (!source.read(&index, &t_s, frame.data(), row_bytes)) break;
    preloaded->indices.push_back(index);
    preloaded->times_s.push_back(t_s);
    preloaded->frames.push_back(std::move(frame));
  }
  if (preloaded->frames.empty())
    throw InvalidArgument("cannot preload frames: " + preloaded->info.description + " yielded none");
  preloaded->info.frame_count = static_cast<std::int64_t>(preloaded->frames.size());
  preloaded->info.description += " (preloaded into memory)";
  return preloaded;
}

PreloadedFrameSource::PreloadedFrameSource(std::shared_ptr<const PreloadedFrames> frames)
    : frames_(std::move(frames)) {
  if (!frames_) throw InvalidArgument("PreloadedFrameSource needs frames");
}

bool PreloadedFrameSource::read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
                                std::size_t row_stride_bytes) {
  if (next_ >= frames_->frames.size()) return false;
  const std::size_t row_bytes = static_cast<std::size_t>(frames_->info.width_px) * 3;
  const std::uint8_t* from = frames_->frames[next_].data();
  if (row_stride_bytes == row_bytes) {
    std::memcpy(bgr, from, row_bytes * static_cast<std::size_t>(frames_->info.height_px));
  } else {
    for (int y = 0; y < frames_->info.height_px; ++y)
      std::memcpy(bgr + static_cast<std::size_t>(y) * row_stride_bytes, from + y * row_bytes, row_bytes);
  }
  *frame_index = frames_->indices[next_];
  *t_s = frames_->times_s[next_];
  ++next_;
  return true;
}

}  // namespace skytrace::sim
