// Track export in all five formats, checked by reading the files back with OGR directly
// (not through our reader), plus our reader's round trip, atomicity and errors.
#include <QTemporaryDir>
#include <QtTest>

#include <gdal_priv.h>
#include <ogrsf_frmts.h>

#include <sys/mount.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <fstream>
#include <memory>

#include "core/geo/track_io.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

using namespace skytrace::geo;

namespace {

constexpr double kStartUnixS = 1714557600.25;  // 2024-05-01T10:00:00.250Z

Track makeTrack() {
  Track track;
  track.name = "flight_a";
  track.start_unix_s = kStartUnixS;
  track.alt_reference = "ellipsoid";
  for (int i = 0; i < 25; ++i) {
    TrackPose p;
    p.frame = 10 + 3 * i;
    p.t_s = 0.1 * i + 0.0005 * (i % 3);  // not on whole milliseconds for every pose... rounded
    p.t_s = std::round(p.t_s * 1000.0) / 1000.0;
    // A lawnmower-ish path near Darwin with 9-decimal detail.
    p.lat_deg = -12.676853123 + 1.234567e-5 * i;
    p.lon_deg = 132.964775987 - 2.345678e-5 * i + 1e-9 * (i % 7);
    p.alt_m = i == 5 ? TrackPose::kUnknown : 120.0 + 0.25 * i;
    p.yaw_deg = i == 7 ? TrackPose::kUnknown : -170.0 + 13.5 * i;
    p.pitch_deg = -90.0 + i;
    p.roll_deg = 0.5 * (i % 4);
    p.source = i % 3 == 0 ? PoseSource::Registration : PoseSource::Visual;
    p.sigma_m = i == 9 ? TrackPose::kUnknown : 1.5 + 0.1 * i;
    track.poses.push_back(p);
  }
  return track;
}

// A long flight: n poses 0.1 s apart on a straight line.
Track makeLongTrack(int n) {
  Track track = makeTrack();
  const TrackPose first = track.poses.front();
  track.poses.clear();
  for (int i = 0; i < n; ++i) {
    TrackPose p = first;
    p.frame = i;
    p.t_s = 0.1 * i;
    p.lat_deg = first.lat_deg + 1e-6 * i;
    track.poses.push_back(p);
  }
  return track;
}

// Exports `track` over a previous file with writes failing past `limit_bytes` of file
// size (RLIMIT_FSIZE: the kernel's EFBIG, what a disk filling up does to a writer) and
// checks that the export fails and leaves the previous file as it was.
void checkFailingWritesKeepPrevious(const Track& track, const std::string& path, TrackFormat format,
                                    rlim_t limit_bytes) {
  skytrace::writeFileAtomically(path, "previous contents\n");
  struct rlimit saved {};
  QVERIFY(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = saved;
  limited.rlim_cur = limit_bytes;
  QVERIFY(setrlimit(RLIMIT_FSIZE, &limited) == 0);
  QString error;
  try {
    exportTrack(track, path, format);
  } catch (const skytrace::Error& e) {
    error = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous_handler);
  QVERIFY2(!error.isEmpty(), trackFormatName(format));
  QVERIFY2(error.contains(QString::fromStdString(path)), qPrintable(error));
  QCOMPARE(QString::fromStdString(skytrace::readFileBytes(path)), QString("previous contents\n"));
}

struct GdalCloser {
  void operator()(GDALDataset* d) const { GDALClose(GDALDataset::ToHandle(d)); }
};
using Dataset = std::unique_ptr<GDALDataset, GdalCloser>;

struct OgrPoint {
  double lon, lat;
  double unix_s;  // NaN when the layer has no time field
  double z;       // the geometry's third coordinate, NaN when 2D
};

// Reads the point features of `layer_name` (or the first layer) with plain OGR calls.
std::vector<OgrPoint> readPointsWithOgr(const std::string& path, const char* layer_name,
                                        const char* time_field, const char* const* open_options = nullptr) {
  GDALAllRegister();
  Dataset ds(GDALDataset::FromHandle(
      GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, open_options, nullptr)));
  if (!ds) return {};
  OGRLayer* layer = layer_name ? ds->GetLayerByName(layer_name) : ds->GetLayer(0);
  if (!layer) return {};
  std::vector<OgrPoint> points;
  for (auto& feature : *layer) {
    const OGRGeometry* g = feature->GetGeometryRef();
    if (g == nullptr || wkbFlatten(g->getGeometryType()) != wkbPoint) continue;
    const OGRPoint* point = g->toPoint();
    OgrPoint p{point->getX(), point->getY(), std::nan(""), point->Is3D() ? point->getZ() : std::nan("")};
    const int index = time_field ? feature->GetFieldIndex(time_field) : -1;
    int y, mo, d, h, mi, tz;
    float s;
    if (index >= 0 && feature->GetFieldAsDateTime(index, &y, &mo, &d, &h, &mi, &s, &tz)) {
      std::tm tm{};
      tm.tm_year = y - 1900;
      tm.tm_mon = mo - 1;
      tm.tm_mday = d;
      tm.tm_hour = h;
      tm.tm_min = mi;
      p.unix_s = double(timegm(&tm)) + s;
    }
    points.push_back(p);
  }
  return points;
}

void comparePoints(const Track& track, const std::vector<OgrPoint>& points, bool with_times,
                   const char* what) {
  QVERIFY2(points.size() == track.poses.size(),
           qPrintable(QString("%1: %2 points read, %3 written").arg(what).arg(points.size()).arg(track.poses.size())));
  for (std::size_t i = 0; i < points.size(); ++i) {
    const TrackPose& p = track.poses[i];
    QVERIFY2(std::abs(points[i].lat - p.lat_deg) < 1e-7, what);
    QVERIFY2(std::abs(points[i].lon - p.lon_deg) < 1e-7, what);
    if (with_times) {
      QVERIFY2(std::abs(points[i].unix_s - (kStartUnixS + p.t_s)) < 1.5e-3,
               qPrintable(QString("%1: time %2 vs %3").arg(what).arg(points[i].unix_s, 0, 'f', 4)
                              .arg(kStartUnixS + p.t_s, 0, 'f', 4)));
    }
  }
}

bool sameOrBothUnknown(double a, double b, double tolerance) {
  return (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= tolerance;
}

}  // namespace

class TestTrackIo : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void formatNames() {
    QCOMPARE(parseTrackFormat("GeoJSON"), TrackFormat::GeoJson);
    QCOMPARE(parseTrackFormat("gpkg"), TrackFormat::GeoPackage);
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument, parseTrackFormat("shp"));
    QCOMPARE(trackFormatFromPath("/a/b.GPX").value(), TrackFormat::Gpx);
    QCOMPARE(trackFormatFromPath("x.kml").value(), TrackFormat::Kml);
    QVERIFY(!trackFormatFromPath("x.tif").has_value());
    for (TrackFormat f : {TrackFormat::GeoJson, TrackFormat::Gpx, TrackFormat::Kml,
                          TrackFormat::GeoPackage, TrackFormat::Csv}) {
      QCOMPARE(parseTrackFormat(trackFormatName(f)), f);
    }
    QCOMPARE(parsePoseSource("GNSS"), PoseSource::Gnss);
    QCOMPARE(QString(poseSourceName(PoseSource::Registration)), QString("registration"));
    QCOMPARE(parsePoseSource("bogus"), PoseSource::Unknown);
    QCOMPARE(QString::fromStdString(isoTimeFromUnixSeconds(kStartUnixS)),
             QString("2024-05-01T10:00:00.250Z"));
  }

  void geoJsonReadByOgr() {
    QTemporaryDir dir;
    const Track track = makeTrack();
    const std::string path = (dir.path() + "/t.geojson").toStdString();
    exportTrack(track, path, TrackFormat::GeoJson);
    comparePoints(track, readPointsWithOgr(path, nullptr, "time"), true, "geojson");
    // RFC 7946: no "crs" member, WGS84 lon/lat order.
    const std::string text = skytrace::readFileBytes(path);
    QVERIFY(text.find("\"crs\"") == std::string::npos);
    QVERIFY(text.find("\"LineString\"") != std::string::npos);
  }

  void gpxReadByOgr() {
    QTemporaryDir dir;
    const Track track = makeTrack();
    const std::string path = (dir.path() + "/t.gpx").toStdString();
    exportTrack(track, path, TrackFormat::Gpx);
    comparePoints(track, readPointsWithOgr(path, "track_points", "time"), true, "gpx");
    const std::string text = skytrace::readFileBytes(path);
    QVERIFY(text.find("version=\"1.1\"") != std::string::npos);
    QVERIFY(text.find("<trkseg>") != std::string::npos);
    // <ele> is above sea level: 120.25 m above the ellipsoid less the geoid's 54.52 m there.
    QVERIFY(text.find("<ele>65.73") != std::string::npos);
    QVERIFY(text.find("<ogr:alt_m>120.25</ogr:alt_m>") != std::string::npos);
    QVERIFY(text.find("<time>2024-05-01T10:00:00.250Z</time>") != std::string::npos);
  }

  void kmlReadByOgr() {
    QTemporaryDir dir;
    const Track track = makeTrack();
    const std::string path = (dir.path() + "/t.kml").toStdString();
    exportTrack(track, path, TrackFormat::Kml);
    comparePoints(track, readPointsWithOgr(path, "poses", "timestamp"), true, "kml");
    const std::string text = skytrace::readFileBytes(path);
    QVERIFY(text.find("<LineString>") != std::string::npos);
    QVERIFY(text.find("<TimeStamp>") != std::string::npos);
    // The timed line: one <when> and one <gx:coord> per pose, in order.
    QVERIFY(text.find("xmlns:gx=\"http://www.google.com/kml/ext/2.2\"") != std::string::npos);
    QVERIFY(text.find("<gx:Track>") != std::string::npos);
    const auto count = [&text](const std::string& what) {
      std::size_t n = 0;
      for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
      return n;
    };
    QCOMPARE(count("<when>"), 2 * track.poses.size());  // each pose's TimeStamp and the gx:Track
    QCOMPARE(count("<TimeStamp><when>"), track.poses.size());
    QCOMPARE(count("<gx:coord>"), track.poses.size());
    QVERIFY(text.find("<when>" + isoTimeFromUnixSeconds(track.start_unix_s + track.poses[0].t_s) + "</when>") !=
            std::string::npos);
  }

  // A name with markup characters (a flight called "Pier <3> & \"B\"") comes back from
  // the KML file as it was: the writer escapes it.
  void kmlNameWithMarkupReadsBack() {
    QTemporaryDir dir;
    Track track = makeTrack();
    track.name = "Pier <3> & \"B\"";
    const std::string path = (dir.path() + "/t.kml").toStdString();
    exportTrack(track, path, TrackFormat::Kml);
    GDALAllRegister();
    Dataset ds(GDALDataset::FromHandle(GDALOpenEx(path.c_str(), GDAL_OF_VECTOR, nullptr, nullptr, nullptr)));
    QVERIFY(ds);
    OGRLayer* line = ds->GetLayerByName("track");
    QVERIFY(line != nullptr);
    line->ResetReading();
    std::unique_ptr<OGRFeature> f(line->GetNextFeature());
    QVERIFY(f);
    QCOMPARE(std::string(f->GetFieldAsString("Name")), track.name);
  }

  void geoPackageReadByOgr() {
    QTemporaryDir dir;
    const Track track = makeTrack();
    const std::string path = (dir.path() + "/t.gpkg").toStdString();
    exportTrack(track, path, TrackFormat::GeoPackage);
    comparePoints(track, readPointsWithOgr(path, "poses", "time"), true, "gpkg");
    GDALAllRegister();
    Dataset ds(GDALDataset::FromHandle(GDALOpenEx(path.c_str(), GDAL_OF_VECTOR, nullptr, nullptr, nullptr)));
    QVERIFY(ds);
    OGRLayer* line = ds->GetLayerByName("track");
    QVERIFY(line != nullptr);
    QCOMPARE(line->GetFeatureCount(), GIntBig(1));
    OGRLayer* poses = ds->GetLayerByName("poses");
    QCOMPARE(poses->GetLayerDefn()->GetFieldDefn(poses->GetLayerDefn()->GetFieldIndex("time"))->GetType(),
             OFTDateTime);
    // Unknown values are absent (NULL) attributes.
    std::unique_ptr<OGRFeature> f(poses->GetFeature(6));  // GPKG fids start at 1: pose #5
    QVERIFY(f);
    QVERIFY(!f->IsFieldSetAndNotNull(f->GetFieldIndex("alt_m")));
    QCOMPARE(QString(f->GetFieldAsString("source")), QString("visual"));
  }

  void csvExactHeaderAndReadByOgr() {
    QTemporaryDir dir;
    const Track track = makeTrack();
    const std::string path = (dir.path() + "/t.csv").toStdString();
    exportTrack(track, path, TrackFormat::Csv);
    const std::string text = skytrace::readFileBytes(path);
    QCOMPARE(QString::fromStdString(text.substr(0, text.find('\n'))),
             QString("frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg,source,sigma_m"));
    const char* options[] = {"X_POSSIBLE_NAMES=lon_deg", "Y_POSSIBLE_NAMES=lat_deg", nullptr};
    comparePoints(track, readPointsWithOgr(path, nullptr, nullptr, options), false, "csv");
    // Pose #5 has no altitude: empty field.
    std::istringstream lines(text);
    std::string line;
    for (int i = 0; i <= 6; ++i) std::getline(lines, line);
    QVERIFY2(line.find(",,") != std::string::npos, line.c_str());
  }

  // Numbers of any magnitude survive a CSV round trip (1e308 has 309 digits; it was cut
  // at 64 characters and read back as another number).
  void csvKeepsExtremeNumbers() {
    QTemporaryDir dir;
    Track track = makeTrack();
    track.poses[2].alt_m = 1e308;
    track.poses[3].sigma_m = -2.5e300;
    const std::string path = (dir.path() + "/extreme.csv").toStdString();
    exportTrack(track, path, TrackFormat::Csv);
    const Track back = readTrack(path);
    QCOMPARE(back.poses[2].alt_m, 1e308);
    QCOMPARE(back.poses[3].sigma_m, -2.5e300);
  }

  // Our reader gives back every attribute (within the formats' written precision).
  void roundTripThroughReadTrack() {
    QTemporaryDir dir;
    const Track track = makeTrack();
    for (TrackFormat format : {TrackFormat::Csv, TrackFormat::GeoJson, TrackFormat::Gpx,
                               TrackFormat::GeoPackage, TrackFormat::Kml}) {
      const std::string path = (dir.path() + "/rt." + trackFormatName(format)).toStdString();
      exportTrack(track, path, format);
      const Track back = readTrack(path);
      const QByteArray what = trackFormatName(format);
      QVERIFY2(back.poses.size() == track.poses.size(), what);
      if (format != TrackFormat::Csv) {
        QVERIFY2(std::abs(back.start_unix_s - kStartUnixS) < 1e-3, what);
      }
      for (std::size_t i = 0; i < track.poses.size(); ++i) {
        const TrackPose& a = track.poses[i];
        const TrackPose& b = back.poses[i];
        QVERIFY2(a.frame == b.frame, what);
        QVERIFY2(std::abs(a.t_s - b.t_s) < 1e-3, what);
        QVERIFY2(std::abs(a.lat_deg - b.lat_deg) < 1e-7 && std::abs(a.lon_deg - b.lon_deg) < 1e-7, what);
        QVERIFY2(sameOrBothUnknown(a.alt_m, b.alt_m, 1e-3), what);
        QVERIFY2(sameOrBothUnknown(a.yaw_deg, b.yaw_deg, 1e-4), what);
        QVERIFY2(sameOrBothUnknown(a.pitch_deg, b.pitch_deg, 1e-4), what);
        QVERIFY2(sameOrBothUnknown(a.roll_deg, b.roll_deg, 1e-4), what);
        QVERIFY2(sameOrBothUnknown(a.sigma_m, b.sigma_m, 1e-3), what);
        QVERIFY2(a.source == b.source, what);
      }
    }
  }

  // Unknown start: no format gets an absolute time (no invented 1970 dates), every one
  // keeps the relative times and reads back as relative.
  void relativeTimesStayRelative() {
    QTemporaryDir dir;
    Track track = makeTrack();
    track.start_unix_s = std::nan("");
    for (TrackFormat format : {TrackFormat::Gpx, TrackFormat::Kml, TrackFormat::GeoJson, TrackFormat::GeoPackage}) {
      const std::string path = (dir.path() + "/rel." + trackFormatName(format)).toStdString();
      exportTrack(track, path, format);
      const std::string bytes = skytrace::readFileBytes(path);
      QVERIFY2(bytes.find("1970-01-01") == std::string::npos, trackFormatName(format));
      QVERIFY2(bytes.find("<time>") == std::string::npos, trackFormatName(format));
      QVERIFY2(bytes.find("<TimeStamp>") == std::string::npos, trackFormatName(format));
      QVERIFY2(bytes.find("<gx:Track>") == std::string::npos, trackFormatName(format));
      const Track back = readTrack(path);
      QVERIFY2(std::isnan(back.start_unix_s), trackFormatName(format));
      QVERIFY2(std::abs(back.poses[10].t_s - track.poses[10].t_s) < 1e-3, trackFormatName(format));
    }
  }

  // Every format but CSV states what alt_m is above, and reads it back unchanged. Heights
  // go into coordinates in each format's own datum: GeoJSON z above the ellipsoid
  // (RFC 7946), GPX <ele> and KML absolute above mean sea level, converted through EGM96
  // (N = 54.52 m at the track, from PROJ's egm96_15.gtx as gdaltransform gives it).
  // Heights above the take-off point or the ground are not elevations: no GPX <ele>, no
  // GeoJSON z, KML relativeToGround.
  void altitudeReferenceTravelsWithTheTrack() {
    constexpr double kGeoidAtTrackM = 54.5196;
    QTemporaryDir dir;
    for (const char* reference : {"takeoff", "ground", "msl", "ellipsoid"}) {
      Track track = makeTrack();
      track.alt_reference = reference;
      const std::string ref = reference;
      const bool elevation = ref == "msl" || ref == "ellipsoid";
      const double to_ellipsoid = ref == "msl" ? kGeoidAtTrackM : 0.0;
      const double to_msl = ref == "ellipsoid" ? -kGeoidAtTrackM : 0.0;
      for (TrackFormat format : {TrackFormat::GeoJson, TrackFormat::Gpx, TrackFormat::GeoPackage, TrackFormat::Kml}) {
        const QByteArray what = QByteArray(reference) + " " + trackFormatName(format);
        const std::string path = (dir.path() + "/" + reference + "." + trackFormatName(format)).toStdString();
        exportTrack(track, path, format);
        const Track back = readTrack(path);
        QVERIFY2(back.alt_reference == track.alt_reference, what + " read back as " + back.alt_reference.c_str());
        for (std::size_t i = 0; i < track.poses.size(); ++i)
          QVERIFY2(sameOrBothUnknown(track.poses[i].alt_m, back.poses[i].alt_m, 1e-3), what);
        const std::string bytes = skytrace::readFileBytes(path);
        if (format == TrackFormat::Gpx) QVERIFY2((bytes.find("<ele>") != std::string::npos) == elevation, what);
        if (format == TrackFormat::Kml)
          QVERIFY2((bytes.find("relativeToGround") != std::string::npos) == !elevation, what);
        if (format == TrackFormat::GeoJson || format == TrackFormat::Kml) {
          const std::vector<OgrPoint> points =
              readPointsWithOgr(path, format == TrackFormat::Kml ? "poses" : nullptr, nullptr);
          QVERIFY2(points.size() == track.poses.size(), what);
          for (std::size_t i = 0; i < points.size(); ++i) {
            const double alt = track.poses[i].alt_m;
            double expected = std::nan("");
            if (format == TrackFormat::GeoJson && elevation) expected = alt + to_ellipsoid;
            if (format == TrackFormat::Kml) expected = alt + to_msl;  // absolute or relativeToGround
            QVERIFY2(sameOrBothUnknown(points[i].z, expected, 0.01),
                     what + " pose " + QByteArray::number(int(i)) + ": z " + QByteArray::number(points[i].z));
          }
        }
      }
    }
  }

  // A file from another tool that does not say what its heights are above is read by its
  // format's convention: GPX <ele> and KML coordinates above sea level, GeoJSON z above
  // the ellipsoid.
  void foreignHeightsReadByFormatConvention() {
    QTemporaryDir dir;
    const QString gpx = dir.path() + "/other.gpx";
    skytrace::writeFileAtomically(gpx.toStdString(),
        "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"x\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
        "<trk><trkseg><trkpt lat=\"47.1\" lon=\"8.5\"><ele>431.5</ele><time>2024-05-01T10:00:00Z</time></trkpt>"
        "<trkpt lat=\"47.2\" lon=\"8.5\"><ele>432.5</ele><time>2024-05-01T10:00:01Z</time></trkpt></trkseg></trk></gpx>\n");
    const Track from_gpx = readTrack(gpx.toStdString());
    QCOMPARE(QString::fromStdString(from_gpx.alt_reference), QString("msl"));
    QCOMPARE(from_gpx.poses[1].alt_m, 432.5);
    const QString geojson = dir.path() + "/other.geojson";
    skytrace::writeFileAtomically(geojson.toStdString(),
        "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"t_s\":0},"
        "\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,47.1,480.25]}}]}\n");
    const Track from_geojson = readTrack(geojson.toStdString());
    QCOMPARE(QString::fromStdString(from_geojson.alt_reference), QString("ellipsoid"));
    QCOMPARE(from_geojson.poses[0].alt_m, 480.25);
  }

  // A track whose log misses some heights: the poses keep the gap (KML points clamped to
  // the ground, no z), the line does not drop to the ground: it is drawn at heights
  // interpolated in time between the known ones.
  void lineKeepsItsHeightAcrossGaps() {
    QTemporaryDir dir;
    Track track = makeTrack();  // pose 5 has no height
    track.alt_reference = "takeoff";
    const std::string path = (dir.path() + "/gap.kml").toStdString();
    exportTrack(track, path, TrackFormat::Kml);
    const std::string bytes = skytrace::readFileBytes(path);
    const std::size_t line = bytes.find("<LineString>");
    QVERIFY(line != std::string::npos);
    const std::string line_text = bytes.substr(line, bytes.find("</LineString>") - line);
    QVERIFY(line_text.find("relativeToGround") != std::string::npos);
    // Pose 4 (121.0 m at 0.401 s) and pose 6 (121.5 m at 0.600 s): pose 5 at 0.501 s.
    QVERIFY2(line_text.find(",121.251\n") != std::string::npos, line_text.c_str());
    const std::vector<OgrPoint> points = readPointsWithOgr(path, "poses", nullptr);
    QVERIFY(std::isnan(points[5].z));
    QCOMPARE(points[6].z, 121.5);
    const std::string geojson = (dir.path() + "/gap.geojson").toStdString();
    track.alt_reference = "ellipsoid";
    exportTrack(track, geojson, TrackFormat::GeoJson);
    const std::vector<OgrPoint> geojson_points = readPointsWithOgr(geojson, nullptr, nullptr);
    QVERIFY(std::isnan(geojson_points[5].z));
    QCOMPARE(geojson_points[6].z, 121.5);
  }

  // A cancelled export (a failure in the middle of writing) keeps the existing file and
  // leaves no temporary file behind; so do invalid input and a missing folder.
  void failedExportKeepsExistingFile() {
    QTemporaryDir dir;
    const Track track = makeTrack();
    for (TrackFormat format : {TrackFormat::Csv, TrackFormat::GeoJson, TrackFormat::Gpx,
                               TrackFormat::GeoPackage, TrackFormat::Kml}) {
      const std::string path = (dir.path() + "/keep." + trackFormatName(format)).toStdString();
      skytrace::writeFileAtomically(path, "previous contents\n");
      int calls = 0;
      QVERIFY_THROWS_EXCEPTION(skytrace::Cancelled,
                               exportTrack(track, path, format, [&](double, const std::string&) {
                                 return ++calls < 2;  // stop after the first progress report
                               }));
      QCOMPARE(QString::fromStdString(skytrace::readFileBytes(path)), QString("previous contents\n"));
      Track bad = track;
      bad.poses[3].lat_deg = std::nan("");
      QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument, exportTrack(bad, path, format));
      QCOMPARE(QString::fromStdString(skytrace::readFileBytes(path)), QString("previous contents\n"));
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 5);  // no temporaries
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument,
                             exportTrack(Track{}, (dir.path() + "/empty.gpx").toStdString(), TrackFormat::Gpx));
    QVERIFY(!QFile::exists(dir.path() + "/empty.gpx"));
    QVERIFY_THROWS_EXCEPTION(skytrace::IoError,
                             exportTrack(track, (dir.path() + "/no/such/dir/t.gpx").toStdString(),
                                         TrackFormat::Gpx));
  }

  // Writes that fail half way (the disk fills up) never replace the previous file and
  // never report success, in every format: some OGR drivers (GeoJSON, GPX) report no
  // error then, and their truncated file is caught by reading it back before the rename.
  void failingWritesKeepExistingFile() {
    QTemporaryDir dir;
    const Track track = makeLongTrack(20000);
    for (TrackFormat format : {TrackFormat::Csv, TrackFormat::GeoJson, TrackFormat::Gpx,
                               TrackFormat::GeoPackage, TrackFormat::Kml}) {
      const std::string path = (dir.path() + "/keep." + trackFormatName(format)).toStdString();
      checkFailingWritesKeepPrevious(track, path, format, 64 * 1024);
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 5);  // no temporaries
  }

  // The same on a real full disk: a 256 KiB tmpfs (needs the right to mount, as root in CI).
  void fullDiskKeepsExistingFile() {
    QTemporaryDir dir;
    const QByteArray mount_point = (dir.path() + "/small").toLocal8Bit();
    QVERIFY(QDir().mkpath(QString::fromLocal8Bit(mount_point)));
    if (::mount("tmpfs", mount_point.constData(), "tmpfs", 0, "size=256k") != 0)
      QSKIP("cannot mount a small tmpfs here (needs root); failingWritesKeepExistingFile covers it");
    const Track track = makeLongTrack(20000);
    for (TrackFormat format : {TrackFormat::Csv, TrackFormat::GeoJson, TrackFormat::Gpx,
                               TrackFormat::GeoPackage, TrackFormat::Kml}) {
      const std::string path = (QString::fromLocal8Bit(mount_point) + "/keep." + trackFormatName(format)).toStdString();
      skytrace::writeFileAtomically(path, "previous contents\n");
      QString error;
      try {
        exportTrack(track, path, format);
      } catch (const skytrace::Error& e) {
        error = e.what();
      }
      QVERIFY2(!error.isEmpty() && error.contains(QString::fromStdString(path)),
               qPrintable(QString(trackFormatName(format)) + ": " + error));
      QCOMPARE(QString::fromStdString(skytrace::readFileBytes(path)), QString("previous contents\n"));
    }
    const int leftovers = QDir(QString::fromLocal8Bit(mount_point)).entryList(QDir::Files | QDir::Hidden).size();
    ::umount(mount_point.constData());
    QCOMPARE(leftovers, 5);  // no temporaries
  }

  // KML export is linear in the number of poses: 4x the poses take about 4x the time
  // (the LIBKML driver took 17.6 s for 2,500 and 74 s for 5,000). Measured as a ratio
  // of two sizes in one process, with a generous bound, so a slow machine passes.
  void kmlExportIsLinear() {
    QTemporaryDir dir;
    // The fastest of three runs of each size: a busy machine slows single runs.
    const auto seconds = [&](int n) {
      const Track track = makeLongTrack(n);
      double best = 1e9;
      for (int run = 0; run < 3; ++run) {
        const auto start = std::chrono::steady_clock::now();
        exportTrack(track, (dir.path() + "/t" + QString::number(n) + ".kml").toStdString(), TrackFormat::Kml);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      return best;
    };
    seconds(500);  // warm-up: driver registration
    const double small = seconds(2500), large = seconds(10000);
    qInfo("KML export: 2,500 poses %.3f s, 10,000 poses %.3f s", small, large);
    QVERIFY2(large < 10.0 * std::max(small, 0.05), qPrintable(QString("%1 s vs %2 s").arg(large).arg(small)));
    QCOMPARE(readTrack((dir.path() + "/t10000.kml").toStdString()).poses.size(), std::size_t(10000));
  }

  // Readers refuse coordinates that are not a WGS84 position (NaN, |lat| > 90), naming
  // the line, instead of passing them on (eval reported "rmse nan" for such a file).
  void readRefusesInvalidCoordinates() {
    QTemporaryDir dir;
    const std::string csv = (dir.path() + "/nan.csv").toStdString();
    skytrace::writeFileAtomically(csv, "frame,t_s,lat_deg,lon_deg\n0,0,47.1,8.5\n1,0.1,nan,8.5\n");
    try {
      readTrack(csv);
      QFAIL("expected FormatError");
    } catch (const skytrace::FormatError& e) {
      QVERIFY2(QString(e.what()).contains(QString::fromStdString(csv) + ":3"), e.what());
    }
    const std::string out_of_range = (dir.path() + "/lat95.csv").toStdString();
    skytrace::writeFileAtomically(out_of_range, "frame,t_s,lat_deg,lon_deg\n0,0,95,8.5\n");
    QVERIFY_THROWS_EXCEPTION(skytrace::FormatError, readTrack(out_of_range));
    const std::string geojson = (dir.path() + "/lat95.geojson").toStdString();
    skytrace::writeFileAtomically(geojson, R"({"type":"FeatureCollection","features":[{"type":"Feature",
      "properties":{"t_s":0},"geometry":{"type":"Point","coordinates":[8.5,95]}}]})");
    QVERIFY_THROWS_EXCEPTION(skytrace::FormatError, readTrack(geojson));
  }

  void readErrors() {
    QTemporaryDir dir;
    QVERIFY_THROWS_EXCEPTION(skytrace::IoError, readTrack((dir.path() + "/missing.csv").toStdString()));
    const std::string other_csv = (dir.path() + "/other.csv").toStdString();
    skytrace::writeFileAtomically(other_csv, "a,b,c\n1,2,3\n");
    try {
      readTrack(other_csv);
      QFAIL("expected FormatError");
    } catch (const skytrace::FormatError& e) {
      QVERIFY2(QString(e.what()).contains(QString::fromStdString(other_csv)), e.what());
    }
    const std::string polygon = (dir.path() + "/area.geojson").toStdString();
    skytrace::writeFileAtomically(polygon, R"({"type":"FeatureCollection","features":[{"type":"Feature",
      "properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}]})");
    QVERIFY_THROWS_EXCEPTION(skytrace::FormatError, readTrack(polygon));
    const std::string garbage = (dir.path() + "/garbage.gpx").toStdString();
    skytrace::writeFileAtomically(garbage, "this is not xml at all");
    QVERIFY_THROWS_EXCEPTION(skytrace::FormatError, readTrack(garbage));
  }

  void summary() {
    const Track track = makeTrack();
    const TrackSummary s = summarizeTrack(track);
    QCOMPARE(s.pose_count, std::size_t(25));
    QCOMPARE(s.count_by_source[int(PoseSource::Registration)], std::size_t(9));
    QCOMPARE(s.count_by_source[int(PoseSource::Visual)], std::size_t(16));
    QVERIFY(std::abs(s.last_t_s - 2.4) < 1e-3);
    // 24 steps of (1.234567e-5 deg lat, -2.345678e-5 deg lon) near -12.68: about 2.9 m each.
    QVERIFY2(s.length_m > 24 * 2.8 && s.length_m < 24 * 3.0, qPrintable(QString::number(s.length_m)));
  }
};

QTEST_GUILESS_MAIN(TestTrackIo)
#include "test_track_io.moc"
