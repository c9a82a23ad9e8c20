#include "core/geo/gdal_support.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <gdal.h>

#include <mutex>

#include "core/util/error.h"

namespace skytrace::geo::detail {

void ensureGdalRegistered() {
  static std::once_flag once;
  std::call_once(once, [] { GDALAllRegister(); });
}

GdalErrorCapture::GdalErrorCapture() {
  CPLPushErrorHandlerEx(
      [](CPLErr error_class, CPLErrorNum error_number, const char* message) {
        handler(static_cast<int>(error_class), static_cast<int>(error_number), message);
      },
      this);
}

GdalErrorCapture::~GdalErrorCapture() { CPLPopErrorHandler(); }

void GdalErrorCapture::handler(int error_class, int /*error_number*/, const char* message) {
  auto* self = static_cast<GdalErrorCapture*>(CPLGetErrorHandlerUserData());
  if (self == nullptr || message == nullptr) return;
  if (error_class >= CE_Failure) {
    if (self->first_error_.empty()) self->first_error_ = message;
  } else if (error_class == CE_Warning) {
    self->last_warning_ = message;
  }
}

std::string GdalErrorCapture::messageOr(const std::string& fallback) const {
  return message().empty() ? fallback : message();
}

void SpatialReferenceDeleter::operator()(OGRSpatialReference* srs) const {
  if (srs != nullptr) srs->Release();
}

SpatialReferencePtr makeSpatialReference(const std::string& definition, const std::string& what) {
  ensureGdalRegistered();
  if (definition.empty()) {
    throw GeoreferenceError(what + ": no coordinate reference system given");
  }
  GdalErrorCapture errors;
  SpatialReferencePtr srs(new OGRSpatialReference());
  if (srs->SetFromUserInput(definition.c_str()) != OGRERR_NONE) {
    const std::string shown = definition.size() > 80 ? definition.substr(0, 77) + "..." : definition;
    throw GeoreferenceError(what + ": cannot parse coordinate reference system '" + shown +
                            "': " + errors.messageOr("not a WKT, EPSG:code or PROJ string"));
  }
  srs->SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
  return srs;
}

SpatialReferencePtr makeWgs84() {
  ensureGdalRegistered();
  SpatialReferencePtr srs(new OGRSpatialReference());
  srs->importFromEPSG(4326);
  srs->SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
  return srs;
}

std::string wktOf(const OGRSpatialReference& srs) {
  char* wkt = nullptr;
  const char* options[] = {"FORMAT=WKT2_2018", nullptr};
  if (srs.exportToWkt(&wkt, options) != OGRERR_NONE || wkt == nullptr) {
    CPLFree(wkt);
    return {};
  }
  std::string result(wkt);
  CPLFree(wkt);
  return result;
}

}  // namespace skytrace::geo::detail
