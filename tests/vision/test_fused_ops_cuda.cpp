// test_fused_ops_cuda (ctest label gpu): each shared fused CUDA operator (fused_ops.h)
// against the ATen chain it replaces, on the same device, on random inputs:
//   nmsScores: equal to superpoint::simpleNms with the border zeroed, exactly (comparisons
//     only), on maps with plateaus (values quantised to 16 levels, so ties occur) and on a
//     smooth map, for radii 0, 2 (ALIKED), 4 (SuperPoint) and 32 (the largest), on 480x640
//     and on an odd 37x53; inside a CUDA graph capture too.
//   maxPool2x2: max_pool2d 2x2 / 2 on float16 channels-last maps, exactly, even and odd sizes.
//   layerNormGelu: gelu(layer_norm(x)) in float16 within 2 float16 steps (8e-3 for values
//     up to 4); both against the float32 result within 1e-2.
//   rotaryQk: lightglue::applyRotaryTables on q and k within one float16 step of the
//     output (the product may round once instead of twice), batched and not.
//   dualSoftmaxMaxima: LiteSAM's coarse dual softmax through ATen (softmax over each
//     dimension, product, maxima): the maxima within 5e-5 (float32 sums over thousands of
//     cells in another order; both sides' distance to a float64 result is reported), each
//     row's column a maximum of the ATen matrix (within 2e-5), the same mutual-nearest
//     rows; inside a CUDA graph too.
//   fineWindowChoice: gatherWindows + FineMatching::choose on float32 and float16 maps of
//     equal and of different sizes: the chosen pixel a maximum of the ATen dual softmax
//     (within 1e-5), the heatmap within 1e-4 where the choices agree; a cell outside the
//     grid gives index 0 and a zero heatmap.
// Exit status: 0 all checks pass, 1 a check failed, 2 error, 77 no CUDA device or a
// build without the kernels.
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#if defined(SKYTRACE_WITH_CUDA)
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdio>
#include <string>

#include "core/vision/fused_ops.h"
#include "core/vision/lightglue_layers_impl.h"
#include "core/vision/litesam_modules_impl.h"
#include "core/vision/superpoint_model_impl.h"
#include "core/vision/torch_runtime.h"
#include "tests/cuda_test_support.h"
#include "tests/vision/cuda_tolerance_checks.h"

using namespace skytrace::vision;

namespace {

skytrace::gpucheck::CheckLog checks(80);
using skytrace::gpucheck::maxAbsDiff;

// simple_nms through the ATen chain with `border` pixels zeroed, flat.
at::Tensor referenceNms(const at::Tensor& map, int radius, int border) {
  at::Tensor out = superpoint::simpleNms(map.unsqueeze(0), radius).squeeze(0).clone();
  const int64_t h = map.size(0), w = map.size(1);
  if (border > 0) {
    out.narrow(0, 0, std::min<int64_t>(border, h)).zero_();
    out.narrow(0, std::max<int64_t>(0, h - border), std::min<int64_t>(border, h)).zero_();
    out.narrow(1, 0, std::min<int64_t>(border, w)).zero_();
    out.narrow(1, std::max<int64_t>(0, w - border), std::min<int64_t>(border, w)).zero_();
  }
  return out.reshape({-1});
}

void checkNms(const at::Device& device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
  for (const auto& [h, w] : {std::pair<int64_t, int64_t>{480, 640}, {37, 53}}) {
    const at::Tensor plateaus = (at::rand({h, w}, gen) * 16).floor() / 16;
    const at::Tensor smooth = at::upsample_bilinear2d(at::rand({1, 1, h / 8 + 1, w / 8 + 1}, gen), {h, w}, false)[0][0];
    for (const auto& [kind, map_cpu] : {std::pair<const char*, at::Tensor>{"plateaus", plateaus}, {"smooth", smooth}}) {
      const at::Tensor map = map_cpu.to(device).contiguous();
      for (const int radius : {0, 2, 4, 32}) {
        const int border = radius == 2 ? 2 : 4;
        const std::string tag = "nmsScores " + std::string(kind) + " " + std::to_string(h) + "x" +
                                std::to_string(w) + " r" + std::to_string(radius);
        checks.check(tag + " vs ATen", maxAbsDiff(fused::nmsScores(map, radius, border), referenceNms(map, radius, border)),
                     0.0);
      }
    }
  }
  // [1,1,H,W] input, inside a graph capture (as the models run it).
#if defined(SKYTRACE_WITH_CUDA)
  const at::Tensor map = ((at::rand({1, 1, 480, 640}, gen) * 16).floor() / 16).to(device);
  const at::Tensor expected = referenceNms(map[0][0], 4, 0);
  c10::cuda::getCurrentCUDAStream(device.index()).synchronize();  // the capture stream reads map
  const c10::cuda::CUDAStreamGuard stream(c10::cuda::getStreamFromPool(false, device.index()));
  fused::nmsScores(map, 4, 0);  // warm-up outside the capture
  at::cuda::CUDAGraph graph;
  graph.capture_begin();
  const at::Tensor captured = fused::nmsScores(map, 4, 0);
  graph.capture_end();
  graph.replay();
  c10::cuda::getCurrentCUDAStream(device.index()).synchronize();
  checks.check("nmsScores [1,1,480,640] r4 through a CUDA graph vs ATen", maxAbsDiff(captured, expected), 0.0);
#endif
}

void checkMaxPool(const at::Device& device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(14);
  for (const auto& shape : {std::vector<int64_t>{1, 64, 480, 640}, std::vector<int64_t>{2, 128, 61, 81}}) {
    const at::Tensor x = at::randn(shape, gen).to(device).to(at::kHalf).contiguous(at::MemoryFormat::ChannelsLast);
    const at::Tensor got = fused::maxPool2x2(x);
    const at::Tensor expected = at::max_pool2d(x, {2, 2}, {2, 2});
    const std::string tag = "maxPool2x2 " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "x" +
                            std::to_string(shape[2]) + "x" + std::to_string(shape[3]);
    checks.check(tag + " shape and layout match (0 = yes)",
                 got.sizes() == expected.sizes() && got.is_contiguous(at::MemoryFormat::ChannelsLast) ? 0.0 : 1.0, 0.0);
    checks.check(tag + " vs ATen", maxAbsDiff(got, expected), 0.0);
  }
}

void checkLayerNormGelu(const at::Device& device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(12);
  for (const int64_t channels : {512, 256, 1024, 24}) {
    const at::Tensor x32 = (at::randn({2, 1024, channels}, gen) * 3 + 0.5).to(device);
    const at::Tensor weight32 = (at::randn({channels}, gen) * 0.5 + 1).to(device);
    const at::Tensor bias32 = (at::randn({channels}, gen) * 0.2).to(device);
    const at::Tensor x = x32.to(at::kHalf), weight = weight32.to(at::kHalf), bias = bias32.to(at::kHalf);
    const at::Tensor fused_out = fused::layerNormGelu(x, weight, bias, 1e-5);
    const at::Tensor aten_out = at::gelu(at::layer_norm(x, {channels}, weight, bias, 1e-5));
    const at::Tensor exact = at::gelu(at::layer_norm(x.to(at::kFloat), {channels}, weight.to(at::kFloat),
                                                     bias.to(at::kFloat), 1e-5));
    const std::string tag = "layerNormGelu C=" + std::to_string(channels);
    checks.check(tag + " vs ATen float16", maxAbsDiff(fused_out, aten_out), 8e-3);
    checks.check(tag + " vs float32", maxAbsDiff(fused_out, exact), 1e-2);
    checks.info(tag + " ATen float16 vs float32", maxAbsDiff(aten_out, exact));
  }
}

void checkRotary(const at::Device& device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(13);
  const int64_t heads = 4, head_dim = 64, n = 1024, dim = heads * head_dim;
  for (const bool batched : {true, false}) {
    const int64_t batch = batched ? 2 : 1;
    const at::Tensor qkv = at::randn({batch, n, 3 * dim}, gen).to(device).to(at::kHalf);
    const at::Tensor angles = at::rand({batch, n, head_dim}, gen).to(device) * 6.3;
    const at::Tensor tables = lightglue::rotaryTables(at::stack({angles.cos(), angles.sin()}, 1)).to(at::kHalf);
    const at::Tensor in = batched ? qkv : qkv[0];
    const at::Tensor tab = batched ? tables : tables[0];
    // The ATen chain as SelfBlock runs it: [(B,)N,3,H,hd] -> [3,(B,)H,N,hd], q and k encoded.
    const at::Tensor heads_view =
        batched ? in.view({batch, n, 3, heads, head_dim}).permute({2, 0, 3, 1, 4})
                : in.view({n, 3, heads, head_dim}).permute({1, 2, 0, 3});
    const at::Tensor expected = lightglue::applyRotaryTables(tab, heads_view.narrow(0, 0, 2));
    const at::Tensor got = fused::rotaryQk(in, tab, heads);
    const std::string tag = std::string("rotaryQk ") + (batched ? "[2,N,3D]" : "[N,3D]");
    checks.check(tag + " shape matches", got.sizes() == expected.sizes() ? 0.0 : 1.0, 0.0);
    // One float16 step at the outputs' magnitude (|t| up to ~5: 4e-3).
    checks.check(tag + " vs ATen", maxAbsDiff(got, expected), 4e-3);
  }
}

// LiteSAM's coarse dual softmax through ATen, as coarseCandidates computes it.
fused::DualSoftmaxMaxima referenceDualSoftmax(const at::Tensor& sim, double temperature, at::Tensor& conf) {
  const at::Tensor x = sim / temperature;
  conf = (at::softmax(x, 0) * at::softmax(x, 1));
  const auto [row_max, row_arg] = conf.max(1);
  return {row_max, row_arg, std::get<0>(conf.max(0))};
}

void compareDualSoftmax(const std::string& tag, const fused::DualSoftmaxMaxima& got, const at::Tensor& sim,
                        double temperature) {
  at::Tensor conf;
  const fused::DualSoftmaxMaxima expected = referenceDualSoftmax(sim, temperature, conf);
  checks.check(tag + " row maxima vs ATen", maxAbsDiff(got.row_max, expected.row_max), 5e-5);
  checks.check(tag + " column maxima vs ATen", maxAbsDiff(got.col_max, expected.col_max), 5e-5);
  at::Tensor conf64;
  const fused::DualSoftmaxMaxima exact = referenceDualSoftmax(sim.to(at::kDouble), temperature, conf64);
  checks.info(tag + " row maxima vs float64", maxAbsDiff(got.row_max, exact.row_max));
  checks.info(tag + " ATen float32 row maxima vs float64", maxAbsDiff(expected.row_max, exact.row_max));
  // Each row's column holds the row's maximum of the ATen matrix (near-ties may pick another).
  checks.check(tag + " row columns are ATen maxima",
               maxAbsDiff(conf.gather(1, got.row_arg.unsqueeze(1)).squeeze(1), expected.row_max), 2e-5);
  const at::Tensor mutual = got.row_max == got.col_max.index_select(0, got.row_arg);
  const at::Tensor mutual_aten = expected.row_max == expected.col_max.index_select(0, expected.row_arg);
  checks.check(tag + " mutual-nearest rows differing from ATen", mutual.ne(mutual_aten).sum().item<double>(), 0.0);
  checks.info(tag + " mutual-nearest rows", mutual.sum().item<double>());
}

void checkDualSoftmax(const at::Device& device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(15);
  const double temperature = 0.1;  // LiteSAM's
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{4096, 4096}, {1000, 777}, {3, 5}}) {
    const at::Tensor sim = (at::randn({rows, cols}, gen) * 0.5).to(device);
    const std::string tag = "dualSoftmaxMaxima " + std::to_string(rows) + "x" + std::to_string(cols);
    compareDualSoftmax(tag, fused::dualSoftmaxMaxima(sim, 1.0 / temperature), sim, temperature);
  }
#if defined(SKYTRACE_WITH_CUDA)
  const at::Tensor sim = (at::randn({1, 2048, 1024}, gen) * 0.5).to(device);
  c10::cuda::getCurrentCUDAStream(device.index()).synchronize();
  const c10::cuda::CUDAStreamGuard stream(c10::cuda::getStreamFromPool(false, device.index()));
  fused::dualSoftmaxMaxima(sim, 1.0 / temperature);  // warm-up outside the capture
  at::cuda::CUDAGraph graph;
  graph.capture_begin();
  const fused::DualSoftmaxMaxima captured = fused::dualSoftmaxMaxima(sim, 1.0 / temperature);
  graph.capture_end();
  graph.replay();
  c10::cuda::getCurrentCUDAStream(device.index()).synchronize();
  compareDualSoftmax("dualSoftmaxMaxima [1,2048,1024] through a CUDA graph", captured, sim[0], temperature);
#endif
}

void checkFineWindows(const at::Device& device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(16);
  const litesam::FineMatching fine_matching;  // choose() reads no weights
  const int64_t matches = 300;
  for (const auto& [h1, w1] : {std::pair<int64_t, int64_t>{48, 64}, {40, 56}}) {
    for (const at::ScalarType type : {at::kFloat, at::kHalf}) {
      const at::Tensor fine0 = (at::randn({1, 64, 48, 64}, gen) * 2).to(device).to(type);
      const at::Tensor fine1 = (at::randn({1, 64, h1, w1}, gen) * 2).to(device).to(type);
      const at::Tensor cells0 = at::randint(0, (48 / 8) * (64 / 8), {matches}, gen).to(device);
      const at::Tensor cells1 = at::randint(0, (h1 / 8) * (w1 / 8), {matches}, gen).to(device);
      const fused::FineWindowChoice got = fused::fineWindowChoice(fine0, fine1, cells0, cells1);
      const litesam::FineMatching::Choice expected =
          fine_matching.choose(litesam::gatherWindows(fine0, cells0, 8, 0).to(at::kFloat),
                               litesam::gatherWindows(fine1, cells1, 10, 1).to(at::kFloat));
      const std::string tag = std::string("fineWindowChoice ") + (type == at::kHalf ? "float16 " : "float32 ") +
                              "48x64 with " + std::to_string(h1) + "x" + std::to_string(w1);
      const at::Tensor expected_max = std::get<0>(expected.softmax_f.max(1));
      checks.check(tag + " choices are ATen maxima",
                   maxAbsDiff(expected.softmax_f.gather(1, got.index.unsqueeze(1)).squeeze(1), expected_max), 1e-5);
      const at::Tensor same = got.index == expected.idx.squeeze(1);
      checks.info(tag + " choices equal to ATen's", same.sum().item<double>());
      checks.check(tag + " heatmap vs ATen (equal choices)",
                   maxAbsDiff(got.heatmap.index({same}), expected.heatmap.index({same})), 1e-4);
    }
  }
  // A cell outside the grid: no read, index 0 and a zero heatmap.
  const at::Tensor fine = at::randn({1, 64, 16, 16}, gen).to(device);
  const at::Tensor inside = at::zeros({2}, at::TensorOptions().dtype(at::kLong).device(device));
  const at::Tensor outside = at::tensor({-1, 4}, at::TensorOptions().dtype(at::kLong)).to(device);
  const fused::FineWindowChoice got = fused::fineWindowChoice(fine, fine, inside, outside);
  checks.check("fineWindowChoice cells outside the grid: index and heatmap zero",
               got.index.abs().sum().item<double>() + got.heatmap.abs().sum().item<double>(), 0.0);
}

}  // namespace

int main() {
  const std::optional<std::string> device_text = skytrace::test::deviceUnderTest();
  if (!device_text) return skytrace::test::skipNoCudaDevice("test_fused_ops_cuda");
  if (!fused::built()) {
    std::printf("test_fused_ops_cuda: the fused kernels are not built into this binary: SKIP\n");
    return 77;
  }
  try {
    configureTorchRuntime();
    const at::Device device(*device_text);
#if defined(SKYTRACE_WITH_CUDA)
    const c10::cuda::CUDAGuard guard(device);
#endif
    c10::InferenceMode inference;
    checkNms(device);
    checkMaxPool(device);
    checkLayerNormGelu(device);
    checkRotary(device);
    checkDualSoftmax(device);
    checkFineWindows(device);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 2;
  }
  std::printf("%s\n", checks.passed() ? "test_fused_ops_cuda: PASS" : "test_fused_ops_cuda: FAIL");
  return checks.passed() ? 0 : 1;
}
