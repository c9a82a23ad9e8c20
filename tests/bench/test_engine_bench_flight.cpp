// `skytrace-cli bench --flight` end to end on the CPU: a flight rendered over a real
// orthophoto (320x240, 4 s) is navigated by the product's classes in every layout the
// machine has, and each mode's track is scored against the flight's truth: sequential
// and overlapped localise the flight within metres and agree with each other, and so
// does the frame-parallel layout (multi_gpu_frames, here with two front ends on the
// CPU); vo_only has no position to score, multi_gpu is skipped with a reason, nothing
// crosses a bus on the CPU. Overlapped registers every keyframe (as `process`
// does by default): with latest wins, how many keyframes get through, and so the score,
// would depend on the machine's speed. Speed is not asserted (a shared 2-core machine).
// A recorded video too small to navigate (--video with 1x1 frames, on the same map)
// stops before the first mode with the reason, as `process` does, and writes no JSON.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "tests/test_support.h"

class TestEngineBenchFlight : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    if (!QFile::exists(skytrace::test::cliPath())) QSKIP("skytrace-cli not built (SKYTRACE_BUILD_DIR)");
  }

  void scoresEveryModeAgainstTheTruth() {
    QTemporaryDir dir;
    const QString flight = dir.filePath("flight");
    QString output;
    const QString ortho = skytrace::test::sharedPath("data/orthophotos/5b90f92da0d7280005fab355_4310.tif");
    QCOMPARE(skytrace::test::runCli({"render", "--basemap", ortho, "--out", flight, "--size", "320x240",
                                     "--duration-s", "4", "--shutter-s", "0", "--seed", "3"},
                                    &output),
             0);
    const QString json_path = dir.filePath("bench.json");
    const int code = skytrace::test::runCli({"bench", "--flight", flight, "--vo-model", "orb", "--frames", "120",
                                             "--warmup", "5", "--device", "cpu", "--keyframe-policy", "every",
                                             "--frame-parallel-devices", "cpu,cpu", "--transfer-mib", "0",
                                             "--out", json_path},
                                            &output);
    QVERIFY2(code == 0, qPrintable(output));
    QFile file(json_path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
    const QJsonObject navigation = report["workload"].toObject()["navigation"].toObject();
    QCOMPARE(navigation["vo_model"].toString(), QStringLiteral("orb+mnn"));
    QVERIFY(navigation["telemetry"].toString().endsWith("flight.srt"));

    QMap<QString, QJsonObject> modes;
    for (const auto& value : report["modes"].toArray()) modes[value.toObject()["mode"].toString()] = value.toObject();
    QCOMPARE(modes.size(), 5);
    QVERIFY(modes["multi_gpu"].contains("skipped"));
    QVERIFY(!modes["multi_gpu_frames"].contains("skipped"));
    for (const QString& name :
         {QStringLiteral("sequential"), QStringLiteral("overlapped"), QStringLiteral("multi_gpu_frames")}) {
      const QJsonObject accuracy = modes[name]["accuracy"].toObject();
      qInfo("%s: ATE %.2f m, %.0f%% within 5 m, %.0f%% localised, %d/%d fixes", qPrintable(name),
            accuracy["ate_rmse_m"].toDouble(), 100 * accuracy["within_5m"].toDouble(),
            100 * accuracy["localized_fraction"].toDouble(), accuracy["fixes_accepted"].toInt(),
            accuracy["fixes_attempted"].toInt());
      QCOMPARE(accuracy["frames_processed"].toInt(), 120);
      QVERIFY2(accuracy["ate_rmse_m"].isDouble() && accuracy["ate_rmse_m"].toDouble() < 3.0, qPrintable(name));
      QVERIFY2(accuracy["localized_fraction"].toDouble() >= 0.9, qPrintable(name));
      const QJsonObject transfers = accuracy["frame_transfers"].toObject();
      QCOMPARE(transfers["vo_uploads"].toInt() + transfers["vo_downloads"].toInt() +
                   transfers["keyframe_downloads"].toInt(),
               0);
      QVERIFY(modes[name]["stages"].toObject().contains("fine_match"));
    }
    const auto ate = [&](const QString& mode) { return modes[mode]["accuracy"].toObject()["ate_rmse_m"]; };
    const double sequential = ate("sequential").toDouble();
    const double overlapped = ate("overlapped").toDouble();
    QVERIFY2(std::abs(sequential - overlapped) < 1.0,
             qPrintable(QString("sequential %1 m vs overlapped %2 m").arg(sequential).arg(overlapped)));
    const double frame_parallel = ate("multi_gpu_frames").toDouble();
    QVERIFY2(std::abs(sequential - frame_parallel) < 1.0,
             qPrintable(QString("sequential %1 m vs frame-parallel %2 m").arg(sequential).arg(frame_parallel)));
    QVERIFY(ate("vo_only").isNull());
    QVERIFY(!modes["vo_only"]["stages"].toObject().contains("fine_match"));
    QCOMPARE(report["summary"].toObject()["sequential_ate_rmse_m"].toDouble(), sequential);
  }

  void tinyVideoIsRefusedBeforeTheModes() {
    QTemporaryDir dir;
    static const unsigned char kOnePixelPng[] = {
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
        0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x68, 0x68, 0x68, 0x00,
        0x00, 0x03, 0x04, 0x01, 0x81, 0x4b, 0xd3, 0xd2, 0x10, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
        0x44, 0xae, 0x42, 0x60, 0x82};
    const QString frames = dir.filePath("tiny");
    QVERIFY(QDir().mkpath(frames));
    for (int i = 0; i < 3; ++i) {
      QFile png(frames + QString("/%1.png").arg(i));
      QVERIFY(png.open(QIODevice::WriteOnly));
      png.write(reinterpret_cast<const char*>(kOnePixelPng), sizeof kOnePixelPng);
    }
    const QString ortho = skytrace::test::sharedPath("data/orthophotos/5b90f92da0d7280005fab355_4310.tif");
    const QString json = dir.filePath("bench.json");
    QString output;
    const int code = skytrace::test::runCli({"bench", "--video", frames, "--basemap", ortho, "--frames", "2",
                                             "--warmup", "0", "--device", "cpu", "--vo-model", "orb",
                                             "--transfer-mib", "0", "--out", json},
                                            &output);
    QVERIFY2(code == 1, qPrintable(output));
    QVERIFY2(output.contains("too small"), qPrintable(output));
    QVERIFY2(!output.contains("bench: mode"), qPrintable(output));
    QVERIFY(!QFile::exists(json));
  }
};

QTEST_GUILESS_MAIN(TestEngineBenchFlight)
#include "test_engine_bench_flight.moc"
