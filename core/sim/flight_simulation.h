// A complete synthetic flight over a basemap: trajectory inside the basemap's usable
// (valid-imagery) area, rendered video, ground truth, simulated GNSS as DJI-style SRT,
// camera file, manifest, and optionally a degraded copy of the basemap.
//
// Files written into out_dir:
//   flight.mp4          the video (H.264 unless the encoder is missing)
//   flight.srt          DJI-style per-frame telemetry with the configured GNSS errors
//   truth.csv           frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg
//   camera.json         the camera model (camera_model.h)
//   gnss_truth.json     per-frame GNSS errors applied, dropout and spoofed frames
//   flight.json         manifest: inputs, options, seed, ENU origin, area, outputs, warnings
//   basemap_degraded.tif  with degrade: the mismatched map for evaluation
// The ENU origin is the centre of the usable area at ground level; alt_m in truth.csv
// is ellipsoidal (ground_alt_m + height above ground).
// Thread: the calling thread does all the work; progress is reported from it.
#pragma once

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "core/geo/basemap.h"
#include "core/nav/camera_model.h"
#include "core/sim/flight_path.h"
#include "core/sim/flight_renderer.h"
#include "core/sim/map_mismatch.h"
#include "core/sim/srt_writer.h"
#include "core/util/progress.h"

namespace skytrace::sim {

struct FlightSimulationOptions {
  std::string basemap_path;
  std::string dsm_path;     // optional
  std::string camera_path;  // optional camera JSON; otherwise width/height/hfov below
  std::filesystem::path out_dir;

  int width_px = 960;
  int height_px = 540;
  double hfov_deg = 70.0;

  TrajectoryKind trajectory = TrajectoryKind::Lawnmower;
  double altitude_m = std::numeric_limits<double>::quiet_NaN();  // NaN: from the map size
  double altitude_variation_m = 0.0;
  double speed_mps = 8.0;
  double fps = 30.0;
  double duration_s = 0.0;  // 0: the pattern's natural length (capped at max_auto_duration_s)
  double max_auto_duration_s = 60.0;
  double gimbal_pitch_deg = std::numeric_limits<double>::quiet_NaN();
  double yaw_offset_deg = 0.0;
  double attitude_jitter_deg = 0.5;
  double ground_alt_m = 0.0;  // ellipsoidal height of the ground plane (no DSM)

  ImageEffects effects;  // seed is overridden by `seed`
  GnssErrorModel gnss;   // seed is overridden by `seed`
  bool degrade = false;
  MapDegradation degradation;  // seed is overridden by `seed`

  std::uint64_t seed = 1;
  double start_unix_s = 1717236000.0;  // 2024-06-01T10:00:00Z: wall clock of frame 0

  void check() const;  // throws InvalidArgument
};

struct FlightSimulationResult {
  int frames = 0;
  double fps = 0;
  std::filesystem::path video_path, srt_path, truth_path, camera_path, manifest_path;
  std::filesystem::path degraded_basemap_path;  // empty without degrade
  std::string video_fourcc;
  double altitude_m = 0;
  double mean_invalid_fraction = 0;  // of all frames' pixels without imagery
  int frames_leaving_map = 0;        // frames with > 1% of pixels without imagery
  std::vector<std::string> warnings;
};

// The rectangle of the flight's ENU frame where the basemap has imagery: the largest
// axis-aligned rectangle inside the valid mask of a coarse read, whose small holes
// (nodata speckle inside the imagery, at most 2 % of the map across) count as imagery.
// Also returns the ENU origin (its centre, at ground_alt_m).
struct UsableArea {
  geo::GeoPoint origin;
  EnuRect rect;  // in the ENU frame at `origin`
};
UsableArea findUsableArea(const geo::Basemap& basemap, double ground_alt_m);

// Runs the whole simulation. Throws InvalidArgument (options), IoError/FormatError
// (inputs/outputs), Cancelled when `progress` returns false (no partial video is left).
FlightSimulationResult simulateFlight(const FlightSimulationOptions& options,
                                      const ProgressCallback& progress = {});

}  // namespace skytrace::sim
