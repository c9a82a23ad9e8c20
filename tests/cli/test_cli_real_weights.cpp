// Every skytrace-cli command that loads real model weights, run as a user runs it on the
// CPU build, with the published ALIKED checkpoint from ../shared/models (label data):
// features, match, locate, process in both modes and bench. Each must finish with exit 0
// and a plausible result. This is the path that stopped with LibTorch's internal assert
// (MKLDNNCommon.cpp, variable_excluded_from_dispatch) when an inference tensor reached a
// oneDNN kernel outside an inference guard; the assertions below do not depend on the
// CPU's vector extensions (oneDNN picks other kernels on AVX-512/AMX).
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/test_support.h"

namespace {

using skytrace::test::cliPath;

QString alikedWeights() { return skytrace::test::sharedPath("models/aliked/aliked-n16rot.pth"); }

// The CLI with the shared model folder as the model directory (10 min per command on
// 2 CPU cores at most).
int runCli(const QStringList& args, QString* output) {
  return skytrace::test::runCli(args, output, 600000, skytrace::test::sharedPath("models"));
}

QJsonObject readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

// The failure mode this test exists for, named in the message when it shows.
void checkNoInternalAssert(const QString& output) {
  QVERIFY2(!output.contains(QStringLiteral("INTERNAL ASSERT")), qPrintable(output.right(3000)));
}

}  // namespace

class TestCliRealWeights : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString flight_;

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    if (!QFileInfo::exists(cliPath())) QSKIP("skytrace-cli not built (SKYTRACE_BUILD_DIR)");
    if (!QFileInfo::exists(alikedWeights())) QSKIP("ALIKED weights not in ../shared/models/aliked");
    // A 2 s flight at 5 fps (10 frames of 320x240) over a real orthophoto: enough for
    // VO pairs, keyframes and registration attempts, short enough for 2 CPU cores.
    flight_ = dir_.filePath("flight");
    QString log;
    const int code = runCli({"render", "--basemap",
                             skytrace::test::sharedPath("data/orthophotos/5b90f92da0d7280005fab355_4310.tif"),
                             "--out", flight_, "--size", "320x240", "--fps", "5", "--alt-m", "80",
                             "--hfov-deg", "50", "--duration-s", "2", "--seed", "3"},
                            &log);
    QVERIFY2(code == 0, qPrintable(log));
  }

  void features() {
    QString log;
    const QString out = dir_.filePath("features.json");
    const int code = runCli({"features", "--model", "aliked-n16rot", "--weights", alikedWeights(),
                             "--max-keypoints", "512", "--image",
                             skytrace::test::sharedPath("data/opencv_samples/graf1.png"), "--out", out},
                            &log);
    checkNoInternalAssert(log);
    QVERIFY2(code == 0, qPrintable(log));
    QVERIFY2(readJson(out).value("count").toInt() >= 100, qPrintable(log));
  }

  void match() {
    QString log;
    const QString out = dir_.filePath("match");
    const int code = runCli({"match", skytrace::test::sharedPath("data/opencv_samples/graf1.png"),
                             skytrace::test::sharedPath("data/opencv_samples/graf3.png"), "--model",
                             "aliked-n16rot", "--weights", alikedWeights(), "--max-keypoints", "1024",
                             "--truth-homography", skytrace::test::sharedPath("data/opencv_samples/H1to3p.xml"),
                             "--out", out},
                            &log);
    checkNoInternalAssert(log);
    QVERIFY2(code == 0, qPrintable(log));
    const QJsonObject result = readJson(out + "/homography.json");
    QVERIFY2(result.value("inliers").toInt() >= 50, qPrintable(log));
  }

  void locate() {
    QString log;
    const QString out = dir_.filePath("locate.csv");
    const int code = runCli({"locate", "--basemap",
                             skytrace::test::sharedPath("data/brighton_beach/odm_reference/nodeodm_test_odm_orthophoto.tif"),
                             "--model", "aliked-n16rot", "--weights", alikedWeights(), "--out", out,
                             skytrace::test::sharedPath("data/brighton_beach/images/DJI_0033.JPG")},
                            &log);
    checkNoInternalAssert(log);
    // Exit 1 is "no photo located" (a navigation result, not a crash): this photo is
    // located by SIFT but not yet by ALIKED against this map. Either way the run ends
    // normally with a verdict for the photo and its CSV row.
    QVERIFY2(code == 0 || code == 1, qPrintable(log));
    QVERIFY2(log.contains(QRegularExpression("DJI_0033.JPG: (located|not located \\()")), qPrintable(log));
    QVERIFY2(QFileInfo(out).size() > 0, qPrintable(log));
  }

  void process_data() {
    QTest::addColumn<QString>("mode");
    QTest::newRow("sequential (the CPU default)") << QStringLiteral("sequential");
    QTest::newRow("overlapped") << QStringLiteral("overlapped");
  }

  void process() {
    QFETCH(QString, mode);
    QString log;
    const QString out = dir_.filePath("process-" + mode);
    // No --model: the default (aliked-n16rot) found in SKYTRACE_MODEL_DIR, as a user runs it.
    const int code = runCli({"process", "--video", flight_ + "/flight.mp4", "--basemap",
                             skytrace::test::sharedPath("data/orthophotos/5b90f92da0d7280005fab355_4310.tif"),
                             "--telemetry", flight_ + "/flight.srt", "--device", "cpu", "--mode", mode,
                             "--out", out},
                            &log);
    checkNoInternalAssert(log);
    QVERIFY2(code == 0, qPrintable(log));
    const QJsonObject report = readJson(out + "/report.json");
    QVERIFY2(report.value("completed").toBool(), qPrintable(log));
    QVERIFY2(report.value("feature_model").toString().startsWith("aliked-n16rot"),
             qPrintable(report.value("feature_model").toString()));
    QVERIFY2(report.value("fallback_reason").toString().isEmpty(),
             qPrintable(report.value("fallback_reason").toString()));
    QCOMPARE(report.value("frames").toObject().value("processed").toInt(), 10);
  }

  void bench() {
    QString log;
    const QString out = dir_.filePath("bench.json");
    const int code = runCli({"bench", "--synthetic", "160x128", "--frames", "3", "--warmup", "0",
                             "--modes", "sequential,overlapped", "--device", "cpu",
                             "--sat-keypoints", "256", "--vo-keypoints", "256", "--transfer-mib", "0",
                             "--weights-dir", skytrace::test::sharedPath("models/aliked"), "--out", out},
                            &log);
    checkNoInternalAssert(log);
    QVERIFY2(code == 0, qPrintable(log));
    const QJsonObject report = readJson(out);
    QVERIFY2(report.contains("modes"), qPrintable(log));
  }
};

QTEST_GUILESS_MAIN(TestCliRealWeights)
#include "test_cli_real_weights.moc"
