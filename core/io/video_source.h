// Video sources: frames of a recorded flight from a video file (MP4/MOV/MKV/AVI through
// OpenCV's FFmpeg backend) or from an image-sequence folder (jpg/png/tif in natural
// order). One interface for both so the engine does not care where frames come from.
//
// Contracts
// - Frame indices are 0-based positions in the stream; timestamps t_s are seconds from
//   the first frame. Files use the container's presentation time where it is reliable
//   (present and increasing), else index / fps. Image folders use index / fps.
// - A damaged frame in the middle (undecodable packet, unreadable image) is skipped:
//   read() continues with the next good frame and a VideoWarning names the index.
// - Missing path -> IoError naming it. A file that is not a readable video -> FormatError
//   naming the file. Nothing here exits or aborts.
// Thread: a source is used by one thread at a time (it holds decoder state); open one
// source per thread for parallel reading.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace skytrace::io {

enum class VideoSourceKind { File, ImageSequence };

// What is known about a source right after opening it.
struct VideoInfo {
  std::string path;
  VideoSourceKind kind = VideoSourceKind::File;
  std::string container;     // "MPEG-4 (mp4)", "Matroska (mkv)", "image sequence (png)", ...
  std::string codec_fourcc;  // "avc1", "h264", "MJPG", ...; "png"/"jpg"/"tif" for folders
  int frame_count = 0;       // the container's count (FFmpeg estimates it from the
                             // duration when the container stores none; it grows, with a
                             // warning, if reading finds more); exact for folders
  double fps = 0.0;          // nominal frames per second (> 0); for a folder timed by its
                             // photos, the mean rate over the flight
  int width_px = 0;
  int height_px = 0;
  // When the recording started (frame 0), as UTC Unix seconds: an MP4 / QuickTime
  // container's movie header (readMp4CreationUnixSeconds), an image folder's first photo's
  // EXIF time when it states UTC (readExifCaptureTime); NaN when neither says.
  double creation_unix_s = std::numeric_limits<double>::quiet_NaN();
  // Where creation_unix_s came from: "mp4 movie header", "exif gps time", "exif local time
  // with offset"; empty when NaN.
  std::string creation_source;
  // Image folders whose photos all say when they were taken (EXIF DateTimeOriginal with
  // SubSecTimeOriginal, on the camera's clock) in increasing file order: frame i's time,
  // seconds from frame 0. Empty otherwise: frame i is at i / fps.
  std::vector<double> frame_times_s;
  // How frames are timed: "container timestamps" (video files), "exif capture times" or
  // "nominal frame rate" (image folders).
  std::string frame_timing;
  double duration_s() const { return fps > 0.0 ? frame_count / fps : 0.0; }
  // Frame `index`'s time before it is decoded: frame_times_s when known, else index / fps.
  double frameTimeS(int index) const;
};

// One decoded frame: BGR 8-bit, width_px x height_px.
struct VideoFrame {
  int index = -1;
  double t_s = 0.0;
  cv::Mat bgr;
};

// A frame that could not be decoded (skipped), or another non-fatal problem.
struct VideoWarning {
  int frame_index = -1;  // -1 when the warning is not about one frame
  std::string message;
};

struct VideoSourceOptions {
  // Frame rate given to image-sequence folders whose photos do not all state when they
  // were taken (VideoInfo::frame_times_s). Must be > 0.
  double image_sequence_fps = 10.0;
  // How many consecutive undecodable frames a file may have before reading gives up
  // and treats the rest of the stream as ended (with a warning).
  int max_consecutive_damaged_frames = 32;

  void check() const;  // throws InvalidArgument
};

class VideoSource {
 public:
  virtual ~VideoSource() = default;
  VideoSource(const VideoSource&) = delete;
  VideoSource& operator=(const VideoSource&) = delete;

  const VideoInfo& info() const { return info_; }

  // Decodes the next good frame into `frame`. Returns false at the end of the stream.
  // Damaged frames on the way are skipped and added to warnings().
  virtual bool read(VideoFrame* frame) = 0;

  // Positions the source so that the next read() returns frame `index` exactly (or the
  // next good frame after it when `index` is damaged). Throws InvalidArgument when
  // index is outside [0, frame_count). Cost for files: a short forward step decodes on;
  // anything else decodes from the previous keyframe (up to one GOP of frames).
  virtual void seek(int index) = 0;

  // Index the next read() will try to decode.
  virtual int position() const = 0;

  // Timestamp of a frame before it is decoded (VideoInfo::frameTimeS); read() reports
  // the container's time for the frame itself.
  double nominalTimestampS(int index) const { return info_.frameTimeS(index); }

  // Non-fatal problems met so far, in the order they happened.
  const std::vector<VideoWarning>& warnings() const { return warnings_; }

  // Once read() has returned false: why the stream ended before the frame count the
  // container announced (a truncated or damaged file), or empty when it ended where
  // announced. A run that ends this way did not see the whole flight.
  const std::string& earlyEnd() const { return early_end_; }

 protected:
  VideoSource() = default;
  void addWarning(int frame_index, std::string message);

  VideoInfo info_;
  std::vector<VideoWarning> warnings_;
  std::string early_end_;
};

// Opens a video file or an image-sequence folder (a directory path). Throws IoError,
// FormatError or InvalidArgument as described above.
std::unique_ptr<VideoSource> openVideoSource(const std::string& path,
                                             const VideoSourceOptions& options = {});

// How many frames a video file really holds: the frame count its container announces
// when its last frame decodes, else up to the last frame that decodes before the data
// ends (a truncated file announces frames it lacks). Image folders: their frame count.
// Decodes one keyframe interval, up to 8 for a truncated file; the source must be
// seek()ed before reading on.
int framesHeld(VideoSource& source);

// The images of a photo folder in the order openVideoSource plays them: natural order
// (digit runs compare by value), jpg/jpeg/png/tif/tiff, case-insensitive.
std::vector<std::string> listSequenceImages(const std::string& folder);

// Human-readable name of a kind ("file", "image sequence").
const char* videoSourceKindName(VideoSourceKind kind);

}  // namespace skytrace::io
