// "Locate photos": where each drone photo was taken, from its pixels and the basemaps
// alone (`skytrace-cli locate`). Each photo is registered without any position prior
// (global retrieval + rotation-invariant matching), using only its height above ground
// (DJI XMP RelativeAltitude, or the request's) and its field of view (EXIF 35 mm focal
// length, or the request's). A photo's EXIF GPS is never used for the search; where it
// exists the distance to it is reported.
//
// Threads: locatePhotos runs on the calling thread; the observer is called there too.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/run_control.h"
#include "core/geo/geodesy.h"
#include "core/geo/track.h"
#include "core/nav/basemap_registration.h"

namespace skytrace::app {

// What to locate and how: the options of `skytrace-cli locate` (README, `locate --help`).
struct LocateRequest {
  static constexpr double kFromPhoto = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> photo_paths;    // at least one
  std::vector<std::string> basemap_paths;  // at least one
  // Horizontal field of view, degrees; NaN: from each photo's EXIF 35 mm focal length.
  double hfov_deg = kFromPhoto;
  // Height above ground, metres, for photos whose XMP has no relative altitude (a photo's
  // own altitude wins); NaN: such a photo is refused.
  double height_m = kFromPhoto;
  // Registration models (core/nav/model_choice.h): local features, or RETRIEVAL+FINE.
  std::string feature_model = "sift";
  std::string weights_path;
  std::string satellite_model;  // "": the local features above
  std::string satellite_weights_path;
  std::string retrieval_weights_path;
  int satellite_size_px = 0;  // dense matcher input, 0: its default

  void check() const;  // throws InvalidArgument
};

// One photo's answer.
struct PhotoLocation {
  std::string photo_path;
  nav::RegistrationFix fix;  // accepted or not, with the reason
  // Where the fix has a pose: the camera in WGS84; yaw is the heading of the image's top
  // (roll folded into yaw near nadir, as in every track Skytrace writes).
  std::optional<geo::TrackPose> pose;
  std::optional<geo::GeoPoint> gps;  // the photo's EXIF GPS
  // Horizontal distance from an accepted fix to the EXIF GPS (NaN otherwise).
  double distance_to_gps_m = std::numeric_limits<double>::quiet_NaN();
  // Share (0-1) of the photo's footprint, placed by its own GPS, height and gimbal
  // angles, on valid basemap pixels: why a photo could not be located (NaN without GPS).
  double gps_footprint_on_map = std::numeric_limits<double>::quiet_NaN();
};

struct LocateOutcome {
  std::vector<PhotoLocation> photos;  // in request order; fewer when cancelled
  int located = 0;                    // accepted fixes
  bool cancelled = false;
};

// What a caller watches and controls. Every method has a default that does nothing.
class LocateObserver {
 public:
  virtual ~LocateObserver() = default;
  // After each photo.
  virtual void onPhotoLocated(const PhotoLocation& photo, int index, int total) {}
  // While a global search is prepared for `photo` (minutes for a large map the first
  // time a resolution is seen): done of total units.
  virtual void onSearchProgress(const std::string& photo, int done, int total) {}
  // Cancel (null: none); checked between photos and during a search's preparation.
  virtual const engine::RunControl* control() const { return nullptr; }
};

// Throws skytrace::Error for bad input (a photo without the field of view or height the
// request does not give, an unreadable photo or basemap, missing weights: before the
// first photo). A cancel returns the photos done so far with `cancelled` set.
LocateOutcome locatePhotos(const LocateRequest& request, LocateObserver& observer);

// The CSV `locate --out` writes, one row per photo:
// image,lat_deg,lon_deg,yaw_deg,height_m,inliers,inlier_ratio,accepted,reason,gps_lat_deg,
// gps_lon_deg,distance_to_gps_m,gps_footprint_on_map (empty fields: unknown).
std::string locationsCsv(const LocateOutcome& outcome);

}  // namespace skytrace::app
