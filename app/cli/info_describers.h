// Per-kind descriptions for `skytrace-cli info PATH`. Each throws a skytrace::Error subtype
// when the file is not of that kind or cannot be read. Main thread.
#pragma once

#include <QString>
#include <QStringList>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/geo/geodesy.h"

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

// A box for the JSON facts (min_lon_deg > max_lon_deg across the antimeridian).
inline nlohmann::json bboxJson(const geo::GeoBBox& box) {
  return {{"min_lat_deg", box.min_lat_deg}, {"max_lat_deg", box.max_lat_deg},
          {"min_lon_deg", box.min_lon_deg}, {"max_lon_deg", box.max_lon_deg}};
}

// A number for the JSON facts: null when not finite.
inline nlohmann::json finiteOrNull(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace skytrace::cli
