// VideoSource over a folder of images (jpg/jpeg/png/tif/tiff, case-insensitive), in
// natural order ("frame_2.png" before "frame_10.png"). Frames are timed by the photos'
// EXIF capture times (DateTimeOriginal + SubSecTimeOriginal, t_s from the first photo)
// when every photo has one and they increase in file order; otherwise at
// VideoSourceOptions::image_sequence_fps (t_s = index / fps), with a warning when some
// photos had times. An unreadable image, or one whose size differs from the first
// readable one, is skipped and reported. The first photo's EXIF time, when it states
// UTC, is the sequence's creation time. Opening reads every photo's EXIF (about 1 ms each).
// Internal to core/io: use openVideoSource() from video_source.h. Thread: one at a time.
#pragma once

#include <string>
#include <vector>

#include "core/io/video_source.h"

namespace skytrace::io {

class ImageSequenceSource final : public VideoSource {
 public:
  // Throws IoError (folder missing) or FormatError (no readable image in it).
  ImageSequenceSource(const std::string& folder, const VideoSourceOptions& options);

  bool read(VideoFrame* frame) override;
  void seek(int index) override;
  int position() const override { return next_index_; }

  // The image files in frame order.
  const std::vector<std::string>& files() const { return files_; }

 private:
  void timeFromCaptureTimes(const VideoSourceOptions& options);

  std::vector<std::string> files_;
  int next_index_ = 0;
};

// Natural-order comparison: "img2" < "img10"; ties broken by plain string order.
bool naturalLess(const std::string& a, const std::string& b);

}  // namespace skytrace::io
