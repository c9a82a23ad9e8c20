// skytrace-gpu-check: the vision core on CUDA agrees with the CPU (ctest label gpu, run by
// scripts/gpu/build_and_bench.sh on the device machine; plain C++, no Qt Test there).
//   1. MNN matching: the same pairs on CUDA as on the CPU for random descriptors.
//   2. RANSAC on CUDA: recovers a known homography from 50% outliers to 1e-6, the same
//      inlier set as on the CPU, bit-identical across two runs with one seed.
//   3. ALIKED (when weights are found): CUDA keypoints/descriptors match the CPU's.
// Exit code 0 when all checks pass, 1 otherwise. SKYTRACE_GPU_CHECK_DEVICE=cpu runs the
// same comparisons CPU-against-CPU (to test the program itself without a GPU).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>
#include <string>

#include "core/vision/aliked_config.h"
#include "core/vision/aliked_model_impl.h"
#include "core/vision/matcher_impl.h"
#include "core/vision/robust_estimation_impl.h"
#include "core/vision/torch_runtime.h"

using namespace skytrace::vision;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "PASS  " : "FAIL  ") << what << std::endl;
  if (!ok) ++failures;
}

std::set<std::pair<int64_t, int64_t>> pairsOf(const MatchTensors& m) {
  const at::Tensor a = m.index_a.cpu(), b = m.index_b.cpu();
  std::set<std::pair<int64_t, int64_t>> pairs;
  for (int64_t k = 0; k < a.size(0); ++k) pairs.insert({a[k].item<int64_t>(), b[k].item<int64_t>()});
  return pairs;
}

void checkMatching(const at::Device& device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(3);
  at::Tensor a = at::randn({2000, 128}, gen);
  at::Tensor b = at::randn({3000, 128}, gen);
  b.narrow(0, 0, 1000).copy_(a.narrow(0, 0, 1000) + 0.1 * at::randn({1000, 128}, gen));
  a = a / a.norm(2, 1, true);
  b = b / b.norm(2, 1, true);
  const MatchOptions options;
  const auto cpu = pairsOf(matchMutualNearestNeighbours(a, b, options));
  const auto dev = pairsOf(matchMutualNearestNeighbours(a.to(device), b.to(device), options));
  size_t common = 0;
  for (const auto& p : dev) common += cpu.count(p);
  std::cout << "      MNN: " << cpu.size() << " CPU pairs, " << dev.size() << " on "
            << device.str() << ", " << common << " common\n";
  expect(cpu.size() > 900 && common + 2 >= std::max(cpu.size(), dev.size()),
         "MNN pairs on " + device.str() + " equal the CPU's (float rounding may flip <= 2 near-ties)");
}

void checkRansac(const at::Device& device) {
  const Matrix3d truth = {0.92, 0.12, 20.0, -0.07, 1.08, -12.0, 1.5e-4, -2.0e-4, 1.0};
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> ux(0, 640), uy(0, 480);
  std::vector<double> a, b;
  for (int i = 0; i < 2000; ++i) {
    const Point2d p{ux(rng), uy(rng)};
    const Point2d q = i % 2 == 0 ? transformPoint(truth, p) : Point2d{ux(rng), uy(rng)};
    a.insert(a.end(), {p.x, p.y});
    b.insert(b.end(), {q.x, q.y});
  }
  const at::Tensor ta = at::tensor(a, at::kDouble).view({-1, 2});
  const at::Tensor tb = at::tensor(b, at::kDouble).view({-1, 2});
  RansacOptions options;
  options.inlier_threshold_px = 2.0;
  options.seed = 9;
  const RansacResult on_cpu = estimateGeometricModel(ta, tb, options);
  const RansacResult first = estimateGeometricModel(ta.to(device), tb.to(device), options);
  const RansacResult second = estimateGeometricModel(ta.to(device), tb.to(device), options);
  double err = 0, norm = 0;
  for (int i = 0; i < 9; ++i) err += std::pow(first.model[i] - truth[i], 2), norm += truth[i] * truth[i];
  std::cout << "      RANSAC on " << device.str() << ": " << first.num_inliers
            << " inliers, relative error " << std::sqrt(err / norm) << "\n";
  expect(first.found && std::sqrt(err / norm) < 1e-6, "RANSAC homography to 1e-6 on " + device.str());
  expect(first.inlier_mask == on_cpu.inlier_mask, "RANSAC inliers on " + device.str() + " equal the CPU's");
  expect(first.model == second.model && first.inlier_mask == second.inlier_mask,
         "RANSAC deterministic under a seed on " + device.str());
}

void checkAliked(const at::Device& device) {
  const char* env = std::getenv("SKYTRACE_MODEL_DIR");
  const std::string dir = env ? env : "../shared/models/aliked";
  const std::string path = dir + "/" + alikedConfig("aliked-n16rot").published_file;
  if (!std::filesystem::exists(path)) {
    std::cout << "SKIP  ALIKED CUDA-vs-CPU: " << path << " not found (set SKYTRACE_MODEL_DIR)\n";
    return;
  }
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
  const at::Tensor image = at::upsample_bilinear2d(at::rand({1, 3, 60, 80}, gen), {480, 640}, false);
  aliked::DkdOptions detection;
  detection.top_k = 1024;
  const auto cpu_model = aliked::loadAlikedModel("aliked-n16rot", path, at::kCPU);
  const auto dev_model = aliked::loadAlikedModel("aliked-n16rot", path, device);
  const aliked::AlikedOutput cpu = cpu_model.forward(image, detection);
  const aliked::AlikedOutput dev = dev_model.forward(image.to(device), detection);
  const at::Tensor kc = cpu.keypoints_px, kd = dev.keypoints_px.cpu();
  // Pair each CUDA keypoint with the nearest CPU keypoint (order may differ on ties).
  const at::Tensor distance = at::cdist(kd, kc);
  const auto [nearest, index] = distance.min(1);
  const double close = (nearest < 0.05).to(at::kDouble).mean().item<double>();
  const at::Tensor cosine = (dev.descriptors.cpu() * cpu.descriptors.index_select(0, index)).sum(1);
  const double cos_median = cosine.median().item<double>();
  std::cout << "      ALIKED-n16rot: " << kd.size(0) << " keypoints, " << close * 100
            << "% within 0.05 px of a CPU keypoint, median descriptor cosine " << cos_median << "\n";
  expect(kd.size(0) == kc.size(0) && close > 0.98 && cos_median > 0.9999,
         "ALIKED-n16rot on " + device.str() + " matches the CPU");
}

}  // namespace

int main() {
  try {
    configureTorchRuntime();  // exact float32 on the GPU: the check compares with the CPU
    const char* which = std::getenv("SKYTRACE_GPU_CHECK_DEVICE");
    const DeviceSpec spec = parseDevice(which ? which : "cuda:0");
    requireDeviceAvailable(spec);
    const at::Device device =
        spec.cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(spec.index)) : at::Device(at::kCPU);
    std::cout << torchRuntimeSummary() << "; checking " << device.str() << "\n";
    c10::InferenceMode inference;
    checkMatching(device);
    checkRansac(device);
    checkAliked(device);
  } catch (const std::exception& e) {
    std::cout << "FAIL  " << e.what() << "\n";
    return 1;
  }
  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " check(s) failed")
            << "\n";
  return failures == 0 ? 0 : 1;
}
