#include "core/geo/crs_transform.h"

#include <ogr_spatialref.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>

#include "core/geo/gdal_support.h"
#include "core/util/error.h"

namespace skytrace::geo {
namespace {

struct CoordinateTransformationDeleter {
  void operator()(OGRCoordinateTransformation* ct) const {
    OGRCoordinateTransformation::DestroyCT(ct);
  }
};
using CoordinateTransformationPtr =
    std::unique_ptr<OGRCoordinateTransformation, CoordinateTransformationDeleter>;

std::string shortLabel(const OGRSpatialReference& srs) {
  const char* name = srs.GetName();
  return name != nullptr ? std::string(name) : std::string("unnamed CRS");
}

}  // namespace

struct CrsTransform::Impl {
  std::string source_definition;
  std::string target_definition;
  std::string source_label;
  std::string target_label;
  CoordinateTransformationPtr transformation;
  std::mutex mutex;  // OGRCoordinateTransformation is not safe for concurrent use

  Impl(std::string source, std::string target)
      : source_definition(std::move(source)), target_definition(std::move(target)) {
    const detail::SpatialReferencePtr source_srs =
        detail::makeSpatialReference(source_definition, "source CRS");
    const detail::SpatialReferencePtr target_srs =
        detail::makeSpatialReference(target_definition, "target CRS");
    source_label = shortLabel(*source_srs);
    target_label = shortLabel(*target_srs);
    detail::GdalErrorCapture errors;
    transformation.reset(OGRCreateCoordinateTransformation(source_srs.get(), target_srs.get()));
    if (!transformation) {
      throw GeoreferenceError("no coordinate operation from " + source_label + " to " +
                              target_label + ": " + errors.messageOr("PROJ found none"));
    }
  }

  void transform(std::size_t count, double* x, double* y) {
    if (count == 0) return;
    if (count > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw InvalidArgument("CrsTransform: too many points in one batch");
    }
    std::vector<int> success(count, 0);
    bool ok;
    std::string gdal_message;
    {
      std::lock_guard<std::mutex> lock(mutex);
      detail::GdalErrorCapture errors;
      ok = transformation->Transform(static_cast<int>(count), x, y, nullptr, success.data()) != 0;
      gdal_message = errors.message();
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (!ok || !success[i] || !std::isfinite(x[i]) || !std::isfinite(y[i])) {
        std::ostringstream message;
        message.precision(12);
        message << "cannot transform point #" << i << " of " << count << " from " << source_label
                << " to " << target_label << " (outside the projection's domain?)";
        if (!gdal_message.empty()) message << ": " << gdal_message;
        throw GeoreferenceError(message.str());
      }
    }
  }
};

CrsTransform::CrsTransform(const std::string& source_crs, const std::string& target_crs)
    : impl_(std::make_unique<Impl>(source_crs, target_crs)) {}

CrsTransform::~CrsTransform() = default;
CrsTransform::CrsTransform(CrsTransform&&) noexcept = default;
CrsTransform& CrsTransform::operator=(CrsTransform&&) noexcept = default;

CrsTransform::CrsTransform(const CrsTransform& other)
    : impl_(std::make_unique<Impl>(other.impl_->source_definition,
                                   other.impl_->target_definition)) {}

CrsTransform& CrsTransform::operator=(const CrsTransform& other) {
  if (this != &other) {
    impl_ = std::make_unique<Impl>(other.impl_->source_definition, other.impl_->target_definition);
  }
  return *this;
}

MapPoint CrsTransform::transform(const MapPoint& p_in_source) const {
  MapPoint p = p_in_source;
  impl_->transform(1, &p.x, &p.y);
  return p;
}

void CrsTransform::transformInPlace(std::vector<MapPoint>& points) const {
  if (points.empty()) return;
  std::vector<double> x(points.size()), y(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    x[i] = points[i].x;
    y[i] = points[i].y;
  }
  impl_->transform(points.size(), x.data(), y.data());
  for (std::size_t i = 0; i < points.size(); ++i) points[i] = {x[i], y[i]};
}

std::vector<MapPoint> CrsTransform::transform(const std::vector<MapPoint>& points_in_source) const {
  std::vector<MapPoint> points = points_in_source;
  transformInPlace(points);
  return points;
}

CrsTransform CrsTransform::inverse() const {
  return CrsTransform(impl_->target_definition, impl_->source_definition);
}

const std::string& CrsTransform::sourceCrs() const { return impl_->source_definition; }
const std::string& CrsTransform::targetCrs() const { return impl_->target_definition; }

// --- MapGeoConverter ---------------------------------------------------------------

MapGeoConverter::MapGeoConverter(const std::string& map_crs)
    : wgs84_from_map_(map_crs, wgs84Crs()), map_from_wgs84_(wgs84Crs(), map_crs) {}

GeoPoint MapGeoConverter::geoFromMap(const MapPoint& p_in_map, double alt_m) const {
  const MapPoint lon_lat = wgs84_from_map_.transform(p_in_map);
  return {lon_lat.y, lon_lat.x, alt_m};
}

MapPoint MapGeoConverter::mapFromGeo(const GeoPoint& p) const {
  return map_from_wgs84_.transform(MapPoint{p.lon_deg, p.lat_deg});
}

std::vector<GeoPoint> MapGeoConverter::geoFromMap(const std::vector<MapPoint>& points_in_map) const {
  const std::vector<MapPoint> lon_lat = wgs84_from_map_.transform(points_in_map);
  std::vector<GeoPoint> result;
  result.reserve(lon_lat.size());
  for (const MapPoint& p : lon_lat) result.push_back({p.y, p.x, 0.0});
  return result;
}

std::vector<MapPoint> MapGeoConverter::mapFromGeo(const std::vector<GeoPoint>& points) const {
  std::vector<MapPoint> lon_lat;
  lon_lat.reserve(points.size());
  for (const GeoPoint& p : points) lon_lat.push_back({p.lon_deg, p.lat_deg});
  map_from_wgs84_.transformInPlace(lon_lat);
  return lon_lat;
}

EnuPoint MapGeoConverter::enuFromMap(const LocalEnuFrame& frame, const MapPoint& p_in_map,
                                     double alt_m) const {
  return frame.toEnu(geoFromMap(p_in_map, alt_m));
}

MapPoint MapGeoConverter::mapFromEnu(const LocalEnuFrame& frame, const EnuPoint& p_in_enu) const {
  return mapFromGeo(frame.toGeo(p_in_enu));
}

// --- CRS facts ----------------------------------------------------------------------

std::string wgs84Crs() {
  static const std::string wkt = detail::wktOf(*detail::makeWgs84());
  return wkt;
}

std::string utmCrsFor(const GeoPoint& point) {
  const double lon = std::fmod(std::fmod(point.lon_deg + 180.0, 360.0) + 360.0, 360.0);  // [0, 360)
  const int zone = std::clamp(static_cast<int>(std::floor(lon / 6.0)) + 1, 1, 60);
  return "EPSG:" + std::to_string((point.lat_deg >= 0.0 ? 32600 : 32700) + zone);
}

std::string CrsInfo::shortName() const {
  return authority.empty() ? name : name + " (" + authority + ")";
}

CrsInfo describeCrs(const std::string& crs_definition) {
  const detail::SpatialReferencePtr srs = detail::makeSpatialReference(crs_definition, "CRS");
  CrsInfo info;
  info.wkt = detail::wktOf(*srs);
  info.name = shortLabel(*srs);
  info.is_geographic = srs->IsGeographic() != 0;
  info.is_projected = srs->IsProjected() != 0;
  const char* authority_name = srs->GetAuthorityName(nullptr);
  const char* authority_code = srs->GetAuthorityCode(nullptr);
  if (authority_name == nullptr || authority_code == nullptr) {
    // WKT1 from older files often lacks the top-level code: let PROJ identify it.
    detail::GdalErrorCapture quiet;
    const detail::SpatialReferencePtr guess(srs->Clone());
    if (guess->AutoIdentifyEPSG() == OGRERR_NONE) {
      if (guess->GetAuthorityName(nullptr) && guess->GetAuthorityCode(nullptr)) {
        info.authority = std::string(guess->GetAuthorityName(nullptr)) + ":" +
                         guess->GetAuthorityCode(nullptr);
      }
    }
  } else {
    info.authority = std::string(authority_name) + ":" + authority_code;
  }
  if (info.is_projected) {
    const char* unit = nullptr;
    info.metres_per_unit = srs->GetLinearUnits(&unit);
    info.linear_unit = unit != nullptr ? unit : "";
  }
  return info;
}

}  // namespace skytrace::geo
