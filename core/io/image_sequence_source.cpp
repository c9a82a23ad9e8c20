#include "core/io/image_sequence_source.h"

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <filesystem>
#include <set>

#include <opencv2/imgcodecs.hpp>

#include "core/io/exif_capture_time.h"
#include "core/util/check.h"
#include "core/util/error.h"

namespace skytrace::io {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool isSequenceImage(const std::filesystem::path& path) {
  static const std::set<std::string> kExtensions = {".jpg", ".jpeg", ".png", ".tif", ".tiff"};
  return kExtensions.count(lower(path.extension().string())) > 0;
}

// "10", "2.5": a frame rate without trailing zeros.
std::string formatRate(double fps) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", fps);
  return text;
}

std::string normalisedExtension(const std::string& path) {
  std::string ext = lower(std::filesystem::path(path).extension().string());
  if (!ext.empty()) ext.erase(0, 1);
  if (ext == "jpeg") return "jpg";
  if (ext == "tiff") return "tif";
  return ext;
}

// Reads one image as 8-bit BGR; empty when it cannot be decoded.
cv::Mat readImage(const std::string& path) {
  try {
    return cv::imread(path, cv::IMREAD_COLOR);
  } catch (const cv::Exception&) {
    return {};
  }
}

}  // namespace

bool naturalLess(const std::string& a, const std::string& b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool digit_a = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool digit_b = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (digit_a && digit_b) {
      size_t end_a = i;
      size_t end_b = j;
      while (end_a < a.size() && std::isdigit(static_cast<unsigned char>(a[end_a]))) ++end_a;
      while (end_b < b.size() && std::isdigit(static_cast<unsigned char>(b[end_b]))) ++end_b;
      // Compare by value: skip leading zeros, then longer is larger, then digit by digit.
      size_t start_a = i;
      size_t start_b = j;
      while (start_a + 1 < end_a && a[start_a] == '0') ++start_a;
      while (start_b + 1 < end_b && b[start_b] == '0') ++start_b;
      const size_t len_a = end_a - start_a;
      const size_t len_b = end_b - start_b;
      if (len_a != len_b) return len_a < len_b;
      const int cmp = a.compare(start_a, len_a, b, start_b, len_b);
      if (cmp != 0) return cmp < 0;
      i = end_a;
      j = end_b;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if (i < a.size() || j < b.size()) return a.size() - i < b.size() - j;
  return a < b;  // equal by value ("01" vs "1"): any consistent order
}

std::vector<std::string> listSequenceImages(const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw IoError(folder + ": folder not found");
  std::vector<std::string> names;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && isSequenceImage(it->path()))
      names.push_back(it->path().filename().string());
  }
  if (ec) throw IoError(folder + ": cannot list the folder (" + ec.message() + ")");
  std::sort(names.begin(), names.end(), naturalLess);
  std::vector<std::string> files;
  files.reserve(names.size());
  for (const std::string& name : names) files.push_back((fs::path(folder) / name).string());
  return files;
}

ImageSequenceSource::ImageSequenceSource(const std::string& folder,
                                         const VideoSourceOptions& options) {
  options.check();
  files_ = listSequenceImages(folder);
  info_.path = folder;
  info_.kind = VideoSourceKind::ImageSequence;
  if (files_.empty())
    throw FormatError(folder + ": contains no jpg/png/tif images, not an image sequence");
  std::set<std::string> extensions;
  for (const std::string& file : files_) extensions.insert(normalisedExtension(file));
  info_.codec_fourcc = extensions.size() == 1 ? *extensions.begin() : std::string("mixed");
  info_.container = "image sequence (" + info_.codec_fourcc + ")";
  info_.frame_count = static_cast<int>(files_.size());
  // The frame size is the first readable image's; unreadable ones before it are reported.
  for (size_t i = 0; i < files_.size() && info_.width_px == 0; ++i) {
    const cv::Mat image = readImage(files_[i]);
    if (image.empty()) {
      addWarning(static_cast<int>(i), "frame " + std::to_string(i) + " (" + files_[i] +
                                          ") could not be read; skipped");
      continue;
    }
    info_.width_px = image.cols;
    info_.height_px = image.rows;
  }
  if (info_.width_px == 0)
    throw FormatError(folder + ": none of its " + std::to_string(files_.size()) +
                      " images could be read, not a usable image sequence");
  timeFromCaptureTimes(options);
}

// The photos' own times: a mapping camera shoots every few seconds, not at a frame rate,
// and a log can only be aligned with the photos on their real time base. The first
// photo's EXIF time dates the sequence when it states UTC.
void ImageSequenceSource::timeFromCaptureTimes(const VideoSourceOptions& options) {
  std::vector<double> clock_s;
  clock_s.reserve(files_.size());
  std::string untimed;  // why the photos' own times are not used
  bool any_clock = false;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    const ExifTimes times = readExifTimes(files_[i]);
    if (i == 0 && times.utc) {
      info_.creation_unix_s = times.utc->unix_s;
      info_.creation_source = times.utc->source;
    }
    any_clock = any_clock || times.camera_clock_s.has_value();
    if (!untimed.empty()) continue;
    if (!times.camera_clock_s) {
      untimed = "frame " + std::to_string(i) + " (" + files_[i] + ") states no EXIF DateTimeOriginal";
    } else if (!clock_s.empty() && *times.camera_clock_s <= clock_s.back()) {
      untimed = "frame " + std::to_string(i) + " (" + files_[i] + ") was taken " +
                (*times.camera_clock_s == clock_s.back() ? "in the same instant as" : "before") +
                " the frame before it by their EXIF times";
    } else {
      clock_s.push_back(*times.camera_clock_s);
    }
  }
  if (untimed.empty() && clock_s.size() >= 2) {
    info_.frame_times_s.reserve(clock_s.size());
    for (double t : clock_s) info_.frame_times_s.push_back(t - clock_s.front());
    info_.fps = double(clock_s.size() - 1) / info_.frame_times_s.back();
    info_.frame_timing = "exif capture times";
    return;
  }
  info_.fps = options.image_sequence_fps;
  info_.frame_timing = "nominal frame rate";
  if (!untimed.empty() && any_clock) {
    addWarning(-1, "photos timed at the nominal " + formatRate(info_.fps) + " frames/s, not by their capture times: " +
                       untimed);
  }
}

bool ImageSequenceSource::read(VideoFrame* frame) {
  checkArgument(frame != nullptr, "VideoSource::read needs a frame to fill");
  while (next_index_ < info_.frame_count) {
    const int index = next_index_++;
    const std::string& file = files_[static_cast<size_t>(index)];
    cv::Mat image = readImage(file);
    if (image.empty()) {
      addWarning(index, "frame " + std::to_string(index) + " (" + file +
                            ") could not be read; skipped");
      continue;
    }
    if (image.cols != info_.width_px || image.rows != info_.height_px) {
      addWarning(index, "frame " + std::to_string(index) + " (" + file + ") is " +
                            std::to_string(image.cols) + "x" + std::to_string(image.rows) +
                            ", not the sequence's " + std::to_string(info_.width_px) + "x" +
                            std::to_string(info_.height_px) + "; skipped");
      continue;
    }
    frame->index = index;
    frame->t_s = nominalTimestampS(index);
    frame->bgr = std::move(image);
    return true;
  }
  return false;
}

void ImageSequenceSource::seek(int index) {
  checkArgument(index >= 0 && index < info_.frame_count,
                info_.path + ": frame " + std::to_string(index) + " is outside [0, " +
                    std::to_string(info_.frame_count) + ")");
  next_index_ = index;
}

}  // namespace skytrace::io
