// test_vision_cuda (ctest label gpu): the vision core on CUDA agrees with the CPU. Skipped
// (exit 77) where LibTorch sees no CUDA device; see tests/cuda_test_support.h.
//   1. MNN matching: the same pairs on CUDA as on the CPU for random descriptors.
//   2. RANSAC on CUDA: recovers a known homography from 50% outliers to 1e-6, the same
//      inlier set as on the CPU, bit-identical across two runs with one seed.
//   3. ALIKED-n16rot (when weights are found) on the parity fixture's two photographs (when
//      the parity fixture folder has them) and a synthetic frame:
//      CUDA keypoints/descriptors/score map match the CPU's, keypoints that differ only
//      through near-tied score peaks counted apart; diagnostics under three cuDNN settings;
//      the CUDA-graph fast path (the default) against the eager path on the device.
//   4. Device frames (vision::Image on the device, as the engine hands them to VO): the
//      extractors give the same features as from the same pixels on the host, ALIKED
//      (when its weights are found) without any copy, ORB with one download per frame;
//      host frames cost one upload each for a GPU extractor.
// Exit code 0 when all checks pass, 1 otherwise, 77 without a device.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/vision/aliked_config.h"
#include "core/vision/aliked_model_impl.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/features.h"
#include "core/vision/image_impl.h"
#include "core/vision/matcher_impl.h"
#include "core/vision/robust_estimation_impl.h"
#include "core/vision/torch_runtime.h"
#include "tests/cuda_test_support.h"

using namespace skytrace::vision;

namespace {

skytrace::test::PassFailLog checks;

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
  checks.expect(cpu.size() > 900 && common + 2 >= std::max(cpu.size(), dev.size()),
         "MNN pairs on " + device.str() + " equal the CPU's (float rounding may flip <= 2 near-ties)");
  // The same shapes again: on CUDA the second call captures a graph, the third replays it.
  const at::Tensor da = a.to(device), db = b.to(device);
  (void)matchMutualNearestNeighbours(da, db, options);
  const auto replayed = pairsOf(matchMutualNearestNeighbours(da, db, options));
  checks.expect(replayed == dev, "MNN pairs through the CUDA graph (third call) equal the eager device pairs");
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
  checks.expect(first.found && std::sqrt(err / norm) < 1e-6, "RANSAC homography to 1e-6 on " + device.str());
  checks.expect(first.inlier_mask == on_cpu.inlier_mask, "RANSAC inliers on " + device.str() + " equal the CPU's");
  checks.expect(first.model == second.model && first.inlier_mask == second.inlier_mask,
         "RANSAC deterministic under a seed on " + device.str());
}

// Max |a - b| over two tensors of equal shape (float64, on the CPU).
double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  return (a.cpu().to(at::kDouble) - b.cpu().to(at::kDouble)).abs().max().item<double>();
}

// Keypoint agreement of a device run with a CPU run of the same image.
struct KeypointAgreement {
  int64_t total = 0;
  int64_t within = 0;       // device keypoints with a CPU keypoint within 0.05 px
  int64_t near_tie = 0;     // the others whose selection is decided by a near-tie (below)
  double score_map_diff = 0;  // max |device - CPU| over the dense score map
};

// A device keypoint without a CPU partner is a near-tie when, on the CPU's score map, the
// peak it sits on (5x5 window = DKD's NMS/refinement radius 2) either is within `tolerance`
// of the CPU's top-k cut-off score (rank ambiguous) or has a second value within
// `tolerance` of itself in that window (NMS plateau: which pixel wins is rounding).
// tolerance = 4x the measured score-map deviation (at least 1e-6), so a near-tie is
// exactly a selection that a score change of that size can flip.
KeypointAgreement compareKeypoints(const aliked::AlikedOutput& cpu, const aliked::AlikedOutput& dev) {
  KeypointAgreement agreement;
  const at::Tensor kc = cpu.keypoints_px.to(at::kDouble), kd = dev.keypoints_px.cpu().to(at::kDouble);
  agreement.total = kd.size(0);
  agreement.score_map_diff = maxAbsDiff(dev.score_map, cpu.score_map);
  const double tolerance = std::max(1e-6, 4 * agreement.score_map_diff);
  const at::Tensor nearest = std::get<0>(at::cdist(kd, kc).min(1));
  const at::Tensor close = nearest < 0.05;
  agreement.within = close.sum().item<int64_t>();
  // 5x5 windows of the CPU score map around each keypoint's pixel.
  const at::Tensor map = cpu.score_map.to(at::kDouble)[0][0];  // [H,W]
  const int64_t height = map.size(0), width = map.size(1);
  const at::Tensor padded = at::constant_pad_nd(map, {2, 2, 2, 2}, -1.0);
  auto windows = [&](const at::Tensor& px) {  // [K,2] (x,y) -> [K,25]
    const at::Tensor col = px.select(1, 0).round().clamp(0, width - 1).to(at::kLong);
    const at::Tensor row = px.select(1, 1).round().clamp(0, height - 1).to(at::kLong);
    std::vector<at::Tensor> taps;
    for (int dy = 0; dy < 5; ++dy)
      for (int dx = 0; dx < 5; ++dx) taps.push_back(padded.index({row + dy, col + dx}));
    return at::stack(taps, 1);
  };
  const double cutoff = windows(kc).amax(1).min().item<double>();
  const at::Tensor unmatched = kd.index_select(0, (~close).nonzero().squeeze(1));
  if (unmatched.size(0) > 0) {
    const at::Tensor top2 = std::get<0>(windows(unmatched).topk(2, 1));
    const at::Tensor peak = top2.select(1, 0), second = top2.select(1, 1);
    const at::Tensor tie = ((peak - cutoff).abs() <= tolerance) | ((peak - second) <= tolerance);
    agreement.near_tie = tie.sum().item<int64_t>();
  }
  return agreement;
}

// The CUDA-graph replay (forward's default on CUDA) against the eager path on the same
// device: the same keypoints (the graph computes a fixed top-k and narrows it to the
// peak count) up to rounding of batched kernels, and a capture that succeeded.
void checkGraphAgainstEager(aliked::AlikedModel& model, const at::Tensor& image,
                            const aliked::DkdOptions& detection, const aliked::AlikedOutput& graph,
                            const std::string& name) {
  checks.expect(model.cudaGraphsEnabled() && model.failedCudaGraphCaptures() == 0,
         "ALIKED-n16rot " + name + ": CUDA graph captured and replayed");
  model.setCudaGraphsEnabled(false);
  const aliked::AlikedOutput eager = model.forward(image, detection);
  model.setCudaGraphsEnabled(true);
  const bool same_count = eager.keypoints_px.size(0) == graph.keypoints_px.size(0);
  const double keypoints = same_count ? maxAbsDiff(eager.keypoints_px, graph.keypoints_px) : 1e30;
  const double descriptors = same_count ? maxAbsDiff(eager.descriptors, graph.descriptors) : 1e30;
  const double scores = same_count ? maxAbsDiff(eager.scores, graph.scores) : 1e30;
  std::cout << "      ALIKED-n16rot " << name << " graph vs eager (CUDA): " << graph.keypoints_px.size(0)
            << " / " << eager.keypoints_px.size(0) << " keypoints, max |dkeypoint| " << keypoints
            << " px, max |dscore| " << scores << ", max |ddescriptor| " << descriptors << "\n";
  checks.expect(same_count && keypoints < 1e-3 && scores < 1e-5 && descriptors < 1e-4,
         "ALIKED-n16rot " + name + ": CUDA graph output equals the eager CUDA output (1e-3 px, 1e-4)");
}

aliked::AlikedOutput onCpu(const aliked::AlikedOutput& o) {
  aliked::AlikedOutput c;
  c.keypoints = o.keypoints.cpu();
  c.keypoints_px = o.keypoints_px.cpu();
  c.scores = o.scores.cpu();
  c.dispersity = o.dispersity.cpu();
  c.descriptors = o.descriptors.cpu();
  c.offsets = o.offsets.cpu();
  c.score_map = o.score_map.cpu();
  return c;
}

// The fused CUDA kernels (the default where built) against the ATen operator path on the
// same device, both eager: the same score map up to float rounding (1e-5), the same
// keypoints except near-ties, and their scores and descriptors within the parity
// tolerance (1e-4: a keypoint's score is the map sampled at its refined position, which
// the soft-argmax's temperature of 0.1 moves by ~10x the map's rounding).
void checkFusedAgainstAten(aliked::AlikedModel& model, const at::Tensor& image,
                           const aliked::DkdOptions& detection, const std::string& name) {
  if (!aliked::fused::built()) {
    std::cout << "SKIP  ALIKED fused kernels vs ATen: the kernels are not built into this binary\n";
    return;
  }
  model.setCudaGraphsEnabled(false);
  model.setFusedKernelsEnabled(false);
  const aliked::AlikedOutput aten = onCpu(model.forward(image, detection));
  model.setFusedKernelsEnabled(true);
  const aliked::AlikedOutput fused = model.forward(image, detection);
  model.setCudaGraphsEnabled(true);
  const KeypointAgreement a = compareKeypoints(aten, fused);
  const auto [distance, nearest] =
      at::cdist(fused.keypoints_px.cpu().to(at::kDouble), aten.keypoints_px.to(at::kDouble)).min(1);
  const at::Tensor close = distance < 0.05;
  const at::Tensor rows = close.nonzero().squeeze(1);
  const double descriptors = rows.numel() == 0 ? 1e30
      : maxAbsDiff(fused.descriptors.cpu().index_select(0, rows),
                   aten.descriptors.index_select(0, nearest.index_select(0, rows)));
  const double scores = rows.numel() == 0 ? 1e30
      : maxAbsDiff(fused.scores.cpu().index_select(0, rows), aten.scores.index_select(0, nearest.index_select(0, rows)));
  const double explained = double(a.within + a.near_tie) / double(std::max<int64_t>(1, a.total));
  std::cout << "      ALIKED-n16rot " << name << " fused kernels vs ATen (CUDA, eager): " << a.total << " / "
            << aten.keypoints_px.size(0) << " keypoints, " << 100.0 * double(a.within) / double(a.total)
            << "% within 0.05 px, " << explained * 100 << "% with near-ties, score map max diff "
            << a.score_map_diff << ", max |dscore| " << scores << ", max |ddescriptor| " << descriptors << "\n";
  checks.expect(a.total == aten.keypoints_px.size(0) && explained >= 0.995 && a.score_map_diff < 1e-5 &&
             scores < 1e-4 && descriptors < 1e-4,
         "ALIKED-n16rot " + name +
             ": fused CUDA kernels equal the ATen path (score map 1e-5; scores, descriptors 1e-4)");
}

// cuDNN settings the ALIKED comparison runs under; the first is the production one.
struct CudnnSetting {
  const char* name;
  bool enabled, deterministic;
};

void checkAliked(const at::Device& device) {
  const std::string dir = skytrace::test::alikedModelDir();
  const std::string path = dir + "/" + alikedConfig("aliked-n16rot").published_file;
  if (!std::filesystem::exists(path)) {
    std::cout << "SKIP  ALIKED CUDA-vs-CPU: " << path << " not found (set SKYTRACE_MODEL_DIR)\n";
    return;
  }
  // Images: the parity fixture's two real photographs when found (DJI aerial 640x360 and
  // graf1 640x512, with the original implementation's CPU output), and a smooth synthetic
  // frame (random 60x80 upsampled to 640x480: many flat score plateaus).
  std::vector<std::pair<std::string, at::Tensor>> images;
  StateDict reference;
  const std::string fixture = skytrace::test::parityFixtureDir() + "/aliked-n16rot";
  if (std::filesystem::exists(fixture + "/inputs.pt") && std::filesystem::exists(fixture + "/outputs.pt")) {
    const StateDict inputs = loadTorchCheckpoint(fixture + "/inputs.pt");
    reference = loadTorchCheckpoint(fixture + "/outputs.pt");
    images.emplace_back("im0", inputs.at("image0"));
    images.emplace_back("im1", inputs.at("image1"));
  } else {
    std::cout << "      (no parity fixture under " << fixture << ": synthetic frame only)\n";
  }
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
  images.emplace_back("synthetic",
                      at::upsample_bilinear2d(at::rand({1, 3, 60, 80}, gen), {480, 640}, false));

  aliked::DkdOptions detection;
  detection.top_k = 1024;
  const auto cpu_model = aliked::loadAlikedModel("aliked-n16rot", path, at::kCPU);
  auto dev_model = aliked::loadAlikedModel("aliked-n16rot", path, device);
  std::vector<aliked::AlikedOutput> cpu_out;
  for (const auto& [name, image] : images) cpu_out.push_back(cpu_model.forward(image, detection));

  const std::vector<CudnnSetting> settings = {{"cuDNN default", true, false},
                                              {"cuDNN deterministic", true, true},
                                              {"cuDNN off (native CUDA conv)", false, false}};
  auto& context = at::globalContext();
  const bool was_enabled = context.userEnabledCuDNN(), was_deterministic = context.deterministicCuDNN();
  for (size_t s = 0; s < (device.is_cuda() ? settings.size() : 1); ++s) {
    context.setUserEnabledCuDNN(settings[s].enabled);
    context.setDeterministicCuDNN(settings[s].deterministic);
    // The production setting runs the CUDA-graph fast path (the default); graphs are
    // captured once per shape under the cuDNN setting of their capture, so the
    // diagnostic settings run eagerly.
    dev_model.setCudaGraphsEnabled(s == 0);
    for (size_t i = 0; i < images.size(); ++i) {
      const auto& [name, image] = images[i];
      const aliked::AlikedOutput dev = dev_model.forward(image.to(device), detection);
      const KeypointAgreement a = compareKeypoints(cpu_out[i], dev);
      const at::Tensor cosine =
          (dev.descriptors.cpu() *
           cpu_out[i].descriptors.index_select(
               0, std::get<1>(at::cdist(dev.keypoints_px.cpu(), cpu_out[i].keypoints_px).min(1))))
              .sum(1);
      const double within = double(a.within) / double(a.total);
      const double explained = double(a.within + a.near_tie) / double(a.total);
      std::cout << "      ALIKED-n16rot " << name << " [" << settings[s].name << "]: " << a.total
                << " keypoints, " << within * 100 << "% within 0.05 px of a CPU keypoint, "
                << explained * 100 << "% with near-ties, score map max diff " << a.score_map_diff
                << ", median descriptor cosine " << cosine.median().item<double>();
      if (reference.contains(name + "_score_map")) {
        const double ref_map = maxAbsDiff(dev.score_map, reference.at(name + "_score_map"));
        const at::Tensor nearest = std::get<0>(
            at::cdist(reference.at(name + "_keypoints_px").to(at::kDouble),
                      dev.keypoints_px.cpu().to(at::kDouble)).min(1));
        std::cout << "; vs the original (CPU): score map " << ref_map << ", "
                  << (nearest < 0.01).to(at::kDouble).mean().item<double>() * 100
                  << "% of its keypoints within 0.01 px";
      }
      std::cout << "\n";
      if (s == 0 && device.is_cuda()) {
        checkGraphAgainstEager(dev_model, image.to(device), detection, dev, name);
        checkFusedAgainstAten(dev_model, image.to(device), detection, name);
      }
      if (s == 0) {
        // Production setting: a keypoint may differ only through a near-tie; the dense
        // score map must agree to the parity tolerance.
        checks.expect(dev.keypoints_px.size(0) == cpu_out[i].keypoints_px.size(0) && explained >= 0.98 &&
                   a.score_map_diff < 1e-4 && cosine.median().item<double>() > 0.9999,
               "ALIKED-n16rot " + name + " on " + device.str() +
                   " matches the CPU (>= 98 % of keypoints within 0.05 px or decided by a near-tie)");
      }
    }
  }
  context.setUserEnabledCuDNN(was_enabled);
  context.setDeterministicCuDNN(was_deterministic);
  if (!device.is_cuda()) return;
  // The faster precision mode the benchmark offers (--tf32): reported, not checked.
  setFastGpuMath(true);
  {
    const auto tf32_model = aliked::loadAlikedModel("aliked-n16rot", path, device);  // fresh graphs
    for (size_t i = 0; i < images.size(); ++i) {
      const aliked::AlikedOutput dev = tf32_model.forward(images[i].second.to(device), detection);
      const KeypointAgreement a = compareKeypoints(cpu_out[i], dev);
      std::cout << "      ALIKED-n16rot " << images[i].first << " [TF32, CUDA graph] vs CPU float32: "
                << a.total << " keypoints, " << 100.0 * double(a.within) / double(a.total)
                << "% within 0.05 px, " << 100.0 * double(a.within + a.near_tie) / double(a.total)
                << "% with near-ties, score map max diff " << a.score_map_diff << "\n";
    }
  }
  setFastGpuMath(false);
  // The float16 dense part (AlikedModel::setHalfPrecision, bench --aliked-fp16): its
  // deviation from the CPU is reported, and checked only loosely (a usable detector:
  // most keypoints within half a pixel, descriptors of the same points nearly parallel).
  {
    auto half_model = aliked::loadAlikedModel("aliked-n16rot", path, device);
    half_model.setHalfPrecision(true);
    for (size_t i = 0; i < images.size(); ++i) {
      const aliked::AlikedOutput dev = half_model.forward(images[i].second.to(device), detection);
      const KeypointAgreement a = compareKeypoints(cpu_out[i], dev);
      const auto [distance, nearest] = at::cdist(dev.keypoints_px.cpu().to(at::kDouble),
                                                 cpu_out[i].keypoints_px.to(at::kDouble)).min(1);
      const double within_half_px = (distance < 0.5).to(at::kDouble).mean().item<double>();
      const double cosine = (dev.descriptors.cpu() * cpu_out[i].descriptors.index_select(0, nearest))
                                .sum(1).median().item<double>();
      std::cout << "      ALIKED-n16rot " << images[i].first << " [float16 dense part, CUDA graph] vs CPU float32: "
                << a.total << " keypoints, " << 100.0 * double(a.within) / double(a.total)
                << "% within 0.05 px, " << within_half_px * 100 << "% within 0.5 px, score map max diff "
                << a.score_map_diff << ", median descriptor cosine " << cosine << "\n";
      checks.expect(a.total == cpu_out[i].keypoints_px.size(0) && within_half_px >= 0.9 && cosine > 0.99,
             "ALIKED-n16rot " + images[i].first +
                 " float16: >= 90 % of keypoints within 0.5 px of the CPU's, median descriptor cosine > 0.99");
    }
  }
}

}  // namespace

// A textured 8-bit BGR frame (smoothed noise: corners at many scales).
cv::Mat texturedFrame(int width, int height) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
  const at::Tensor coarse = at::rand({1, 3, height / 8, width / 8}, gen);
  const at::Tensor fine = at::upsample_bilinear2d(coarse, {height, width}, false) * 200 +
                          at::rand({1, 3, height, width}, gen) * 55;
  const at::Tensor hwc = fine.squeeze(0).permute({1, 2, 0}).clamp(0, 255).to(at::kByte).contiguous();
  return cv::Mat(height, width, CV_8UC3, hwc.data_ptr<std::uint8_t>()).clone();
}

void checkDeviceFrames(const DeviceSpec& spec) {
  const cv::Mat host = texturedFrame(640, 480);
  const at::Tensor pixels =
      at::from_blob(host.data, {480, 640, 3}, at::kByte).to(toAtDevice(spec)).contiguous();
  const Image on_device = imageFromTensor(pixels);
  const Image on_host = Image::fromHost(host);
  std::vector<std::string> models = {"orb"};
  const std::string aliked_path =
      skytrace::test::alikedModelDir() + "/" + alikedConfig("aliked-n16rot").published_file;
  if (std::filesystem::exists(aliked_path))
    models.push_back("aliked-n16rot");
  else
    std::cout << "SKIP  ALIKED on device frames: " << aliked_path << " not found\n";
  for (const std::string& model : models) {
    ExtractorOptions options;
    options.model = model;
    options.device = spec;
    if (model != "orb") options.weights_path = aliked_path;
    const auto extractor = createFeatureExtractor(options);
    (void)extractor->extract(on_host);  // the first call of a shape may capture a CUDA graph
    const ImageTransfers before = extractor->transfers();
    const FeatureSet from_host = extractor->extract(on_host);
    ImageTransfers after_host = extractor->transfers();
    after_host.uploads -= before.uploads;
    after_host.downloads -= before.downloads;
    const FeatureSet from_device = extractor->extract(on_device);
    ImageTransfers after_device = extractor->transfers();
    after_device.uploads -= before.uploads;
    after_device.downloads -= before.downloads;
    // The same bytes through the same model: equal up to the float rounding of a replayed
    // graph (the pixels reach the model as the same float tensor either way).
    const bool same_count = from_host.size() == from_device.size() && from_host.size() > 100;
    const double keypoints =
        same_count ? (from_host.impl().keypoints_px.cpu() - from_device.impl().keypoints_px.cpu()).abs().max().item<double>()
                   : 1e9;
    const double descriptors =
        same_count ? (from_host.impl().descriptors.cpu() - from_device.impl().descriptors.cpu()).abs().max().item<double>()
                   : 1e9;
    const bool same = same_count && keypoints < 1e-3 && descriptors < 1e-4;
    checks.expect(same, model + ": features of the device frame equal those of the host frame (" +
                            std::to_string(from_device.size()) + " keypoints)");
    const bool learned = model != "orb";
    const std::int64_t host_uploads = learned && spec.cuda ? 1 : 0;
    const std::int64_t device_downloads = !learned && spec.cuda ? 1 : 0;
    checks.expect(after_host.uploads == host_uploads && after_host.downloads == 0,
                  model + ": a host frame costs " + std::to_string(host_uploads) + " upload(s), counted " +
                      std::to_string(after_host.uploads));
    checks.expect(after_device.uploads == after_host.uploads &&
                      after_device.downloads - after_host.downloads == device_downloads,
                  model + ": a device frame costs " + std::to_string(device_downloads) +
                      " download(s) and no upload, counted " +
                      std::to_string(after_device.downloads - after_host.downloads) + " / " +
                      std::to_string(after_device.uploads - after_host.uploads));
  }
  // Threshold mode (the extractor's default, what VO runs) on the device's fixed-count
  // path keeps the keypoints the CPU's eager threshold path keeps.
  if (spec.cuda && std::filesystem::exists(aliked_path)) {
    ExtractorOptions options;
    options.model = "aliked-n16rot";
    options.weights_path = aliked_path;
    options.device = spec;
    const FeatureSet on_gpu = createFeatureExtractor(options)->extract(on_device);
    options.device = DeviceSpec{};
    const FeatureSet on_cpu = createFeatureExtractor(options)->extract(on_host);
    const at::Tensor a = on_cpu.impl().keypoints_px, b = on_gpu.impl().keypoints_px.cpu();
    int64_t explained = 0;
    if (b.size(0) > 0)
      for (int64_t i = 0; i < a.size(0); ++i)
        explained += (b - a[i]).norm(2, 1).min().item<double>() < 0.5 ? 1 : 0;
    const double fraction = a.size(0) > 0 ? double(explained) / double(a.size(0)) : 0.0;
    checks.expect(a.size(0) > 100 && std::abs(a.size(0) - b.size(0)) <= a.size(0) / 50 && fraction >= 0.98,
                  "ALIKED threshold mode on " + spec.toString() + " (graph/fused path): " +
                      std::to_string(b.size(0)) + " keypoints vs " + std::to_string(a.size(0)) +
                      " on the CPU, " + std::to_string(fraction) + " of them within 0.5 px");
  }
  // A clone of a device frame (a keyframe request) stays on the device and owns its pixels.
  const Image kept = on_device.clone();
  checks.expect(kept.device().cuda == spec.cuda && !kept.impl().device.defined() == !spec.cuda &&
                    (spec.cuda ? kept.impl().device.data_ptr() != pixels.data_ptr() : kept.impl().host.data != host.data),
                "a cloned device frame stays on " + spec.toString() + " with its own pixels");
  ImageTransfers downloads;
  const cv::Mat back = kept.hostPixels(&downloads);
  checks.expect(cv::norm(back, host, cv::NORM_INF) == 0 && downloads.downloads == (spec.cuda ? 1 : 0),
                "the cloned frame's pixels come back unchanged, one counted download on a GPU");
}

int main() {
  const std::optional<std::string> which = skytrace::test::deviceUnderTest();
  if (!which) return skytrace::test::skipNoCudaDevice("test_vision_cuda");
  try {
    configureTorchRuntime();  // exact float32 on the GPU: the check compares with the CPU
    const DeviceSpec spec = parseDevice(*which);
    requireDeviceAvailable(spec);
    const at::Device device =
        spec.cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(spec.index)) : at::Device(at::kCPU);
    std::cout << torchRuntimeSummary() << "; checking " << device.str() << "\n";
    c10::InferenceMode inference;
    checkMatching(device);
    checkRansac(device);
    checkAliked(device);
    checkDeviceFrames(spec);
  } catch (const std::exception& e) {
    std::cout << "FAIL  " << e.what() << "\n";
    return 1;
  }
  return checks.finish();
}
