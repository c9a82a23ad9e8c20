// A procedural, seeded, aerial-looking basemap for the built-in demo (no third-party
// data): farmland parcels with crop-row texture and hedges, a lake with a shore, an
// asphalt road with markings and dirt tracks, a village of buildings with gabled roofs
// and cast shadows (sun from the south-west), a forest patch, tree rows and single trees.
// Written as a GeoTIFF (alpha band, overviews) in a real projected CRS (UTM).
// Pure functions; the same options always give the same pixels. Thread-safe.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <string>

namespace skytrace::sim {

struct ProceduralBasemapOptions {
  int size_px = 2048;       // square raster side
  double gsd_m = 0.25;      // ground size of a pixel
  std::uint64_t seed = 1;
  // Georeference: top-left corner in the CRS below (default: farmland north of Munich,
  // UTM zone 32N).
  std::string crs = "EPSG:32632";
  double origin_easting_m = 690000.0;
  double origin_northing_m = 5350000.0;

  void check() const;  // throws InvalidArgument
};

// The image only: CV_8UC3 in R,G,B order (as BasemapWindow::rgb), size_px x size_px.
cv::Mat generateProceduralAerialImage(const ProceduralBasemapOptions& options);

// Generates and writes the GeoTIFF (atomic). Throws InvalidArgument / IoError.
void writeProceduralBasemap(const std::string& path, const ProceduralBasemapOptions& options);

}  // namespace skytrace::sim
