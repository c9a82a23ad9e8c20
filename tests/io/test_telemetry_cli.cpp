// `skytrace-cli info LOG` on real flight logs (runs the built CLI; skipped visibly when
// it has not been built in this build tree).
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/test_support.h"

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
