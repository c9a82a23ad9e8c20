// A folder of drone photos as its own flight log: one sample per photo that has EXIF GPS
// (latitude, longitude, GPSAltitude above mean sea level; DJI's XMP RelativeAltitude and
// gimbal angles where written), timed as `process` times the same folder as a video
// (io::openVideoSource on a folder): by the photos' capture times on the camera's clock
// from the first photo when every photo has one and they increase in file order, else at
// `fps`. So `process --video DIR --telemetry DIR` compares the visual track with the
// photos' own GPS, and `--no-registration` chains odometry from the first photo's.
// Reentrant.
#pragma once

#include <string>

#include "core/io/telemetry/telemetry_series.h"

namespace skytrace::app {

// Throws IoError (no such folder), FormatError (no photo in it has GPS).
io::TelemetrySeries readPhotoFolderLog(const std::string& folder, double fps = 10.0);

// A flight log file (io::readTelemetry) or a photo folder (readPhotoFolderLog).
io::TelemetrySeries readFlightLog(const std::string& path);

}  // namespace skytrace::app
