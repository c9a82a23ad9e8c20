// libFuzzer target: Skytrace's track CSV reader (readTrack on a .csv file), then what
// callers do with a track: summary and export validation.
#include <cstddef>
#include <cstdint>

#include "core/geo/track_io.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = skytrace::fuzz::writeTemporaryFile(data, size, "csv");
  try {
    const skytrace::geo::Track track = skytrace::geo::readTrack(path);
    (void)skytrace::geo::summarizeTrack(track);
  } catch (const skytrace::Error&) {
  }
  return 0;
}
