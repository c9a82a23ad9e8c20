// RANSAC from several threads of one process at once (the engine's VO and satellite
// workers): every call gives the result it gives alone, and no call changes the intra-op
// thread count that other threads see (ScopedSingleThreadedCpuOps acts on its own thread).
#include <QtTest>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <atomic>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/vision/robust_estimation.h"
#include "core/vision/torch_runtime.h"

using namespace skytrace::vision;

namespace {

constexpr int kProcessThreads = 2;

struct Correspondences {
  std::vector<Point2d> a, b;
};

// n_in exact correspondences b = M a, then n_out random pairs.
Correspondences makeTransfer(const Matrix3d& m, int n_in, int n_out, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> ux(0, 640), uy(0, 480);
  Correspondences c;
  for (int i = 0; i < n_in + n_out; ++i) {
    const Point2d a{ux(rng), uy(rng)};
    c.a.push_back(a);
    c.b.push_back(i < n_in ? transformPoint(m, a) : Point2d{ux(rng), uy(rng)});
  }
  return c;
}

bool sameResult(const RansacResult& x, const RansacResult& y) {
  return x.found == y.found && x.model == y.model && x.inlier_mask == y.inlier_mask &&
         x.num_inliers == y.num_inliers && x.hypotheses_evaluated == y.hypotheses_evaluated &&
         x.local_optimisation_steps == y.local_optimisation_steps;
}

}  // namespace

class TestRansacThreads : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    configureTorchRuntime(kProcessThreads);
    QCOMPARE(at::get_num_threads(), kProcessThreads);
  }

  // The guard makes its own thread serial, nests, restores; a thread started while it is
  // alive and the thread that made the process setting keep kProcessThreads.
  void guardActsOnItsThreadOnly() {
    int inside = 0, nested = 0, after_nested = 0, after = 0, started_meanwhile = 0;
    std::thread worker([&] {
      {
        const ScopedSingleThreadedCpuOps guard;
        inside = at::get_num_threads();
        {
          const ScopedSingleThreadedCpuOps inner;
          nested = at::get_num_threads();
        }
        after_nested = at::get_num_threads();
        std::thread fresh([&] { started_meanwhile = at::get_num_threads(); });
        fresh.join();
      }
      after = at::get_num_threads();
    });
    worker.join();
    QCOMPARE(inside, 1);
    QCOMPARE(nested, 1);
    QCOMPARE(after_nested, 1);
    QCOMPARE(started_meanwhile, kProcessThreads);
    QCOMPARE(after, kProcessThreads);
    QCOMPARE(at::get_num_threads(), kProcessThreads);
  }

  // Two RANSAC threads (homography and affine, 50 % outliers) run three times each while a
  // third thread multiplies 768x768 matrices; a fourth thread starts during the RANSACs.
  void concurrentCallsEqualSequentialOnes() {
    const Matrix3d homography = {0.92, 0.12, 20.0, -0.07, 1.08, -12.0, 1.5e-4, -2.0e-4, 1.0};
    const Matrix3d affine = {1.05, -0.1, 8.0, 0.08, 0.97, -5.0, 0.0, 0.0, 1.0};
    const Correspondences data_h = makeTransfer(homography, 1000, 1000, 3);
    const Correspondences data_a = makeTransfer(affine, 800, 800, 4);
    RansacOptions options_h;
    options_h.seed = 5;
    options_h.inlier_threshold_px = 2.0;
    RansacOptions options_a = options_h;
    options_a.model = GeometricModelType::Affine;
    const RansacResult alone_h = estimateGeometricModel(data_h.a, data_h.b, options_h);
    const RansacResult alone_a = estimateGeometricModel(data_a.a, data_a.b, options_a);
    QVERIFY(alone_h.found && alone_h.num_inliers >= 1000);
    QVERIFY(alone_a.found && alone_a.num_inliers >= 800);

    std::atomic<int> ransac_running{2};
    std::atomic<int> wrong_results{0}, matmul_thread_count_changes{0}, matmuls{0};
    std::string error;
    std::mutex error_mutex;
    auto guarded = [&](auto body) {
      return [&, body] {
        try {
          body();
        } catch (const std::exception& e) {
          const std::lock_guard<std::mutex> lock(error_mutex);
          error = e.what();
        }
      };
    };
    auto ransacLoop = [&](const Correspondences& data, const RansacOptions& options,
                          const RansacResult& expected) {
      return guarded([&data, &options, &expected, &wrong_results, &ransac_running] {
        for (int repeat = 0; repeat < 3; ++repeat) {
          if (!sameResult(estimateGeometricModel(data.a, data.b, options), expected)) {
            ++wrong_results;
          }
        }
        --ransac_running;
      });
    };
    std::thread matmul_thread(guarded([&] {
      at::manual_seed(1);
      const at::Tensor x = at::randn({768, 768}), y = at::randn({768, 768});
      do {
        const at::Tensor product = at::matmul(x, y);
        if (!product.isfinite().all().item<bool>()) throw std::runtime_error("matmul not finite");
        if (at::get_num_threads() != kProcessThreads) ++matmul_thread_count_changes;
        ++matmuls;
      } while (ransac_running.load() > 0);
    }));
    std::thread thread_h(ransacLoop(data_h, options_h, alone_h));
    std::thread thread_a(ransacLoop(data_a, options_a, alone_a));
    int started_during_ransac = 0;
    std::thread late([&] { started_during_ransac = at::get_num_threads(); });
    late.join();
    thread_h.join();
    thread_a.join();
    matmul_thread.join();

    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(wrong_results.load(), 0);
    QVERIFY(matmuls.load() >= 1);
    QCOMPARE(matmul_thread_count_changes.load(), 0);
    QCOMPARE(started_during_ransac, kProcessThreads);
    QCOMPARE(at::get_num_threads(), kProcessThreads);
  }
};

QTEST_GUILESS_MAIN(TestRansacThreads)
#include "test_ransac_threads.moc"
