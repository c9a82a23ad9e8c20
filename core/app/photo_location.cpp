#include "core/app/photo_location.h"

#include <cmath>
#include <sstream>

#include <opencv2/imgcodecs.hpp>

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
         "gps_lon_deg,distance_to_gps_m\n";
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
    csv << fixedDecimals(photo.distance_to_gps_m, 2) << '\n';
  }
  return csv.str();
}

}  // namespace skytrace::app
