// `skytrace-cli demo`, the command the README's demo script runs (no third-party data):
// procedural basemap, rendered flight with spoofed GNSS, the whole navigation through
// app::processFlight, and the reports. Checked as a user would read them: exit 0, a
// complete results folder, the visual track within the documented accuracy of the truth
// (docs/benchmarks.md, "The demo": RMSE 1.65 m, 100 % within 5 m) and the spoofed GNSS
// stretch flagged; demo.skytrace names the flight for the GUI.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/test_support.h"

namespace {

QJsonObject readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

}  // namespace

class TestCliDemo : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void demoProcessesTheFlightAndFlagsTheSpoofing() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath("demo");
    QString log;
    const int code = skytrace::test::runCli({"demo", "--out", out}, &log, 600000);
    QVERIFY2(code == 0, qPrintable(log.right(3000)));

    const QJsonObject report = readJson(out + "/process/report.json");
    QVERIFY2(report.value("completed").toBool(), qPrintable(log.right(2000)));
    const QJsonObject frames = report.value("frames").toObject();
    QVERIFY(frames.value("total").toInt() > 0);
    QCOMPARE(frames.value("processed").toInt(), frames.value("total").toInt());
    QVERIFY(frames.value("localized_fraction").toDouble() >= 0.99);
    QCOMPARE(report.value("inputs").toObject().value("camera").toString(), out + "/flight/camera.json");
    QVERIFY(QFile::exists(out + "/process/track.gpx") && QFile::exists(out + "/process/latency.csv"));

    // The project the GUI opens names the same flight, processing and results.
    const QJsonObject project = readJson(out + "/demo.skytrace");
    QCOMPARE(project.value("format").toString(), QString("skytrace-project"));
    QCOMPARE(project.value("video").toString(), QString("flight/flight.mp4"));  // relative to the project
    QCOMPARE(project.value("results").toString(), QString("process"));
    QCOMPARE(project.value("processing").toObject().value("feature_model").toString(), QString("orb"));

    const QJsonObject visual = readJson(out + "/report_visual.json").value("overall").toObject();
    const double rmse_m = visual.value("horizontal_error").toObject().value("rmse_m").toDouble(1e9);
    const double within_5m = visual.value("within_5m").toDouble();
    qInfo("demo: visual track RMSE %.2f m, %.0f %% within 5 m", rmse_m, 100 * within_5m);
    QVERIFY2(rmse_m < 3.0, qPrintable(QString::number(rmse_m)));
    QVERIFY2(within_5m >= 0.95, qPrintable(QString::number(within_5m)));
    // The same score inside the results folder, where the GUI's report finds it.
    QCOMPARE(readJson(out + "/process/accuracy.json").value("overall").toObject(), visual);

    // "GNSS flagged 18.3-25.4 s (up to 62 m); the spoofed segment is 18.0-25.5 s": a
    // flagged stretch overlaps the spoofed one.
    const QRegularExpression flagged(R"(GNSS flagged ([0-9.]+)-([0-9.]+) s .*the spoofed segment is ([0-9.]+)-([0-9.]+) s)");
    bool overlaps = false;
    for (auto it = flagged.globalMatch(log); it.hasNext();) {
      const QRegularExpressionMatch m = it.next();
      overlaps |= m.captured(1).toDouble() < m.captured(4).toDouble() &&
                  m.captured(3).toDouble() < m.captured(2).toDouble();
    }
    QVERIFY2(overlaps, qPrintable(log.right(2000)));
  }
};

QTEST_GUILESS_MAIN(TestCliDemo)
#include "test_cli_demo.moc"
