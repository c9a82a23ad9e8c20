// Global descriptors: similarity and option checks, clear errors for missing or wrong
// weights, and the DINOv2 descriptor end to end (BGR cv::Mat -> preprocessing -> model ->
// pooling) against the reference outputs of the original DINOv2 (parity fixture,
// depth-4 ViT-S/14 with random weights): CLS pooling equals the normalised reference
// x_norm_clstoken, GeM equals GeM of the reference patch tokens. With random weights
// retrieval quality cannot be measured; the tests check determinism and the
// invariances the descriptor must have.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <opencv2/imgproc.hpp>

#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/dinov2_descriptor.h"
#include "core/vision/global_descriptor.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {

std::string fixture(const std::string& file) {
  return test::sharedPath(QString::fromStdString("fixtures/parity/dinov2_vits14/" + file))
      .toStdString();
}

Dinov2Config fixtureConfig() {
  Dinov2Config config = dinov2Config("dinov2-vits14");
  config.depth = 4;
  return config;
}

GlobalDescriptorOptions fixtureOptions(const std::string& pooling, int size_px = 224) {
  GlobalDescriptorOptions options;
  options.model = "dinov2-vits14";
  options.weights_path = fixture("weights.pt");
  options.pooling = pooling;
  options.input_size_px = size_px;
  return options;
}

// uint8 RGB [H,W,3] tensor -> BGR cv::Mat (owning).
cv::Mat toBgr(const at::Tensor& rgb) {
  const at::Tensor c = rgb.contiguous();
  const cv::Mat view(static_cast<int>(c.size(0)), static_cast<int>(c.size(1)), CV_8UC3,
                     c.data_ptr<uint8_t>());
  cv::Mat bgr;
  cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
  return bgr;
}

double maxAbsDiff(const std::vector<float>& a, const at::Tensor& b) {
  const at::Tensor ours = at::tensor(a, at::kFloat).to(at::kDouble);
  return (ours - b.reshape({-1}).to(at::kDouble)).abs().max().item<double>();
}

at::Tensor normalized(const at::Tensor& v) { return v / v.norm(); }

double norm(const GlobalDescriptor& d) {
  double sum = 0;
  for (float v : d.values) sum += static_cast<double>(v) * v;
  return std::sqrt(sum);
}

}  // namespace

class TestGlobalDescriptor : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(1); }

  void similarity() {
    const GlobalDescriptor x{{1, 0, 0}}, y{{0, 1, 0}}, minus_x{{-1, 0, 0}};
    QCOMPARE(descriptorSimilarity(x, x), 1.0f);
    QCOMPARE(descriptorSimilarity(x, y), 0.0f);
    QCOMPARE(descriptorSimilarity(x, minus_x), -1.0f);
    const QString message = test::errorMessageOf<InvalidArgument>(
        [&] { descriptorSimilarity(x, GlobalDescriptor{{1, 0}}); });
    QVERIFY2(message.contains("3 vs 2"), qPrintable(message));
  }

  void optionsCheck_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::newRow("model") << "model" << "known: dinov2-vits14";
    QTest::newRow("size") << "size" << "multiple of the 14 px patch size";
    QTest::newRow("pooling") << "pooling" << "cls, gem or cls+gem";
    QTest::newRow("gem_p") << "gem_p" << "gem_p";
    QTest::newRow("float16 on cpu") << "precision" << "needs a CUDA device";
  }

  void optionsCheck() {
    QFETCH(QString, field);
    QFETCH(QString, expected);
    GlobalDescriptorOptions options;
    options.model = "dinov2-vits14";
    options.check();  // the defaults are valid
    if (field == "model") options.model = "dinov3-vits16";
    if (field == "size") options.input_size_px = 225;
    if (field == "pooling") options.pooling = "vlad";
    if (field == "gem_p") options.gem_p = 0.0f;
    if (field == "precision") options.precision = "float16";
    const QString message = test::errorMessageOf<InvalidArgument>([&] { options.check(); });
    QVERIFY2(message.contains(expected), qPrintable(message));
  }

  // No weights anywhere: the message names the published file and where to get it.
  void missingWeightsNameTheFile() {
    QTemporaryDir empty;
    qputenv("SKYTRACE_MODEL_DIR", empty.path().toUtf8());
    GlobalDescriptorOptions options;
    options.model = "dinov2-vitb14-reg";
    const QString message = test::errorMessageOf<ModelError>(
        [&] { createGlobalDescriptorExtractor(options); });
    qunsetenv("SKYTRACE_MODEL_DIR");
    QVERIFY2(message.contains("dinov2_vitb14_reg4_pretrain.pth"), qPrintable(message));
    QVERIFY2(message.contains("dl.fbaipublicfiles.com/dinov2"), qPrintable(message));

    options.weights_path = (empty.path() + "/nowhere.pth").toStdString();
    const QString explicit_message = test::errorMessageOf<ModelError>(
        [&] { createGlobalDescriptorExtractor(options); });
    QVERIFY2(explicit_message.contains("nowhere.pth"), qPrintable(explicit_message));
  }

  void unavailableDeviceIsAClearError() {
    if (cudaDeviceCount() > 0) QSKIP("a CUDA device is available here");
    GlobalDescriptorOptions options;
    options.model = "dinov2-vits14";
    options.device = parseDevice("cuda:0");
    const QString message = test::errorMessageOf<InvalidArgument>(
        [&] { createGlobalDescriptorExtractor(options); });
    QVERIFY2(message.contains("cuda"), qPrintable(message));
  }

  void wrongFileIsAClearError() {
    QTemporaryDir dir;
    const QString path = dir.path() + "/dinov2_vits14_pretrain.pth";
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("<html>404 Not Found</html>");
    file.close();
    GlobalDescriptorOptions options;
    options.model = "dinov2-vits14";
    options.weights_path = path.toStdString();
    const QString message = test::errorMessageOf<ModelError>(
        [&] { createGlobalDescriptorExtractor(options); });
    QVERIFY2(message.contains("dinov2_vits14_pretrain.pth"), qPrintable(message));
  }

  // The fixture's weights are a depth-4 model: the published depth-12 architecture
  // refuses them, naming the absent blocks.
  void depthMismatchIsReported() {
    SKYTRACE_REQUIRE_SHARED();
    const QString message = test::errorMessageOf<ModelError>(
        [&] { createGlobalDescriptorExtractor(fixtureOptions("cls")); });
    QVERIFY2(message.contains("blocks.4.attn.qkv.weight"), qPrintable(message));
  }

  void matchesTheReferenceModel_data() {
    QTest::addColumn<QString>("suffix");
    QTest::newRow("224") << "";
    QTest::newRow("322") << "_322";
  }

  // The descriptor of the fixture crop (given as BGR) equals the pooled reference tokens
  // (each pooling on the 224 crop, cls+gem on the 322 crop).
  void matchesTheReferenceModel() {
    SKYTRACE_REQUIRE_SHARED();
    QFETCH(QString, suffix);
    const std::string s = suffix.toStdString();
    const StateDict inputs = loadTorchCheckpoint(fixture("inputs.pt"));
    const StateDict outputs = loadTorchCheckpoint(fixture("outputs.pt"));
    const at::Tensor rgb = inputs.at("image" + s + "_rgb_u8");
    const cv::Mat bgr = toBgr(rgb);
    const int size = static_cast<int>(rgb.size(0));

    const at::Tensor ref_cls = normalized(outputs.at("x_norm_clstoken" + s)[0].to(at::kDouble));
    const at::Tensor tokens = outputs.at("x_norm_patchtokens" + s)[0].to(at::kDouble);
    const at::Tensor ref_gem = normalized(tokens.clamp_min(1e-6).pow(3).mean(0).pow(1.0 / 3));

    auto both = createDinov2DescriptorExtractor(fixtureOptions("cls+gem", size), fixtureConfig());
    QCOMPARE(both->dimension(), 768);
    const GlobalDescriptor d_both = both->describe(bgr);
    const double both_diff =
        maxAbsDiff(d_both.values, at::cat({ref_cls, ref_gem}) / std::sqrt(2.0));
    qInfo("%s: cls+gem %.3g", s.empty() ? "224" : "322", both_diff);
    QVERIFY(both_diff < 2e-6);
    QVERIFY(std::abs(norm(d_both) - 1.0) < 1e-6);
    if (!s.empty()) return;

    auto cls = createDinov2DescriptorExtractor(fixtureOptions("cls", size), fixtureConfig());
    auto gem = createDinov2DescriptorExtractor(fixtureOptions("gem", size), fixtureConfig());
    QCOMPARE(cls->dimension(), 384);
    const double cls_diff = maxAbsDiff(cls->describe(bgr).values, ref_cls);
    const double gem_diff = maxAbsDiff(gem->describe(bgr).values, ref_gem);
    qInfo("224: cls %.3g gem %.3g", cls_diff, gem_diff);
    QVERIFY(cls_diff < 2e-6);
    QVERIFY(gem_diff < 2e-6);
  }

  // Deterministic, self-similarity 1, grayscale given as 1 or 3 channels describes the
  // same image, a batch equals single calls, a slightly rescaled copy of a view stays
  // closer than a different place on the same orthophoto.
  void invariances() {
    SKYTRACE_REQUIRE_SHARED();
    const StateDict inputs = loadTorchCheckpoint(fixture("inputs.pt"));
    const cv::Mat a = toBgr(inputs.at("image_rgb_u8"));
    const cv::Mat other = toBgr(inputs.at("image_322_rgb_u8"))(cv::Rect(98, 98, 224, 224)).clone();
    auto extractor =
        createDinov2DescriptorExtractor(fixtureOptions("cls+gem"), fixtureConfig());

    const GlobalDescriptor first = extractor->describe(a);
    const GlobalDescriptor again = extractor->describe(a);
    QVERIFY(first.values == again.values);  // bit-identical
    QVERIFY(std::abs(descriptorSimilarity(first, first) - 1.0f) < 1e-6f);

    cv::Mat gray, gray3;
    cv::cvtColor(a, gray, cv::COLOR_BGR2GRAY);
    cv::cvtColor(gray, gray3, cv::COLOR_GRAY2BGR);
    QVERIFY(extractor->describe(gray).values == extractor->describe(gray3).values);

    cv::Mat enlarged;  // 1.5x larger: resized back to 224 by the preprocessing
    cv::resize(a, enlarged, cv::Size(336, 336), 0, 0, cv::INTER_CUBIC);
    const std::vector<GlobalDescriptor> batch = extractor->describeBatch({a, other, enlarged});
    QCOMPARE(batch.size(), size_t{3});
    for (size_t i = 0; i < first.values.size(); ++i)
      QVERIFY(std::abs(batch[0].values[i] - first.values[i]) < 1e-5f);
    const float same_place = descriptorSimilarity(first, batch[2]);
    const float other_place = descriptorSimilarity(first, batch[1]);
    qInfo("similarity: rescaled copy %.4f, other place %.4f", same_place, other_place);
    QVERIFY(same_place > other_place);

    // Non-square input of any size: shorter side 224, longer snapped to a multiple of 14.
    const cv::Mat wide = toBgr(inputs.at("image_322_rgb_u8"))(cv::Rect(0, 40, 322, 200)).clone();
    const GlobalDescriptor d_wide = extractor->describe(wide);
    QCOMPARE(static_cast<int>(d_wide.values.size()), extractor->dimension());
    QVERIFY(std::abs(norm(d_wide) - 1.0) < 1e-6);

    const QString message = test::errorMessageOf<InvalidArgument>(
        [&] { extractor->describe(cv::Mat()); });
    QVERIFY2(message.contains("empty image"), qPrintable(message));
  }
};

QTEST_GUILESS_MAIN(TestGlobalDescriptor)
#include "test_global_descriptor.moc"
