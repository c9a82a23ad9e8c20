// libFuzzer target: track files read through OGR (readTrack on GeoJSON, GPX or KML in
// GDAL's memory file system). The first byte chooses the format ('g' GPX, 'k' KML,
// anything else GeoJSON); GDAL's parsing is GDAL's, ours is the layer and field logic.
#include <cstddef>
#include <cstdint>

#include "core/geo/track_io.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const char* extension = data[0] == 'g' ? "gpx" : data[0] == 'k' ? "kml" : "geojson";
  const skytrace::fuzz::MemoryFile file(data + 1, size - 1, extension);
  try {
    const skytrace::geo::Track track = skytrace::geo::readTrack(file.path());
    (void)skytrace::geo::summarizeTrack(track);
  } catch (const skytrace::Error&) {
  }
  return 0;
}
