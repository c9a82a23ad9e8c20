// PX4 ULog -> TelemetrySeries: positions from the first GNSS topic present
// (vehicle_gps_position, then sensor_gps, instance 0; lat/lon int32 1e-7 degrees, alt
// int32 millimetres MSL), else from the global position estimate (vehicle_global_position:
// double degrees, float metres AMSL); attitude from vehicle_attitude quaternions (Hamilton
// w,x,y,z, body FRD to NED) at the nearest time within 0.5 s; relative altitude from
// vehicle_local_position (-z). log_t_s is the ULog timestamp (seconds since boot);
// start_unix_s comes from GNSS time_utc_usec. A log without any position topic gives an
// attitude-only series (positions NaN) and a warning. Reentrant.
#pragma once

#include "core/io/telemetry/telemetry_series.h"
#include "core/io/telemetry/ulog_reader.h"

namespace skytrace::io {

TelemetrySeries telemetryFromULog(const ULogFile& file);
TelemetrySeries readULogTelemetry(const std::string& path, const TelemetryReadOptions& options = {});

// Yaw/pitch/roll in degrees (track.h conventions) from a NED attitude quaternion.
void eulerFromNedQuaternion(double w, double x, double y, double z, double& yaw_deg,
                            double& pitch_deg, double& roll_deg);

}  // namespace skytrace::io
