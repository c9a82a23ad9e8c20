// The ground-truth CSV the renderer writes, and a header-driven CSV track reader.
// Truth CSV, exactly this header and column order:
//   frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg
// lat/lon with 9 decimals (< 0.1 mm), alt_m = ellipsoidal altitude of the camera centre,
// angles as in core/geo/track.h. Unknown values are empty fields.
// Pure functions, thread-safe.
#pragma once

#include <filesystem>

#include "core/geo/track.h"

namespace skytrace::sim {

// Writes `track` (atomically) in the truth CSV format above. Throws IoError.
void writeTruthCsv(const std::filesystem::path& path, const geo::Track& track);

// Reads any CSV whose header names at least lat_deg and lon_deg (and optionally frame,
// t_s, alt_m, yaw_deg, pitch_deg, roll_deg, source, sigma_m in any order): the truth CSV
// and Skytrace's track CSV. Throws IoError (unreadable) or FormatError naming the file
// and line.
geo::Track readCsvTrack(const std::filesystem::path& path);

}  // namespace skytrace::sim
