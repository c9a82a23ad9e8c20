// Every public entry point of core/vision runs its tensor work under an inference guard
// of its own, so callers (the CLI, the GUI's worker, the sequential navigation) need none.
// Learned extractors hand out inference tensors (made under c10::InferenceMode); such
// tensors skip the autograd dispatch layer, and oneDNN's kernels then hit LibTorch's
// internal assert `variable_excluded_from_dispatch` (MKLDNNCommon.cpp) when they are used
// outside a guard. That happened on every x86-64 CPU for the MNN matcher's
// mkldnn_linear, and on AVX-512/AMX CPUs for more operators. Each case below calls the
// entry point from a thread without any guard, on data made under one.
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <QtTest>

#include <opencv2/imgcodecs.hpp>

#include "core/vision/feature_set_impl.h"
#include "core/vision/features.h"
#include "core/vision/homography_pipeline.h"
#include "core/vision/matcher.h"
#include "core/vision/matcher_impl.h"
#include "core/vision/robust_estimation.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {

at::Tensor unitRows(const at::Tensor& t) { return t / t.norm(2, 1, true); }

// A FeatureSet as a learned extractor returns it: every tensor an inference tensor.
// B holds the first half of A's descriptors, slightly perturbed, then distractors.
std::pair<FeatureSet, FeatureSet> inferenceFeatureSets(int64_t n, int64_t dim) {
  c10::InferenceMode made_under_a_guard;
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
  const at::Tensor a = unitRows(at::randn({n, dim}, gen, at::kFloat));
  at::Tensor b = at::randn({n, dim}, gen, at::kFloat);
  b.narrow(0, 0, n / 2).copy_(a.narrow(0, 0, n / 2) + 0.05 * at::randn({n / 2, dim}, gen, at::kFloat));
  b = unitRows(b);
  const at::Tensor keypoints = at::rand({n, 2}, gen, at::kFloat) * 100;
  const at::Tensor scores = at::rand({n}, gen, at::kFloat);
  return {makeFeatureSet(keypoints, scores, a, 128, 128, DeviceSpec{}),
          makeFeatureSet(keypoints.clone(), scores.clone(), b, 128, 128, DeviceSpec{})};
}

}  // namespace

class TestInferenceGuard : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() { QVERIFY(!c10::InferenceMode::is_enabled()); }

  void featureSetsFromAGuardAreInferenceTensors() {
    const auto [a, b] = inferenceFeatureSets(64, 32);
    QVERIFY(a.impl().descriptors.is_inference());
    QVERIFY(b.impl().keypoints_px.is_inference());
  }

  void mutualNearestNeighboursOutsideAGuard() {
    const auto [a, b] = inferenceFeatureSets(256, 64);
    Matches matches;
    try {
      matches = createMatcher("mnn")->match(a, b);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    // The perturbed half matches itself; the distractors (random 64-D) pass the ratio test
    // only by chance.
    int correct = 0;
    for (int i = 0; i < matches.size(); ++i) correct += matches.index_a[i] == matches.index_b[i] && matches.index_a[i] < 128;
    QVERIFY2(correct >= 120, qPrintable(QString("%1 correct matches").arg(correct)));

    const MatchTensors tensors =
        matchMutualNearestNeighbours(a.impl().descriptors, b.impl().descriptors, MatchOptions{});
    QCOMPARE(int(tensors.index_a.size(0)), matches.size());
  }

  void featureSetAccessorsOutsideAGuard() {
    const auto [a, b] = inferenceFeatureSets(16, 8);
    QCOMPARE(int(a.keypoints().size()), 16);
    QCOMPARE(int(a.scores().size()), 16);
    QCOMPARE(a.descriptors().rows, 16);
    QCOMPARE(a.descriptors().cols, 8);
  }

  void robustEstimationOutsideAGuard() {
    // A known homography, 20 % outliers.
    std::vector<Point2d> pa, pb;
    for (int i = 0; i < 200; ++i) {
      const double x = (i * 37) % 400, y = (i * 91) % 300;
      pa.push_back({x, y});
      pb.push_back(i % 5 == 0 ? Point2d{double((i * 53) % 400), double((i * 17) % 300)}
                              : Point2d{1.1 * x + 0.02 * y + 5, -0.01 * x + 0.95 * y - 3});
    }
    RansacOptions options;
    options.model = GeometricModelType::Homography;
    options.inlier_threshold_px = 1.0;
    const RansacResult result = estimateGeometricModel(pa, pb, options);
    QVERIFY(result.found);
    QVERIFY2(result.num_inliers >= 155, qPrintable(QString::number(result.num_inliers)));
  }

  void alikedMatchPathOutsideAGuard() {
    // The path of `skytrace-cli match --model aliked-n16rot` (and of every sequential
    // navigation): real weights, real photographs, no guard in the caller.
    SKYTRACE_REQUIRE_SHARED();
    const QString weights = test::sharedPath("models/aliked/aliked-n16rot.pth");
    if (!QFileInfo::exists(weights)) QSKIP("ALIKED weights not in ../shared/models/aliked");
    const cv::Mat a = cv::imread(test::sharedPath("data/opencv_samples/graf1.png").toStdString());
    const cv::Mat b = cv::imread(test::sharedPath("data/opencv_samples/graf3.png").toStdString());
    QVERIFY(!a.empty() && !b.empty());
    ExtractorOptions options;
    options.model = "aliked-n16rot";
    options.weights_path = weights.toStdString();
    options.max_keypoints = 1024;
    options.detection_threshold = 0.0f;  // exactly max_keypoints
    const auto extractor = createFeatureExtractor(options);
    const auto matcher = createMatcher("mnn");
    RansacOptions ransac;
    ransac.inlier_threshold_px = 3.0;
    ImagePairHomography pair;
    try {
      pair = estimateImagePairHomography(*extractor, *matcher, a, b, ransac);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(pair.features_a.size(), 1024);
    QVERIFY(pair.features_a.impl().descriptors.is_inference());
    QVERIFY2(pair.ransac.found && pair.ransac.num_inliers >= 50,
             qPrintable(QString("%1 inliers of %2 matches").arg(pair.ransac.num_inliers).arg(pair.matches.size())));
    const Matrix3d truth = readHomographyFile(test::sharedPath("data/opencv_samples/H1to3p.xml").toStdString());
    const double corner_error = meanCornerTransferError(pair.ransac.model, truth, a.cols, a.rows);
    QVERIFY2(corner_error < 5.0, qPrintable(QString("corner error %1 px").arg(corner_error)));
  }
};

QTEST_GUILESS_MAIN(TestInferenceGuard)
#include "test_inference_guard.moc"
