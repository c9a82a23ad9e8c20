#include "core/geo/photo_metadata.h"

#include <cstdlib>
#include <filesystem>
#include <regex>

#include <gdal_priv.h>

#include "core/geo/gdal_support.h"
#include "core/util/error.h"

namespace skytrace::geo {
namespace {

// "(46) (50) (33.3855)" -> degrees; "(3.61)" -> 3.61.
double rationalList(const char* text) {
  if (!text) return PhotoMetadata::kUnknown;
  static const std::regex number(R"(\(?\s*([-+0-9.eE]+)\s*\)?)");
  double parts[3] = {0, 0, 0};
  int count = 0;
  std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), number); it != std::sregex_iterator() && count < 3; ++it) {
    parts[count++] = std::atof((*it)[1].str().c_str());
  }
  if (count == 0) return PhotoMetadata::kUnknown;
  return parts[0] + parts[1] / 60.0 + parts[2] / 3600.0;
}

double xmpValue(const std::string& xmp, const std::string& name) {
  const std::regex attribute(name + R"(\s*=\s*"([-+0-9.eE]+)\")");
  std::smatch m;
  if (std::regex_search(xmp, m, attribute)) return std::atof(m[1].str().c_str());
  const std::regex element("<" + name + R"(>\s*([-+0-9.eE]+)\s*<)");
  if (std::regex_search(xmp, m, element)) return std::atof(m[1].str().c_str());
  return PhotoMetadata::kUnknown;
}

}  // namespace

double PhotoMetadata::horizontalFovDeg() const {
  if (!std::isfinite(focal_length_35mm) || focal_length_35mm <= 0) return kUnknown;
  return 2.0 * std::atan(18.0 / focal_length_35mm) * 180.0 / M_PI;
}

PhotoMetadata readPhotoMetadata(const std::string& path) {
  if (!std::filesystem::exists(path)) throw IoError(path + ": file not found");
  detail::ensureGdalRegistered();
  GDALDatasetUniquePtr ds(GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY));
  if (!ds) throw FormatError(path + ": not an image GDAL can read (" + CPLGetLastErrorMsg() + ")");
  PhotoMetadata m;
  m.path = path;
  m.width_px = ds->GetRasterXSize();
  m.height_px = ds->GetRasterYSize();
  const char* lat = ds->GetMetadataItem("EXIF_GPSLatitude");
  const char* lon = ds->GetMetadataItem("EXIF_GPSLongitude");
  if (lat && lon) {
    m.lat_deg = rationalList(lat);
    m.lon_deg = rationalList(lon);
    const char* lat_ref = ds->GetMetadataItem("EXIF_GPSLatitudeRef");
    const char* lon_ref = ds->GetMetadataItem("EXIF_GPSLongitudeRef");
    if (lat_ref && (lat_ref[0] == 'S' || lat_ref[0] == 's')) m.lat_deg = -m.lat_deg;
    if (lon_ref && (lon_ref[0] == 'W' || lon_ref[0] == 'w')) m.lon_deg = -m.lon_deg;
  }
  m.gps_alt_m = rationalList(ds->GetMetadataItem("EXIF_GPSAltitude"));
  m.focal_length_mm = rationalList(ds->GetMetadataItem("EXIF_FocalLength"));
  if (const char* f35 = ds->GetMetadataItem("EXIF_FocalLengthIn35mmFilm")) m.focal_length_35mm = std::atof(f35);
  if (char** xmp = ds->GetMetadata("xml:XMP"); xmp && xmp[0]) {
    const std::string text(xmp[0]);
    m.relative_alt_m = xmpValue(text, "drone-dji:RelativeAltitude");
    m.gimbal_yaw_deg = xmpValue(text, "drone-dji:GimbalYawDegree");
    m.gimbal_pitch_deg = xmpValue(text, "drone-dji:GimbalPitchDegree");
    m.gimbal_roll_deg = xmpValue(text, "drone-dji:GimbalRollDegree");
  }
  return m;
}

}  // namespace skytrace::geo
