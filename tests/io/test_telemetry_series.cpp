// The telemetry series (interpolation, yaw wrap, time offset and its estimate), the
// tolerant CSV reader, the GPX reader (OGR), and the done-when: a GNSS track from
// a real log exported to GPX opens back through OGR with the same points.
#include <QTemporaryDir>
#include <QtTest>

#include <gdal.h>
#include <ogr_api.h>

#include <cmath>
#include <fstream>
#include <string>

#include "core/geo/track_io.h"
#include "core/io/telemetry/csv_track_reader.h"
#include "core/io/telemetry/gpx_reader.h"
#include "core/io/telemetry/srt_reader.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/io/telemetry/ulog_telemetry.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::io;

namespace {

TelemetrySample sampleAt(double t, double lat, double lon, double yaw) {
  TelemetrySample s;
  s.log_t_s = t;
  s.lat_deg = lat;
  s.lon_deg = lon;
  s.yaw_deg = yaw;
  s.alt_rel_m = 10.0 * t;
  return s;
}

struct OgrPoint {
  double lat, lon, ele;
  int year, month, day, hour, minute;
  float second;
};

// Track points of a GPX file read with plain OGR calls (independent of our readers).
std::vector<OgrPoint> ogrTrackPoints(const std::string& path) {
  GDALAllRegister();
  GDALDatasetH ds = GDALOpenEx(path.c_str(), GDAL_OF_VECTOR, nullptr, nullptr, nullptr);
  std::vector<OgrPoint> points;
  if (!ds) return points;
  OGRLayerH layer = GDALDatasetGetLayerByName(ds, "track_points");
  if (layer) {
    OGR_L_ResetReading(layer);
    const int ele = OGR_FD_GetFieldIndex(OGR_L_GetLayerDefn(layer), "ele");
    const int time = OGR_FD_GetFieldIndex(OGR_L_GetLayerDefn(layer), "time");
    while (OGRFeatureH f = OGR_L_GetNextFeature(layer)) {
      OgrPoint p{};
      OGRGeometryH g = OGR_F_GetGeometryRef(f);
      p.lon = OGR_G_GetX(g, 0);
      p.lat = OGR_G_GetY(g, 0);
      p.ele = ele >= 0 && OGR_F_IsFieldSetAndNotNull(f, ele) ? OGR_F_GetFieldAsDouble(f, ele) : NAN;
      int tz = 0;
      if (time >= 0)
        OGR_F_GetFieldAsDateTimeEx(f, time, &p.year, &p.month, &p.day, &p.hour, &p.minute, &p.second, &tz);
      points.push_back(p);
      OGR_F_Destroy(f);
    }
  }
  GDALClose(ds);
  return points;
}

void writeFile(const QString& path, const std::string& text) {
  std::ofstream out(path.toStdString(), std::ios::binary);
  out << text;
}

}  // namespace

class TestTelemetrySeries : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void interpolationIsLinearAndWrapsYaw() {
    TelemetrySeries s;
    s.format = "csv";
    s.samples = {sampleAt(0.0, 47.0, 8.0, 170.0), sampleAt(2.0, 47.2, 8.4, -170.0), sampleAt(4.0, 47.2, 8.4, -90.0)};
    auto mid = s.interpolate(1.0);
    QVERIFY(mid);
    QCOMPARE(mid->lat_deg, 47.1);
    QCOMPARE(mid->lon_deg, 8.2);
    QCOMPARE(mid->alt_rel_m, 10.0);
    QCOMPARE(std::fabs(mid->yaw_deg), 180.0);  // through north-south line, not through 0
    auto quarter = s.interpolate(0.5);
    QVERIFY(std::fabs(quarter->yaw_deg - 175.0) < 1e-9);
    QCOMPARE(s.interpolate(3.0)->yaw_deg, -130.0);
    QCOMPARE(s.interpolate(4.0)->lat_deg, 47.2);  // end points included
    QVERIFY(!s.interpolate(-0.1));
    QVERIFY(!s.interpolate(4.1));
    QVERIFY(!s.interpolate(NAN));
    // NaN at a neighbour stays NaN (no invented values).
    QVERIFY(std::isnan(mid->pitch_deg));
    // Time offset: video_t = log_t + offset.
    s.time_offset_s = 10.0;
    QVERIFY(!s.interpolate(1.0));
    QCOMPARE(s.interpolate(11.0)->lat_deg, 47.1);
    QCOMPARE(s.videoTime(s.samples[1]), 12.0);
    // Longitude across the antimeridian.
    TelemetrySeries dateline;
    dateline.samples = {sampleAt(0.0, 0.0, 179.0, 0.0), sampleAt(1.0, 0.0, -179.0, 0.0)};
    QCOMPARE(std::fabs(dateline.interpolate(0.5)->lon_deg), 180.0);
    QCOMPARE(wrapDegrees180(540.0), 180.0);
    QCOMPARE(wrapDegrees180(-190.0), 170.0);
  }

  void timeOffsetEstimate() {
    TelemetrySeries srt;
    srt.format = "dji-srt";
    QCOMPARE(estimateTimeOffset(srt), 0.0);
    TelemetrySeries gpx;
    gpx.format = "gpx";
    gpx.start_unix_s = 1700000100.0;
    QCOMPARE(estimateTimeOffset(gpx, 1700000000.0), 100.0);  // log starts 100 s into the video
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, estimateTimeOffset(gpx));
    gpx.start_unix_s = NAN;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, estimateTimeOffset(gpx, 1700000000.0));
  }

  void csvVariants() {
    // AirData-style export: milliseconds, feet, compass heading.
    const std::string airdata =
        "time(millisecond),datetime(utc),latitude,longitude,height_above_takeoff(feet),"
        "altitude_above_seaLevel(feet),compass_heading(degrees),pitch(degrees),roll(degrees)\n"
        "0,2022-08-07 13:40:40,41.424724,2.234156,0,380,350,-2,1\n"
        "100,2022-08-07 13:40:40.1,41.424725,2.234147,10,390,355,-3,0.5\n"
        "200,2022-08-07 13:40:40.2,not-a-number,2.234140,20,400,0,0,0\n";
    TelemetrySeries a = parseCsvTelemetry(airdata, "airdata.csv");
    QCOMPARE(a.samples.size(), std::size_t(2));
    QCOMPARE(a.variant, std::string("csv-absolute-time"));
    // From datetime(utc), relative to the first row (Unix seconds in a double: ~0.2 us).
    QVERIFY(std::fabs(a.samples[1].log_t_s - 0.1) < 1e-6);
    QCOMPARE(a.samples[1].alt_rel_m, 10 * 0.3048);
    QCOMPARE(a.samples[0].alt_abs_m, 380 * 0.3048);
    QCOMPARE(a.samples[0].yaw_deg, -10.0);
    QVERIFY(std::fabs(a.start_unix_s - 1659879640.0) < 1e-6);
    QCOMPARE(a.warnings.size(), std::size_t(1));
    QCOMPARE(a.warnings[0].line, std::size_t(4));

    // Semicolons with decimal commas, comment line, quoted fields, ISO times with offsets.
    const std::string semicolon =
        "# exported by a spreadsheet\n\"Latitude\";\"Longitude\";Altitude;Time\n"
        "\"47,5\";\"8,25\";500,5;2024-05-01T10:00:00Z\n"
        "47,6;8,35;501;2024-05-01T12:00:01+02:00\n";
    TelemetrySeries b = parseCsvTelemetry(semicolon, "semi.csv");
    QCOMPARE(b.samples.size(), std::size_t(2));
    QCOMPARE(b.samples[0].lat_deg, 47.5);
    QCOMPARE(b.samples[0].lon_deg, 8.25);
    QCOMPARE(b.samples[0].alt_abs_m, 500.5);
    QCOMPARE(b.samples[1].log_t_s, 1.0);
    // 2024-05-01T10:00:00Z = 1714557600 (date -u -d 2024-05-01T10:00:00Z +%s).
    QCOMPARE(b.start_unix_s, 1714557600.0);

    // Tabs, Unix seconds, a row going back in time.
    const std::string tabs = "lat\tlon\ttimestamp\n48.1\t11.5\t1714557600\n48.2\t11.6\t1714557601.5\n"
                             "48.3\t11.7\t1714557601\n";
    TelemetrySeries c = parseCsvTelemetry(tabs, "tabs.csv");
    QCOMPARE(c.samples.size(), std::size_t(2));
    QCOMPARE(c.samples[1].log_t_s, 1.5);
    QCOMPARE(c.warnings.size(), std::size_t(1));
    QCOMPARE(c.warnings[0].line, std::size_t(4));

    // No time column: 1 s per row, warned.
    TelemetrySeries d = parseCsvTelemetry("lat,lng\n1,2\n3,4\n", "plain.csv");
    QCOMPARE(d.samples[1].log_t_s, 1.0);
    QCOMPARE(d.samples[1].lon_deg, 4.0);
    QCOMPARE(d.warnings.size(), std::size_t(1));

    // A "time" column counting seconds from the start is no date: never 1970.
    TelemetrySeries e = parseCsvTelemetry("time,lat,lon,alt\n0,47.1,8.5,400\n1.5,47.1001,8.5001,401\n", "log.txt");
    QCOMPARE(e.variant, std::string("csv-relative-time"));
    QVERIFY(std::isnan(e.start_unix_s));
    QVERIFY(std::isnan(e.samples[1].unix_s));
    QCOMPARE(e.samples[1].log_t_s, 1.5);
    QVERIFY(e.warnings.empty());
    // Unix seconds in the same column are dates.
    TelemetrySeries f = parseCsvTelemetry("time,lat,lon\n1717236000,47.1,8.5\n1717236002,47.1,8.5\n", "unix.csv");
    QCOMPARE(f.variant, std::string("csv-absolute-time"));
    QCOMPARE(f.start_unix_s, 1717236000.0);
    QCOMPARE(f.samples[1].log_t_s, 2.0);

    QVERIFY_THROWS_EXCEPTION(FormatError, parseCsvTelemetry("a,b,c\n1,2,3\n", "nolatlon.csv"));
    QVERIFY_THROWS_EXCEPTION(FormatError, parseCsvTelemetry("", "empty.csv"));
    TelemetryReadOptions small;
    small.max_bytes = 8;
    QVERIFY_THROWS_EXCEPTION(FormatError, parseCsvTelemetry("lat,lon\n1,2\n", "big.csv", small));
  }

  void skytraceTrackCsvRoundTrip() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    const TelemetrySeries srt =
        readDjiSrt(test::sharedPath("data/flight_logs/dji_srt/p4_rtk.SRT").toStdString());
    const QString csv = dir.filePath("p4.csv");
    geo::exportTrack(gnssTrackFromTelemetry(srt), csv.toStdString(), geo::TrackFormat::Csv);
    const TelemetrySeries back = readTelemetry(csv.toStdString());
    QCOMPARE(back.format, std::string("csv"));
    QCOMPARE(back.samples.size(), std::size_t(55));
    QCOMPARE(back.samples.back().lat_deg, -34.232349);
    QCOMPARE(back.samples.back().lon_deg, -58.849196);
    QCOMPARE(back.samples.back().log_t_s, 54.0);
    QCOMPARE(back.samples[1].yaw_deg, 110.3);  // F.PRY yaw of block 2
  }

  void gnssTrackExportsToGpxAndOpensBackThroughOgr() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    // A real DJI log with a camera clock: 468 fixes, 2017-08-05 14:11:51 + 1 s steps.
    const TelemetrySeries srt =
        readDjiSrt(test::sharedPath("data/flight_logs/dji_srt/mavic_pro.SRT").toStdString());
    const geo::Track track = gnssTrackFromTelemetry(srt);
    QCOMPARE(track.poses.size(), std::size_t(468));
    QCOMPARE(track.alt_reference, std::string("takeoff"));
    const QString gpx = dir.filePath("mavic_pro.gpx");
    geo::exportTrack(track, gpx.toStdString(), geo::TrackFormat::Gpx);
    const std::vector<OgrPoint> points = ogrTrackPoints(gpx.toStdString());
    QCOMPARE(points.size(), std::size_t(468));
    for (std::size_t i = 0; i < points.size(); ++i) {
      QVERIFY(std::fabs(points[i].lat - srt.samples[i].lat_deg) < 1e-9);
      QVERIFY(std::fabs(points[i].lon - srt.samples[i].lon_deg) < 1e-9);
      // Heights above the take-off point are not elevations: no <ele> (alt_m extension).
      QVERIFY(std::isnan(points[i].ele));
    }
    // Raw text: first "GPS(149.0251,-20.2533,16) BAROMETER:1.9" at "2017.08.05 14:11:51".
    QCOMPARE(points.front().lat, -20.2533);
    QCOMPARE(points.front().lon, 149.0251);
    QCOMPARE(points.front().year, 2017);
    QCOMPARE(points.front().hour, 14);
    QCOMPARE(points.front().minute, 11);
    QCOMPARE(points.front().second, 51.0f);
    // The last block says "14:19:39", but the camera clock jitters by 1 s against the
    // subtitle times (from block 280 on); track times follow the video: 14:11:51 + 467 s.
    QCOMPARE(points.back().minute, 19);
    QCOMPARE(points.back().second, 38.0f);

    // And back through our GPX reader: same points, same relative times.
    const TelemetrySeries back = readTelemetry(gpx.toStdString());
    QCOMPARE(back.format, std::string("gpx"));
    QCOMPARE(back.samples.size(), std::size_t(468));
    QCOMPARE(back.samples.back().log_t_s, 467.0);
    QCOMPARE(back.samples.back().lat_deg, -20.2532);
    QVERIFY(std::fabs(back.start_unix_s - srt.start_unix_s - 1.0) < 1e-3);  // first fix is at video 1 s
    for (std::size_t i = 0; i < back.samples.size(); ++i) {
      QVERIFY(std::fabs(back.samples[i].alt_rel_m - srt.samples[i].alt_rel_m) < 1e-6);
      QVERIFY(std::isnan(back.samples[i].alt_abs_m));
    }

    // A PX4 GNSS track the same way.
    const TelemetrySeries px4 = readULogTelemetry(
        test::sharedPath("data/flight_logs/px4_ulog/sample_log_small.ulg").toStdString());
    const QString gpx2 = dir.filePath("px4.gpx");
    geo::exportTrack(gnssTrackFromTelemetry(px4), gpx2.toStdString(), geo::TrackFormat::Gpx);
    const std::vector<OgrPoint> px4_points = ogrTrackPoints(gpx2.toStdString());
    QCOMPARE(px4_points.size(), std::size_t(32));
    QVERIFY(std::fabs(px4_points.front().lat - 63.4170622) < 1e-9);
    QVERIFY(std::fabs(px4_points.back().lon - 10.4082271) < 1e-9);
    QVERIFY(std::fabs(px4_points.front().ele - 66.814) < 1e-6);
    QCOMPARE(px4_points.front().year, 2021);  // time_utc_usec 1618986658600345 = 2021-04-21T06:30:58.6Z
    QCOMPARE(px4_points.front().hour, 6);
    QCOMPARE(px4_points.front().minute, 30);
    QVERIFY(std::fabs(px4_points.front().second - 58.6f) < 2e-3f);
  }

  void gpxFromOtherToolsAndErrors() {
    QTemporaryDir dir;
    const QString path = dir.filePath("walk.gpx");
    writeFile(path,
              "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
              "<trk><trkseg>\n"
              "<trkpt lat=\"46.5\" lon=\"7.5\"><ele>1500.5</ele><time>2024-05-01T10:00:00Z</time></trkpt>\n"
              "<trkpt lat=\"46.6\" lon=\"7.6\"><ele>1501</ele><time>2024-05-01T10:00:02.5Z</time></trkpt>\n"
              "</trkseg></trk></gpx>\n");
    const TelemetrySeries s = readGpxTelemetry(path.toStdString());
    QCOMPARE(s.samples.size(), std::size_t(2));
    QCOMPARE(s.variant, std::string("track_points"));
    QCOMPARE(s.samples[1].lat_deg, 46.6);
    QCOMPARE(s.samples[0].alt_abs_m, 1500.5);
    QVERIFY(std::fabs(s.samples[1].log_t_s - 2.5) < 1e-3);
    QCOMPARE(s.start_unix_s, 1714557600.0);
    const QString junk = dir.filePath("junk.gpx");
    writeFile(junk, "this is not xml");
    QVERIFY_THROWS_EXCEPTION(FormatError, readGpxTelemetry(junk.toStdString()));
    QVERIFY_THROWS_EXCEPTION(IoError, readGpxTelemetry(dir.filePath("missing.gpx").toStdString()));
    const QString unknown = dir.filePath("x.unknownext");
    writeFile(unknown, "lat,lon\n1,2\n");
    QVERIFY_THROWS_EXCEPTION(FormatError, readTelemetry(unknown.toStdString()));
  }
};

QTEST_GUILESS_MAIN(TestTelemetrySeries)
#include "test_telemetry_series.moc"
