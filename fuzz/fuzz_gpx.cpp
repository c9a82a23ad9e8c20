// libFuzzer target: GPX flight logs (readGpxTelemetry on a temporary file: the reader
// checks the file's size on disk first), then what callers do with a series.
#include <cstddef>
#include <cstdint>

#include "core/io/telemetry/gpx_reader.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = skytrace::fuzz::writeTemporaryFile(data, size, "gpx");
  try {
    skytrace::io::TelemetrySeries series = skytrace::io::readGpxTelemetry(path);
    skytrace::io::dropInvalidPositions(series);
    if (!series.samples.empty()) (void)series.interpolate(series.samples.back().log_t_s);
  } catch (const skytrace::Error&) {
  }
  return 0;
}
