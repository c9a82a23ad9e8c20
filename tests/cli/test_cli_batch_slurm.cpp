// `skytrace-cli batch --slurm` on a real single-node Slurm cluster that the test starts in
// a temporary folder (tests/cli/single_node_slurm.sh: munged, slurmctld, slurmd as this
// user, own ports and key): a 3-flight manifest of the synthetic flight goes in as one
// array job, each flight runs as a task of its own, and the batch's summary lists all
// three done, written by the summary job once every task ended.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/synthetic_flight.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

const QString kClusterScript = QStringLiteral(SKYTRACE_SOURCE_DIR "/tests/cli/single_node_slurm.sh");

int runScript(const QStringList& args, QString* output) {
  QProcess script;
  script.setProcessChannelMode(QProcess::MergedChannels);
  script.start("bash", QStringList{kClusterScript} + args);
  if (!script.waitForFinished(120000)) return -1;
  *output = QString::fromUtf8(script.readAll());
  return script.exitCode();
}

}  // namespace

class TestCliBatchSlurm : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString cluster_;
  bool started_ = false;

 private Q_SLOTS:
  void initTestCase() {
    for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol"})
      QVERIFY2(!QStandardPaths::findExecutable(tool).isEmpty() ||
                   !QStandardPaths::findExecutable(tool, {"/usr/sbin", "/sbin"}).isEmpty(),
               qPrintable(QString(tool) + " not found: scripts/setup.sh installs munge, slurmctld, slurmd "
                                          "and slurm-client (scripts/debian-packages.txt)"));
    QVERIFY(dir_.isValid());
    cluster_ = dir_.filePath("cluster");
    QVERIFY(QDir().mkpath(cluster_));
    QString output;
    const int code = runScript({"start", cluster_}, &output);
    QVERIFY2(code == 0 && output.contains("SLURM_CONF="), qPrintable(output));
    started_ = true;
  }

  void cleanupTestCase() {
    QString output;
    if (started_) runScript({"stop", cluster_}, &output);
  }

  void manifestRunsAsAnArrayJobAndIsSummarised() {
    const test::SyntheticFlight flight = test::writeSyntheticFlight(dir_.filePath("flight"));
    QVERIFY(QDir().mkpath(dir_.filePath("no_models")));
    const QString manifest = dir_.filePath("flights.csv");
    QFile file(manifest);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("id,video,basemaps,model,sat_model\n");
    for (const char* id : {"one", "two", "three"})
      file.write(QByteArray(id) + ",flight/flight.mp4,flight/basemap.tif,orb,sift\n");
    file.close();

    const QString out = dir_.filePath("out");
    QProcess batch;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SLURM_CONF", cluster_ + "/slurm.conf");
    env.insert("SKYTRACE_MODEL_DIR", dir_.filePath("no_models"));
    env.insert("PATH", env.value("PATH") + ":/usr/sbin:/sbin");
    batch.setProcessEnvironment(env);
    batch.setProcessChannelMode(QProcess::MergedChannels);
    batch.start(test::cliPath(), {"batch", manifest, "--out", out, "--slurm"});
    QVERIFY(batch.waitForFinished(600000));
    const QString log = QString::fromUtf8(batch.readAll());
    QVERIFY2(batch.exitStatus() == QProcess::NormalExit && batch.exitCode() == 0, qPrintable(log));
    QVERIFY2(log.contains("submitted Slurm array job") && log.contains("3 done, 0 skipped (up to date), 0 failed"),
             qPrintable(log));

    // One task per flight, each with its own Slurm log; the summary job wrote the summary.
    const QStringList task_logs = QDir(out + "/logs").entryList({"slurm-*_*.out"}, QDir::Files);
    QCOMPARE(task_logs.size(), 3);
    QCOMPARE(QDir(out + "/logs").entryList({"slurm-*-summary.out"}, QDir::Files).size(), 1);
    QVERIFY(QFileInfo::exists(out + "/slurm/array.sh"));
    for (const char* id : {"one", "two", "three"}) {
      QVERIFY2(QFileInfo::exists(out + "/" + id + "/report.json"), id);
      QVERIFY2(QFileInfo::exists(out + "/logs/" + id + ".status.json"), id);
    }
    QFile summary(out + "/summary.csv");
    QVERIFY(summary.open(QIODevice::ReadOnly));
    const QString table = QString::fromUtf8(summary.readAll());
    QCOMPARE(table.count(",done,"), 3);
  }
};

QTEST_GUILESS_MAIN(TestCliBatchSlurm)
#include "test_cli_batch_slurm.moc"
