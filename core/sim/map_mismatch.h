// Realistic map mismatch: the basemap an analyst has is never the image the drone saw.
// degradeBasemap() writes a copy of (part of) a basemap that is coarser, blurred,
// colour/season-shifted, slightly mis-georeferenced and partly occluded, all seeded.
// Pure function of its inputs; thread-safe for distinct output paths.
#pragma once

#include <cstdint>
#include <string>

#include "core/geo/basemap.h"

namespace skytrace::sim {

struct MapDegradation {
  double gsd_factor = 2.0;            // output GSD = native GSD x this (>= 1)
  double blur_sigma_px = 0.8;         // Gaussian blur at the output resolution
  double season_shift = 0.5;          // 0 = none, 1 = strong (greens towards dry yellow-brown)
  double brightness_gain = 1.08;
  // Another sensor, light and processing (a satellite image against a drone orthophoto):
  // 0 = none, 1 = strong. Seeded per-channel gains and gammas, contrast pulled towards
  // the mean and a bluish haze.
  double colour_shift = 0.0;
  double georeference_offset_m = 1.5; // shift of the geotransform, seeded direction
  double occluded_fraction = 0.06;    // share of the area under synthetic clouds/haze
  std::uint64_t seed = 1;

  void check() const;  // throws InvalidArgument
};

struct DegradedBasemapInfo {
  std::string path;
  double gsd_m = 0;
  double offset_east_m = 0, offset_north_m = 0;  // applied georeference error
  double occluded_fraction = 0;                   // measured on the written raster
};

// Reads `area` of `source` (raster CRS; empty = whole raster) and writes the degraded
// GeoTIFF to `out_path` in the source CRS. Throws what Basemap/writeGeoTiff throw.
DegradedBasemapInfo degradeBasemap(const geo::Basemap& source, const geo::MapRect& area,
                                   const std::string& out_path, const MapDegradation& options);

}  // namespace skytrace::sim
