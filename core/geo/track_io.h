// Track files: export of a Track to the formats GIS users open every day (through OGR,
// CSV by our own code) and reading them back.
//
// What each format holds (times are UTC, ISO 8601 with milliseconds; absolute time =
// Track::start_unix_s + t_s; when the start is unknown no format gets an absolute time,
// only the relative t_s attribute: GPX points without <time>, KML placemarks without
// <TimeStamp>, null "time" fields). Every pose's alt_m attribute is the track's own height
// and alt_reference says above what ("ellipsoid", "msl", "takeoff", "ground"); heights
// above the ellipsoid or sea level also go into the coordinates, in each format's datum
// (converted through the EGM96 geoid, geoid_heights.h, where the track's differs):
//   geojson  RFC 7946 FeatureCollection: one LineString feature (kind = "track") and one
//            Point feature per pose (kind = "pose"; [lon, lat(, height above the
//            ellipsoid)] and properties frame, t_s, time, alt_m, yaw_deg, pitch_deg,
//            roll_deg, source, sigma_m, alt_reference).
//   gpx      GPX 1.1 <trk>/<trkseg>/<trkpt> with <ele> (above mean sea level) and <time>;
//            the other pose attributes as <extensions> (ogr: namespace).
//   kml      a LineString placemark (with absolute times also a gx:Track) and one
//            time-stamped point placemark per pose with the attributes as ExtendedData;
//            altitudeMode absolute (above mean sea level) for elevations,
//            relativeToGround for heights above the take-off point or the ground,
//            clampToGround for a pose without a height. The line is drawn at heights
//            interpolated in time across poses that have none.
//   gpkg     layer "poses" (2D points, ISO 8601 "time" field + all attributes) and layer
//            "track" (the line), EPSG:4326.
//   csv      exactly `frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg,source,sigma_m`,
//            lat/lon with 9 decimals; unknown values (NaN, frame -1) are empty fields. The
//            header is fixed, so a CSV does not state its height reference.
// Unknown (NaN) values become empty CSV fields / absent attributes. Every write is atomic
// (temporary sibling + rename): a failed or cancelled export never destroys an existing
// file. All functions are reentrant: call them from any thread.
#pragma once

#include <optional>
#include <string>

#include "core/geo/track.h"
#include "core/util/progress.h"

namespace skytrace::geo {

enum class TrackFormat { GeoJson, Gpx, Kml, GeoPackage, Csv };

// "geojson", "gpx", "kml", "gpkg", "csv".
const char* trackFormatName(TrackFormat format);
// Accepts the names above case-insensitively (and "json", "geopackage"); throws
// InvalidArgument listing the valid names otherwise.
TrackFormat parseTrackFormat(const std::string& name);
// From the file extension (.geojson/.json, .gpx, .kml, .gpkg, .csv); nullopt if unknown.
std::optional<TrackFormat> trackFormatFromPath(const std::string& path);

// The CSV header, exactly as written.
extern const char* const kTrackCsvHeader;

// Writes `track` to `path`. Throws InvalidArgument for an empty track or an invalid pose
// (non-finite or out-of-range lat/lon, non-finite t_s), IoError when the file cannot be written, Cancelled when
// `progress` returns false (the target is then untouched).
void exportTrack(const Track& track, const std::string& path, TrackFormat format,
                 const ProgressCallback& progress = {});

// Reads a track written by exportTrack (csv, geojson, gpx, gpkg, kml) or a compatible file
// from another tool: a CSV with at least t_s, lat_deg and lon_deg columns; GeoJSON /
// GeoPackage / KML point features with a t_s or time attribute; GPX track points with
// times. A file that does not state alt_reference is read by its format's convention:
// GPX <ele> and KML coordinates above mean sea level, anything else above the ellipsoid.
// Throws IoError when the file is missing/unreadable and FormatError naming the
// file when it is not a track. Times before 1971-01-01 are taken as relative (start
// unknown, start_unix_s = NaN).
Track readTrack(const std::string& path);

// Format-independent summary used by `skytrace-cli info`.
struct TrackSummary {
  std::size_t pose_count = 0;
  double first_t_s = 0.0;
  double last_t_s = 0.0;
  // Bounding box (geo::boundingBox of the poses: min_lon_deg > max_lon_deg across the
  // antimeridian).
  double min_lat_deg = 0.0, max_lat_deg = 0.0, min_lon_deg = 0.0, max_lon_deg = 0.0;
  double length_m = 0.0;  // sum of horizontal geodesic steps between consecutive poses
  std::size_t count_by_source[6] = {};  // indexed by PoseSource
};
TrackSummary summarizeTrack(const Track& track);

// "2024-05-01T10:00:00.123Z" for Unix seconds (millisecond resolution).
std::string isoTimeFromUnixSeconds(double unix_s);

}  // namespace skytrace::geo
