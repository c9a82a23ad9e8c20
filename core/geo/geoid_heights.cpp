#include "core/geo/geoid_heights.h"

#include <ogr_spatialref.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/geo/gdal_support.h"
#include "core/util/check.h"
#include "core/util/error.h"

namespace skytrace::geo {
namespace {

struct CoordinateTransformationDeleter {
  void operator()(OGRCoordinateTransformation* ct) const { OGRCoordinateTransformation::DestroyCT(ct); }
};

constexpr const char* kGeoidHelp =
    "the EGM96 geoid grid egm96_15.gtx was not found by PROJ (Debian: install proj-data)";

}  // namespace

struct GeoidModel::Impl {
  // WGS84 3D (EPSG:4979, ellipsoidal heights) -> WGS84 + EGM96 height (EPSG:4326+5773).
  std::unique_ptr<OGRCoordinateTransformation, CoordinateTransformationDeleter> to_msl;
};

GeoidModel::GeoidModel() : impl_(std::make_unique<Impl>()) {
  const detail::SpatialReferencePtr ellipsoidal = detail::makeSpatialReference("EPSG:4979", "WGS 84 3D");
  const detail::SpatialReferencePtr orthometric =
      detail::makeSpatialReference("EPSG:4326+5773", "WGS 84 + EGM96 height");
  detail::GdalErrorCapture errors;
  OGRCoordinateTransformationOptions options;
  options.SetBallparkAllowed(false);  // never a silent zero undulation
  impl_->to_msl.reset(OGRCreateCoordinateTransformation(ellipsoidal.get(), orthometric.get(), options));
  if (!impl_->to_msl) {
    throw GeoreferenceError(std::string("cannot convert between ellipsoid and sea-level heights: ") +
                            kGeoidHelp + " (" + errors.messageOr("PROJ found no operation") + ")");
  }
  // PROJ may build the operation and fail only when the grid is needed: probe once. The
  // EGM96 undulation at 0N 0E is +17.16 m.
  double n_probe = std::numeric_limits<double>::quiet_NaN();
  try {
    n_probe = undulationM(0.0, 0.0);
  } catch (const Error&) {
  }
  if (!(std::abs(n_probe) > 1.0)) {
    throw GeoreferenceError(std::string("cannot convert between ellipsoid and sea-level heights: ") +
                            kGeoidHelp);
  }
}

GeoidModel::~GeoidModel() = default;

std::vector<double> GeoidModel::undulationsM(const std::vector<double>& lat_deg,
                                             const std::vector<double>& lon_deg) const {
  checkArgument(lat_deg.size() == lon_deg.size(), "GeoidModel: latitude and longitude lists differ in length");
  checkArgument(lat_deg.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
                "GeoidModel: too many points in one call");
  for (std::size_t i = 0; i < lat_deg.size(); ++i) {
    checkArgument(std::abs(lat_deg[i]) <= 90.0 && std::abs(lon_deg[i]) <= 180.0,
                  "GeoidModel: point " + std::to_string(i) + " is not a latitude/longitude in degrees");
  }
  std::vector<double> x = lon_deg;
  std::vector<double> y = lat_deg;
  std::vector<double> z(lat_deg.size(), 0.0);  // ellipsoid height 0 -> H = -N
  std::vector<int> success(lat_deg.size(), 0);
  if (x.empty()) return z;
  detail::GdalErrorCapture errors;
  impl_->to_msl->Transform(static_cast<int>(x.size()), x.data(), y.data(), z.data(), success.data());
  for (std::size_t i = 0; i < z.size(); ++i) {
    if (!success[i] || !std::isfinite(z[i])) {
      throw GeoreferenceError("no geoid height at " + std::to_string(lat_deg[i]) + ", " +
                              std::to_string(lon_deg[i]) + ": " + errors.messageOr(kGeoidHelp));
    }
    z[i] = -z[i];
  }
  return z;
}

double GeoidModel::undulationM(double lat_deg, double lon_deg) const {
  return undulationsM({lat_deg}, {lon_deg}).front();
}

}  // namespace skytrace::geo
