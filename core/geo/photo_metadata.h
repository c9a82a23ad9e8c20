// Position and attitude metadata of a drone photo: EXIF GPS (WGS84) and focal length, and
// DJI's XMP block (drone-dji:RelativeAltitude, GimbalYaw/Pitch/RollDegree, ...), read
// through GDAL. Used to locate single photos and to score them against their own GPS.
// Thread-safe (each call opens the file on its own).
#pragma once

#include <cmath>
#include <limits>
#include <string>

namespace skytrace::geo {

struct PhotoMetadata {
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  std::string path;
  int width_px = 0;
  int height_px = 0;
  double lat_deg = kUnknown;          // EXIF GPS
  double lon_deg = kUnknown;
  double gps_alt_m = kUnknown;        // EXIF GPSAltitude (above MSL, as cameras write it)
  double relative_alt_m = kUnknown;   // DJI XMP: above the take-off point
  double focal_length_mm = kUnknown;
  double focal_length_35mm = kUnknown;  // 35 mm equivalent (36 mm wide frame)
  double gimbal_yaw_deg = kUnknown;     // DJI XMP, conventions of core/geo/track.h
  double gimbal_pitch_deg = kUnknown;
  double gimbal_roll_deg = kUnknown;

  bool hasGps() const { return std::isfinite(lat_deg) && std::isfinite(lon_deg); }
  // Horizontal field of view from the 35 mm equivalent focal length (NaN when unknown).
  double horizontalFovDeg() const;
};

// Throws IoError (missing/unreadable) or FormatError (not an image GDAL reads).
PhotoMetadata readPhotoMetadata(const std::string& path);

}  // namespace skytrace::geo
