// The engine benchmark's vision payloads with the seed models (SuperPoint + LightGlue for
// VO, DINOv2 + LiteSAM or local features for the satellite stage) on the CPU, with the
// parity fixtures' random weights under their published file names (symlinks in a
// temporary weights directory; DINOv2's fixture is a 4-block model, so a full ViT-S/14
// state dict of random values is written there instead).
//  - model names: the accepted forms and clear errors for the others;
//  - the payload's device-side preprocessing equals the vision layer's OpenCV path
//    (SuperPoint keypoints/descriptors, DINOv2 descriptor, LiteSAM matches): an
//    independent implementation of the same input conversion;
//  - runEngineBench runs the seed pipeline in the sequential and overlapped modes on tiny
//    synthetic frames: every stage recorded, counts consistent, model names and weight
//    files in the JSON;
//  - missing weights fail before the run with the expected file and where it is published.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "bench/harness/engine_bench.h"
#include "core/engine/engine_frame_impl.h"
#include "core/engine/synthetic_frame_source.h"
#include "bench/harness/vision_payload_models_impl.h"
#include "bench/harness/vision_payloads.h"
#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/dense_matcher.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/dinov2_descriptor.h"
#include "core/vision/dinov2_model_impl.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/litesam_matcher.h"
#include "core/vision/superpoint_extractor.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::engine;

namespace {

constexpr int kWidth = 160, kHeight = 128;

QString parity(const QString& model) { return test::sharedPath("fixtures/parity/" + model + "/weights.pt"); }

// A synthetic frame as an 8-bit BGR cv::Mat and the same pixels as a [H,W,3] tensor.
cv::Mat syntheticFrame(std::int64_t index) {
  SyntheticFrameOptions options;
  options.width_px = kWidth;
  options.height_px = kHeight;
  options.frame_count = 10;
  const SyntheticFrameSource source(options);
  cv::Mat frame(kHeight, kWidth, CV_8UC3);
  source.render(index, frame.data, frame.step);
  return frame;
}

at::Tensor tensorOf(const cv::Mat& bgr) {
  return at::from_blob(bgr.data, {bgr.rows, bgr.cols, 3}, at::kByte).clone();
}

}  // namespace

class TestVisionPayloads : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void parsesModelNames() {
    FeatureMatchingModel vo = parseFeatureMatchingModel("superpoint+lightglue");
    QCOMPARE(QString::fromStdString(vo.features), QString("superpoint"));
    QCOMPARE(QString::fromStdString(vo.matcher), QString("lightglue"));
    vo = parseFeatureMatchingModel("aliked-n16rot");
    QCOMPARE(QString::fromStdString(vo.matcher), QString("mnn"));
    QCOMPARE(QString::fromStdString(parseFeatureMatchingModel("aliked-n32+lightglue").matcher),
             QString("lightglue"));

    SatelliteModel sat = parseSatelliteModel("dinov2+litesam");
    QCOMPARE(QString::fromStdString(sat.retrieval), QString("dinov2-vits14"));
    QCOMPARE(QString::fromStdString(sat.dense_matcher), QString("litesam"));
    sat = parseSatelliteModel("dinov2-vitb14-reg+superpoint+lightglue");
    QCOMPARE(QString::fromStdString(sat.retrieval), QString("dinov2-vitb14-reg"));
    QVERIFY(sat.dense_matcher.empty());
    QCOMPARE(QString::fromStdString(sat.local.features), QString("superpoint"));
    QCOMPARE(QString::fromStdString(sat.local.matcher), QString("lightglue"));
    sat = parseSatelliteModel("aliked-n16rot");
    QVERIFY(sat.retrieval.empty());
    QCOMPARE(QString::fromStdString(sat.local.features), QString("aliked-n16rot"));

    const auto vo_error = [](const std::string& text) {
      return test::errorMessageOf<InvalidArgument>([&] { parseFeatureMatchingModel(text); });
    };
    const auto sat_error = [](const std::string& text) {
      return test::errorMessageOf<InvalidArgument>([&] { parseSatelliteModel(text); });
    };
    QVERIFY2(vo_error("superglue").contains("unknown features 'superglue'"), qPrintable(vo_error("superglue")));
    QVERIFY(vo_error("superglue").contains("FEATURES[+mnn|+lightglue]"));
    QVERIFY2(vo_error("superpoint+superglue").contains("unknown matcher 'superglue'"),
             qPrintable(vo_error("superpoint+superglue")));
    QVERIFY2(vo_error("aliked-t16+lightglue").contains("128-D ALIKED"), qPrintable(vo_error("aliked-t16+lightglue")));
    QVERIFY(vo_error("orb+lightglue").contains("not for orb"));
    QVERIFY(vo_error("superpoint+").contains("expected FEATURES"));
    QVERIFY(vo_error("aliked-n64").contains("unknown features 'aliked-n64'"));
    QVERIFY2(sat_error("litesam").contains("dinov2+litesam"), qPrintable(sat_error("litesam")));
    QVERIFY2(sat_error("dinov2").contains("needs a fine matcher"), qPrintable(sat_error("dinov2")));
    QVERIFY2(sat_error("dinov2-vitx14+litesam").contains("dinov2-vits14"), qPrintable(sat_error("dinov2-vitx14+litesam")));
    QVERIFY(sat_error("dinov2+loftr").contains("unknown features 'loftr'"));

    // The benchmark's parser reports them as option errors too.
    const QString bench_error = test::errorMessageOf<InvalidArgument>(
        [] { parseEngineBenchArguments({"--sat-model", "dinov2+foo"}); });
    QVERIFY2(bench_error.contains("unknown features 'foo'"), qPrintable(bench_error));
    QVERIFY(test::errorMessageOf<InvalidArgument>([] {
              parseEngineBenchArguments({"--lightglue-depth", "half"});
            }).contains("full or adaptive"));
    QVERIFY(test::errorMessageOf<InvalidArgument>([] {
              parseEngineBenchArguments({"--retrieval-crop", "200"});
            }).contains("multiple of 14"));
    QVERIFY(test::errorMessageOf<InvalidArgument>([] {
              parseEngineBenchArguments({"--fine-size", "500"});
            }).contains("multiple of 32"));
    const EngineBenchOptions parsed = parseEngineBenchArguments(
        {"--vo-model", "superpoint+lightglue", "--sat-model", "dinov2+litesam", "--retrieval-crop",
         "112", "--fine-size", "256", "--lightglue-depth", "adaptive"});
    QCOMPARE(parsed.payload.retrieval_crop_px, 112);
    QCOMPARE(parsed.payload.fine_match_size_px, 256);
    QVERIFY(parsed.payload.lightglue_adaptive);
  }

  // The engine keeps its own copy of LiteSAM's published name (no OpenCV on the GPU build).
  void liteSamNameAgreesWithTheVisionLayer() {
    QCOMPARE(QString(kLiteSamCheckpointFile), QString(vision::kLiteSamPublishedFile));
    QCOMPARE(QString(kLiteSamCheckpointUrl), QString(vision::kLiteSamWeightsUrl));
  }

  // Checked before the run (visionPayloadWeights), one file after the other: empty
  // placeholder files stand for the ones already found.
  void missingWeightsNameTheFileAndWhereItIsPublished() {
    QTemporaryDir dir;
    EngineBenchOptions options;
    options.width_px = kWidth;
    options.height_px = kHeight;
    options.frames = 3;
    options.warmup_frames = 0;
    options.device = "cpu";
    options.payload.vo_model = "superpoint+lightglue";
    options.payload.satellite_model = "dinov2+litesam";
    options.payload.weights_dir = dir.path().toStdString();
    const auto message = [&] {
      return test::errorMessageOf<ModelError>([&] { runEngineBench(options, nullptr, nullptr); });
    };
    const auto place = [&](const QString& name) {
      QFile file(dir.filePath(name));
      QVERIFY(file.open(QIODevice::WriteOnly));
    };
    QString text = message();
    QVERIFY2(text.contains(dir.filePath("superpoint_v1.pth")) && text.contains("magicleap"), qPrintable(text));
    place("superpoint_v1.pth");
    text = message();
    QVERIFY2(text.contains("superpoint_lightglue.pth") && text.contains("cvg/LightGlue"), qPrintable(text));
    place("superpoint_lightglue.pth");
    text = message();
    QVERIFY2(text.contains("dinov2_vits14_pretrain.pth") && text.contains("dl.fbaipublicfiles.com/dinov2"),
             qPrintable(text));
    place("dinov2_vits14_pretrain.pth");
    text = message();
    QVERIFY2(text.contains("mloftr.ckpt") && text.contains("boyagesmile/LiteSAM"), qPrintable(text));
    options.payload.vo_model = "aliked-n16rot+lightglue";
    text = message();
    QVERIFY2(text.contains("aliked-n16rot.pth") && text.contains("Shiaoming/ALIKED"), qPrintable(text));
    place("aliked-n16rot.pth");
    text = message();
    QVERIFY2(text.contains("aliked_lightglue.pth"), qPrintable(text));
  }

  void initTestCase() {
    c10::InferenceMode inference;
    if (test::sharedDir().isEmpty()) return;  // the data tests skip themselves
    QVERIFY(weights_.isValid());
    const auto link = [&](const QString& model, const QString& published) {
      QVERIFY2(QFile::link(parity(model), weights_.filePath(published)), qPrintable(parity(model)));
    };
    link("superpoint", "superpoint_v1.pth");
    link("lightglue_superpoint", "superpoint_lightglue.pth");
    link("litesam", "mloftr.ckpt");
    // Random full-depth ViT-S/14 weights in the published layout (safetensors content
    // under the published name: the loader recognises the format by content).
    const vision::StateDict random =
        vision::dinov2::randomDinov2Weights(vision::dinov2Config("dinov2-vits14"), 11);
    std::ofstream file(weights_.filePath("dinov2_vits14_pretrain.pth").toStdString(), std::ios::binary);
    file << vision::saveSafetensorsBytes(random.tensors);
    QVERIFY(file.good());
  }

  // SuperPoint from device pixels (grayFloatImage) vs the vision layer's extractor (OpenCV
  // BGR2GRAY on the host): the same keypoints (order aside) and descriptors.
  void superPointMatchesTheVisionExtractor() {
    SKYTRACE_REQUIRE_SHARED();
    c10::InferenceMode inference;
    const cv::Mat frame = syntheticFrame(2);
    const auto engine_extractor =
        createPayloadExtractor("superpoint", 256, weights_.path().toStdString(), vision::DeviceSpec{});
    const TensorFeatures ours = engine_extractor->extract(tensorOf(frame));
    vision::ExtractorOptions options;
    options.model = "superpoint";
    options.weights_path = weights_.filePath("superpoint_v1.pth").toStdString();
    options.max_keypoints = 256;
    const vision::FeatureSet reference = vision::createSuperPointExtractor(options)->extract(frame);
    QCOMPARE(ours.keypoints_px.size(0), static_cast<int64_t>(reference.size()));
    QVERIFY(reference.size() > 50);
    // Keypoint sets: every reference keypoint among ours (order may differ at ties).
    const at::Tensor ref_kp = reference.impl().keypoints_px;
    const at::Tensor distance = at::cdist(ref_kp, ours.keypoints_px);
    const at::Tensor nearest = std::get<1>(distance.min(1));
    const double same = (std::get<0>(distance.min(1)) < 1e-3).to(at::kFloat).mean().item<double>();
    QVERIFY2(same == 1.0, qPrintable(QString("same keypoints: %1").arg(same)));
    const at::Tensor cosine = (reference.impl().descriptors * ours.descriptors.index_select(0, nearest)).sum(1);
    QVERIFY2(cosine.median().item<double>() > 0.9999, qPrintable(QString::number(cosine.median().item<double>())));
  }

  // DINOv2 on a crop that needs no resizing: the engine's crop + normalisation + pooling
  // equals the vision layer's GlobalDescriptorExtractor (cv::Mat path).
  void dinov2RetrievalMatchesTheVisionDescriptor() {
    SKYTRACE_REQUIRE_SHARED();
    c10::InferenceMode inference;
    const cv::Mat square = syntheticFrame(1)(cv::Rect(20, 8, 112, 112)).clone();
    TileRetrieval retrieval("dinov2-vits14", weights_.path().toStdString(), 112, vision::DeviceSpec{});
    const at::Tensor ours = retrieval.describe(tensorOf(square));
    vision::GlobalDescriptorOptions options;
    options.model = "dinov2-vits14";
    options.weights_path = weights_.filePath("dinov2_vits14_pretrain.pth").toStdString();
    options.input_size_px = 112;
    const vision::GlobalDescriptor reference = vision::createGlobalDescriptorExtractor(options)->describe(square);
    QCOMPARE(ours.size(0), static_cast<int64_t>(reference.values.size()));
    const at::Tensor expected = at::from_blob(const_cast<float*>(reference.values.data()),
                                              {static_cast<int64_t>(reference.values.size())}, at::kFloat);
    const double deviation = (ours - expected).abs().max().item<double>();
    QVERIFY2(deviation < 1e-5, qPrintable(QString("max deviation %1").arg(deviation)));
    // Centre crop of a wider image: the same square.
    const cv::Mat wide = syntheticFrame(1)(cv::Rect(0, 8, 152, 112)).clone();
    const double crop_deviation =
        (retrieval.describe(tensorOf(wide)) - ours).abs().max().item<double>();
    QVERIFY2(crop_deviation < 1e-6, qPrintable(QString::number(crop_deviation)));
  }

  // LiteSAM on square pairs that need no resizing: the same grayscale bytes as OpenCV and
  // the same matches as the DenseMatcher.
  void liteSamMatchesTheDenseMatcher() {
    SKYTRACE_REQUIRE_SHARED();
    c10::InferenceMode inference;
    const cv::Mat a = syntheticFrame(0)(cv::Rect(16, 0, 128, 128)).clone();
    const cv::Mat b = syntheticFrame(3)(cv::Rect(16, 0, 128, 128)).clone();
    // The device-side grayscale conversion gives OpenCV's bytes.
    cv::Mat gray;
    cv::cvtColor(a, gray, cv::COLOR_BGR2GRAY);
    const at::Tensor expected_gray =
        at::from_blob(gray.data, {1, 1, gray.rows, gray.cols}, at::kByte).to(at::kFloat).div(255);
    QCOMPARE((grayFloatImage(tensorOf(a)) - expected_gray).abs().max().item<float>(), 0.0f);
    const DenseTileMatcher ours("litesam", weights_.path().toStdString(), 128, vision::DeviceSpec{});
    const DenseTileMatcher::Result got = ours.match(ours.prepare(tensorOf(a)), ours.prepare(tensorOf(b)));
    vision::DenseMatcherOptions options;
    options.weights_path = weights_.filePath("mloftr.ckpt").toStdString();
    options.resize_long_side_px = 128;
    const vision::DenseMatches expected = vision::createDenseMatcher(options)->match(a, b);
    QCOMPARE(got.points_a.size(0), static_cast<int64_t>(expected.size()));
    for (int k = 0; k < expected.size(); ++k) {
      const float* pa = got.points_a[k].data_ptr<float>();
      const float* pb = got.points_b[k].data_ptr<float>();
      QVERIFY(std::abs(pa[0] - expected.points_a[k].x) < 1e-3 && std::abs(pa[1] - expected.points_a[k].y) < 1e-3);
      QVERIFY(std::abs(pb[0] - expected.points_b[k].x) < 1e-3 && std::abs(pb[1] - expected.points_b[k].y) < 1e-3);
    }
  }

  // The seed pipeline through the benchmark: sequential and overlapped on 3 frames.
  void seedPipelineRunsEveryStage() {
    SKYTRACE_REQUIRE_SHARED();
    EngineBenchOptions options = tinyBench();
    options.payload.vo_model = "superpoint+lightglue";
    options.payload.satellite_model = "dinov2+litesam";
    const nlohmann::json report = runEngineBench(options, nullptr, nullptr);
    const nlohmann::json& workload = report.at("workload");
    QCOMPARE(QString::fromStdString(workload.at("vo_model")), QString("superpoint+lightglue"));
    QCOMPARE(QString::fromStdString(workload.at("satellite_model")), QString("dinov2+litesam"));
    QVERIFY(QString::fromStdString(workload.at("vo_pipeline")).contains("LightGlue full depth"));
    QVERIFY(QString::fromStdString(workload.at("satellite_pipeline")).contains("litesam on 128x128"));
    const nlohmann::json& weights = workload.at("weights");
    QCOMPARE(weights.size(), std::size_t{4});
    QVERIFY(QString::fromStdString(weights.at("vo features")).endsWith("/superpoint_v1.pth"));
    QVERIFY(QString::fromStdString(weights.at("vo matcher")).endsWith("/superpoint_lightglue.pth"));
    QVERIFY(QString::fromStdString(weights.at("satellite retrieval")).endsWith("/dinov2_vits14_pretrain.pth"));
    QVERIFY(QString::fromStdString(weights.at("satellite fine matcher")).endsWith("/mloftr.ckpt"));
    checkModes(report, options);
  }

  // DINOv2 retrieval with local features as the fine step (SuperPoint + LightGlue).
  void dinov2WithLocalFeaturesRuns() {
    SKYTRACE_REQUIRE_SHARED();
    EngineBenchOptions options = tinyBench();
    options.modes = {"sequential"};
    options.payload.vo_model = "superpoint";
    options.payload.satellite_model = "dinov2+superpoint+lightglue";
    options.payload.retrieval_candidates = 2;
    const nlohmann::json report = runEngineBench(options, nullptr, nullptr);
    QCOMPARE(report.at("workload").at("weights").size(), std::size_t{4});  // SP twice, LG, DINOv2
    checkModes(report, options);
  }

 private:
  EngineBenchOptions tinyBench() const {
    EngineBenchOptions options;
    options.width_px = kWidth;
    options.height_px = kHeight;
    options.frames = 3;
    options.warmup_frames = 0;
    options.modes = {"sequential", "overlapped"};
    options.device = "cpu";
    options.tiles = 3;
    options.payload.weights_dir = weights_.path().toStdString();
    options.payload.vo_keypoints = 200;
    options.payload.satellite_keypoints = 200;
    options.payload.retrieval_crop_px = 56;
    options.payload.fine_match_size_px = 128;
    return options;
  }

  static void checkModes(const nlohmann::json& report, const EngineBenchOptions& options) {
    const auto frames = static_cast<int>(options.frames);
    QCOMPARE(report.at("modes").size(), options.modes.size());
    for (const nlohmann::json& mode : report.at("modes")) {
      const QString name = QString::fromStdString(mode.at("mode"));
      QVERIFY2(mode.at("completed").get<bool>(), qPrintable(name + ": " + QString::fromStdString(mode.at("error"))));
      QCOMPARE(mode.at("frames").get<int>(), frames);
      const nlohmann::json& stages = mode.at("stages");
      QCOMPARE(stages.at("extract").at("count").get<int>(), frames);
      QCOMPARE(stages.at("match").at("count").get<int>(), frames - 1);
      QCOMPARE(stages.at("pose").at("count").get<int>(), frames - 1);
      const nlohmann::json& keyframes = mode.at("keyframes");
      const int processed = keyframes.at("processed").get<int>();
      QCOMPARE(keyframes.at("requested").get<int>(), frames);  // every frame a keyframe
      QCOMPARE(processed + keyframes.at("dropped").get<int>(), frames);
      QVERIFY(processed >= 1);
      if (name == "sequential") QCOMPARE(processed, frames);
      QCOMPARE(stages.at("retrieval").at("count").get<int>(), processed);
      QCOMPARE(stages.at("fine_match").at("count").get<int>(), processed);
      QCOMPARE(mode.at("fixes").at("applied").get<int>(), processed);
      // Real work, consistent counts: keypoints within the budget, matches <= keypoints,
      // inliers <= matches.
      const double keypoints = mode.at("vo_keypoints").at("mean").get<double>();
      QCOMPARE(mode.at("vo_keypoints").at("frames").get<int>(), frames);
      QVERIFY2(keypoints > 20 && keypoints <= options.payload.vo_keypoints, qPrintable(QString::number(keypoints)));
      QCOMPARE(mode.at("vo_pairs").at("count").get<int>(), frames - 1);
      const double matches = mode.at("vo_pairs").at("mean_matches").get<double>();
      QVERIFY(matches <= keypoints);
      QVERIFY(mode.at("vo_pairs").at("mean_inliers").get<double>() <= matches);
      QVERIFY(mode.at("fixes").at("mean_inliers").get<double>() <= mode.at("fixes").at("mean_matches").get<double>());
    }
  }

  QTemporaryDir weights_;
};

QTEST_GUILESS_MAIN(TestVisionPayloads)
#include "test_vision_payloads.moc"
