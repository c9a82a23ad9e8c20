// Synthesises what a UAV camera records: a perspective projection of a georeferenced
// basemap through a nav::CameraModel at a nav::CameraPose, plus seeded image effects (exposure
// and colour drift, sensor noise, motion blur, JPEG compression).
//
// Per frame: each pixel's ray (camera -> ENU, conventions of camera_pose.h) is
// intersected with the ground (the plane up = ground_up_m of the flight's ENU frame, or
// a DSM), the ground point goes to the basemap CRS (exactly at three points around the
// footprint, an affine map in between: < 1 cm over 1 km), one basemap window covering
// the footprint is read at the needed ground resolution, and cv::remap samples it.
// Pixels whose ray misses the ground (sky, beyond max_range_m) or land outside the
// basemap / on nodata are black, and counted in RenderedFrame::invalid_fraction.
//
// Threads: one FlightRenderer per thread (it holds per-camera ray tables); the Basemap
// it reads may be shared (readWindow serialises).
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "core/geo/basemap.h"
#include "core/geo/geodesy.h"
#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"

namespace skytrace::sim {

// A digital surface model: heights (metres, same reference as the ENU frame's up axis
// once `up_offset_m` is added) on a georeferenced grid, read whole into memory through
// GDAL (band 1, nodata honoured). Plain data after construction; thread-safe to read.
class SurfaceModel {
 public:
  // Throws IoError / FormatError / GeoreferenceError naming the file.
  static SurfaceModel open(const std::string& path);
  // Height in the DSM's units at a point of the DSM's CRS; NaN outside or on nodata.
  double heightAt(const geo::MapPoint& p_in_dsm_crs) const;
  const std::string& path() const { return path_; }
  const std::string& crsWkt() const { return crs_wkt_; }
  double medianHeight_m() const { return median_height_m_; }

 private:
  std::string path_;
  std::string crs_wkt_;
  geo::GeoTransform map_from_pixel_;
  cv::Mat heights_;  // CV_32F, NaN = nodata
  double median_height_m_ = 0;
};

struct ImageEffects {
  double exposure_variation = 0.0;  // RMS of the smooth relative brightness change
  double colour_variation = 0.0;    // RMS of smooth per-channel gain changes (white balance)
  double noise_sigma = 0.0;         // Gaussian sensor noise, grey levels (0..255 scale)
  double shutter_s = 0.0;           // exposure time for motion blur; 0 = no blur
  int jpeg_quality = 0;             // 1..100 recompresses every frame; 0 = off
  std::uint64_t seed = 1;

  void check() const;  // throws InvalidArgument
  bool any() const {
    return exposure_variation > 0 || colour_variation > 0 || noise_sigma > 0 || shutter_s > 0 ||
           jpeg_quality > 0;
  }
};

struct RenderOptions {
  double ground_up_m = 0.0;     // ENU height of the ground plane (without a DSM)
  double max_range_m = 3000.0;  // rays longer than this are treated as sky (black)
  int max_window_px = 4096;     // cap on the basemap window side; GSD grows to fit
  // With a DSM: ENU up of a DSM height h is h + dsm_up_offset_m.
  double dsm_up_offset_m = 0.0;
  ImageEffects effects;

  void check() const;  // throws InvalidArgument
};

struct RenderedFrame {
  cv::Mat bgr;                    // CV_8UC3, camera size
  cv::Mat valid;                  // CV_8UC1, 255 where the pixel saw basemap imagery
  double invalid_fraction = 0.0;  // pixels that saw no basemap (sky, outside, nodata)
  double window_gsd_m = 0.0;      // ground resolution of the basemap window used
};

class FlightRenderer {
 public:
  // `basemap` (and `dsm` if not null) must outlive the renderer. Throws InvalidArgument.
  FlightRenderer(const geo::Basemap& basemap, const geo::LocalEnuFrame& enu_frame,
                 const nav::CameraModel& camera, const RenderOptions& options,
                 const SurfaceModel* dsm = nullptr);
  ~FlightRenderer();
  FlightRenderer(const FlightRenderer&) = delete;
  FlightRenderer& operator=(const FlightRenderer&) = delete;

  // Renders one frame. `previous` (the pose one frame earlier, or null) drives motion
  // blur; `frame_index` seeds the per-frame noise so frames are reproducible in any order.
  RenderedFrame render(const nav::CameraPose& pose, std::int64_t frame_index,
                       const nav::CameraPose* previous = nullptr, double fps = 30.0) const;

  // The geometric part only (no effects): exposed for tests.
  RenderedFrame renderClean(const nav::CameraPose& pose) const;

  const nav::CameraModel& camera() const { return camera_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  nav::CameraModel camera_;
};

}  // namespace skytrace::sim
