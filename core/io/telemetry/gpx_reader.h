// GPX flight logs through OGR's GPX driver: track points (else route points, else
// waypoints) in file order with <ele> as absolute altitude and <time> as UTC; log_t_s is
// seconds since the first timed point (points without <time> get NaN-free index seconds
// and a warning). Skytrace's own GPX tracks state their height reference per point
// (extensions alt_m, alt_reference): heights above the take-off point or the ground come
// back as relative altitudes, an `ellipsoid` reference as abs_alt_reference. Reentrant
// (OGR datasets are opened per call).
#pragma once

#include <string>

#include "core/io/telemetry/telemetry_reader.h"

namespace skytrace::io {

// IoError when missing; FormatError when OGR cannot read it as GPX, it holds no points,
// or it is over the size limit.
TelemetrySeries readGpxTelemetry(const std::string& path, const TelemetryReadOptions& options = {});

}  // namespace skytrace::io
