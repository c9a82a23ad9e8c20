// `skytrace-cli info LOG` on real flight logs (runs the built CLI; skipped visibly when
// it has not been built in this build tree).
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/test_support.h"

#include <nlohmann/json.hpp>

class TestTelemetryCli : public QObject {
  Q_OBJECT

  QString cli() const { return qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/cli/skytrace-cli"; }

  QString info(const QString& path, int* exit_code) {
    QProcess p;
    p.start(cli(), {"info", path});
    if (!p.waitForFinished(30000)) return {};
    *exit_code = p.exitCode();
    return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
  }

 private Q_SLOTS:
  void init() {
    if (!QFile::exists(cli())) QSKIP("skytrace-cli not built in this build tree");
  }

  void srtSummary() {
    SKYTRACE_REQUIRE_SHARED();
    int code = -1;
    const QString out = info(skytrace::test::sharedPath("data/flight_logs/dji_srt/broken_incomplete.SRT"), &code);
    QCOMPARE(code, 0);
    QVERIFY2(out.contains("kind: flight log (dji-srt, srt-home-gps)"), qPrintable(out));
    QVERIFY(out.contains("samples: 19 (19 with position)"));
    QVERIFY(out.contains("duration 18.000 s"));
    QVERIFY(out.contains("bbox (lat, lon): -34.7383000 .. -34.7383000, -58.4563000 .. -58.4563000"));
    QVERIFY(out.contains("warnings: 1"));
    QVERIFY(out.contains("line 116"));
  }

  void ulogSummary() {
    SKYTRACE_REQUIRE_SHARED();
    int code = -1;
    const QString out = info(skytrace::test::sharedPath("data/flight_logs/px4_ulog/sample_log_small.ulg"), &code);
    QCOMPARE(code, 0);
    QVERIFY2(out.contains("kind: flight log (px4-ulog, vehicle_gps_position)"), qPrintable(out));
    QVERIFY(out.contains("samples: 32 (32 with position)"));
    QVERIFY(out.contains("fields: position, alt_rel, alt_abs, attitude, speed, utc_time"));
    QVERIFY(out.contains("info.ver_hw: CUBEPILOT_CUBEORANGE"));
    QVERIFY(out.contains("topics: 70 with data"));
  }

  // The autopilot logs (tests/io/data): `info` describes them, `export --track` turns
  // them into a dated GPX track; a DataFlash log named .BIN (a raster extension for some
  // GDAL drivers) is still a flight log.
  void autopilotLogs() {
    const QString data = QStringLiteral(SKYTRACE_TEST_DATA_DIR);
    int code = -1;
    QString out = info(data + "/flight.tlog", &code);
    QCOMPARE(code, 0);
    QVERIFY2(out.contains("kind: flight log (mavlink-tlog, GPS_RAW_INT)"), qPrintable(out));
    QVERIFY(out.contains("samples: 296 (296 with position)"));
    QVERIFY(out.contains("start: 2024-06-01T10:00:00.150Z"));
    QVERIFY(out.contains("camera triggers: 27"));
    QVERIFY(out.contains("altitude relative: 50.00 .. 50.00 m"));

    QTemporaryDir dir;
    const QString bin = dir.filePath("00000001.BIN");
    QVERIFY(QFile::copy(data + "/flight.bin", bin));
    out = info(bin, &code);
    QCOMPARE(code, 0);
    QVERIFY2(out.contains("kind: flight log (ardupilot-dataflash, GPS)"), qPrintable(out));
    QVERIFY(out.contains("start: 2024-06-01T09:58:00.000Z"));  // the boot, 120 s before the flight
    QVERIFY(out.contains("firmware: ArduCopter V4.5.7 (2a3dc4b7)"));

    // The same facts for programs: info --json.
    QProcess json_info;
    json_info.start(cli(), {"info", "--json", data + "/flight.tlog"});
    QVERIFY(json_info.waitForFinished(30000));
    QCOMPARE(json_info.exitCode(), 0);
    const nlohmann::json facts = nlohmann::json::parse(json_info.readAllStandardOutput().toStdString());
    QCOMPARE(facts["kind"].get<std::string>(), std::string("flight log"));
    QCOMPARE(facts["format"].get<std::string>(), std::string("mavlink-tlog"));
    QCOMPARE(facts["samples_with_position"].get<int>(), 296);
    QCOMPARE(facts["camera_triggers"].get<int>(), 27);
    QCOMPARE(facts["start_utc"].get<std::string>(), std::string("2024-06-01T10:00:00.150Z"));
    QCOMPARE(facts["alt_rel_m"]["min"].get<double>(), 50.0);
    QVERIFY(facts["bbox"]["min_lat_deg"].get<double>() <= facts["bbox"]["max_lat_deg"].get<double>());

    const QString gpx = dir.filePath("track.gpx");
    QProcess p;
    p.start(cli(), {"export", "--track", bin, "--out", gpx});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QFile f(gpx);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QCOMPARE(text.count("<trkpt"), 296);
    QVERIFY2(text.contains("<time>2024-06-01T10:00:01"), text.left(2000).constData());
  }

  void foreignCsvFallsBackToTelemetry() {
    QTemporaryDir dir;
    const QString path = dir.filePath("litchi.csv");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("latitude;longitude;altitude(m)\n47,1;8,2;500\n47,2;8,3;510\n");
    f.close();
    int code = -1;
    const QString out = info(path, &code);
    QCOMPARE(code, 0);
    QVERIFY2(out.contains("kind: flight log (csv, csv-no-time)"), qPrintable(out));
    QVERIFY(out.contains("samples: 2"));
  }

  // A CSV log named .txt (as some apps export them) and a ULog under another name are
  // flight logs, not rasters for GDAL.
  void logsAreRecognisedUnderOtherNames() {
    QTemporaryDir dir;
    const QString txt = dir.filePath("flight.txt");
    QFile f(txt);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("time_s,latitude,longitude,altitude\n0,47.1,8.2,500\n1,47.2,8.3,510\n");
    f.close();
    int code = -1;
    QString out = info(txt, &code);
    QCOMPARE(code, 0);
    QVERIFY2(out.contains("kind: flight log (csv"), qPrintable(out));
    QVERIFY2(!out.contains("GDAL"), qPrintable(out));

    SKYTRACE_REQUIRE_SHARED();
    const QString renamed = dir.filePath("flight.log");
    QVERIFY(QFile::copy(skytrace::test::sharedPath("data/flight_logs/px4_ulog/sample_log_small.ulg"), renamed));
    out = info(renamed, &code);
    QCOMPARE(code, 0);
    QVERIFY2(out.contains("kind: flight log (px4-ulog"), qPrintable(out));
  }
};

QTEST_GUILESS_MAIN(TestTelemetryCli)
#include "test_telemetry_cli.moc"
