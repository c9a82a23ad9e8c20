// When a photo was taken, in UTC, from its EXIF tags. Only tags that state UTC are used:
//   1. GPSDateStamp + GPSTimeStamp (the GNSS receiver's time: UTC by the EXIF standard);
//   2. DateTimeOriginal with OffsetTimeOriginal (EXIF 2.31: the zone of the local time),
//      with SubSecTimeOriginal when present.
// DateTimeOriginal alone is the camera's local clock in an unknown zone (most drones write
// only that): no UTC is made from it, but the intervals between the photos of one camera
// are right on that clock (ExifTimes::camera_clock_s). Reentrant.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace skytrace::io {

struct ExifCaptureTime {
  double unix_s = 0.0;  // UTC
  std::string source;   // "exif gps time" or "exif local time with offset"
};

// Both times a photo's EXIF can give, read with one open of the file.
struct ExifTimes {
  std::optional<ExifCaptureTime> utc;  // as readExifCaptureTime
  // DateTimeOriginal (+ SubSecTimeOriginal) counted as seconds since 1970 on the camera's
  // own clock, whatever its zone: only differences between photos of one camera mean
  // something (when each photo was taken, relative to the others). nullopt without it.
  std::optional<double> camera_clock_s;
};
ExifTimes readExifTimes(const std::string& image_path);

// Reads the EXIF of a JPEG / TIFF through GDAL; nullopt when the file has no tag that
// states UTC, or cannot be read.
std::optional<ExifCaptureTime> readExifCaptureTime(const std::string& image_path);

// The tag parsers, as GDAL returns the values ("2015:06:02", "(21) (46) (23.5)",
// "2015:06:02 16:46:23", "-05:00", "25"). nullopt for anything malformed or out of range.
std::optional<double> exifGpsUnixSeconds(std::string_view gps_date_stamp, std::string_view gps_time_stamp);
std::optional<double> exifOffsetUnixSeconds(std::string_view date_time_original, std::string_view offset_time,
                                            std::string_view sub_sec_time = {});
// DateTimeOriginal (+ SubSecTimeOriginal) on the camera's clock, as ExifTimes::camera_clock_s.
std::optional<double> exifCameraClockSeconds(std::string_view date_time_original,
                                             std::string_view sub_sec_time = {});

}  // namespace skytrace::io
