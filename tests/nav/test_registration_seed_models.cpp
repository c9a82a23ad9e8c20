// The satellite stage with the seed models (DINOv2 retrieval, LiteSAM fine matching),
// loaded from checkpoints in the published layouts made of the parity fixtures' RANDOM
// weights (tests/nav/seed_model_weights.h). Random weights cannot give correct fixes, so
// the LiteSAM cases check what is true regardless: the pipeline runs in prior and global
// mode, fills its timings and returns a fix record with a documented reason. Where the
// retrieval cannot be wrong (two copies of one basemap), DINOv2 retrieval + SIFT matching
// must locate a rendered frame. Missing weights: the error names the file expected and
// where its authors publish it, from the registrar and from the pre-run check alike.
// The last case runs `skytrace-cli process --sat-model dinov2+litesam` on a 1 s clip.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <set>

#include "core/geo/basemap.h"
#include "core/nav/basemap_registration.h"
#include "core/nav/model_choice.h"
#include "core/sim/flight_renderer.h"
#include "core/util/error.h"
#include "tests/nav/seed_model_weights.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::nav;
using namespace skytrace::sim;

namespace {

const char* kBasemap = "data/orthophotos/5b90f92da0d7280005fab355_4310.tif";

bool isDocumentedRejection(const std::string& reason) {  // docs/process_output.md
  static const std::set<std::string> reasons = {"too_few_inliers", "low_inlier_ratio", "bad_geometry",
                                                "inconsistent_with_odometry", "no_candidate"};
  return reasons.count(reason) > 0;
}

QString cliPath() { return qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/cli/skytrace-cli"; }

int runCli(const QStringList& args, QString* output, int timeout_ms = 240000) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(cliPath(), args);
  if (!process.waitForFinished(timeout_ms)) return -1;
  *output = QString::fromUtf8(process.readAll());
  return process.exitCode();
}

}  // namespace

class TestRegistrationSeedModels : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString dinov2_weights_;
  std::string basemap_;
  geo::LocalEnuFrame enu_{geo::GeoPoint{}};
  CameraModel camera_;
  CameraPose truth_;
  cv::Mat frame_;

  RegistrationOptions seedOptions(const std::string& spec) const {
    RegistrationOptions options;
    applySatelliteModel(spec, options);
    setSatelliteWeights(spec.find("litesam") != std::string::npos ? test::liteSamFixtureWeights().toStdString()
                                                                  : std::string(),
                        dinov2_weights_.toStdString(), options);
    options.dense_matcher.resize_long_side_px = 256;  // CPU time of the test
    options.features.max_keypoints = 2048;
    return options;
  }

  RegistrationRequest globalRequest() const {
    RegistrationRequest request;
    request.frame = 7;
    request.t_s = 0.7;
    request.image = vision::Image::fromHost(frame_);
    request.height_hint_m = truth_.position_enu[2];
    return request;
  }

  static void verifyFixRecord(const RegistrationFix& fix) {
    qInfo("%s mode: %d matches, %d inliers, %s, retrieval %.0f ms, fine matching %.0f ms",
          fix.global_mode ? "global" : "prior", fix.matches, fix.inliers,
          fix.accepted ? "accepted" : fix.reason.c_str(), fix.retrieval_ms, fix.fine_match_ms);
    QCOMPARE(fix.frame, std::int64_t(7));
    QVERIFY(fix.fine_match_ms > 0.0);
    QVERIFY2(fix.accepted ? fix.reason.empty() : isDocumentedRejection(fix.reason), fix.reason.c_str());
    QVERIFY(fix.inliers <= fix.matches);
    if (fix.has_pose) QVERIFY(std::isfinite(fix.pose.position_enu[0]) && std::isfinite(fix.sigma_m));
  }

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    // Nothing in the model directory: only explicit weights count.
    QVERIFY(QDir(dir_.path()).mkpath("models"));
    qputenv("SKYTRACE_MODEL_DIR", dir_.filePath("models").toUtf8());
    dinov2_weights_ = test::writeDinov2VitS14Weights(dir_.path());
    basemap_ = test::sharedPath(kBasemap).toStdString();
    enu_ = geo::LocalEnuFrame(defaultEnuOrigin(basemap_, 0.0));
    camera_ = CameraModel::fromHorizontalFov(256, 192, 60.0);
    truth_.position_enu = {12.0, -18.0, 60.0};
    truth_.yaw_deg = 30.0;
    truth_.pitch_deg = -90.0;
    const geo::Basemap map = geo::Basemap::open(basemap_);
    const FlightRenderer renderer(map, enu_, camera_, RenderOptions{});
    frame_ = renderer.renderClean(truth_).bgr;
  }

  void missingWeightsNameTheFileAndWhereItIsPublished() {
    RegistrationOptions options;
    applySatelliteModel("dinov2+litesam", options);
    const auto construct = [&] {
      const BasemapRegistrar registrar({basemap_}, enu_, 0.0, camera_, options);
    };
    const QString litesam = test::errorMessageOf<ModelError>(construct);
    QVERIFY2(litesam.contains("mloftr.ckpt") && litesam.contains("github.com/boyagesmile/LiteSAM"),
             qPrintable(litesam));
    QCOMPARE(test::errorMessageOf<ModelError>([&] { checkRegistrationWeights(options); }), litesam);

    setSatelliteWeights(test::liteSamFixtureWeights().toStdString(), "", options);
    const QString dinov2 = test::errorMessageOf<ModelError>(construct);
    QVERIFY2(dinov2.contains("dinov2_vits14_pretrain.pth") && dinov2.contains("dl.fbaipublicfiles.com"),
             qPrintable(dinov2));
    QCOMPARE(test::errorMessageOf<ModelError>([&] { checkRegistrationWeights(options); }), dinov2);

    // Local features asked for by name do not fall back to ORB silently.
    RegistrationOptions aliked;
    applySatelliteModel("dinov2+aliked-n16rot", aliked);
    setSatelliteWeights("", dinov2_weights_.toStdString(), aliked);
    const QString features = test::errorMessageOf<ModelError>([&] { checkRegistrationWeights(aliked); });
    QVERIFY2(features.contains("aliked-n16rot.pth"), qPrintable(features));
  }

  void priorModeMatchesTheRectifiedFrameWithLiteSam() {
    BasemapRegistrar registrar({basemap_}, enu_, 0.0, camera_, seedOptions("dinov2+litesam"));
    RegistrationRequest request = globalRequest();
    CameraPose prior = truth_;
    prior.position_enu[0] += 4.0;
    request.prior = prior;
    request.prior_sigma_m = 5.0;
    const RegistrationFix fix = registrar.registerFrame(request);
    verifyFixRecord(fix);
    QVERIFY(!fix.global_mode);
    QCOMPARE(fix.basemap_index, 0);
    QCOMPARE(fix.retrieval_ms, 0.0);
  }

  void globalModeRanksByDinov2AndMatchesWithLiteSam() {
    RegistrationOptions options = seedOptions("dinov2+litesam");
    options.global_candidates = 1;  // two tiles (one per basemap): DINOv2 must rank them
    options.dense_rotations = 4;
    BasemapRegistrar registrar({basemap_, basemap_}, enu_, 0.0, camera_, options);
    const RegistrationFix fix = registrar.registerFrame(globalRequest());
    verifyFixRecord(fix);
    QVERIFY(fix.global_mode);
    QVERIFY(fix.retrieval_ms > 0.0);
  }

  void dinov2RetrievalWithLocalFeaturesLocatesTheFrame() {
    RegistrationOptions options = seedOptions("dinov2+sift");
    options.global_candidates = 1;
    BasemapRegistrar registrar({basemap_, basemap_}, enu_, 0.0, camera_, options);
    const RegistrationFix fix = registrar.registerFrame(globalRequest());
    verifyFixRecord(fix);
    QVERIFY(fix.global_mode);
    QVERIFY2(fix.accepted, fix.reason.c_str());
    const double error_m = std::hypot(fix.pose.position_enu[0] - truth_.position_enu[0],
                                      fix.pose.position_enu[1] - truth_.position_enu[1]);
    qInfo("dinov2+sift: %.2f m from the rendered pose, yaw %.1f deg (truth 30)", error_m, fix.pose.yaw_deg);
    QVERIFY(error_m < 2.0);
  }

  // process --sat-model dinov2+litesam on a 1 s clip: the run completes and report.json
  // names the models; without weights it stops before the first frame, naming the file.
  void processRunsTheSeedSatelliteStage() {
    if (!QFileInfo::exists(cliPath())) QSKIP("skytrace-cli not built");
    const QString clip = dir_.filePath("clip");
    QString log;
    QCOMPARE(runCli({"render", "--basemap", test::sharedPath(kBasemap), "--out", clip, "--size", "320x240",
                     "--fps", "5", "--alt-m", "80", "--hfov-deg", "50", "--duration-s", "1", "--degrade",
                     "--seed", "3"},
                    &log),
             0);
    const QStringList common = {"process", "--video", clip + "/flight.mp4", "--basemap",
                                clip + "/basemap_degraded.tif", "--telemetry", clip + "/flight.srt",
                                "--model", "orb", "--sat-model", "dinov2+litesam", "--sat-size", "256"};
    const QString missing = dir_.filePath("missing");
    QCOMPARE(runCli(common + QStringList{"--out", missing}, &log), 1);
    QVERIFY2(log.contains("mloftr.ckpt") && log.contains("github.com/boyagesmile/LiteSAM"), qPrintable(log));
    QVERIFY(!QFileInfo::exists(missing + "/report.json"));

    const QString out = dir_.filePath("seed");
    const int code = runCli(common + QStringList{"--sat-weights", test::liteSamFixtureWeights(),
                                                 "--retrieval-weights", dinov2_weights_, "--out", out},
                            &log);
    std::ifstream in((out + "/report.json").toStdString());
    const nlohmann::json report = nlohmann::json::parse(in);
    // The fixture weights need not place a frame of the clip; a run that placed none
    // exits 1 and says so (its results written), one that did exits 0.
    QVERIFY2(report["completed"].get<bool>(), qPrintable(log));
    const bool placed = report["frames"]["with_position"].get<int>() > 0;
    QVERIFY2(code == (placed ? 0 : 1), qPrintable(log));
    if (!placed) QVERIFY2(log.contains("no frame was placed on the basemaps"), qPrintable(log));
    QCOMPARE(report["registration_model"].get<std::string>(), std::string("dinov2-vits14+litesam"));
    QCOMPARE(report["satellite_models"]["retrieval"].get<std::string>(), std::string("dinov2-vits14"));
    QCOMPARE(report["satellite_models"]["fine_matching"].get<std::string>(), std::string("litesam"));
    QCOMPARE(report["frames"]["processed"].get<int>(), 5);
    QVERIFY(report["fixes"]["attempted"].get<int>() >= 1);
    QVERIFY(report["timings"]["stages"].contains("fine_match"));
  }
};

QTEST_GUILESS_MAIN(TestRegistrationSeedModels)
#include "test_registration_seed_models.moc"
