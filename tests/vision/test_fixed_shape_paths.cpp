// The synchronisation-free, fixed-shape variants that the CUDA-graph fast paths replay
// (cuda_graph_impl.h) give the eager selection's result in their leading rows, on the
// CPU (the CUDA build runs the same functions inside graphs; tests/vision/test_vision_cuda.cpp
// checks them there against the CPU):
//   - SuperPoint selectKeypointsFixed vs selectKeypoints: top-k branch (more candidates
//     than the budget) and row-major branch (fewer);
//   - ALIKED detectTopKPeaksFixed vs detectKeypoints (top-k), also with fewer NMS peaks
//     than top_k;
//   - longPair, CapturedGraphs declining CPU tensors (the caller runs eagerly),
//     ModelGraphs giving a copied model its own cache, and ScopedNoCudaGraphs switching
//     the graphs of models created under it off, on its thread only.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

#include <QtTest>

#include <thread>

#include "core/vision/aliked_dkd_impl.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/superpoint_model_impl.h"
#include "core/vision/torch_runtime.h"

using namespace skytrace::vision;

namespace {

// A smooth random map in (0, 1): many local maxima, no exact ties.
at::Tensor smoothRandomMap(int64_t height, int64_t width, uint64_t seed) {
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const at::Tensor coarse = at::rand({1, 1, height / 8, width / 8}, generator);
  return at::upsample_bilinear2d(coarse, {height, width}, /*align_corners=*/false) * 0.5 +
         at::rand({1, 1, height, width}, generator) * 1e-3;
}

}  // namespace

class TestFixedShapePaths : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void superPointSelection_data() {
    QTest::addColumn<float>("threshold");
    QTest::addColumn<int>("budget");
    QTest::newRow("more candidates than the budget (top-k order)") << 0.005f << 200;
    QTest::newRow("fewer candidates than the budget (row-major)") << 0.45f << 1024;
  }
  void superPointSelection() {
    QFETCH(float, threshold);
    QFETCH(int, budget);
    c10::InferenceMode inference;
    superpoint::SuperPointConfig config;
    config.keypoint_threshold = threshold;
    config.max_keypoints = budget;
    const at::Tensor heatmap =
        superpoint::simpleNms(smoothRandomMap(240, 320, 3).select(0, 0), config.nms_radius);
    const auto [keypoints, scores] = superpoint::selectKeypoints(heatmap, config);
    const auto [fixed_keypoints, fixed_scores, count] =
        superpoint::selectKeypointsFixed(heatmap, config);
    QCOMPARE(fixed_keypoints.size(0), static_cast<int64_t>(budget));
    const int64_t n = count.item<int64_t>();
    QCOMPARE(n, keypoints.size(0));
    QVERIFY(n > 0);
    // The row exercises the branch it names: a full budget (top-k order) or fewer.
    QCOMPARE(n == budget, threshold < 0.01f);
    QVERIFY(at::equal(fixed_keypoints.narrow(0, 0, n), keypoints));
    QVERIFY(at::equal(fixed_scores.narrow(0, 0, n), scores));
  }

  void alikedTopK_data() {
    QTest::addColumn<int>("top_k");
    QTest::newRow("more peaks than top_k") << 300;
    QTest::newRow("fewer peaks than top_k") << 20000;
  }
  void alikedTopK() {
    QFETCH(int, top_k);
    c10::InferenceMode inference;
    aliked::DkdOptions options;
    options.top_k = top_k;
    const at::Tensor score_map = smoothRandomMap(240, 320, 5);
    const aliked::DkdResult eager = aliked::detectKeypoints(score_map, options);
    at::Tensor count;
    const aliked::DkdResult fixed = aliked::detectTopKPeaksFixed(score_map, options, &count);
    const int64_t n = count.item<int64_t>();
    QCOMPARE(fixed.keypoints.size(0), static_cast<int64_t>(top_k));
    QCOMPARE(n, eager.keypoints.size(0));
    QVERIFY(n > 0);
    QCOMPARE(n == top_k, top_k < 1000);  // the row exercises the branch it names
    // Row-wise operations on more rows: equal up to rounding of batched kernels.
    QVERIFY((fixed.keypoints.narrow(0, 0, n) - eager.keypoints).abs().max().item<double>() < 1e-6);
    QVERIFY((fixed.scores.narrow(0, 0, n) - eager.scores).abs().max().item<double>() < 1e-6);
    QVERIFY((fixed.dispersity.narrow(0, 0, n) - eager.dispersity).abs().max().item<double>() < 1e-6);
  }

  void longPairAndCpuFallback() {
    const at::Tensor pair = longPair(639, 479, at::TensorOptions());
    QCOMPARE(pair.scalar_type(), at::kLong);
    QCOMPARE(pair[0].item<int64_t>(), int64_t{639});
    QCOMPARE(pair[1].item<int64_t>(), int64_t{479});
    CapturedGraphs graphs("test");
    int calls = 0;
    const auto result = graphs.run("key", {at::ones({2, 2})}, [&](const std::vector<at::Tensor>& in) {
      ++calls;
      return std::vector<at::Tensor>{in[0] * 2};
    });
    QVERIFY(!result.has_value());  // CPU tensors: never captured, the caller runs eagerly
    QCOMPARE(calls, 0);
    QCOMPARE(graphs.failedCaptures(), 0);
  }

  // Graph sets created under a ScopedNoCudaGraphs start disabled; the scope nests, is
  // per thread, and leaves sets created before or after it alone.
  void scopedNoCudaGraphs() {
    constexpr bool by_default = true;  // off only per model (setEnabled) or per thread (the scope)
    const CapturedGraphs before("before");
    QCOMPARE(before.enabled(), by_default);
    QVERIFY(!cudaGraphsSuppressedOnThisThread());
    {
      const ScopedNoCudaGraphs outer;
      {
        const ScopedNoCudaGraphs inner;
        QVERIFY(cudaGraphsSuppressedOnThisThread());
      }
      QVERIFY(cudaGraphsSuppressedOnThisThread());  // the outer scope still holds
      const CapturedGraphs eager("eager");
      QVERIFY(!eager.enabled());
      bool other_thread_suppressed = true;
      bool other_thread_enabled = false;
      std::thread other([&] {
        other_thread_suppressed = cudaGraphsSuppressedOnThisThread();
        other_thread_enabled = CapturedGraphs("other thread").enabled();
      });
      other.join();
      QVERIFY(!other_thread_suppressed);
      QCOMPARE(other_thread_enabled, by_default);
    }
    QVERIFY(!cudaGraphsSuppressedOnThisThread());
    QCOMPARE(CapturedGraphs("after").enabled(), by_default);
    QCOMPARE(before.enabled(), by_default);
  }

  // A copied model gets its own (empty) graph cache with the same switch state.
  void modelGraphsCopies() {
    ModelGraphs original("test");
    original->setEnabled(false);
    const ModelGraphs copy(original);
    QVERIFY(copy.operator->() != original.operator->());
    QVERIFY(!copy->enabled());
    ModelGraphs assigned("other");
    assigned = original;  // copy-assignment: a fresh cache, the source's switch state
    QVERIFY(assigned.operator->() != original.operator->());
    QVERIFY(!assigned->enabled());
  }
};

QTEST_GUILESS_MAIN(TestFixedShapePaths)
#include "test_fixed_shape_paths.moc"
