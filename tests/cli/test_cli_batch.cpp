// `skytrace-cli batch` as a user runs it, on a small synthetic flight (no ../shared):
// a manifest of three flights, one with a missing video; two jobs at a time. Checked: the
// good flights' results folders are complete and scored against the truth, the bad one
// fails alone and is listed with its reason, nothing half-written is left, a second run
// skips what is up to date, and a changed input or setting is processed again.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/synthetic_flight.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

QJsonObject readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

// summary.csv as id -> {column -> value}.
QMap<QString, QMap<QString, QString>> readSummary(const QString& path) {
  QFile file(path);
  QMap<QString, QMap<QString, QString>> rows;
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return rows;
  const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
  const QStringList header = lines.value(0).split(',');
  for (int i = 1; i < lines.size(); ++i) {
    // The test's fields hold no commas except the message, which is the second-last.
    QStringList fields = lines[i].split(',');
    while (fields.size() > header.size()) {
      fields[header.size() - 2] += "," + fields[header.size() - 1];
      fields.removeAt(header.size() - 1);
    }
    QMap<QString, QString> row;
    for (int k = 0; k < header.size() && k < fields.size(); ++k) row[header[k]] = fields[k];
    rows[row["id"]] = row;
  }
  return rows;
}

bool writeText(const QString& path, const QString& text) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text.toUtf8()) > 0;
}

}  // namespace

class TestCliBatch : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  test::SyntheticFlight flight_;
  QString manifest_, out_, truth_;

  int runBatch(QString* log) {
    return test::runCli({"batch", manifest_, "--out", out_, "--jobs", "2"}, log, 600000, dir_.filePath("no_models"));
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    flight_ = test::writeSyntheticFlight(dir_.filePath("flight"));
    QVERIFY(QDir().mkpath(dir_.filePath("no_models")));
    truth_ = dir_.filePath("truth.csv");
    QVERIFY(QFile::copy(flight_.results + "/track.csv", truth_));
    manifest_ = dir_.filePath("flights.csv");
    out_ = dir_.filePath("out");
    // Paths relative to the manifest's folder.
    QVERIFY(writeText(manifest_,
                      "id,video,basemaps,model,sat_model,truth\n"
                      "alpha,flight/flight.mp4,flight/basemap.tif,orb,sift,truth.csv\n"
                      "beta,flight/flight.mp4,flight/basemap.tif,orb,sift,\n"
                      "broken,flight/missing.mp4,flight/basemap.tif,orb,sift,\n"));
  }

  void firstRunProcessesEachFlightAndIsolatesTheFailure() {
    QString log;
    QCOMPARE(runBatch(&log), 1);  // one flight failed
    QVERIFY2(log.contains("2 done, 0 skipped (up to date), 1 failed"), qPrintable(log));
    for (const char* id : {"alpha", "beta"}) {
      const QString results = out_ + "/" + id;
      QVERIFY2(readJson(results + "/report.json").value("completed").toBool(), qPrintable(log));
      QVERIFY(QFileInfo::exists(results + "/track.gpx"));
      const QJsonObject batch = readJson(results + "/batch.json");
      QCOMPARE(batch.value("fingerprint").toString().size(), 64);
      QVERIFY(batch.value("inputs").toObject().contains(flight_.video));
      QVERIFY(QFileInfo::exists(out_ + "/logs/" + id + ".log"));
    }
    QVERIFY(!QFileInfo::exists(out_ + "/broken"));
    QCOMPARE(QDir(out_).entryList({".*.partial", ".*.old"}, QDir::Dirs | QDir::Hidden).size(), 0);

    const auto summary = readSummary(out_ + "/summary.csv");
    QCOMPARE(summary.size(), 3);
    QCOMPARE(summary["alpha"]["status"], QString("done"));
    QCOMPARE(summary["beta"]["status"], QString("done"));
    QCOMPARE(summary["alpha"]["frames"], QString::number(flight_.frames));
    // alpha has a truth track: scored (the synthetic flight is flown exactly on it).
    bool ok = false;
    const double ate_m = summary["alpha"]["ate_rmse_m"].toDouble(&ok);
    QVERIFY2(ok && ate_m < 10.0, qPrintable(summary["alpha"]["ate_rmse_m"]));
    QVERIFY(summary["beta"]["ate_rmse_m"].isEmpty());
    QCOMPARE(summary["broken"]["status"], QString("failed"));
    QVERIFY2(summary["broken"]["message"].contains("missing.mp4"), qPrintable(summary["broken"]["message"]));
    QFile html(out_ + "/summary.html");
    QVERIFY(html.open(QIODevice::ReadOnly));
    const QString page = QString::fromUtf8(html.readAll());
    QVERIFY(page.contains("<tr class=\"failed\"><td>broken</td>") && page.contains("2 done"));
  }

  void secondRunSkipsWhatIsUpToDate() {
    const QDateTime alpha_time = QFileInfo(out_ + "/alpha/report.json").lastModified();
    QString log;
    QCOMPARE(runBatch(&log), 1);
    QVERIFY2(log.contains("0 done, 2 skipped (up to date), 1 failed"), qPrintable(log));
    QCOMPARE(QFileInfo(out_ + "/alpha/report.json").lastModified(), alpha_time);
    const auto summary = readSummary(out_ + "/summary.csv");
    QCOMPARE(summary["alpha"]["status"], QString("skipped"));
    QVERIFY(!summary["alpha"]["ate_rmse_m"].isEmpty());  // figures of the kept results
  }

  void changedInputOrSettingIsProcessedAgain() {
    // alpha: the truth's content changes; beta: its model changes.
    QString truth = QString::fromUtf8([&] { QFile f(truth_); f.open(QIODevice::ReadOnly); return f.readAll(); }());
    QVERIFY(writeText(truth_, truth + "\n"));
    QVERIFY(writeText(manifest_,
                      "id,video,basemaps,model,sat_model,truth\n"
                      "alpha,flight/flight.mp4,flight/basemap.tif,orb,sift,truth.csv\n"
                      "beta,flight/flight.mp4,flight/basemap.tif,sift,sift,\n"));
    QString log;
    QCOMPARE(runBatch(&log), 0);
    QVERIFY2(log.contains("2 done, 0 skipped (up to date), 0 failed"), qPrintable(log));
    QCOMPARE(readJson(out_ + "/beta/report.json").value("feature_model").toString(), QString("sift+mnn"));
  }

  // With several devices each job takes its own, round robin: two jobs over cuda:0,cuda:1
  // give one flight each. (Without CUDA each flight then fails naming its device.)
  void jobsTakeTheirDevicesRoundRobin() {
    const QString out = dir_.filePath("devices");
    QString log;
    test::runCli({"batch", manifest_, "--out", out, "--jobs", "2", "--devices", "cuda:0,cuda:1"}, &log, 600000,
                 dir_.filePath("no_models"));
    QStringList devices;
    for (const char* id : {"alpha", "beta"}) {
      const QJsonObject report = readJson(out + "/" + id + "/report.json");
      const QString said = report.isEmpty() ? readSummary(out + "/summary.csv")[id]["message"]
                                            : report.value("device").toString();
      for (const char* device : {"cuda:0", "cuda:1"})
        if (said.contains(device)) devices << device;
    }
    devices.sort();
    QCOMPARE(devices, QStringList({"cuda:0", "cuda:1"}));
  }

  // SIGTERM (Slurm, Kubernetes) stops the running flights: exit 143, the summary lists
  // them as cancelled, their partial folders are gone and earlier results are kept.
  void sigtermStopsTheBatchAndKeepsEarlierResults() {
    const QDateTime alpha_time = QFileInfo(out_ + "/alpha/report.json").lastModified();
    QProcess batch;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SKYTRACE_MODEL_DIR", dir_.filePath("no_models"));
    batch.setProcessEnvironment(env);
    batch.setProcessChannelMode(QProcess::MergedChannels);
    QVERIFY(QFile::remove(out_ + "/logs/alpha.log") && QFile::remove(out_ + "/logs/beta.log"));
    batch.start(test::cliPath(), {"batch", manifest_, "--out", out_, "--jobs", "2", "--force"});
    QVERIFY(batch.waitForStarted());
    // Stop it once both flights run (their logs have begun).
    QElapsedTimer waited;
    waited.start();
    while (!(QFileInfo(out_ + "/logs/alpha.log").size() > 0 && QFileInfo(out_ + "/logs/beta.log").size() > 0) &&
           waited.elapsed() < 60000)
      QTest::qWait(50);
    QTest::qWait(300);
    batch.terminate();
    QVERIFY(batch.waitForFinished(120000));
    const QString log = QString::fromUtf8(batch.readAll());
    QCOMPARE(batch.exitCode(), 143);
    QVERIFY2(log.contains("cancelled"), qPrintable(log));
    const auto summary = readSummary(out_ + "/summary.csv");
    QCOMPARE(summary["alpha"]["status"], QString("cancelled"));
    QCOMPARE(QDir(out_).entryList({".*.partial", ".*.old"}, QDir::Dirs | QDir::Hidden).size(), 0);
    QCOMPARE(QFileInfo(out_ + "/alpha/report.json").lastModified(), alpha_time);
  }
};

QTEST_GUILESS_MAIN(TestCliBatch)
#include "test_cli_batch.moc"
