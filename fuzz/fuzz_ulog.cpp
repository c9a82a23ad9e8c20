// libFuzzer target: PX4 ULog reader and its conversion to a telemetry series.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/io/telemetry/ulog_telemetry.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const skytrace::io::ULogFile file = skytrace::io::parseULog(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.ulg");
    (void)file.lastTimestampUs();
    skytrace::io::TelemetrySeries series = skytrace::io::telemetryFromULog(file);
    if (!series.samples.empty()) (void)series.interpolate(series.samples.front().log_t_s);
  } catch (const skytrace::Error&) {
  }
  return 0;
}
