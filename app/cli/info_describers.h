// Per-kind descriptions for `skytrace-cli info PATH`. Each throws a skytrace::Error subtype
// when the file is not of that kind or cannot be read. Main thread.
#pragma once

#include <QString>
#include <QStringList>

#include <cmath>

#include <nlohmann/json.hpp>

namespace skytrace::cli {

// The same facts twice: lines for people ("key: value"), and for programs (`info --json`)
// a JSON object with typed values, units in the names, null where a value is unknown.
struct InfoDescription {
  QStringList lines;
  nlohmann::json facts = nlohmann::json::object();
};

InfoDescription describeRaster(const QString& path);     // info_raster.cpp (GDAL)
InfoDescription describeVideo(const QString& path);      // info_video.cpp (video or image folder)
InfoDescription describeTrack(const QString& path);      // info_track.cpp (Skytrace track files)
InfoDescription describeTelemetry(const QString& path);  // info_telemetry.cpp (flight logs)

// A number for the JSON facts: null when not finite.
inline nlohmann::json finiteOrNull(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace skytrace::cli
