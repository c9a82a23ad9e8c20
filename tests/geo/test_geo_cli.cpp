// skytrace-cli's geo commands run as a user would: `info RASTER`, `info TRACK` and
// `export`, with their output and exit codes.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/geo/track_io.h"
#include "core/util/atomic_file.h"
#include "tests/test_support.h"

namespace {

struct CliResult {
  int exit_code = -1;
  QString out;
  QString err;
};

CliResult runCli(const QStringList& args) {
  QProcess process;
  process.start(qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/cli/skytrace-cli", args);
  CliResult result;
  if (!process.waitForFinished(60000)) return result;
  result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  result.out = QString::fromUtf8(process.readAllStandardOutput());
  result.err = QString::fromUtf8(process.readAllStandardError());
  return result;
}

}  // namespace

class TestGeoCli : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void infoRasterAustralia() {
    SKYTRACE_REQUIRE_SHARED();
    const CliResult r = runCli({"info", skytrace::test::sharedPath("data/orthophotos/australia.tif")});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("crs: WGS 84 / UTM zone 53S (EPSG:32753)"), qPrintable(r.out));
    QVERIFY(r.out.contains("size: 751 x 708 px"));
    QVERIFY(r.out.contains("pixel size: 0.0180 m"));
    QVERIFY(r.out.contains("bands: 3 (RGB, Byte)"));
    QVERIFY(r.out.contains("footprint top-left (lat, lon): -12.67679"));
    QVERIFY(r.out.contains("overviews: 0"));
    QVERIFY(r.out.contains("nodata: 0"));
    // The same facts for programs.
    const CliResult json = runCli({"info", "--json", skytrace::test::sharedPath("data/orthophotos/australia.tif")});
    QCOMPARE(json.exit_code, 0);
    const nlohmann::json facts = nlohmann::json::parse(json.out.toStdString());
    QCOMPARE(facts["kind"].get<std::string>(), std::string("raster"));
    QCOMPARE(facts["crs_authority"].get<std::string>(), std::string("EPSG:32753"));
    QCOMPARE(facts["width_px"].get<int>(), 751);
    QCOMPARE(facts["height_px"].get<int>(), 708);
    QVERIFY(std::abs(facts["pixel_size_m"].get<double>() - 0.0180) < 5e-5);
    QCOMPARE(facts["nodata"].get<double>(), 0.0);
    QCOMPARE(facts["footprint"].size(), std::size_t(4));
    QVERIFY(std::abs(facts["footprint"][0]["lat_deg"].get<double>() + 12.67679) < 1e-5);
  }

  void infoCorruptRasterFails() {
    QTemporaryDir dir;
    const QString path = dir.path() + "/broken.tif";
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(2000, '\x17'));
    file.close();
    const CliResult r = runCli({"info", path});
    QCOMPARE(r.exit_code, 1);
    QVERIFY2(r.err.contains(path) && r.err.contains("not a raster GDAL can read"), qPrintable(r.err));
  }

  void exportAndInfoTrack() {
    QTemporaryDir dir;
    const QString in = dir.path() + "/in.csv";
    QFile file(in);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg,source,sigma_m\n"
               "0,0.0,48.516000000,9.073000000,400.0,10,-90,0,gnss,2.5\n"
               "1,0.5,48.516010000,9.073020000,,12,-90,0,gnss,\n"
               "2,1.0,48.516020000,9.073040000,401.0,,-89,1,visual,3\n");
    file.close();
    for (const char* format : {"geojson", "gpx", "kml", "gpkg", "csv"}) {
      const QString out = dir.path() + "/out." + format;
      const CliResult r = runCli({"export", "--track", in, "--out", out});  // format from extension
      QVERIFY2(r.exit_code == 0, qPrintable(r.err));
      QVERIFY(r.out.contains("wrote 3 poses"));
      const skytrace::geo::Track back = skytrace::geo::readTrack(out.toStdString());
      QCOMPARE(back.poses.size(), std::size_t(3));
      QVERIFY(std::abs(back.poses[2].lon_deg - 9.07304) < 1e-7);
      const CliResult info = runCli({"info", out});
      QVERIFY2(info.exit_code == 0, qPrintable(info.err));
      QVERIFY2(info.out.contains("poses: 3") && info.out.contains("sources: visual 1, gnss 2"),
               qPrintable(info.out));
      const CliResult json = runCli({"info", "--json", out});
      QCOMPARE(json.exit_code, 0);
      const nlohmann::json facts = nlohmann::json::parse(json.out.toStdString());
      QCOMPARE(facts["kind"].get<std::string>(), std::string("track"));
      QCOMPARE(facts["poses"].get<int>(), 3);
      QCOMPARE(facts["sources"]["gnss"].get<int>(), 2);
    }
    const CliResult explicit_format =
        runCli({"export", "--track", in, "--format", "GPX", "--out", dir.path() + "/x.dat"});
    QCOMPARE(explicit_format.exit_code, 0);
    QCOMPARE(runCli({"export", "--track", in, "--out", dir.path() + "/x.txt"}).exit_code, 2);
    QCOMPARE(runCli({"export", "--track", in, "--format", "shp", "--out", dir.path() + "/x.shp"}).exit_code, 2);
    QCOMPARE(runCli({"export", "--out", dir.path() + "/x.gpx"}).exit_code, 2);
    const CliResult missing = runCli({"export", "--track", dir.path() + "/nope.csv", "--out", dir.path() + "/y.gpx"});
    QCOMPARE(missing.exit_code, 1);
    QVERIFY(missing.err.contains("nope.csv: file not found"));
    QVERIFY(!QFile::exists(dir.path() + "/y.gpx"));
    QCOMPARE(runCli({"export", "--help"}).exit_code, 0);
  }

  // Every command's --help starts with a usage line that names the command, as typed.
  void everyCommandNamesItselfInItsUsage() {
    const CliResult overview = runCli({"--help"});
    QCOMPARE(overview.exit_code, 0);
    QStringList commands;
    bool in_list = false;
    for (const QString& line : overview.out.split('\n')) {
      if (line.startsWith("Commands:")) {
        in_list = true;
      } else if (in_list && line.startsWith("  ")) {
        commands << line.trimmed().section(' ', 0, 0);
      } else if (in_list) {
        break;
      }
    }
    QVERIFY2(commands.size() >= 10, qPrintable(overview.out));
    for (const QString& command : commands) {
      const CliResult help = runCli({command, "--help"});
      QVERIFY2(help.exit_code == 0, qPrintable(command));
      QVERIFY2(help.out.startsWith("Usage: skytrace-cli " + command + " "), qPrintable(help.out.left(200)));
    }
  }

  // A flight log exports as its GNSS track: dated where the log states the time (the
  // Air 2S SRT's first block at 2022-08-07 13:40:40.774, the ULog's GNSS UTC), relative
  // (no date at all) where it does not (the P4 RTK SRT).
  void exportFlightLogs() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    struct Case {
      const char* log;
      const char* out;
      std::size_t poses;
      double first_time_unix_s;  // NaN: the log states no absolute time
    };
    const Case cases[] = {
        {"data/flight_logs/dji_srt/air2s.srt", "air2s.gpx", 17, 1659879640.774},
        {"data/flight_logs/px4_ulog/sample_log_small.ulg", "ulog.geojson", 32, 1618986658.6},
        {"data/flight_logs/dji_srt/p4_rtk.SRT", "p4.kml", 55, std::nan("")},
    };
    for (const Case& c : cases) {
      const QString out = dir.path() + "/" + c.out;
      const CliResult r = runCli({"export", "--track", skytrace::test::sharedPath(c.log), "--out", out});
      QVERIFY2(r.exit_code == 0, qPrintable(r.err));
      const skytrace::geo::Track back = skytrace::geo::readTrack(out.toStdString());
      QCOMPARE(back.poses.size(), c.poses);
      QCOMPARE(back.poses.front().source, skytrace::geo::PoseSource::Gnss);
      if (std::isnan(c.first_time_unix_s)) {
        QVERIFY2(std::isnan(back.start_unix_s), c.log);
        QVERIFY(skytrace::readFileBytes(out.toStdString()).find("<TimeStamp>") == std::string::npos);
      } else {
        const double first = back.start_unix_s + back.poses.front().t_s;
        QVERIFY2(std::abs(first - c.first_time_unix_s) < 0.2,
                 qPrintable(QString("%1: first pose at %2").arg(c.log).arg(first, 0, 'f', 3)));
      }
    }
    // Neither a track nor a log: the track reader's error.
    const QString text = dir.path() + "/notes.csv";
    QFile file(text);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("these,are\nnot,positions\n");
    file.close();
    const CliResult bad = runCli({"export", "--track", text, "--out", dir.path() + "/bad.gpx"});
    QCOMPARE(bad.exit_code, 1);
    QVERIFY2(bad.err.contains("notes.csv"), qPrintable(bad.err));
    QVERIFY(!QFile::exists(dir.path() + "/bad.gpx"));
  }
};

QTEST_GUILESS_MAIN(TestGeoCli)
#include "test_geo_cli.moc"
