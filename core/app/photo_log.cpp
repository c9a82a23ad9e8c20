#include "core/app/photo_log.h"

#include <filesystem>

#include "core/geo/photo_metadata.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/video_source.h"
#include "core/util/error.h"

namespace skytrace::app {

io::TelemetrySeries readPhotoFolderLog(const std::string& folder, double fps) {
  if (!std::filesystem::is_directory(folder)) throw IoError(folder + ": no such folder");
  io::VideoSourceOptions options;
  options.image_sequence_fps = fps;
  // The folder's frame times, exactly as `process` reads it as a video.
  const std::unique_ptr<io::VideoSource> source = io::openVideoSource(folder, options);
  const io::VideoInfo& info = source->info();
  const std::vector<std::string> files = io::listSequenceImages(folder);

  io::TelemetrySeries series;
  series.format = "photo-exif";
  series.source_path = folder;
  series.abs_alt_reference = "msl";  // EXIF GPSAltitude: above sea level
  series.start_unix_s = info.creation_unix_s;
  for (std::size_t i = 0; i < files.size(); ++i) {
    geo::PhotoMetadata photo;
    try {
      photo = geo::readPhotoMetadata(files[i]);
    } catch (const Error&) {
      continue;  // the video source skips it too, with its own warning
    }
    if (!photo.hasGps()) continue;
    io::TelemetrySample s;
    s.frame = std::int64_t(i);
    s.log_t_s = info.frameTimeS(int(i));
    s.lat_deg = photo.lat_deg;
    s.lon_deg = photo.lon_deg;
    s.alt_abs_m = photo.gps_alt_m;
    s.alt_rel_m = photo.relative_alt_m;
    s.gimbal_yaw_deg = photo.gimbal_yaw_deg;
    s.gimbal_pitch_deg = photo.gimbal_pitch_deg;
    s.gimbal_roll_deg = photo.gimbal_roll_deg;
    s.focal_length_mm = photo.focal_length_mm;
    if (std::isfinite(series.start_unix_s)) s.unix_s = series.start_unix_s + s.log_t_s;
    series.samples.push_back(s);
  }
  if (series.samples.empty()) {
    throw FormatError(folder + ": none of its " + std::to_string(files.size()) +
                      " photos states a position in EXIF GPS; give a flight log with --telemetry");
  }
  io::dropInvalidPositions(series);
  return series;
}

io::TelemetrySeries readFlightLog(const std::string& path) {
  if (std::filesystem::is_directory(path)) return readPhotoFolderLog(path);
  return io::readTelemetry(path);
}

}  // namespace skytrace::app
