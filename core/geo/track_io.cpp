#include "core/geo/track_io.h"

#include <cpl_string.h>
#include <gdal_priv.h>
#include <ogrsf_frmts.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "core/geo/gdal_support.h"
#include "core/geo/geodesy.h"
#include "core/geo/geoid_heights.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/markup_text.h"

namespace skytrace::geo {
namespace fs = std::filesystem;

const char* const kTrackCsvHeader =
    "frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg,source,sigma_m";

namespace {

// Relative times (unknown start) are written from the epoch; anything earlier than this
// when read back is taken as relative.
constexpr double kRelativeTimeLimitS = 365.0 * 86400.0;

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

struct DatasetCloser {
  void operator()(GDALDataset* dataset) const {
    if (dataset != nullptr) GDALClose(GDALDataset::ToHandle(dataset));
  }
};
using DatasetPtr = std::unique_ptr<GDALDataset, DatasetCloser>;

// The pose's UTC time as Unix seconds; NaN when the track's start is unknown (then no
// format gets an absolute time: relative t_s only).
double absoluteTime(const Track& track, const TrackPose& pose) { return track.start_unix_s + pose.t_s; }

// Broken-down UTC time with fractional seconds, rounded to milliseconds.
struct UtcTime {
  int year, month, day, hour, minute;
  double second;
};

UtcTime utcFromUnix(double unix_s) {
  const double rounded_ms = std::round(unix_s * 1000.0);
  const auto whole_s = static_cast<std::time_t>(std::floor(rounded_ms / 1000.0));
  const double ms = rounded_ms - double(whole_s) * 1000.0;
  std::tm tm{};
  gmtime_r(&whole_s, &tm);
  return {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
          tm.tm_sec + ms / 1000.0};
}

double unixFromUtc(int year, int month, int day, int hour, int minute, double second, int tz_flag) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = 0;
  double t = double(timegm(&tm)) + second;
  // OGR time zone flag: 100 = UTC, 100 + n = UTC + n*15 min; 0/1 = unknown/local (taken as UTC).
  if (tz_flag > 1) t -= (tz_flag - 100) * 15.0 * 60.0;
  return t;
}

void validateTrack(const Track& track, const std::string& path) {
  if (track.poses.empty()) {
    throw InvalidArgument("cannot export " + path + ": the track has no poses");
  }
  for (std::size_t i = 0; i < track.poses.size(); ++i) {
    const TrackPose& p = track.poses[i];
    if (!std::isfinite(p.lat_deg) || !std::isfinite(p.lon_deg) || std::abs(p.lat_deg) > 90.0 ||
        std::abs(p.lon_deg) > 180.0) {
      throw InvalidArgument("cannot export " + path + ": pose #" + std::to_string(i) +
                            " has no valid latitude/longitude");
    }
    if (!std::isfinite(p.t_s)) {
      throw InvalidArgument("cannot export " + path + ": pose #" + std::to_string(i) +
                            " has no valid time (t_s)");
    }
  }
}

// Readers refuse a pose whose coordinates are not a WGS84 position: a NaN or 95 deg
// latitude would otherwise pass into evaluation (rmse nan) and exports.
void requireValidPosition(const TrackPose& p, const std::string& where) {
  if (std::isfinite(p.lat_deg) && std::isfinite(p.lon_deg) && std::abs(p.lat_deg) <= 90.0 &&
      std::abs(p.lon_deg) <= 180.0)
    return;
  throw FormatError(where + ": latitude " + std::to_string(p.lat_deg) + ", longitude " +
                    std::to_string(p.lon_deg) +
                    " is not a WGS84 position (|lat| <= 90, |lon| <= 180)");
}

void checkProgress(const ProgressCallback& progress, std::size_t done, std::size_t total) {
  if (!reportProgress(progress, total ? double(done) / double(total) : 1.0, "export")) {
    throw Cancelled();
  }
}

// --- CSV (our own writer/reader) -----------------------------------------------------

// `decimals` after the point, any magnitude (1e308 has 309 digits), '.' whatever the
// process locale (a Qt application sets LC_NUMERIC from the environment).
std::string fixedNumber(double value, int decimals) {
  char buffer[400];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value,
                                          std::chars_format::fixed, decimals);
  if (error != std::errc()) return std::to_string(value);
  return std::string(buffer, end);
}

std::string csvNumber(double value, int decimals) {
  if (!std::isfinite(value)) return {};
  return fixedNumber(value, decimals);
}

void writeCsv(const Track& track, const fs::path& file, const std::string& target,
              const ProgressCallback& progress) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw IoError("cannot write " + target + ": cannot create temporary file");
  out << kTrackCsvHeader << "\n";
  for (std::size_t i = 0; i < track.poses.size(); ++i) {
    const TrackPose& p = track.poses[i];
    out << (p.frame >= 0 ? std::to_string(p.frame) : std::string()) << ','
        << csvNumber(p.t_s, 6) << ',' << csvNumber(p.lat_deg, 9) << ','
        << csvNumber(p.lon_deg, 9) << ',' << csvNumber(p.alt_m, 3) << ','
        << csvNumber(p.yaw_deg, 4) << ',' << csvNumber(p.pitch_deg, 4) << ','
        << csvNumber(p.roll_deg, 4) << ',' << poseSourceName(p.source) << ','
        << csvNumber(p.sigma_m, 3) << "\n";
    if (i % 1024 == 0) checkProgress(progress, i, track.poses.size());
  }
  out.flush();
  if (!out) throw IoError("cannot write " + target + ": write failed (disk full?)");
}

std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream stream(line);
  while (std::getline(stream, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  for (std::string& f : fields) {
    while (!f.empty() && std::isspace(static_cast<unsigned char>(f.back()))) f.pop_back();
    std::size_t start = 0;
    while (start < f.size() && std::isspace(static_cast<unsigned char>(f[start]))) ++start;
    f = f.substr(start);
    if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
  }
  return fields;
}

Track readCsv(const std::string& path) {
  std::istringstream in(readFileBytes(path));
  std::string line;
  if (!std::getline(in, line)) throw FormatError(path + ": empty file, not a track CSV");
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line = line.substr(3);  // UTF-8 BOM
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string> header = splitCsvLine(line);
  const auto column = [&](const char* name) -> int {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (lowerCase(header[i]) == name) return int(i);
    }
    return -1;
  };
  const int c_frame = column("frame"), c_t = column("t_s"), c_lat = column("lat_deg"),
            c_lon = column("lon_deg"), c_alt = column("alt_m"), c_yaw = column("yaw_deg"),
            c_pitch = column("pitch_deg"), c_roll = column("roll_deg"),
            c_source = column("source"), c_sigma = column("sigma_m");
  if (c_t < 0 || c_lat < 0 || c_lon < 0) {
    throw FormatError(path + ": not a Skytrace track CSV (the header needs t_s, lat_deg and "
                      "lon_deg columns; expected \"" + std::string(kTrackCsvHeader) + "\")");
  }
  Track track;
  track.name = fs::path(path).stem().string();
  int line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = splitCsvLine(line);
    const auto number = [&](int col, bool required) -> double {
      if (col < 0 || col >= int(fields.size()) || fields[col].empty()) {
        if (required) {
          throw FormatError(path + ":" + std::to_string(line_number) + ": missing " + header[col]);
        }
        return TrackPose::kUnknown;
      }
      try {
        std::size_t used = 0;
        const double value = std::stod(fields[col], &used);
        if (used != fields[col].size()) throw std::invalid_argument("trailing characters");
        return value;
      } catch (const std::exception&) {
        throw FormatError(path + ":" + std::to_string(line_number) + ": '" + fields[col] +
                          "' in column " + header[col] + " is not a number");
      }
    };
    TrackPose pose;
    const double frame = number(c_frame, false);
    pose.frame = std::isfinite(frame) ? static_cast<std::int64_t>(std::llround(frame)) : -1;
    pose.t_s = number(c_t, true);
    pose.lat_deg = number(c_lat, true);
    pose.lon_deg = number(c_lon, true);
    pose.alt_m = number(c_alt, false);
    pose.yaw_deg = number(c_yaw, false);
    pose.pitch_deg = number(c_pitch, false);
    pose.roll_deg = number(c_roll, false);
    pose.sigma_m = number(c_sigma, false);
    if (c_source >= 0 && c_source < int(fields.size())) pose.source = parsePoseSource(fields[c_source]);
    requireValidPosition(pose, path + ":" + std::to_string(line_number));
    if (!std::isfinite(pose.t_s))
      throw FormatError(path + ":" + std::to_string(line_number) + ": t_s '" + fields[c_t] +
                        "' is not a finite time");
    track.poses.push_back(pose);
  }
  return track;
}

// --- OGR writers ---------------------------------------------------------------------

class OgrWriter {
 public:
  OgrWriter(const char* driver_name, const fs::path& file, const std::string& target,
            CSLConstList options)
      : target_(target) {
    detail::ensureGdalRegistered();
    GDALDriver* driver = GetGDALDriverManager()->GetDriverByName(driver_name);
    if (driver == nullptr) {
      throw IoError("cannot write " + target + ": this GDAL build has no " + driver_name + " driver");
    }
    dataset_.reset(driver->Create(file.c_str(), 0, 0, 0, GDT_Unknown, options));
    if (!dataset_) fail("cannot create the file");
    wgs84_ = detail::makeWgs84();
  }

  OGRLayer* createLayer(const char* name, OGRwkbGeometryType type, CSLConstList options = nullptr) {
    OGRLayer* layer = dataset_->CreateLayer(name, wgs84_.get(), type, const_cast<char**>(options));
    if (layer == nullptr) fail(std::string("cannot create layer ") + name);
    return layer;
  }

  void addField(OGRLayer* layer, const char* name, OGRFieldType type) {
    OGRFieldDefn field(name, type);
    if (layer->CreateField(&field) != OGRERR_NONE) fail(std::string("cannot create field ") + name);
  }

  void addFeature(OGRLayer* layer, OGRFeature& feature) {
    if (layer->CreateFeature(&feature) != OGRERR_NONE) fail("cannot write a feature");
  }

  // Closes the dataset (OGR drivers write on close); throws on any reported error.
  void close() {
    dataset_.reset();
    if (errors_.hasError()) fail("closing failed");
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw IoError("cannot write " + target_ + ": " + what +
                  (errors_.message().empty() ? std::string() : ": " + errors_.message()));
  }

 private:
  std::string target_;
  detail::GdalErrorCapture errors_;  // declared before dataset_: outlives it
  DatasetPtr dataset_;
  detail::SpatialReferencePtr wgs84_;
};

void setReal(OGRFeature& f, const char* name, double value) {
  const int index = f.GetFieldIndex(name);
  if (index >= 0 && std::isfinite(value)) f.SetField(index, value);
}

void setTime(OGRFeature& f, const char* name, double unix_s) {
  const int index = f.GetFieldIndex(name);
  if (index < 0) return;
  const UtcTime t = utcFromUnix(unix_s);
  f.SetField(index, t.year, t.month, t.day, t.hour, t.minute, static_cast<float>(t.second), 100);
}

void setPoseAttributes(OGRFeature& f, const Track& track, const TrackPose& p) {
  const int frame = f.GetFieldIndex("frame");
  if (frame >= 0 && p.frame >= 0) f.SetField(frame, static_cast<GIntBig>(p.frame));
  setReal(f, "t_s", p.t_s);
  const double time = absoluteTime(track, p);
  if (std::isfinite(time)) setTime(f, "time", time);
  setReal(f, "alt_m", p.alt_m);
  setReal(f, "yaw_deg", p.yaw_deg);
  setReal(f, "pitch_deg", p.pitch_deg);
  setReal(f, "roll_deg", p.roll_deg);
  const int source = f.GetFieldIndex("source");
  if (source >= 0) f.SetField(source, poseSourceName(p.source));
  setReal(f, "sigma_m", p.sigma_m);
  const int reference = f.GetFieldIndex("alt_reference");
  if (reference >= 0) f.SetField(reference, track.alt_reference.c_str());
}

void addPoseFields(OgrWriter& writer, OGRLayer* layer, bool with_alt_field) {
  writer.addField(layer, "frame", OFTInteger64);
  writer.addField(layer, "t_s", OFTReal);
  if (with_alt_field) writer.addField(layer, "alt_m", OFTReal);
  writer.addField(layer, "yaw_deg", OFTReal);
  writer.addField(layer, "pitch_deg", OFTReal);
  writer.addField(layer, "roll_deg", OFTReal);
  writer.addField(layer, "source", OFTString);
  writer.addField(layer, "sigma_m", OFTReal);
  writer.addField(layer, "alt_reference", OFTString);  // every pose says what alt_m is above
}

// Heights above the ellipsoid or sea level are elevations and go into coordinates, each
// format in its own datum: GeoJSON z above the ellipsoid (RFC 7946), GPX <ele> and KML
// "absolute" above mean sea level (EGM96). Heights above the take-off point or the ground
// are not elevations: they stay in the alt_m attribute (KML: relativeToGround).
bool altitudeIsElevation(const Track& track) {
  return track.alt_reference == "ellipsoid" || track.alt_reference == "msl";
}

// The poses' heights above `datum` ("ellipsoid" or "msl"): alt_m as it is when the track
// is in that datum, else converted through the EGM96 geoid; NaN where a pose has no height.
// Empty when the track's heights are not elevations, or the geoid grid is missing (the
// heights then stay in the alt_m attribute only: nothing is written in a wrong datum).
std::vector<double> elevationsAbove(const Track& track, const std::string& datum) {
  if (!altitudeIsElevation(track)) return {};
  std::vector<double> heights(track.poses.size());
  for (std::size_t i = 0; i < track.poses.size(); ++i) heights[i] = track.poses[i].alt_m;
  if (track.alt_reference == datum) return heights;
  std::vector<double> lat, lon;
  lat.reserve(heights.size());
  lon.reserve(heights.size());
  for (const TrackPose& p : track.poses) {
    lat.push_back(p.lat_deg);
    lon.push_back(p.lon_deg);
  }
  std::vector<double> undulation;
  try {
    undulation = GeoidModel().undulationsM(lat, lon);
  } catch (const GeoreferenceError&) {
    return {};
  }
  const double sign = datum == "msl" ? -1.0 : 1.0;  // h_ellipsoid = H_msl + N
  for (std::size_t i = 0; i < heights.size(); ++i) heights[i] += sign * undulation[i];
  return heights;
}

// Heights for drawing the track line: the poses' own where known; a pose without one gets
// the height interpolated in time between its known neighbours (held at the ends), so the
// line does not drop to the ground where a log misses a height. The pose points keep the
// gap. Empty when no pose has a height.
std::vector<double> lineHeights(const Track& track, const std::vector<double>& heights) {
  std::vector<std::size_t> known;
  for (std::size_t i = 0; i < heights.size(); ++i) {
    if (std::isfinite(heights[i])) known.push_back(i);
  }
  if (known.empty()) return {};
  std::vector<double> filled = heights;
  std::size_t next = 0;  // index into `known` of the first known pose after i
  for (std::size_t i = 0; i < filled.size(); ++i) {
    while (next < known.size() && known[next] <= i) ++next;
    if (std::isfinite(filled[i])) continue;
    if (next == 0) {
      filled[i] = heights[known.front()];
    } else if (next == known.size()) {
      filled[i] = heights[known.back()];
    } else {
      const std::size_t a = known[next - 1], b = known[next];
      const double span = track.poses[b].t_s - track.poses[a].t_s;
      const double w = span > 0.0 ? (track.poses[i].t_s - track.poses[a].t_s) / span
                                  : double(i - a) / double(b - a);
      filled[i] = heights[a] + std::clamp(w, 0.0, 1.0) * (heights[b] - heights[a]);
    }
  }
  return filled;
}

// Pose i's height in `heights` (one per pose, or empty: none known).
double heightAt(const std::vector<double>& heights, std::size_t i) {
  return heights.empty() ? TrackPose::kUnknown : heights[i];
}

OGRPoint pointOf(const TrackPose& p, double height = TrackPose::kUnknown) {
  if (std::isfinite(height)) return OGRPoint(p.lon_deg, p.lat_deg, height);
  return OGRPoint(p.lon_deg, p.lat_deg);
}

OGRLineString lineOf(const Track& track, const std::vector<double>& heights) {
  OGRLineString line;
  for (std::size_t i = 0; i < track.poses.size(); ++i) {
    const TrackPose& p = track.poses[i];
    if (!heights.empty()) {
      line.addPoint(p.lon_deg, p.lat_deg, heights[i]);
    } else {
      line.addPoint(p.lon_deg, p.lat_deg);
    }
  }
  return line;
}

std::string startTimeText(const Track& track) {
  return std::isfinite(track.start_unix_s) ? isoTimeFromUnixSeconds(track.start_unix_s) : std::string();
}

void writeGeoJson(const Track& track, const fs::path& file, const std::string& target,
                  const ProgressCallback& progress) {
  OgrWriter writer("GeoJSON", file, target, nullptr);
  CPLStringList layer_options;
  layer_options.SetNameValue("RFC7946", "YES");
  layer_options.SetNameValue("COORDINATE_PRECISION", "9");
  layer_options.SetNameValue("WRITE_NAME", "NO");
  OGRLayer* layer = writer.createLayer(track.name.empty() ? "track" : track.name.c_str(),
                                       wkbUnknown, layer_options.List());
  writer.addField(layer, "kind", OFTString);
  writer.addField(layer, "name", OFTString);
  writer.addField(layer, "start_time", OFTString);
  writer.addField(layer, "time", OFTDateTime);
  addPoseFields(writer, layer, true);
  const std::vector<double> heights = elevationsAbove(track, "ellipsoid");
  if (track.poses.size() >= 2) {
    OGRFeature line(layer->GetLayerDefn());
    line.SetField("kind", "track");
    line.SetField("name", track.name.c_str());
    if (std::isfinite(track.start_unix_s)) line.SetField("start_time", startTimeText(track).c_str());
    line.SetField("alt_reference", track.alt_reference.c_str());
    OGRLineString geometry = lineOf(track, lineHeights(track, heights));
    line.SetGeometry(&geometry);
    writer.addFeature(layer, line);
  }
  for (std::size_t i = 0; i < track.poses.size(); ++i) {
    OGRFeature f(layer->GetLayerDefn());
    f.SetField("kind", "pose");
    setPoseAttributes(f, track, track.poses[i]);
    OGRPoint point = pointOf(track.poses[i], heightAt(heights, i));
    f.SetGeometry(&point);
    writer.addFeature(layer, f);
    if (i % 256 == 0) checkProgress(progress, i, track.poses.size());
  }
  writer.close();
}

void writeGpx(const Track& track, const fs::path& file, const std::string& target,
              const ProgressCallback& progress) {
  CPLStringList options;
  options.SetNameValue("GPX_USE_EXTENSIONS", "YES");
  OgrWriter writer("GPX", file, target, options.List());
  OGRLayer* layer = writer.createLayer("track_points", wkbPoint);
  // ele, time, track_fid, track_seg_id are GPX's own fields; the rest become extensions.
  // <ele> is above mean sea level; alt_m keeps the track's own heights in its reference
  // (a height above the take-off point or the ground is in alt_m only).
  const std::vector<double> ele = elevationsAbove(track, "msl");
  addPoseFields(writer, layer, true);
  for (std::size_t i = 0; i < track.poses.size(); ++i) {
    const TrackPose& p = track.poses[i];
    OGRFeature f(layer->GetLayerDefn());
    f.SetField("track_fid", 0);
    f.SetField("track_seg_id", 0);
    if (!ele.empty()) setReal(f, "ele", ele[i]);
    setPoseAttributes(f, track, p);
    OGRPoint point = pointOf(p);
    f.SetGeometry(&point);
    writer.addFeature(layer, f);
    if (i % 256 == 0) checkProgress(progress, i, track.poses.size());
  }
  writer.close();
}

// --- KML (our own streaming writer; OGR's LIBKML driver takes quadratic time) ---------

// KML's heights: "absolute" ones are above mean sea level (EGM96), so ellipsoid heights
// are converted; heights above the take-off point or the ground are "relativeToGround"
// (the take-off point taken as the ground under the drone). Empty heights: clampToGround.
struct KmlHeights {
  const char* mode = "clampToGround";
  std::vector<double> heights;  // per pose, NaN where unknown; empty when none
};
KmlHeights kmlHeights(const Track& track) {
  KmlHeights out;
  if (altitudeIsElevation(track)) {
    out.heights = elevationsAbove(track, "msl");
    if (!out.heights.empty()) out.mode = "absolute";
  } else {
    out.mode = "relativeToGround";
    for (const TrackPose& p : track.poses) out.heights.push_back(p.alt_m);
  }
  return out;
}

std::string kmlCoordinates(const TrackPose& p, double height) {
  std::string text = fixedNumber(p.lon_deg, 9) + "," + fixedNumber(p.lat_deg, 9);
  if (std::isfinite(height)) text += "," + fixedNumber(height, 3);
  return text;
}

// One Document with two Folders, which OGR reads as the layers "track" (the line; with
// absolute times also a gx:Track, the timed line Google Earth's time slider and QGIS's
// temporal controller play) and "poses" (one Placemark per pose: name, TimeStamp, the
// pose attributes as typed SchemaData, the point). Time and memory linear in the poses.
void writeKml(const Track& track, const fs::path& file, const std::string& target,
              const ProgressCallback& progress) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw IoError("cannot write " + target + ": cannot create temporary file");
  const KmlHeights kml = kmlHeights(track);
  const std::vector<double> line_heights = lineHeights(track, kml.heights);
  const char* line_mode = line_heights.empty() ? "clampToGround" : kml.mode;
  const std::string name = markupEscaped(track.name.empty() ? "track" : track.name);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<kml xmlns=\"http://www.opengis.net/kml/2.2\" xmlns:gx=\"http://www.google.com/kml/ext/2.2\">\n"
         "<Document id=\"root_doc\">\n"
      << "<name>" << name << "</name>\n"
      << "<Schema name=\"poses\" id=\"poses\">\n"
         "  <SimpleField name=\"frame\" type=\"int\"></SimpleField>\n"
         "  <SimpleField name=\"t_s\" type=\"double\"></SimpleField>\n"
         "  <SimpleField name=\"alt_m\" type=\"double\"></SimpleField>\n"
         "  <SimpleField name=\"yaw_deg\" type=\"double\"></SimpleField>\n"
         "  <SimpleField name=\"pitch_deg\" type=\"double\"></SimpleField>\n"
         "  <SimpleField name=\"roll_deg\" type=\"double\"></SimpleField>\n"
         "  <SimpleField name=\"source\" type=\"string\"></SimpleField>\n"
         "  <SimpleField name=\"sigma_m\" type=\"double\"></SimpleField>\n"
         "  <SimpleField name=\"alt_reference\" type=\"string\"></SimpleField>\n"
         "</Schema>\n";
  out << "<Folder><name>track</name>\n";
  if (track.poses.size() >= 2) {
    out << "<Placemark><name>" << name << "</name>\n<LineString><altitudeMode>"
        << line_mode << "</altitudeMode><coordinates>\n";
    for (std::size_t i = 0; i < track.poses.size(); ++i)
      out << kmlCoordinates(track.poses[i], heightAt(line_heights, i)) << "\n";
    out << "</coordinates></LineString></Placemark>\n";
    bool all_timed = true;
    for (const TrackPose& p : track.poses) all_timed = all_timed && std::isfinite(absoluteTime(track, p));
    if (all_timed) {
      out << "<Placemark><name>" << name << " (timed)</name>\n<gx:Track><altitudeMode>"
          << line_mode << "</altitudeMode>\n";
      for (const TrackPose& p : track.poses)
        out << "<when>" << isoTimeFromUnixSeconds(absoluteTime(track, p)) << "</when>\n";
      for (std::size_t i = 0; i < track.poses.size(); ++i) {
        const TrackPose& p = track.poses[i];
        out << "<gx:coord>" << fixedNumber(p.lon_deg, 9) << " " << fixedNumber(p.lat_deg, 9) << " "
            << (line_heights.empty() ? std::string("0") : fixedNumber(line_heights[i], 3)) << "</gx:coord>\n";
      }
      out << "</gx:Track></Placemark>\n";
    }
  }
  out << "</Folder>\n<Folder><name>poses</name>\n";
  const auto simple = [&out](const char* field, const std::string& value) {
    if (!value.empty()) out << "<SimpleData name=\"" << field << "\">" << value << "</SimpleData>";
  };
  const std::string alt_reference = markupEscaped(track.alt_reference);
  for (std::size_t i = 0; i < track.poses.size(); ++i) {
    const TrackPose& p = track.poses[i];
    const double height = heightAt(kml.heights, i);
    out << "<Placemark><name>"
        << (p.frame >= 0 ? "frame " + std::to_string(p.frame) : "pose " + std::to_string(i))
        << "</name>";
    const double time = absoluteTime(track, p);
    if (std::isfinite(time)) out << "<TimeStamp><when>" << isoTimeFromUnixSeconds(time) << "</when></TimeStamp>";
    out << "\n<ExtendedData><SchemaData schemaUrl=\"#poses\">";
    if (p.frame >= 0) simple("frame", std::to_string(p.frame));
    simple("t_s", csvNumber(p.t_s, 6));
    simple("alt_m", csvNumber(p.alt_m, 3));
    simple("yaw_deg", csvNumber(p.yaw_deg, 4));
    simple("pitch_deg", csvNumber(p.pitch_deg, 4));
    simple("roll_deg", csvNumber(p.roll_deg, 4));
    simple("source", poseSourceName(p.source));
    simple("sigma_m", csvNumber(p.sigma_m, 3));
    simple("alt_reference", alt_reference);
    out << "</SchemaData></ExtendedData>\n<Point><altitudeMode>" << (std::isfinite(height) ? kml.mode : "clampToGround")
        << "</altitudeMode><coordinates>" << kmlCoordinates(p, height)
        << "</coordinates></Point></Placemark>\n";
    if (i % 1024 == 0) checkProgress(progress, i, track.poses.size());
  }
  out << "</Folder>\n</Document>\n</kml>\n";
  out.flush();
  if (!out) throw IoError("cannot write " + target + ": write failed (disk full?)");
}

void writeGeoPackage(const Track& track, const fs::path& file, const std::string& target,
                     const ProgressCallback& progress) {
  OgrWriter writer("GPKG", file, target, nullptr);
  OGRLayer* layer = writer.createLayer("poses", wkbPoint);
  writer.addField(layer, "time", OFTDateTime);
  addPoseFields(writer, layer, true);
  if (layer->StartTransaction() != OGRERR_NONE) writer.fail("cannot start a transaction");
  for (std::size_t i = 0; i < track.poses.size(); ++i) {
    OGRFeature f(layer->GetLayerDefn());
    setPoseAttributes(f, track, track.poses[i]);
    OGRPoint point = pointOf(track.poses[i]);
    f.SetGeometry(&point);
    writer.addFeature(layer, f);
    if (i % 256 == 0) checkProgress(progress, i, track.poses.size());
  }
  if (layer->CommitTransaction() != OGRERR_NONE) writer.fail("cannot commit the poses");
  OGRLayer* line_layer = writer.createLayer("track", wkbLineString);
  writer.addField(line_layer, "name", OFTString);
  writer.addField(line_layer, "start_time", OFTDateTime);
  writer.addField(line_layer, "alt_reference", OFTString);
  writer.addField(line_layer, "pose_count", OFTInteger64);
  if (track.poses.size() >= 2) {
    OGRFeature line(line_layer->GetLayerDefn());
    line.SetField("name", track.name.c_str());
    if (std::isfinite(track.start_unix_s)) setTime(line, "start_time", track.start_unix_s);
    line.SetField("alt_reference", track.alt_reference.c_str());
    line.SetField("pose_count", static_cast<GIntBig>(track.poses.size()));
    OGRLineString geometry;
    for (const TrackPose& p : track.poses) geometry.addPoint(p.lon_deg, p.lat_deg);
    line.SetGeometry(&geometry);
    writer.addFeature(line_layer, line);
  }
  writer.close();
}

// --- OGR reader ----------------------------------------------------------------------

// The layer holding the poses: GPX track_points, our "poses", else the first layer that
// has point features.
OGRLayer* findPoseLayer(GDALDataset& dataset) {
  for (const char* name : {"track_points", "poses"}) {
    if (OGRLayer* layer = dataset.GetLayerByName(name)) {
      if (layer->GetFeatureCount() > 0) return layer;
    }
  }
  for (int i = 0; i < dataset.GetLayerCount(); ++i) {
    OGRLayer* layer = dataset.GetLayer(i);
    layer->ResetReading();
    while (std::unique_ptr<OGRFeature> f{layer->GetNextFeature()}) {
      const OGRGeometry* g = f->GetGeometryRef();
      if (g != nullptr && wkbFlatten(g->getGeometryType()) == wkbPoint) {
        layer->ResetReading();
        return layer;
      }
    }
  }
  return nullptr;
}

int fieldIndex(OGRFeatureDefn* defn, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const int index = defn->GetFieldIndex(name);
    if (index >= 0) return index;
  }
  return -1;
}

Track readWithOgr(const std::string& path) {
  detail::ensureGdalRegistered();
  detail::GdalErrorCapture errors;
  DatasetPtr dataset(GDALDataset::FromHandle(
      GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr)));
  if (!dataset) {
    throw FormatError(path + ": not a track file OGR can read: " +
                      errors.messageOr("unrecognised format or corrupt file"));
  }
  OGRLayer* layer = findPoseLayer(*dataset);
  if (layer == nullptr) throw FormatError(path + ": not a track (no point features)");
  OGRFeatureDefn* defn = layer->GetLayerDefn();
  const int f_kind = fieldIndex(defn, {"kind"});
  const int f_frame = fieldIndex(defn, {"frame", "ogr_frame"});
  const int f_t = fieldIndex(defn, {"t_s", "ogr_t_s"});
  const int f_time = fieldIndex(defn, {"time", "timestamp"});
  const int f_alt = fieldIndex(defn, {"alt_m", "ogr_alt_m", "ele"});
  const int f_yaw = fieldIndex(defn, {"yaw_deg", "ogr_yaw_deg"});
  const int f_pitch = fieldIndex(defn, {"pitch_deg", "ogr_pitch_deg"});
  const int f_roll = fieldIndex(defn, {"roll_deg", "ogr_roll_deg"});
  const int f_source = fieldIndex(defn, {"source", "ogr_source"});
  const int f_sigma = fieldIndex(defn, {"sigma_m", "ogr_sigma_m"});
  const int f_reference = fieldIndex(defn, {"alt_reference", "ogr_alt_reference"});
  if (f_t < 0 && f_time < 0) {
    throw FormatError(path + ": not a track (points have neither a t_s nor a time attribute)");
  }
  // Geometries may come in another CRS (GeoPackage, shapefiles): transform to WGS84.
  std::unique_ptr<OGRCoordinateTransformation> to_wgs84;
  if (const OGRSpatialReference* srs = layer->GetSpatialRef()) {
    detail::SpatialReferencePtr wgs84 = detail::makeWgs84();
    detail::SpatialReferencePtr source(srs->Clone());
    source->SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    if (!source->IsSame(wgs84.get())) {
      to_wgs84.reset(OGRCreateCoordinateTransformation(source.get(), wgs84.get()));
      if (!to_wgs84) throw FormatError(path + ": its CRS cannot be transformed to WGS84");
    }
  }
  const auto real = [](OGRFeature& f, int index) {
    return index >= 0 && f.IsFieldSetAndNotNull(index) ? f.GetFieldAsDouble(index) : TrackPose::kUnknown;
  };

  Track track;
  track.name = fs::path(path).stem().string();
  // A file that does not say what its heights are above: GPX <ele> and KML coordinates
  // are above mean sea level by those formats' conventions, GeoJSON's z above the ellipsoid.
  if (f_reference < 0) {
    const std::string driver = dataset->GetDriver() ? dataset->GetDriver()->GetDescription() : "";
    const bool from_ele = f_alt >= 0 && std::string(defn->GetFieldDefn(f_alt)->GetNameRef()) == "ele";
    if (from_ele || driver == "KML" || driver == "LIBKML") track.alt_reference = "msl";
  }
  std::vector<double> times;  // absolute or relative seconds from the time field, NaN if none
  layer->ResetReading();
  while (std::unique_ptr<OGRFeature> f{layer->GetNextFeature()}) {
    OGRGeometry* g = f->GetGeometryRef();
    if (g == nullptr) continue;
    if (wkbFlatten(g->getGeometryType()) != wkbPoint) {
      // The track line of our GeoJSON: pick up its metadata.
      if (f_kind >= 0 && std::string(f->GetFieldAsString(f_kind)) == "track") {
        const int name = f->GetFieldIndex("name");
        if (name >= 0 && f->IsFieldSetAndNotNull(name)) track.name = f->GetFieldAsString(name);
        const int reference = f->GetFieldIndex("alt_reference");
        if (reference >= 0 && f->IsFieldSetAndNotNull(reference)) {
          track.alt_reference = f->GetFieldAsString(reference);
        }
      }
      continue;
    }
    OGRPoint point = *g->toPoint();
    if (to_wgs84 && point.transform(to_wgs84.get()) != OGRERR_NONE) {
      throw FormatError(path + ": a point cannot be transformed to WGS84");
    }
    TrackPose pose;
    pose.lon_deg = point.getX();
    pose.lat_deg = point.getY();
    requireValidPosition(pose, path + ": point " + std::to_string(track.poses.size() + 1));
    pose.alt_m = real(*f, f_alt);
    if (f_alt < 0 && point.Is3D()) pose.alt_m = point.getZ();  // no altitude attribute: use Z
    if (f_frame >= 0 && f->IsFieldSetAndNotNull(f_frame)) pose.frame = f->GetFieldAsInteger64(f_frame);
    pose.t_s = real(*f, f_t);
    pose.yaw_deg = real(*f, f_yaw);
    pose.pitch_deg = real(*f, f_pitch);
    pose.roll_deg = real(*f, f_roll);
    pose.sigma_m = real(*f, f_sigma);
    if (track.poses.empty() && f_reference >= 0 && f->IsFieldSetAndNotNull(f_reference))
      track.alt_reference = f->GetFieldAsString(f_reference);  // as the first pose states it
    if (f_source >= 0 && f->IsFieldSetAndNotNull(f_source)) {
      pose.source = parsePoseSource(f->GetFieldAsString(f_source));
    }
    double time = TrackPose::kUnknown;
    int y, mo, d, h, mi, tz;
    float s;
    if (f_time >= 0 && f->IsFieldSetAndNotNull(f_time) &&
        f->GetFieldAsDateTime(f_time, &y, &mo, &d, &h, &mi, &s, &tz)) {
      time = unixFromUtc(y, mo, d, h, mi, s, tz);
    }
    times.push_back(time);
    track.poses.push_back(pose);
  }
  if (track.poses.empty()) throw FormatError(path + ": not a track (no point features)");

  // Fill t_s / start_unix_s from the times.
  const bool have_times = std::all_of(times.begin(), times.end(), [](double t) { return std::isfinite(t); });
  const bool have_t_s = std::all_of(track.poses.begin(), track.poses.end(),
                                    [](const TrackPose& p) { return std::isfinite(p.t_s); });
  if (!have_t_s && !have_times) {
    throw FormatError(path + ": not a track (some points have no time)");
  }
  if (have_times && times.front() >= kRelativeTimeLimitS) {
    track.start_unix_s = have_t_s ? times.front() - track.poses.front().t_s : times.front();
    // Millisecond-rounded times: keep the start on a whole millisecond.
    track.start_unix_s = std::round(track.start_unix_s * 1000.0) / 1000.0;
  }
  if (!have_t_s) {
    const double origin = std::isfinite(track.start_unix_s) ? track.start_unix_s : 0.0;
    for (std::size_t i = 0; i < track.poses.size(); ++i) track.poses[i].t_s = times[i] - origin;
  }
  return track;
}

// Reads a freshly written export back before it replaces anything: some drivers
// (GeoJSON, GPX) report no error when the disk fills up and leave a truncated file.
void verifyWrittenTrack(const fs::path& file, const Track& track, const std::string& target) {
  std::size_t read_back = 0;
  try {
    read_back = readTrack(file.string()).poses.size();
  } catch (const Error& e) {
    throw IoError("cannot write " + target + ": the written file does not read back (disk full?): " +
                  e.what());
  }
  if (read_back != track.poses.size()) {
    throw IoError("cannot write " + target + ": the written file holds " + std::to_string(read_back) +
                  " of " + std::to_string(track.poses.size()) + " poses (disk full?)");
  }
}

}  // namespace

// --- Public API ------------------------------------------------------------------------

const char* trackFormatName(TrackFormat format) {
  switch (format) {
    case TrackFormat::GeoJson: return "geojson";
    case TrackFormat::Gpx: return "gpx";
    case TrackFormat::Kml: return "kml";
    case TrackFormat::GeoPackage: return "gpkg";
    case TrackFormat::Csv: return "csv";
  }
  return "unknown";
}

TrackFormat parseTrackFormat(const std::string& name) {
  const std::string lower = lowerCase(name);
  if (lower == "geojson" || lower == "json") return TrackFormat::GeoJson;
  if (lower == "gpx") return TrackFormat::Gpx;
  if (lower == "kml") return TrackFormat::Kml;
  if (lower == "gpkg" || lower == "geopackage") return TrackFormat::GeoPackage;
  if (lower == "csv") return TrackFormat::Csv;
  throw InvalidArgument("unknown track format '" + name + "' (use geojson, gpx, kml, gpkg or csv)");
}

std::optional<TrackFormat> trackFormatFromPath(const std::string& path) {
  std::string ext = lowerCase(fs::path(path).extension().string());
  if (!ext.empty()) ext = ext.substr(1);
  if (ext == "geojson" || ext == "json") return TrackFormat::GeoJson;
  if (ext == "gpx") return TrackFormat::Gpx;
  if (ext == "kml") return TrackFormat::Kml;
  if (ext == "gpkg") return TrackFormat::GeoPackage;
  if (ext == "csv") return TrackFormat::Csv;
  return std::nullopt;
}

void exportTrack(const Track& track, const std::string& path, TrackFormat format,
                 const ProgressCallback& progress) {
  validateTrack(track, path);
  AtomicFile file{fs::path(path)};
  // Some OGR drivers refuse to create over an existing file; the temporary path is fresh.
  switch (format) {
    case TrackFormat::Csv: writeCsv(track, file.temporaryPath(), path, progress); break;
    case TrackFormat::GeoJson: writeGeoJson(track, file.temporaryPath(), path, progress); break;
    case TrackFormat::Gpx: writeGpx(track, file.temporaryPath(), path, progress); break;
    case TrackFormat::Kml: writeKml(track, file.temporaryPath(), path, progress); break;
    case TrackFormat::GeoPackage: writeGeoPackage(track, file.temporaryPath(), path, progress); break;
  }
  verifyWrittenTrack(file.temporaryPath(), track, path);
  checkProgress(progress, track.poses.size(), track.poses.size());
  file.commit();
}

Track readTrack(const std::string& path) {
  std::error_code ec;
  if (path.rfind("/vsi", 0) != 0) {
    if (!fs::exists(path, ec)) throw IoError(path + ": file not found");
    if (fs::is_directory(path, ec)) throw IoError(path + ": is a folder, not a track file");
  }
  if (trackFormatFromPath(path) == TrackFormat::Csv) return readCsv(path);
  return readWithOgr(path);
}

TrackSummary summarizeTrack(const Track& track) {
  TrackSummary s;
  s.pose_count = track.poses.size();
  if (track.poses.empty()) return s;
  s.first_t_s = s.last_t_s = track.poses.front().t_s;
  std::vector<GeoPoint> points;
  points.reserve(track.poses.size());
  for (std::size_t i = 0; i < track.poses.size(); ++i) {
    const TrackPose& p = track.poses[i];
    s.first_t_s = std::min(s.first_t_s, p.t_s);
    s.last_t_s = std::max(s.last_t_s, p.t_s);
    points.push_back({p.lat_deg, p.lon_deg, 0.0});
    s.count_by_source[static_cast<int>(p.source)]++;
    if (i > 0) {
      const TrackPose& q = track.poses[i - 1];
      s.length_m += horizontalDistanceM({q.lat_deg, q.lon_deg, 0.0}, {p.lat_deg, p.lon_deg, 0.0});
    }
  }
  const GeoBBox box = boundingBox(points, PointSet::kPoints);
  s.min_lat_deg = box.min_lat_deg;
  s.max_lat_deg = box.max_lat_deg;
  s.min_lon_deg = box.min_lon_deg;
  s.max_lon_deg = box.max_lon_deg;
  return s;
}

std::string isoTimeFromUnixSeconds(double unix_s) {
  if (!std::isfinite(unix_s)) return {};
  const UtcTime t = utcFromUnix(unix_s);
  const long milliseconds = std::lround(t.second * 1000.0);  // < 60000 (utcFromUnix rounds)
  char buffer[400];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02ld.%03ldZ", t.year, t.month, t.day,
                t.hour, t.minute, milliseconds / 1000, milliseconds % 1000);
  return buffer;
}

}  // namespace skytrace::geo
