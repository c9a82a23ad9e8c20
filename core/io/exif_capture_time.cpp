#include "core/io/exif_capture_time.h"

#include <gdal_priv.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "core/io/telemetry/parse_support.h"

namespace skytrace::io {

namespace {

// Non-negative numbers in `text`, in order, whatever separates them ("2015:06:02",
// "(21) (46) (23.5)"). Empty when a character is neither a digit, '.', nor a separator
// from ":() /".
std::vector<double> numbersIn(std::string_view text) {
  std::vector<double> numbers;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == ':' || c == '(' || c == ')' || c == ' ' || c == '/') {
      ++pos;
      continue;
    }
    double value = 0.0;
    if (!detail::isDigit(c) || !detail::scanNumber(text, pos, value)) return {};
    numbers.push_back(value);
  }
  return numbers;
}

bool wholeIn(double v, double lo, double hi) { return v == std::floor(v) && v >= lo && v <= hi; }

// Unix seconds of a calendar date and time of day (UTC); nullopt out of range.
std::optional<double> civilSeconds(double year, double month, double day, double hours, double minutes,
                                   double seconds) {
  if (!wholeIn(year, 1970, 9999) || !wholeIn(month, 1, 12) || !wholeIn(day, 1, 31) || !wholeIn(hours, 0, 23) ||
      !wholeIn(minutes, 0, 59) || !(seconds >= 0.0 && seconds < 61.0))
    return std::nullopt;
  const std::int64_t days = detail::daysFromCivil(static_cast<std::int64_t>(year), static_cast<unsigned>(month),
                                                  static_cast<unsigned>(day));
  return double(days) * 86400.0 + hours * 3600.0 + minutes * 60.0 + seconds;
}

}  // namespace

std::optional<double> exifGpsUnixSeconds(std::string_view gps_date_stamp, std::string_view gps_time_stamp) {
  const std::vector<double> date = numbersIn(gps_date_stamp);
  const std::vector<double> time = numbersIn(gps_time_stamp);
  if (date.size() != 3 || time.size() != 3) return std::nullopt;
  // Seconds may carry a fraction; hours and minutes are whole.
  return civilSeconds(date[0], date[1], date[2], time[0], time[1], time[2]);
}

std::optional<double> exifCameraClockSeconds(std::string_view date_time_original, std::string_view sub_sec_time) {
  const std::vector<double> local = numbersIn(date_time_original);
  if (local.size() != 6) return std::nullopt;
  const std::optional<double> t = civilSeconds(local[0], local[1], local[2], local[3], local[4], local[5]);
  if (!t) return std::nullopt;
  // SubSecTime holds the digits after the decimal point ("25" = 0.25 s); some cameras pad
  // it with spaces.
  double fraction = 0.0;
  double scale = 0.1;
  for (std::size_t i = 0; i < sub_sec_time.size(); ++i) {
    const char c = sub_sec_time[i];
    if (c == ' ' && sub_sec_time.find_first_not_of(' ', i) == std::string_view::npos) break;
    if (!detail::isDigit(c)) return std::nullopt;
    fraction += (c - '0') * scale;
    scale *= 0.1;
  }
  return *t + fraction;
}

std::optional<double> exifOffsetUnixSeconds(std::string_view date_time_original, std::string_view offset_time,
                                            std::string_view sub_sec_time) {
  if (offset_time.size() != 6 || (offset_time[0] != '+' && offset_time[0] != '-') || offset_time[3] != ':')
    return std::nullopt;
  const std::vector<double> offset = numbersIn(offset_time.substr(1));
  if (offset.size() != 2 || !wholeIn(offset[0], 0, 14) || !wholeIn(offset[1], 0, 59)) return std::nullopt;
  const std::optional<double> local = exifCameraClockSeconds(date_time_original, sub_sec_time);
  if (!local) return std::nullopt;
  const double zone_s = (offset_time[0] == '-' ? -1.0 : 1.0) * (offset[0] * 3600.0 + offset[1] * 60.0);
  return *local - zone_s;  // local = UTC + zone
}

ExifTimes readExifTimes(const std::string& image_path) {
  static std::once_flag registered;
  std::call_once(registered, [] { GDALAllRegister(); });
  std::unique_ptr<GDALDataset> ds(
      GDALDataset::FromHandle(GDALOpenEx(image_path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr,
                                         nullptr)));
  ExifTimes times;
  if (!ds) return times;
  auto tag = [&](const char* name) -> std::string_view {
    const char* value = ds->GetMetadataItem(name);
    return value ? std::string_view(value) : std::string_view();
  };
  if (const auto gps = exifGpsUnixSeconds(tag("EXIF_GPSDateStamp"), tag("EXIF_GPSTimeStamp"))) {
    times.utc = ExifCaptureTime{*gps, "exif gps time"};
  } else if (const auto local = exifOffsetUnixSeconds(tag("EXIF_DateTimeOriginal"), tag("EXIF_OffsetTimeOriginal"),
                                                      tag("EXIF_SubSecTimeOriginal"))) {
    times.utc = ExifCaptureTime{*local, "exif local time with offset"};
  }
  times.camera_clock_s = exifCameraClockSeconds(tag("EXIF_DateTimeOriginal"), tag("EXIF_SubSecTimeOriginal"));
  return times;
}

std::optional<ExifCaptureTime> readExifCaptureTime(const std::string& image_path) {
  return readExifTimes(image_path).utc;
}

}  // namespace skytrace::io
