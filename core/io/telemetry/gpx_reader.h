// GPX flight logs through OGR's GPX driver: track points (else route points, else
// waypoints) in file order with <ele> as absolute altitude and <time> as UTC; log_t_s is
// seconds since the first timed point (points without <time> get NaN-free index seconds
// and a warning). Reentrant (OGR datasets are opened per call).
#pragma once

#include <string>

#include "core/io/telemetry/telemetry_reader.h"

namespace skytrace::io {

// IoError when missing; FormatError when OGR cannot read it as GPX, it holds no points,
// or it is over the size limit.
TelemetrySeries readGpxTelemetry(const std::string& path, const TelemetryReadOptions& options = {});

}  // namespace skytrace::io
