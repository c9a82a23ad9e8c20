#include "core/app/photo_location.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <opencv2/imgcodecs.hpp>

#include "core/geo/basemap.h"
#include "core/geo/photo_metadata.h"
#include "core/nav/camera_pose.h"
#include "core/nav/ground_projection.h"
#include "core/nav/model_choice.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/number_text.h"
#include "core/vision/image.h"

namespace skytrace::app {
namespace {

nav::RegistrationOptions registrationOptions(const LocateRequest& request) {
  nav::RegistrationOptions options;
  options.features.model = request.feature_model;
  options.features.weights_path = request.weights_path;
  options.features.max_keypoints = 2048;
  if (!request.satellite_model.empty()) nav::applySatelliteModel(request.satellite_model, options);
  nav::setSatelliteWeights(request.satellite_weights_path, request.retrieval_weights_path, options);
  if (request.satellite_size_px > 0) options.dense_matcher.resize_long_side_px = request.satellite_size_px;
  try {
    nav::checkRegistrationWeights(options);
  } catch (const ModelError& e) {
    throw ModelError(std::string(e.what()) +
                     ". For --sat-model: --sat-weights FILE (LiteSAM or the features), "
                     "--retrieval-weights FILE (DINOv2)");
  }
  return options;
}

// The camera and height of one photo: the request's values, else the photo's own.
nav::CameraModel photoCamera(const LocateRequest& request, const geo::PhotoMetadata& meta) {
  const double hfov = std::isfinite(request.hfov_deg) ? request.hfov_deg : meta.horizontalFovDeg();
  if (!std::isfinite(hfov)) throw InvalidArgument(meta.path + ": no 35 mm focal length in EXIF; give --hfov-deg");
  return nav::CameraModel::fromHorizontalFov(meta.width_px, meta.height_px, hfov);
}

double photoHeightM(const LocateRequest& request, const geo::PhotoMetadata& meta) {
  const double height = std::isfinite(meta.relative_alt_m) ? meta.relative_alt_m : request.height_m;
  if (!std::isfinite(height)) throw InvalidArgument(meta.path + ": no relative altitude in its XMP; give --alt-m");
  return height;
}

// The share of the photo's footprint, placed by its own GPS, height and gimbal angles
// (heading north and the camera straight down where not written), that lies on valid
// pixels of any of `maps`: a photo that mostly sees ground outside the basemaps cannot be
// located there. A 16 x 12 grid of image points is projected to the ground; points above
// the horizon count as off the map. NaN without a GPS position.
double gpsFootprintOnMaps(const std::vector<geo::Basemap>& maps, const geo::LocalEnuFrame& enu,
                          const nav::CameraModel& camera, const geo::PhotoMetadata& meta, double height_m) {
  if (!meta.hasGps()) return std::numeric_limits<double>::quiet_NaN();
  const geo::EnuPoint at = enu.toEnu({meta.lat_deg, meta.lon_deg, 0.0});
  nav::CameraPose pose;
  pose.position_enu = {at.east_m, at.north_m, height_m};
  pose.yaw_deg = (std::isfinite(meta.gimbal_yaw_deg) ? meta.gimbal_yaw_deg : 0.0) +
                 enu.northAzimuthDeg({meta.lat_deg, meta.lon_deg, 0.0});
  pose.pitch_deg = std::isfinite(meta.gimbal_pitch_deg) ? meta.gimbal_pitch_deg : -90.0;
  pose.roll_deg = 0.0;
  const cv::Matx33d ground_from_image = nav::groundFromImage(camera, pose, 0.0);
  constexpr int kColumns = 16, kRows = 12;
  std::vector<geo::EnuPoint> ground;
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kColumns; ++c) {
      const cv::Vec3d g = ground_from_image * cv::Vec3d((c + 0.5) * camera.width_px / kColumns - 0.5,
                                                        (r + 0.5) * camera.height_px / kRows - 0.5, 1.0);
      if (g[2] > 1e-9) ground.push_back({g[0] / g[2], g[1] / g[2], 0.0});
    }
  }
  std::vector<bool> on_map(ground.size(), false);
  for (const geo::Basemap& map : maps) {
    std::vector<geo::MapPoint> points;
    for (const geo::EnuPoint& p : ground) points.push_back(map.converter().mapFromEnu(enu, p));
    if (points.empty()) break;
    geo::MapRect rect = geo::envelopeOf(points);
    const geo::MapRect bounds = map.mapBounds();
    rect = {std::max(rect.min_x, bounds.min_x), std::max(rect.min_y, bounds.min_y), std::min(rect.max_x, bounds.max_x),
            std::min(rect.max_y, bounds.max_y)};
    if (rect.min_x >= rect.max_x || rect.min_y >= rect.max_y) continue;
    const geo::BasemapWindow window = map.readWindow(rect, map.pixelSizeM());
    for (std::size_t i = 0; i < points.size(); ++i) {
      const geo::PixelPoint px = window.map_from_pixel.pixelFromMap(points[i]);
      const int col = int(std::floor(px.col)), row = int(std::floor(px.row));
      if (col >= 0 && row >= 0 && col < window.valid.cols && row < window.valid.rows &&
          window.valid.at<uchar>(row, col) != 0)
        on_map[i] = true;
    }
  }
  const auto inside = std::count(on_map.begin(), on_map.end(), true);
  return double(inside) / double(kColumns * kRows);
}

}  // namespace

void LocateRequest::check() const {
  checkArgument(!photo_paths.empty(), "locate needs at least one photo");
  checkArgument(!basemap_paths.empty(), "locate needs at least one basemap");
  checkArgument(std::isnan(hfov_deg) || (hfov_deg > 1.0 && hfov_deg < 179.0),
                "the horizontal field of view must be within 1-179 deg");
  checkArgument(std::isnan(height_m) || height_m > 0.0, "the height above ground must be > 0 m");
  checkArgument(satellite_size_px >= 0, "the dense matcher's input size must be >= 0 px");
}

LocateOutcome locatePhotos(const LocateRequest& request, LocateObserver& observer) {
  request.check();
  const nav::RegistrationOptions options = registrationOptions(request);  // before the first photo
  const geo::LocalEnuFrame enu(nav::defaultEnuOrigin(request.basemap_paths.front(), 0.0));
  std::vector<geo::Basemap> maps;
  for (const std::string& path : request.basemap_paths) maps.push_back(geo::Basemap::open(path));
  const engine::RunControl* control = observer.control();
  LocateOutcome outcome;
  const int total = int(request.photo_paths.size());
  for (int index = 0; index < total; ++index) {
    if (control && control->isCancelled()) {
      outcome.cancelled = true;
      break;
    }
    const std::string& path = request.photo_paths[std::size_t(index)];
    const geo::PhotoMetadata meta = geo::readPhotoMetadata(path);
    const nav::CameraModel camera = photoCamera(request, meta);
    nav::RegistrationRequest registration;
    registration.frame = 0;
    registration.height_hint_m = photoHeightM(request, meta);
    const cv::Mat pixels = cv::imread(path, cv::IMREAD_COLOR);
    if (pixels.empty()) throw FormatError(path + ": cannot decode the image");
    registration.image = vision::Image::fromHost(pixels);

    nav::BasemapRegistrar registrar(request.basemap_paths, enu, 0.0, camera, options);
    registrar.setSearchMonitor([&](int done, int units) {
      if (control && control->isCancelled()) throw Cancelled();
      observer.onSearchProgress(path, done, units);
    });
    PhotoLocation photo;
    photo.photo_path = path;
    try {
      photo.fix = registrar.registerFrame(registration);
    } catch (const Cancelled&) {
      outcome.cancelled = true;
      break;
    }
    if (meta.hasGps()) photo.gps = geo::GeoPoint{meta.lat_deg, meta.lon_deg, 0.0};
    photo.gps_footprint_on_map = gpsFootprintOnMaps(maps, enu, camera, meta, registration.height_hint_m);
    if (photo.fix.has_pose) {
      nav::CameraPose reported = photo.fix.pose;
      nav::foldRollIntoYawNearNadir(&reported);
      photo.pose = nav::trackPoseFromCameraPose(reported, enu, 0);
      if (photo.fix.accepted && photo.gps) {
        photo.distance_to_gps_m =
            geo::horizontalDistanceM({photo.pose->lat_deg, photo.pose->lon_deg, 0.0}, *photo.gps);
      }
    }
    outcome.located += photo.fix.accepted ? 1 : 0;
    outcome.photos.push_back(photo);
    observer.onPhotoLocated(outcome.photos.back(), index, total);
  }
  return outcome;
}

std::string locationsCsv(const LocateOutcome& outcome) {
  std::ostringstream csv;
  csv << "image,lat_deg,lon_deg,yaw_deg,height_m,inliers,inlier_ratio,accepted,reason,gps_lat_deg,"
         "gps_lon_deg,distance_to_gps_m,gps_footprint_on_map\n";
  for (const PhotoLocation& photo : outcome.photos) {
    const nav::RegistrationFix& fix = photo.fix;
    csv << photo.photo_path << ',';
    if (photo.pose) {
      csv << fixedDecimals(photo.pose->lat_deg, 9) << ',' << fixedDecimals(photo.pose->lon_deg, 9) << ','
          << fixedDecimals(photo.pose->yaw_deg, 2) << ',' << fixedDecimals(fix.pose.position_enu[2], 2) << ',';
    } else {
      csv << ",,,,";
    }
    csv << fix.inliers << ',' << fix.inlier_ratio << ',' << (fix.accepted ? 1 : 0) << ',' << fix.reason << ',';
    if (photo.gps) {
      csv << fixedDecimals(photo.gps->lat_deg, 9) << ',' << fixedDecimals(photo.gps->lon_deg, 9) << ',';
    } else {
      csv << ",,";
    }
    csv << fixedDecimals(photo.distance_to_gps_m, 2) << ',' << fixedDecimals(photo.gps_footprint_on_map, 3) << '\n';
  }
  return csv.str();
}

}  // namespace skytrace::app
