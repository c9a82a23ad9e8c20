// skytrace-bench-vision: per-step timing of the vision core (extract, match, RANSAC) on
// one device, for several models, frame sizes and keypoint budgets; writes JSON.
//
// Input frames are synthetic and reproducible (seeded multi-octave noise texture, and
// its warp by a known homography as the second frame), generated on the device with
// ATen so that the benchmark runs the same on every device. One "frame pair" step is
// what visual odometry does per new frame: extract the new frame, match it to the
// previous frame's features, fit a homography. The previous frame is extracted once.
// Device work is synchronised (a tiny device->host copy) at the end of each step.
// --retrieval dinov2-vits14[,...] also times the satellite stage's retrieval descriptor
// on --retrieval-size square crops (float32, fused attention, float16 where available;
// `--models ''` for retrieval only).
//
// Models "X+lightglue" match with LightGlue instead of MNN (X = superpoint or aliked-n16*;
// weights <X>_lightglue.pth from --weights-dir, adaptive depth/width on as the original's
// defaults); "X+lightglue-full" runs all layers (adaptivity off, both images as one
// batch), "X+lightglue-full-unbatched" one image after the other, "X+lightglue-full-fp16"
// with float16 attention on CUDA (LightGlueOptions::half_precision_attention),
// "X+lightglue-full-half" with the whole transformer in float16
// (LightGlueModel::setHalfPrecision). "superpoint" loads superpoint_v1.pth from
// --weights-dir and takes the frame as gray (BT.601 weights); "superpoint-half" runs its
// convolutions in float16 (CUDA).
//
// --dense litesam also times the satellite stage's fine matching: LiteSAM on a
// --dense-size square pair (B = A under the bench homography), weights
// --weights-dir/mloftr.ckpt (release layout or a bare state dict), multi-branch and fused
// MobileOne, and on CUDA the fused one with float16 dense stages
// (LiteSamModel::setHalfPrecision), with per-stage times (device synchronised after each
// stage); its matching steps run through the fused CUDA kernels unless --no-fused-kernels.
//
// CUDA graphs: the models replay their fixed-shape work as CUDA graphs on CUDA by default
// (cuda_graph_impl.h); --no-cuda-graphs runs them eagerly, for side-by-side runs of
// one binary; the JSON records which ("cuda_graphs", per row "cuda_graph_failed_captures").
//
// Usage: skytrace-bench-vision [--device cpu|cuda[:N]] [--models orb,sift,aliked-t16,...]
//          [--sizes 640x480,1280x720] [--keypoints 1024,2048] [--iterations 30]
//          [--warmup 3] [--threads N] [--weights-dir DIR] [--out bench.json] [--tf32]
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/util/error.h"
#include "core/vision/aliked_config.h"
#include "core/vision/aliked_model_impl.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/litesam_model_impl.h"
#include "core/vision/dinov2_descriptor_impl.h"
#include "core/vision/dinov2_model_impl.h"
#include "core/vision/lightglue_model_impl.h"
#include "core/vision/matcher_impl.h"
#include "core/vision/robust_estimation_impl.h"
#include "core/vision/superpoint_model_impl.h"
#include "core/vision/torch_runtime.h"

#include <opencv2/core.hpp>

#include "core/vision/classical_extractor.h"
#include "core/vision/feature_set_impl.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {

at::Device toAtDeviceSpec(const DeviceSpec& d) {
  return d.cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(d.index))
                : at::Device(at::kCPU);
}

struct Args {
  std::string device = "cpu";
  std::vector<std::string> models = {"orb", "sift", "aliked-t16", "aliked-n16rot"};
  std::vector<std::pair<int, int>> sizes = {{640, 480}, {1280, 720}};
  std::vector<int> keypoints = {1024, 2048};
  int iterations = 30;
  int warmup = 3;
  int threads = 0;
  int ransac_host_hypotheses = RansacOptions{}.host_hypotheses;  // 0: device batches only
  bool aliked_float16 = false;  // --aliked-fp16: ALIKED's dense part in float16 (CUDA)
  // --no-cuda-graphs / --no-fused-kernels (or SKYTRACE_CUDA_GRAPHS=0 /
  // SKYTRACE_ALIKED_FUSED=0): every model eager / ALIKED, SuperPoint's NMS, float16
  // LightGlue and LiteSAM's matching through LibTorch's operators.
  bool cuda_graphs = true;
  bool fused_kernels = true;
  // --sdpa flash|efficient|cudnn|math: scaled_dot_product_attention restricted to that
  // backend (process-wide, LibTorch >= 2.5; "default" lets LibTorch choose), a lever
  // measured on its own.
  std::string sdpa = "default";
  bool tf32 = false;  // --tf32: TF32 tensor cores for float32 (setFastGpuMath), deviations reported by the GPU checks
  std::string weights_dir;
  std::string out = "bench_vision.json";
  // Dense matchers timed on square pairs (--dense litesam).
  std::vector<std::string> dense;
  int dense_size = 512;
  // Retrieval descriptors timed on square crops (--retrieval dinov2-vits14,...).
  std::vector<std::string> retrieval;
  int retrieval_size = 224;
  int retrieval_batch = 1;
  // --save-frames DIR: each size's frame pair as 8-bit gray PGM (DIR/a_WxH.pgm,
  // DIR/b_WxH.pgm; SuperPoint's gray) and, with --dense, the dense pair
  // (DIR/dense_a_SxS.pgm, DIR/dense_b_SxS.pgm), so that other programs time the same input.
  std::string save_frames_dir;
  // --profile-step: the last timed step (extract + match; with --dense, LiteSAM's last
  // float16 forward) between cuProfilerStart and cuProfilerStop, for `ncu
  // --profile-from-start off` (per-kernel times of one step).
  bool profile_step = false;
};

// The CUDA driver's profiler switches, looked up at run time (the driver library is
// loaded by LibTorch's CUDA runtime; nothing is linked for it). No-ops where absent.
void cudaProfiler(bool start) {
  using Fn = int (*)();
  static const Fn begin = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "cuProfilerStart"));
  static const Fn end = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "cuProfilerStop"));
  const Fn fn = start ? begin : end;
  if (fn) {
    fn();
  } else if (start) {
    std::cerr << "--profile-step: cuProfilerStart not found (no CUDA driver loaded)\n";
  }
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, sep))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// An environment switch of earlier versions: "0", "off" or "false" turns it off.
bool switchedOff(const char* name) {
  const char* value = std::getenv(name);
  return value && (std::string(value) == "0" || std::string(value) == "off" || std::string(value) == "false");
}

Args parseArgs(int argc, char** argv) {
  Args args;
  args.cuda_graphs = !switchedOff("SKYTRACE_CUDA_GRAPHS");
  args.fused_kernels = !switchedOff("SKYTRACE_ALIKED_FUSED");
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    if (key == "--help" || key == "-h") {
      std::cout << "skytrace-bench-vision [--device cpu|cuda[:N]] [--models a,b] [--sizes "
                   "640x480,1280x720] [--keypoints 1024,2048] [--iterations N] [--warmup N] "
                   "[--threads N] [--weights-dir DIR] [--out FILE.json] [--retrieval dinov2-vits14,...] "
                   "[--retrieval-size 224] [--retrieval-batch 1] [--dense litesam] [--dense-size 512] [--tf32] "
                   "[--ransac-host-hypotheses N] [--aliked-fp16] [--no-cuda-graphs] [--no-fused-kernels] "
                   "[--save-frames DIR] [--profile-step] [--sdpa default|flash|efficient|cudnn|math]\n";
      std::exit(0);
    }
    if (key == "--tf32") {
      args.tf32 = true;
      continue;
    }
    if (key == "--aliked-fp16") {
      args.aliked_float16 = true;
      continue;
    }
    if (key == "--profile-step") {
      args.profile_step = true;
      continue;
    }
    if (key == "--no-cuda-graphs") {
      args.cuda_graphs = false;
      continue;
    }
    if (key == "--no-fused-kernels") {
      args.fused_kernels = false;
      continue;
    }
    if (i + 1 >= argc) throw InvalidArgument("option " + key + " needs a value");
    const std::string value = argv[++i];
    if (key == "--device") {
      args.device = value;
    } else if (key == "--models") {
      args.models = split(value, ',');
    } else if (key == "--sizes") {
      args.sizes.clear();
      for (const auto& s : split(value, ',')) {
        const auto wh = split(s, 'x');
        if (wh.size() != 2) throw InvalidArgument("--sizes expects WxH, got " + s);
        args.sizes.emplace_back(std::stoi(wh[0]), std::stoi(wh[1]));
      }
    } else if (key == "--keypoints") {
      args.keypoints.clear();
      for (const auto& k : split(value, ',')) args.keypoints.push_back(std::stoi(k));
    } else if (key == "--iterations") {
      args.iterations = std::stoi(value);
    } else if (key == "--warmup") {
      args.warmup = std::stoi(value);
    } else if (key == "--threads") {
      args.threads = std::stoi(value);
    } else if (key == "--weights-dir") {
      args.weights_dir = value;
    } else if (key == "--retrieval") {
      args.retrieval = split(value, ',');
    } else if (key == "--retrieval-size") {
      args.retrieval_size = std::stoi(value);
    } else if (key == "--retrieval-batch") {
      args.retrieval_batch = std::stoi(value);
    } else if (key == "--dense") {
      args.dense = split(value, ',');
    } else if (key == "--dense-size") {
      args.dense_size = std::stoi(value);
    } else if (key == "--ransac-host-hypotheses") {
      args.ransac_host_hypotheses = std::stoi(value);
    } else if (key == "--out") {
      args.out = value;
    } else if (key == "--save-frames") {
      args.save_frames_dir = value;
    } else if (key == "--sdpa") {
      if (value != "default" && value != "flash" && value != "efficient" && value != "cudnn" && value != "math")
        throw InvalidArgument("--sdpa expects default, flash, efficient, cudnn or math, got " + value);
      args.sdpa = value;
    } else {
      throw InvalidArgument("unknown option " + key + " (see --help)");
    }
  }
  if (args.iterations < 1) throw InvalidArgument("--iterations must be >= 1");
  return args;
}

// Reproducible aerial-like texture: multi-octave value noise, RGB [1,3,H,W] in [0,1].
at::Tensor syntheticFrame(int width, int height, uint64_t seed, const at::Device& device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  at::Tensor image = at::zeros({1, 3, height, width});
  double weight = 1.0, total = 0.0;
  for (int octave = 0; octave < 6; ++octave) {
    const int cell = std::max(2, 128 >> octave);
    const at::Tensor coarse = at::rand({1, 3, height / cell + 2, width / cell + 2}, gen);
    image += weight * at::upsample_bilinear2d(coarse, {height, width}, false);
    total += weight;
    weight *= 0.7;
  }
  image = image / total;
  image = (image - image.mean()) * 3.0 + 0.5;  // contrast
  return image.clamp(0.0, 1.0).to(device);
}

// b_from_a for the second frame: a mild rotation, zoom, shift and tilt.
at::Tensor benchHomography(int width, int height) {
  const double angle = 4.0 * M_PI / 180.0, scale = 1.04;
  const double cx = width / 2.0, cy = height / 2.0;
  const double c = scale * std::cos(angle), s = scale * std::sin(angle);
  std::vector<double> h = {c, -s, cx - c * cx + s * cy + 12.0,
                           s, c,  cy - s * cx - c * cy - 7.0,
                           2e-5, -1e-5, 1.0};
  return at::tensor(h, at::kDouble).view({3, 3});
}

// Frame b(x) = a(H^-1 x), bilinear, zeros outside.
at::Tensor warpFrame(const at::Tensor& a, const at::Tensor& b_from_a) {
  const int64_t h = a.size(2), w = a.size(3);
  const at::Tensor a_from_b = at::linalg_inv(b_from_a).to(a.device(), at::kFloat);
  const auto opts = a.options().dtype(at::kFloat);
  const at::Tensor ys = at::arange(h, opts).view({h, 1}).expand({h, w});
  const at::Tensor xs = at::arange(w, opts).view({1, w}).expand({h, w});
  const at::Tensor pts = at::stack({xs, ys, at::ones_like(xs)}, -1);  // [H,W,3]
  const at::Tensor src = at::matmul(pts, a_from_b.t());
  const at::Tensor sx = src.select(-1, 0) / src.select(-1, 2);
  const at::Tensor sy = src.select(-1, 1) / src.select(-1, 2);
  const at::Tensor grid = at::stack({sx / (w - 1) * 2 - 1, sy / (h - 1) * 2 - 1}, -1).unsqueeze(0);
  return at::grid_sampler(a, grid, 0, 0, true);
}

// Keypoints [N,2] pixels and descriptors [N,D] of one frame, on the device.
struct FrameFeatures {
  at::Tensor keypoints_px, descriptors;
};

class BenchExtractor {
 public:
  virtual ~BenchExtractor() = default;
  virtual FrameFeatures extract(const at::Tensor& rgb) = 0;
  // CUDA-graph captures that failed (the model then ran eagerly); 0 where not applicable.
  virtual int failedGraphCaptures() const { return 0; }
};

class AlikedBench final : public BenchExtractor {
 public:
  AlikedBench(const std::string& variant, int keypoints, const at::Device& device, const Args& args)
      : model_(aliked::loadAlikedModel(
            variant, args.weights_dir + "/" + alikedConfig(variant).published_file, device)) {
    detection_.top_k = keypoints;
    if (args.aliked_float16) model_.setHalfPrecision(true);
    if (!args.fused_kernels && model_.fusedKernelsEnabled()) model_.setFusedKernelsEnabled(false);
    if (!args.cuda_graphs) model_.setCudaGraphsEnabled(false);
  }
  FrameFeatures extract(const at::Tensor& rgb) override {
    const aliked::AlikedOutput out = model_.forward(rgb, detection_);
    return {out.keypoints_px, out.descriptors};
  }
  int failedGraphCaptures() const override { return model_.failedCudaGraphCaptures(); }

 private:
  aliked::AlikedModel model_;
  aliked::DkdOptions detection_;
};

class SuperPointBench final : public BenchExtractor {
 public:
  SuperPointBench(int keypoints, const at::Device& device, const Args& args, bool half)
      : model_(superpoint::loadSuperPointModel(
            args.weights_dir + "/" + superpoint::kSuperPointPublishedFile, device)) {
    config_.max_keypoints = keypoints;
    if (!args.cuda_graphs) model_.setCudaGraphsEnabled(false);
    if (!args.fused_kernels && model_.fusedKernelsEnabled()) model_.setFusedKernelsEnabled(false);
    if (half) model_.setHalfPrecision(true);
  }
  FrameFeatures extract(const at::Tensor& rgb) override {
    // Gray as OpenCV's BGR2GRAY / RGB2GRAY: 0.299 R + 0.587 G + 0.114 B.
    const at::Tensor gray = (rgb.select(1, 0) * 0.299 + rgb.select(1, 1) * 0.587 +
                             rgb.select(1, 2) * 0.114).unsqueeze(1);
    const superpoint::SuperPointOutput out = model_.forward(gray, config_);
    return {out.keypoints_px, out.descriptors};
  }
  int failedGraphCaptures() const override { return model_.failedCudaGraphCaptures(); }

 private:
  superpoint::SuperPointModel model_;
  superpoint::SuperPointConfig config_;
};

class ClassicalBench final : public BenchExtractor {
 public:
  ClassicalBench(const std::string& model, int keypoints, const DeviceSpec& device) {
    ExtractorOptions options;
    options.model = model;
    options.max_keypoints = keypoints;
    options.device = device;
    extractor_ = createClassicalExtractor(options);
  }
  // Timed from the device tensor, including the copy to an 8-bit host image.
  FrameFeatures extract(const at::Tensor& rgb) override {
    const at::Tensor bgr = rgb[0].flip(0).permute({1, 2, 0}).mul(255).round().to(at::kCPU, at::kByte).contiguous();
    const cv::Mat image(static_cast<int>(bgr.size(0)), static_cast<int>(bgr.size(1)), CV_8UC3,
                        bgr.data_ptr());
    const FeatureSet features = extractor_->extract(image);
    return {features.impl().keypoints_px, features.impl().descriptors};
  }

 private:
  std::unique_ptr<FeatureExtractor> extractor_;
};

std::unique_ptr<BenchExtractor> makeExtractor(const std::string& model, int keypoints,
                                              const Args& args, const DeviceSpec& device) {
  if (model.rfind("aliked-", 0) == 0)
    return std::make_unique<AlikedBench>(model, keypoints, toAtDeviceSpec(device), args);
  if (model == "superpoint" || model == "superpoint-half")
    return std::make_unique<SuperPointBench>(keypoints, toAtDeviceSpec(device), args, model == "superpoint-half");
  if (model == "orb" || model == "sift") return std::make_unique<ClassicalBench>(model, keypoints, device);
  throw InvalidArgument("model '" + model + "' is not available in this build");
}

// The matching step: MNN, or LightGlue for "<extractor>+lightglue[-full]" models.
class BenchMatcher {
 public:
  BenchMatcher(const std::string& suffix, const std::string& extractor, const Args& args,
               const at::Device& device, int width, int height)
      : width_(width), height_(height) {
    if (suffix.empty()) return;
    const std::string features = extractor.rfind("aliked", 0) == 0       ? "aliked"
                                 : extractor.rfind("superpoint", 0) == 0 ? "superpoint"
                                                                         : extractor;
    const std::string weights = args.weights_dir + "/" + lightglue::lightGlueConfig(features).published_file;
    lightglue_.emplace(lightglue::loadLightGlueModel(features, weights, device));
    if (!args.cuda_graphs) lightglue_->setCudaGraphsEnabled(false);
    if (!args.fused_kernels && lightglue_->fusedKernelsEnabled()) lightglue_->setFusedKernelsEnabled(false);
    if (suffix.rfind("lightglue-full", 0) == 0) {
      options_.depth_confidence = -1;
      options_.width_confidence = -1;
      options_.half_precision_attention = suffix == "lightglue-full-fp16";
      options_.batch_pairs = suffix != "lightglue-full-unbatched";
      if (suffix == "lightglue-full-half") {
        lightglue_->setHalfPrecision(true);
        reference_.emplace(lightglue::loadLightGlueModel(features, weights, device));
      } else if (suffix != "lightglue-full" && suffix != "lightglue-full-fp16" &&
                 suffix != "lightglue-full-unbatched") {
        throw InvalidArgument("unknown matcher '" + suffix + "'");
      }
    } else if (suffix != "lightglue") {
      throw InvalidArgument("unknown matcher '" + suffix +
                            "' (lightglue, lightglue-full, lightglue-full-fp16, lightglue-full-half "
                            "or lightglue-full-unbatched)");
    }
  }
  MatchTensors match(const FrameFeatures& a, const FrameFeatures& b) {
    if (!lightglue_) return matchMutualNearestNeighbours(a.descriptors, b.descriptors, mnn_);
    const lightglue::LightGlueOutput out = lightglue_->forward(
        {a.keypoints_px, a.descriptors, double(width_), double(height_)},
        {b.keypoints_px, b.descriptors, double(width_), double(height_)}, options_);
    layers_run = out.layers_run;
    return {out.matches.select(1, 0), out.matches.select(1, 1), out.match_scores};
  }
  int layers_run = 0;

  // For reduced-precision modes: the largest matching-score difference to the float32
  // result on the same features and the fraction of points whose match is the same.
  std::optional<nlohmann::json> deviationFromFloat32(const FrameFeatures& a, const FrameFeatures& b) {
    if (!lightglue_ || !(options_.half_precision_attention || reference_)) return std::nullopt;
    lightglue::LightGlueOptions exact = options_;
    exact.half_precision_attention = false;
    const lightglue::LightGlueInput ia{a.keypoints_px, a.descriptors, double(width_), double(height_)};
    const lightglue::LightGlueInput ib{b.keypoints_px, b.descriptors, double(width_), double(height_)};
    const lightglue::LightGlueOutput fast = lightglue_->forward(ia, ib, options_);
    const lightglue::LightGlueOutput reference = (reference_ ? *reference_ : *lightglue_).forward(ia, ib, exact);
    return nlohmann::json{
        {"max_abs_score_diff", (fast.scores0 - reference.scores0).abs().max().item<double>()},
        {"same_match_fraction", (fast.matches0 == reference.matches0).to(at::kDouble).mean().item<double>()},
        {"matches_fp32", reference.matches.size(0)},
        {"matches_reduced", fast.matches.size(0)}};
  }

 private:
  int width_, height_;
  MatchOptions mnn_;
  std::optional<lightglue::LightGlueModel> lightglue_;
  std::optional<lightglue::LightGlueModel> reference_;  // float32, for -half's deviation
  lightglue::LightGlueOptions options_;
};

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

nlohmann::json stats(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  auto quantile = [&](double q) {
    const double pos = q * (values.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(values.size() - 1, lo + 1);
    return values[lo] + (values[hi] - values[lo]) * (pos - lo);
  };
  double mean = 0;
  for (double v : values) mean += v;
  mean /= values.size();
  return {{"median", quantile(0.5)}, {"p99", quantile(0.99)}, {"mean", mean},
          {"min", values.front()}, {"max", values.back()}};
}

// An RGB frame [1,3,H,W] in [0,1] as 8-bit gray (SuperPointBench's weights), PGM.
void saveGrayFrame(const at::Tensor& rgb, const std::string& path) {
  const at::Tensor gray = (rgb.select(1, 0) * 0.299 + rgb.select(1, 1) * 0.587 + rgb.select(1, 2) * 0.114)[0]
                              .mul(255).round().clamp(0, 255).to(at::kCPU, at::kByte).contiguous();
  std::ofstream file(path, std::ios::binary);
  file << "P5\n" << gray.size(1) << " " << gray.size(0) << "\n255\n";
  file.write(reinterpret_cast<const char*>(gray.data_ptr<uint8_t>()), gray.numel());
  if (!file) throw Error("cannot write " + path);
}

void synchronise(const at::Tensor& t) {
  if (t.defined() && t.numel() > 0) (void)t.sum().item<double>();
}

// One retrieval step of the satellite stage per crop: uint8 RGB on the device ->
// ImageNet normalisation -> DINOv2 -> CLS+GeM descriptor -> host. The published weights
// from --weights-dir when present, else random weights in the same layout (speed does
// not depend on the values). Every precision/attention variant is compared with the
// float32 reference-attention descriptor of the same crop.
nlohmann::json benchRetrieval(const std::string& model, const Args& args, const at::Device& device) {
  const Dinov2Config& config = dinov2Config(model);
  const std::string path = args.weights_dir + "/" + config.published_file;
  const bool published = std::ifstream(path).good();
  const StateDict weights = published ? loadStateDict(path) : dinov2::randomDinov2Weights(config, 1);
  const int size = args.retrieval_size;
  const at::Tensor crop = syntheticFrame(size, size, 11, device)
                              .mul(255).round().to(at::kByte).permute({0, 2, 3, 1})
                              .expand({args.retrieval_batch, size, size, 3}).contiguous();
  struct Variant { std::string name; at::ScalarType dtype; dinov2::AttentionKernel kernel; };
  std::vector<Variant> variants = {{"float32", at::kFloat, dinov2::AttentionKernel::kReference}};
  if (dinov2::fusedAttentionAvailable())
    variants.push_back({"float32-fused", at::kFloat, dinov2::AttentionKernel::kFused});
  if (device.is_cuda()) {
    variants.push_back({"float16", at::kHalf, dinov2::AttentionKernel::kReference});
    if (dinov2::fusedAttentionAvailable())
      variants.push_back({"float16-fused", at::kHalf, dinov2::AttentionKernel::kFused});
  }
  nlohmann::json rows = nlohmann::json::array();
  at::Tensor reference;
  // On CUDA also the CPU float32 result for the same crop and weights: the GPU build must
  // agree with the CPU build in float32 (tokens within the parity tolerance 2e-5).
  at::Tensor cpu_cls, cpu_descriptor;
  if (device.is_cuda()) {
    const dinov2::Dinov2Model cpu_net(config, weights, at::kCPU);
    const dinov2::Dinov2Output out =
        cpu_net.forward(dinov2::ImageNetNormalization(at::kCPU)(crop.to(at::kCPU)));
    cpu_cls = out.cls_token;
    cpu_descriptor = dinov2::poolDescriptor(out.cls_token, out.patch_tokens, "cls+gem", 3.0);
  }
  for (const Variant& variant : variants) {
    const dinov2::ImageNetNormalization normalize(device);
    dinov2::Dinov2Model net(config, weights, device, variant.dtype);
    net.setAttentionKernel(variant.kernel);
    if (!args.cuda_graphs) net.setCudaGraphsEnabled(false);
    const auto step = [&] {
      const dinov2::Dinov2Output out = net.forward(normalize(crop));
      return dinov2::poolDescriptor(out.cls_token, out.patch_tokens, "cls+gem", 3.0).to(at::kCPU);
    };
    // Wall time, and the process CPU time (all threads), which a loaded machine inflates less.
    std::vector<double> step_ms, cpu_ms;
    at::Tensor descriptor;
    for (int it = 0; it < args.warmup + args.iterations; ++it) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      descriptor = step();
      if (it < args.warmup) continue;
      step_ms.push_back(msSince(t0));
      cpu_ms.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    }
    if (!reference.defined()) reference = descriptor;
    const double deviation = (descriptor - reference).abs().max().item<double>();
    const at::Tensor cls = net.forward(normalize(crop)).cls_token.to(at::kCPU, at::kFloat);
    const double min_cosine = (descriptor * reference).sum(1).min().item<double>();
    nlohmann::json row = {{"model", model}, {"size", size}, {"batch", args.retrieval_batch},
                          {"variant", variant.name}, {"weights", published ? path : "random"},
                          {"step_ms", stats(step_ms)}, {"cpu_ms", stats(cpu_ms)},
                          {"descriptor_max_abs_dev_vs_float32", deviation},
                          {"descriptor_min_cosine_vs_float32", min_cosine}};
    if (cpu_cls.defined()) {
      row["cls_token_max_abs_dev_vs_cpu_float32"] = (cls - cpu_cls).abs().max().item<double>();
      row["descriptor_max_abs_dev_vs_cpu_float32"] =
          (descriptor - cpu_descriptor).abs().max().item<double>();
    }
    std::cout << model << " " << size << "x" << size << " batch " << args.retrieval_batch << " "
              << variant.name << ": " << row["step_ms"]["median"].get<double>() << " ms (p99 "
              << row["step_ms"]["p99"].get<double>() << "; process CPU "
              << row["cpu_ms"]["median"].get<double>() << " ms), descriptor deviation " << deviation
              << std::endl;
    rows.push_back(std::move(row));
  }
  return rows;
}

// LiteSAM on a square synthetic pair: the whole forward (one sync at the end: the matches
// come back to the host), then once more per stage with a sync after each stage. Both
// backbone forms, and on CUDA the fused one in float16 (setHalfPrecision); each one's
// deviation from the multi-branch float32 one is reported.
nlohmann::json benchDense(const std::string& model, const Args& args, const at::Device& device) {
  if (model != "litesam") throw InvalidArgument("--dense: unknown model '" + model + "' (litesam)");
  const std::string path = args.weights_dir + "/mloftr.ckpt";
  if (!std::ifstream(path).good())
    throw ModelError("--dense litesam needs " + path + " (release checkpoint or bare state dict)");
  const int size = args.dense_size;
  const at::Tensor rgb_a = syntheticFrame(size, size, 7, device);
  const at::Tensor rgb_b = warpFrame(rgb_a, benchHomography(size, size));
  // BT.601 as OpenCV's RGB2GRAY, rounded to 8 bits as --save-frames writes the pair
  // (DIR/dense_{a,b}_SxS.pgm): the values the original's loaders read from those files.
  const auto gray = [](const at::Tensor& rgb) {
    return (rgb.select(1, 0) * 0.299 + rgb.select(1, 1) * 0.587 + rgb.select(1, 2) * 0.114)
        .mul(255).round().clamp(0, 255).div(255).unsqueeze(1).contiguous();
  };
  const at::Tensor image0 = gray(rgb_a), image1 = gray(rgb_b);
  if (!args.save_frames_dir.empty()) {
    const std::string tag = std::to_string(size) + "x" + std::to_string(size);
    saveGrayFrame(rgb_a, args.save_frames_dir + "/dense_a_" + tag + ".pgm");
    saveGrayFrame(rgb_b, args.save_frames_dir + "/dense_b_" + tag + ".pgm");
  }
  nlohmann::json rows = nlohmann::json::array();
  at::Tensor reference;
  std::vector<std::pair<bool, bool>> variants = {{false, false}, {true, false}};  // (fused, float16)
  if (device.is_cuda()) variants.emplace_back(true, true);
  for (const auto& [fused, half] : variants) {
    litesam::LiteSamModel net = litesam::loadLiteSamModel(path, device);
    if (fused) net.reparameterizeBackbone();
    if (half) net.setHalfPrecision(true);
    if (!args.cuda_graphs) net.setCudaGraphsEnabled(false);
    if (!args.fused_kernels) net.setFusedKernelsEnabled(false);
    std::vector<double> forward_ms, matches;
    std::map<std::string, std::vector<double>> stage_ms;
    at::Tensor points;
    for (int it = 0; it < args.warmup + args.iterations; ++it) {
      // --profile-step: the float16 variant's last timed forward, for ncu.
      const bool profiled = args.profile_step && half && it + 1 == args.warmup + args.iterations;
      if (profiled) cudaProfiler(true);
      const auto t0 = std::chrono::steady_clock::now();
      points = net.forward(image0, image1).mkpts1_f.to(at::kCPU);
      if (profiled) cudaProfiler(false);
      if (it < args.warmup) continue;
      forward_ms.push_back(msSince(t0));
      matches.push_back(static_cast<double>(points.size(0)));
      auto last = std::chrono::steady_clock::now();
      net.forward(image0, image1, nullptr, [&](const char* stage, const at::Tensor& output) {
        synchronise(output);
        stage_ms[stage].push_back(msSince(last));
        last = std::chrono::steady_clock::now();
      });
    }
    nlohmann::json row = {{"model", model}, {"size", size},
                          {"backbone", fused ? "fused" : "multi-branch"},
                          {"precision", half ? "float16" : "float32"},
                          {"fused_matching_kernels", net.fusedKernelsEnabled()}, {"weights", path},
                          {"forward_ms", stats(forward_ms)}, {"matches_median", stats(matches)["median"]}};
    for (const auto& [stage, values] : stage_ms) row["stage_ms"][stage] = stats(values);
    if (!reference.defined()) reference = points;
    if (points.sizes() == reference.sizes() && points.numel() > 0)
      row["mkpts1_f_max_abs_dev_vs_multi_branch"] = (points - reference).abs().max().item<double>();
    else if (points.numel() == 0 && reference.numel() == 0)
      row["mkpts1_f_max_abs_dev_vs_multi_branch"] = 0.0;  // no matches either way (random weights)
    else
      row["match_count_differs_from_multi_branch"] = true;
    std::cout << model << " " << size << "x" << size << " " << row["backbone"].get<std::string>()
              << " " << row["precision"].get<std::string>() << ": forward " << row["forward_ms"]["median"].get<double>() << " ms (p99 "
              << row["forward_ms"]["p99"].get<double>() << "), matches "
              << row["matches_median"].get<double>() << std::endl;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args args = parseArgs(argc, argv);
    if (args.weights_dir.empty()) {
      const char* env = std::getenv("SKYTRACE_MODEL_DIR");
      args.weights_dir = env ? env : "../shared/models/aliked";
    }
    configureTorchRuntime(args.threads);
    setFastGpuMath(args.tf32);
    if (args.sdpa != "default") {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
      at::Context& context = at::globalContext();
      context.setSDPUseFlash(args.sdpa == "flash");
      context.setSDPUseMemEfficient(args.sdpa == "efficient");
      context.setSDPUseCuDNN(args.sdpa == "cudnn");
      context.setSDPUseMath(args.sdpa == "math");
#else
      throw InvalidArgument("--sdpa needs LibTorch >= 2.5");
#endif
    }
    const DeviceSpec device = parseDevice(args.device);
    requireDeviceAvailable(device);
    const at::Device at_device = toAtDeviceSpec(device);
    c10::InferenceMode inference;

    nlohmann::json report;
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    report["date"] = date;
    report["device"] = device.toString();
    report["runtime"] = torchRuntimeSummary();
    // CUDA graphs for the models' fixed-shape work (--no-cuda-graphs turns them off).
    report["cuda_graphs"] = cudaGraphsCompiledIn() && args.cuda_graphs;
    report["tf32"] = args.tf32;
    report["sdpa"] = args.sdpa;
    report["cudnn_autotune"] = cudnnAutotune();
    report["aliked_fused_kernels"] = alikedFusedKernelsBuilt() && args.fused_kernels;
    report["ransac_host_hypotheses"] = args.ransac_host_hypotheses;
    report["aliked_float16"] = args.aliked_float16;
    report["hardware_threads"] = std::thread::hardware_concurrency();
    // Other processes compete for the cores on shared machines: record the load.
    std::ifstream loadavg("/proc/loadavg");
    std::string load_1min;
    if (loadavg >> load_1min) report["load_average_1min_at_start"] = std::stod(load_1min);
    report["iterations"] = args.iterations;
    report["warmup"] = args.warmup;
    report["results"] = nlohmann::json::array();

    for (const auto& [width, height] : args.sizes) {
      const at::Tensor frame_a = syntheticFrame(width, height, 7, at_device);
      const at::Tensor truth = benchHomography(width, height);
      const at::Tensor frame_b = warpFrame(frame_a, truth);
      if (!args.save_frames_dir.empty()) {
        const std::string size = std::to_string(width) + "x" + std::to_string(height);
        saveGrayFrame(frame_a, args.save_frames_dir + "/a_" + size + ".pgm");
        saveGrayFrame(frame_b, args.save_frames_dir + "/b_" + size + ".pgm");
      }
      for (const int keypoints : args.keypoints) {
        for (const std::string& model : args.models) {
          std::unique_ptr<BenchExtractor> extractor;
          std::unique_ptr<BenchMatcher> matcher;
          const size_t plus = model.find('+');
          const std::string extractor_name = model.substr(0, plus);
          try {
            extractor = makeExtractor(extractor_name, keypoints, args, device);
            matcher = std::make_unique<BenchMatcher>(
                plus == std::string::npos ? "" : model.substr(plus + 1), extractor_name, args,
                at_device, width, height);
          } catch (const std::exception& e) {
            std::cerr << "skip " << model << ": " << e.what() << "\n";
            continue;
          }
          const FrameFeatures previous = extractor->extract(frame_a);
          RansacOptions ransac;
          ransac.seed = 1;
          ransac.host_hypotheses = args.ransac_host_hypotheses;
          std::vector<double> extract_ms, match_ms, ransac_ms, total_ms, matches, inliers, corner;
          for (int it = 0; it < args.warmup + args.iterations; ++it) {
            const bool profiled = args.profile_step && it + 1 == args.warmup + args.iterations;
            if (profiled) cudaProfiler(true);
            const auto t0 = std::chrono::steady_clock::now();
            const FrameFeatures current = extractor->extract(frame_b);
            synchronise(current.descriptors);
            const double t_extract = msSince(t0);
            const auto t1 = std::chrono::steady_clock::now();
            const MatchTensors m = matcher->match(previous, current);
            synchronise(m.scores);
            const double t_match = msSince(t1);
            if (profiled) cudaProfiler(false);
            const auto t2 = std::chrono::steady_clock::now();
            const RansacResult r = estimateGeometricModel(
                previous.keypoints_px.index_select(0, m.index_a),
                current.keypoints_px.index_select(0, m.index_b), ransac);
            const double t_ransac = msSince(t2);
            if (it < args.warmup) continue;
            extract_ms.push_back(t_extract);
            match_ms.push_back(t_match);
            ransac_ms.push_back(t_ransac);
            total_ms.push_back(t_extract + t_match + t_ransac);
            matches.push_back(static_cast<double>(m.index_a.size(0)));
            inliers.push_back(r.num_inliers);
            Matrix3d truth_m;
            for (int i = 0; i < 9; ++i) truth_m[i] = truth.view(-1)[i].item<double>();
            corner.push_back(r.found ? meanCornerTransferError(r.model, truth_m, width, height) : 1e9);
          }
          nlohmann::json row = {{"model", model},        {"width", width},
                                {"height", height},      {"keypoints", keypoints},
                                {"extract_ms", stats(extract_ms)}, {"match_ms", stats(match_ms)},
                                {"ransac_ms", stats(ransac_ms)},   {"total_ms", stats(total_ms)},
                                {"matches_median", stats(matches)["median"]},
                                {"inliers_median", stats(inliers)["median"]},
                                {"corner_error_px_median", stats(corner)["median"]}};
          if (plus != std::string::npos) row["lightglue_layers_run_last"] = matcher->layers_run;
          row["cuda_graph_failed_captures"] = extractor->failedGraphCaptures();
          if (const auto deviation =
                  matcher->deviationFromFloat32(previous, extractor->extract(frame_b)))
            row["deviation_from_float32"] = *deviation;
          std::cout << model << " " << width << "x" << height << " k=" << keypoints
                    << ": extract " << row["extract_ms"]["median"].get<double>() << " ms (p99 "
                    << row["extract_ms"]["p99"].get<double>() << "), match "
                    << row["match_ms"]["median"].get<double>() << " ms, ransac "
                    << row["ransac_ms"]["median"].get<double>() << " ms, total "
                    << row["total_ms"]["median"].get<double>() << " ms (p99 "
                    << row["total_ms"]["p99"].get<double>() << "); "
                    << row["inliers_median"].get<double>() << "/" << row["matches_median"].get<double>()
                    << " inliers, corner error " << row["corner_error_px_median"].get<double>()
                    << " px" << std::endl;
          report["results"].push_back(std::move(row));
          std::ofstream(args.out) << report.dump(2) << "\n";  // partial results survive
        }
      }
    }
    for (const std::string& model : args.retrieval) {
      for (auto& row : benchRetrieval(model, args, at_device)) report["retrieval"].push_back(row);
      std::ofstream(args.out) << report.dump(2) << "\n";
    }
    for (const std::string& model : args.dense) {
      try {
        for (auto& row : benchDense(model, args, at_device)) report["dense"].push_back(row);
      } catch (const std::exception& e) {
        std::cerr << "skip dense " << model << ": " << e.what() << "\n";
      }
    }
    std::ofstream(args.out) << report.dump(2) << "\n";
    std::cout << "wrote " << args.out << "\n";
    return 0;
  } catch (const InvalidArgument& e) {
    std::cerr << "skytrace-bench-vision: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "skytrace-bench-vision: error: " << e.what() << "\n";
    return 1;
  }
}
