// Every skytrace-cli command that loads real model weights, run as a user runs it on the
// CPU build, with the published ALIKED checkpoint from ../shared/models (label data):
// features, match, locate, process in both modes (and without a flight log) and bench. Each must finish with exit 0
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

#include <cmath>

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
    // The photo's top points 40 deg east of north: ALIKED (also n16rot) matches under
    // turns of up to 22.5-35 deg only, so the search without a prior presents the photo in
    // 8 orientations (with 4 it found 5-7 inliers and located none of the 18 photos).
    QVERIFY2(code == 0, qPrintable(log));
    const QRegularExpressionMatch located =
        QRegularExpression("DJI_0033.JPG: located, [0-9]+ inliers, ([0-9.]+) m from its GPS").match(log);
    QVERIFY2(located.hasMatch(), qPrintable(log));
    QVERIFY2(located.captured(1).toDouble() < 3.0, qPrintable(log));
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

  // A video without a flight log (issue 23): no position, height or heading to start
  // from. A degraded map and a flight 35 m up heading east (ALIKED matches under small
  // turns only, and 35 m is far from any single assumed height): the first keyframe is
  // placed by the global search at its true height, and so is every frame.
  void processWithoutALog() {
    QString log;
    const QString flight = dir_.filePath("no-log-flight");
    QVERIFY2(runCli({"render", "--basemap",
                     skytrace::test::sharedPath("data/orthophotos/5b90f92da0d7280005fab355_4310.tif"), "--out",
                     flight, "--size", "480x360", "--fps", "5", "--alt-m", "35", "--duration-s", "2",
                     "--degrade", "--seed", "7"},
                    &log) == 0,
             qPrintable(log));
    const QString out = dir_.filePath("process-no-log");
    const int code = runCli({"process", "--video", flight + "/flight.mp4", "--basemap",
                             flight + "/basemap_degraded.tif", "--device", "cpu", "--out", out},
                            &log);
    checkNoInternalAssert(log);
    QVERIFY2(code == 0, qPrintable(log));
    const QMap<QString, QString> first = skytrace::test::firstCsvRow(out + "/fixes.csv");
    QCOMPARE(first.value("frame"), QStringLiteral("0"));
    QCOMPARE(first.value("mode"), QStringLiteral("global"));
    QVERIFY2(first.value("accepted") == QStringLiteral("1"), qPrintable(first.value("reason")));
    const double height_m = first.value("alt_m").toDouble();  // ground at 0 m
    QVERIFY2(std::abs(height_m - 35.0) < 3.5, qPrintable(QString::number(height_m)));

    QVERIFY(runCli({"eval", "--truth", flight + "/truth.csv", "--track", out + "/track.csv", "--out",
                    out + "/eval.json"},
                   &log) == 0);
    const QJsonObject overall = readJson(out + "/eval.json").value("overall").toObject();
    const double positioned = overall.value("fraction_with_position").toDouble();
    const double ate_m = overall.value("ate_rmse_m").toDouble();
    qInfo("first fix %.1f m up, %.0f %% of frames with a position, ATE %.2f m", height_m, 100 * positioned, ate_m);
    QCOMPARE(positioned, 1.0);
    QVERIFY2(ate_m <= 3.0, qPrintable(QString::number(ate_m)));
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
