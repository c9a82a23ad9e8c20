#include "core/io/telemetry/gpx_reader.h"

#include <gdal.h>
#include <ogr_api.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <mutex>

#include "core/io/telemetry/parse_support.h"
#include "core/util/error.h"

namespace skytrace::io {

namespace {

struct DatasetCloser {
  void operator()(void* ds) const { GDALClose(ds); }
};
struct FeatureDestroyer {
  void operator()(OGRFeatureH f) const { OGR_F_Destroy(f); }
};

}  // namespace

TelemetrySeries readGpxTelemetry(const std::string& path, const TelemetryReadOptions& options) {
  options.check();
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw IoError(path + ": cannot open the GPX file (" + ec.message() + ")");
  options.checkInput(size, path);
  static std::once_flag registered;
  std::call_once(registered, [] { GDALAllRegister(); });
  const char* drivers[] = {"GPX", nullptr};
  std::unique_ptr<void, DatasetCloser> dataset(
      GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, drivers, nullptr, nullptr));
  if (!dataset)
    throw FormatError(path + ": not a readable GPX file (" + std::string(CPLGetLastErrorMsg()) + ")");

  TelemetrySeries series;
  series.format = "gpx";
  series.source_path = path;
  series.abs_alt_reference = "msl";  // GPX <ele>: above mean sea level (the geoid), as GPS units write it
  detail::WarningSink warnings(series.warnings);
  OGRLayerH layer = nullptr;
  for (const char* name : {"track_points", "route_points", "waypoints"}) {
    OGRLayerH candidate = GDALDatasetGetLayerByName(dataset.get(), name);
    if (candidate && OGR_L_GetFeatureCount(candidate, TRUE) > 0) {
      layer = candidate;
      series.variant = name;
      break;
    }
  }
  if (!layer) throw FormatError(path + ": GPX file holds no track points, route points or waypoints");

  OGRFeatureDefnH definition = OGR_L_GetLayerDefn(layer);
  const int ele_field = OGR_FD_GetFieldIndex(definition, "ele");
  // Skytrace's own GPX tracks state what their heights are above (extensions alt_m and
  // alt_reference); their <ele> is above mean sea level (converted from ellipsoid heights
  // through the EGM96 geoid), and heights above the take-off point or the ground are not
  // in <ele> at all.
  const int alt_field = OGR_FD_GetFieldIndex(definition, "ogr_alt_m");
  const int reference_field = OGR_FD_GetFieldIndex(definition, "ogr_alt_reference");
  const int time_field = OGR_FD_GetFieldIndex(definition, "time");
  const GIntBig total = OGR_L_GetFeatureCount(layer, TRUE);
  OGR_L_ResetReading(layer);
  double first_unix_s = kNoValue;
  double previous_t = -INFINITY;
  std::size_t index = 0;
  std::size_t untimed = 0;
  for (std::unique_ptr<void, FeatureDestroyer> feature(OGR_L_GetNextFeature(layer)); feature;
       feature.reset(OGR_L_GetNextFeature(layer)), ++index) {
    if ((index & 1023) == 0 && !reportProgress(options.progress, total > 0 ? double(index) / double(total) : 0.0, "gpx"))
      throw Cancelled();
    OGRGeometryH geometry = OGR_F_GetGeometryRef(feature.get());
    if (!geometry || OGR_G_IsEmpty(geometry)) {
      warnings.atLine(0, "point " + std::to_string(index + 1) + " has no coordinates; skipped");
      continue;
    }
    TelemetrySample s;
    s.lon_deg = OGR_G_GetX(geometry, 0);
    s.lat_deg = OGR_G_GetY(geometry, 0);
    if (ele_field >= 0 && OGR_F_IsFieldSetAndNotNull(feature.get(), ele_field))
      s.alt_abs_m = OGR_F_GetFieldAsDouble(feature.get(), ele_field);
    if (reference_field >= 0 && OGR_F_IsFieldSetAndNotNull(feature.get(), reference_field)) {
      const std::string reference = OGR_F_GetFieldAsString(feature.get(), reference_field);
      if ((reference == "takeoff" || reference == "ground") && alt_field >= 0 &&
          OGR_F_IsFieldSetAndNotNull(feature.get(), alt_field))
        s.alt_rel_m = OGR_F_GetFieldAsDouble(feature.get(), alt_field);
    }
    double t = kNoValue;
    if (time_field >= 0 && OGR_F_IsFieldSetAndNotNull(feature.get(), time_field)) {
      int year, month, day, hour, minute, tz;
      float second;
      if (OGR_F_GetFieldAsDateTimeEx(feature.get(), time_field, &year, &month, &day, &hour, &minute, &second, &tz)) {
        double unix_s = double(detail::daysFromCivil(year, unsigned(month), unsigned(day))) * 86400.0 +
                        hour * 3600.0 + minute * 60.0 + double(second);
        if (tz > 1 && tz != 100) unix_s -= (tz - 100) * 15 * 60.0;  // OGR: 100 = UTC, 1 step = 15 min
        if (!std::isfinite(first_unix_s)) first_unix_s = unix_s;
        s.unix_s = unix_s;
        t = unix_s - first_unix_s;
      }
    }
    if (!std::isfinite(t)) {
      ++untimed;
      t = static_cast<double>(index);
    }
    if (t < previous_t) {
      warnings.atLine(0, "point " + std::to_string(index + 1) + " goes back in time; skipped");
      continue;
    }
    previous_t = t;
    s.log_t_s = t;
    series.samples.push_back(s);
  }
  if (untimed > 0) warnings.atLine(0, std::to_string(untimed) + " points without <time>: taken 1 s apart");
  series.start_unix_s = first_unix_s;
  warnings.finish();
  return series;
}

}  // namespace skytrace::io
