// ArduPilot DataFlash binary logs (.bin: what the autopilot writes to its SD card and
// Mission Planner / QGroundControl download) -> TelemetrySeries. Written from ArduPilot's
// public description of the format (docs/telemetry.md).
//
// The log describes itself: FMT records (type 128) give each message type's name, record
// length and column layout; every record is 0xA3 0x95 <type> <payload>, little-endian.
// What is read:
//   - GPS (instance 0; Status >= 3 for a position): Lat/Lng, Alt (metres MSL), Spd, VZ,
//     and GWk/GMS for UTC (GPS time less the leap seconds of its date);
//   - ATT: Roll/Pitch/Yaw in degrees, the record nearest each position within 0.5 s;
//   - POS: RelHomeAlt as the altitude above home (nearest within 0.5 s), and the
//     positions themselves when no GPS record has a fix (variant "POS");
//   - CAM (or TRIG when there is no CAM) as camera triggers;
//   - the first MSG naming the firmware, and the number of PARM records, as metadata.
// log_t_s is TimeUS (or TimeMS in older logs) since the autopilot's boot. Bytes that
// start no record of a defined type are skipped to the next sync with one warning per
// run of them; a truncated last record is dropped with a warning. Reentrant.
#pragma once

#include <string>
#include <string_view>

#include "core/io/telemetry/telemetry_reader.h"

namespace skytrace::io {

// True when `bytes` begins with a DataFlash FMT record (0xA3 0x95 0x80).
bool isDataflashLog(std::string_view bytes);

// FormatError when the data holds no FMT record (not a DataFlash log); Cancelled when
// options.progress returns false.
TelemetrySeries parseDataflashLog(std::string_view bytes, const std::string& source_name,
                                  const TelemetryReadOptions& options = {});

}  // namespace skytrace::io
