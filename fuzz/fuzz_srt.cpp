// libFuzzer target: DJI SRT parser. Any input must either parse (samples + warnings) or
// throw a skytrace::Error; sanitizers catch memory and UB faults, -timeout catches hangs.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/io/telemetry/srt_reader.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    skytrace::io::TelemetrySeries series = skytrace::io::parseDjiSrt(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.srt");
    // Exercise what callers do with a series.
    if (!series.samples.empty()) {
      const double t0 = series.samples.front().log_t_s, t1 = series.samples.back().log_t_s;
      (void)series.interpolate(0.5 * (t0 + t1));
      (void)series.fieldsPresent();
    }
  } catch (const skytrace::Error&) {
  }
  return 0;
}
