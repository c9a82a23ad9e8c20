// `skytrace-cli bench` with the seed models on the CPU: SuperPoint + LightGlue for visual
// odometry and DINOv2 + LiteSAM for registration, run by the product's navigation (the
// classes `process` runs) on a small synthetic flight, with the parity fixtures' weights
// under their published file names (symlinks in a temporary model directory; DINOv2's
// fixture is a 4-block model, so a full ViT-S/14 state dict of random values is written
// there instead). Label data.
//  - the report names the models and the options that reach them (LightGlue depth,
//    LiteSAM input), every mode completes with VO and registration stages timed, and
//    keyframes were registered;
//  - a missing weight file fails before the first mode, naming the file and where it is
//    published.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "core/vision/dinov2_config.h"
#include "core/vision/dinov2_model_impl.h"
#include "core/vision/checkpoint_impl.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

QString parity(const QString& model) { return test::sharedPath("fixtures/parity/" + model + "/weights.pt"); }

QJsonObject readJson(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).object() : QJsonObject();
}

}  // namespace

class TestEngineBenchSeedModels : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir weights_;
  QTemporaryDir out_;

  // The seed pipeline on a 160x128 synthetic flight, two modes, small model inputs.
  QStringList seedBench(const QString& json_path) const {
    return {"bench", "--synthetic", "160x128", "--frames", "4", "--warmup", "0", "--modes",
            "sequential,overlapped", "--device", "cpu", "--vo-model", "superpoint+lightglue",
            "--sat-model", "dinov2+litesam", "--vo-keypoints", "200", "--retrieval-crop", "56",
            "--fine-size", "128", "--lightglue-depth", "full", "--keyframe-policy", "every",
            "--transfer-mib", "0", "--weights-dir", weights_.path(), "--out", json_path};
  }

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    if (!QFile::exists(test::cliPath())) QSKIP("skytrace-cli not built (SKYTRACE_BUILD_DIR)");
    QVERIFY(weights_.isValid() && out_.isValid());
    const auto link = [&](const QString& model, const QString& published) {
      QVERIFY2(QFile::link(parity(model), weights_.filePath(published)), qPrintable(parity(model)));
    };
    link("superpoint", "superpoint_v1.pth");
    link("lightglue_superpoint", "superpoint_lightglue.pth");
    link("litesam", "mloftr.ckpt");
    const vision::StateDict random =
        vision::dinov2::randomDinov2Weights(vision::dinov2Config("dinov2-vits14"), 11);
    std::ofstream file(weights_.filePath("dinov2_vits14_pretrain.pth").toStdString(), std::ios::binary);
    file << vision::saveSafetensorsBytes(random.tensors);
    QVERIFY(file.good());
  }

  void seedPipelineRunsInEveryMode() {
    const QString json_path = out_.filePath("seed.json");
    QString log;
    const int code = test::runCli(seedBench(json_path), &log, 600000);
    QVERIFY2(code == 0, qPrintable(log.right(3000)));
    const QJsonObject report = readJson(json_path);
    const QJsonObject workload = report["workload"].toObject();
    QCOMPARE(workload["kind"].toString(), QString("synthetic"));
    QCOMPARE(workload["vo_model"].toString(), QString("superpoint+lightglue"));
    QCOMPARE(workload["satellite_model"].toString(), QString("dinov2-vits14+litesam"));
    QCOMPARE(workload["lightglue_depth"].toString(), QString("full"));
    QCOMPARE(workload["vo_keypoints"].toInt(), 200);
    const QJsonArray modes = report["modes"].toArray();
    QCOMPARE(modes.size(), 2);
    for (const auto& value : modes) {
      const QJsonObject mode = value.toObject();
      const QString name = mode["mode"].toString();
      QVERIFY2(mode["completed"].toBool(), qPrintable(name + ": " + mode["error"].toString()));
      QCOMPARE(mode["frames"].toInt(), 4);
      const QJsonObject stages = mode["stages"].toObject();
      for (const char* stage : {"decode", "extract", "match", "pose", "fine_match", "fusion"})
        QVERIFY2(stages.contains(stage), qPrintable(name + " lacks stage " + stage));
      const QJsonObject fixes = mode["fixes"].toObject();
      QVERIFY2(fixes["attempted"].toInt() > 0, qPrintable(name + ": no keyframe was registered"));
      QCOMPARE(mode["keyframes"].toObject()["dropped"].toInt(), 0);
      const QJsonObject accuracy = mode["accuracy"].toObject();
      QCOMPARE(accuracy["frames_processed"].toInt(), 4);
      QCOMPARE(accuracy["vo_features_model"].toString(), QString("superpoint"));
    }
  }

  void missingWeightsStopBeforeTheFirstMode() {
    QTemporaryDir empty;
    const QString json_path = out_.filePath("missing.json");
    QStringList args = seedBench(json_path);
    args[args.indexOf("--weights-dir") + 1] = empty.path();
    QString log;
    QCOMPARE(test::runCli(args, &log, 120000), 1);
    QVERIFY2(log.contains("not found") &&
                 (log.contains("superpoint_v1.pth") || log.contains("superpoint_lightglue.pth")),
             qPrintable(log));
    QVERIFY2(!log.contains("bench: mode"), qPrintable(log));
    QVERIFY(!QFile::exists(json_path));
  }
};

QTEST_GUILESS_MAIN(TestEngineBenchSeedModels)
#include "test_engine_bench_seed_models.moc"
