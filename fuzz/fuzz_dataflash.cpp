// libFuzzer target: ArduPilot DataFlash reader (FMT-described records to a telemetry series).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/io/telemetry/dataflash_reader.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const skytrace::io::TelemetrySeries series = skytrace::io::parseDataflashLog(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.bin");
    if (!series.samples.empty()) (void)series.interpolate(series.samples.front().log_t_s);
  } catch (const skytrace::Error&) {
  }
  return 0;
}
