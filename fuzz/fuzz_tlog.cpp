// libFuzzer target: MAVLink .tlog reader (timestamped v1/v2 frames to a telemetry series).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/io/telemetry/mavlink_tlog_reader.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)skytrace::io::isMavlinkTlog(bytes);
    const skytrace::io::TelemetrySeries series = skytrace::io::parseMavlinkTlog(bytes, "fuzz.tlog");
    if (!series.samples.empty()) (void)series.interpolate(series.samples.front().log_t_s);
  } catch (const skytrace::Error&) {
  }
  return 0;
}
