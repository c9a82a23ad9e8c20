// DJI .SRT subtitle telemetry. Each subtitle block (index, "start --> end" time, text)
// becomes one sample at log_t_s = subtitle start, which is the video's own timeline.
// Recognised block texts (several may mix in one file):
//   bracketed  "[iso : 100] [shutter : 1/80.0] [fnum : 280] ... [latitude: 41.42]
//              [longitude: 2.23] [rel_alt: 1.2 abs_alt: 58.0] [altitude: 117.0]
//              [gb_yaw: .. gb_pitch: .. gb_roll: ..]" with SrtCnt/FrameCnt and a
//              "2022-08-07 13:40:40,774,808" camera clock line (also "longtitude").
//   home-gps   "HOME(lon,lat) 2017.07.03 10:15:03" / "GPS(lon,lat,n) BAROMETER:20.1" or
//              "Hb:1.9 Hs:1.9", "ISO:100 Shutter:400 EV:-1/3 Fnum:F2.8" / "TV:60 IR:F2.8".
//   matrice    one line per second: "2022.06.21 16:06:17" / "GPS(lat,lon,0.0M) BAROMETER:0.3M".
//   compact    "F/2.8, SS 400, ISO 100, EV 0, GPS (lon, lat, n), HOME (lon, lat, alt),
//              D 698.70m, H 85.80m, H.S 2.88m/s, V.S 0.00m/s, F.PRY (p°, r°, y°),
//              G.PRY (p°, r°, y°)" (note lon before lat).
// The third GPS(...) value is the satellite count (it stays at 15 while H reads 85 m) and
// is ignored, except the Matrice form's "0.0M" (lat first then) and an explicit "25m"
// altitude. Relative altitude: rel_alt, H, BAROMETER, Hb; absolute:
// abs_alt, altitude. fnum 280 means f/2.8, focal_len 240 means 24 mm. The camera clock
// is the aircraft's local time (taken as if UTC in unix_s). Blocks without a valid
// position are skipped with a line-numbered warning; (0, 0) counts as "no fix".
#pragma once

#include <string>
#include <string_view>

#include "core/io/telemetry/telemetry_reader.h"

namespace skytrace::io {

// Parses SRT text already in memory; `source_name` names it in messages. Throws
// FormatError when the text holds no subtitle block at all or is over the size limit.
TelemetrySeries parseDjiSrt(std::string_view text, const std::string& source_name,
                            const TelemetryReadOptions& options = {});
TelemetrySeries readDjiSrt(const std::string& path, const TelemetryReadOptions& options = {});

}  // namespace skytrace::io
