// libFuzzer target: tolerant CSV flight-log reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/io/telemetry/csv_track_reader.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    skytrace::io::TelemetrySeries series = skytrace::io::parseCsvTelemetry(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    if (!series.samples.empty()) (void)series.interpolate(series.samples.back().log_t_s);
  } catch (const skytrace::Error&) {
  }
  return 0;
}
