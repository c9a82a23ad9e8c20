// MAVLink telemetry logs (.tlog: what QGroundControl and Mission Planner record from the
// telemetry link) -> TelemetrySeries. Written from the MAVLink specification's framing
// and the common / ardupilotmega message definitions (docs/telemetry.md).
//
// A .tlog is a sequence of records: the ground station's receive time (uint64, big-endian,
// microseconds since 1970-01-01 UTC) followed by one MAVLink v1 (0xFE) or v2 (0xFD) frame.
// Frames of the messages read are checked against their CRC (with the message's CRC_EXTRA);
// v2 payloads cut after their last non-zero byte are zero-filled; signed v2 frames are
// accepted (the signature is not verified). What is read, from the vehicle that sent the
// most positions (other systems, e.g. a second vehicle, are counted in a warning):
//   - GPS_RAW_INT (fix_type >= 3): positions, altitude MSL, ground speed;
//   - GLOBAL_POSITION_INT: relative altitude and vertical speed (nearest within 0.5 s),
//     and the positions themselves when no GPS_RAW_INT has a fix (variant
//     "GLOBAL_POSITION_INT");
//   - ATTITUDE: roll, pitch, yaw (nearest within 0.5 s);
//   - CAMERA_FEEDBACK, CAMERA_IMAGE_CAPTURED, else CAMERA_TRIGGER as camera triggers.
// Every time is the ground station's receive time: log_t_s counts from the first record
// and start_unix_s is that record's UTC time, so samples carry UTC; the link's latency
// (typically well under a second) is part of the log's clock, which the log alignment of
// `process` measures. Bytes that start no frame are skipped to the next record whose
// timestamp is within 3 days of the last good one, with one warning per run of them.
// Reentrant.
#pragma once

#include <string>
#include <string_view>

#include "core/io/telemetry/telemetry_reader.h"

namespace skytrace::io {

// True when `bytes` begins with a plausible .tlog record: a timestamp between 1995 and
// 2100 followed by a MAVLink v1 or v2 start byte.
bool isMavlinkTlog(std::string_view bytes);

// FormatError when no MAVLink frame can be found; Cancelled when options.progress returns
// false.
TelemetrySeries parseMavlinkTlog(std::string_view bytes, const std::string& source_name,
                                 const TelemetryReadOptions& options = {});

}  // namespace skytrace::io
