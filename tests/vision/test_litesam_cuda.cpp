// LiteSAM on the GPU against the original implementation's reference outputs
// (fixtures/parity/litesam: random float16-rounded weights, a 480x480 orthophoto pair,
// CPU float32 reference of boyagesmile/LiteSAM 8b49e8d), at the fixture README's
// tolerances: the same check as tests/vision/test_litesam_parity.cpp, on the device (ctest
// label gpu; tests/cuda_test_support.h). Runs the multi-branch and the fused (reparameterised)
// MobileOne. Also reports the deviation of the device result from this build's CPU result,
// and that of the float16 dense stages (setHalfPrecision, `process --half-precision`),
// whose CUDA graph must capture.
//
// Fixture folder: <parity fixtures>/litesam (skytrace::test::parityFixtureDir()); skipped without it.
// With weights.pt and inputs.pt but no outputs.pt (a lighter carry), it checks the device's
// default path (CUDA graph for the dense stages) against this build's CPU port and the eager
// device path instead, with the matching through the fused kernels (the default where
// built) and through ATen's operators.
// Exit status: 0 all checks pass, 1 a check failed, 2 error, 77 fixture missing (skip).
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

#include "core/vision/checkpoint_impl.h"
#include "core/vision/litesam_model_impl.h"
#include "core/vision/torch_runtime.h"
#include "tests/cuda_test_support.h"
#include "tests/vision/cuda_tolerance_checks.h"

using namespace skytrace::vision;

namespace {

skytrace::gpucheck::CheckLog checks(40);
using skytrace::gpucheck::maxAbsDiff;

at::Tensor crop(const at::Tensor& t, int64_t begin, int64_t end) {
  return t.slice(-2, begin, end).slice(-1, begin, end);
}

at::Tensor both(const at::Tensor& a, const at::Tensor& b) { return at::cat({a, b}, 0); }

bool sameMatches(const litesam::LiteSamOutput& a, const litesam::LiteSamOutput& b) {
  return a.i_ids.sizes() == b.i_ids.sizes() && at::equal(a.i_ids.cpu(), b.i_ids.cpu()) &&
         at::equal(a.j_ids.cpu(), b.j_ids.cpu());
}

// The fused MobileOne with float16 dense stages through its CUDA graph against the CPU
// float32 port: reported (matches kept, confidence and keypoint deviations on the cells
// both keep); the graph must capture.
void reportHalfPrecision(const StateDict& weights, const StateDict& inputs, const litesam::LiteSamOutput& cpu,
                         const at::Device& device) {
  if (!device.is_cuda()) return;  // float16 is CUDA only (SKYTRACE_GPU_CHECK_DEVICE=cpu checks the program)
  litesam::LiteSamModel model(weights, device);
  model.reparameterizeBackbone();
  model.setHalfPrecision(true);
  const at::Tensor d0 = inputs.at("image0").to(device), d1 = inputs.at("image1").to(device);
  model.forward(d0, d1);  // captures the graph
  const litesam::LiteSamOutput half = model.forward(d0, d1);
  checks.check("float16 CUDA graph captures that failed", model.failedCudaGraphCaptures(), 0.0);
  checks.info("float16: matches (CPU float32 " + std::to_string(cpu.i_ids.size(0)) + ")",
              static_cast<double>(half.i_ids.size(0)));
  // Cells both keep: i ascending in both, matched by (i, j).
  const at::Tensor key_cpu = cpu.i_ids.cpu() * 1000003 + cpu.j_ids.cpu();
  const at::Tensor key_half = half.i_ids.cpu() * 1000003 + half.j_ids.cpu();
  const at::Tensor in_both = at::isin(key_half, key_cpu);
  const at::Tensor rows_half = in_both.nonzero().squeeze(1);
  const at::Tensor rows_cpu = at::isin(key_cpu, key_half).nonzero().squeeze(1);
  checks.info("float16: matches the CPU float32 run also keeps", static_cast<double>(rows_half.size(0)));
  if (rows_half.size(0) == 0 || rows_half.size(0) != rows_cpu.size(0)) return;
  checks.info("float16: mconf vs CPU float32 (common matches)",
              maxAbsDiff(half.mconf.cpu().index_select(0, rows_half), cpu.mconf.index_select(0, rows_cpu)));
  checks.info("float16: mkpts1_f vs CPU float32 (common matches, px)",
              maxAbsDiff(half.mkpts1_f.cpu().index_select(0, rows_half), cpu.mkpts1_f.index_select(0, rows_cpu)));
}

int checkAgainstCpuOnly(const StateDict& weights, const StateDict& inputs, const at::Device& device) {
  std::printf("outputs.pt absent: device vs this build's CPU port only\n");
  c10::InferenceMode inference;
  const at::Tensor image0 = inputs.at("image0"), image1 = inputs.at("image1");
  const litesam::LiteSamModel cpu_model(weights, at::kCPU);
  const litesam::LiteSamOutput cpu = cpu_model.forward(image0, image1);
  std::printf("info CPU matches %lld\n", static_cast<long long>(cpu.i_ids.size(0)));
  for (const auto& [fused, aten_matching] : {std::pair{false, false}, {true, false}, {true, true}}) {
    litesam::LiteSamModel model(weights, device);
    if (fused) model.reparameterizeBackbone();
    if (aten_matching) model.setFusedKernelsEnabled(false);
    const std::string tag = std::string(fused ? "fused " : "") +
                            (model.fusedKernelsEnabled() ? "(fused matching kernels) " : "(ATen matching) ");
    const at::Tensor d0 = image0.to(device), d1 = image1.to(device);
    model.forward(d0, d1);  // a CUDA graph is captured on the first call
    const litesam::LiteSamOutput graph = model.forward(d0, d1);
    checks.check(tag + "CUDA graph captures that failed", model.failedCudaGraphCaptures(), 0.0);
    model.setCudaGraphsEnabled(false);
    const litesam::LiteSamOutput eager = model.forward(d0, d1);
    checks.check(tag + "graph: coarse matches equal to CPU (0 = yes)", sameMatches(graph, cpu) ? 0.0 : 1.0, 0.0);
    checks.check(tag + "eager: coarse matches equal to CPU (0 = yes)", sameMatches(eager, cpu) ? 0.0 : 1.0, 0.0);
    if (!sameMatches(graph, cpu)) continue;
    checks.check(tag + "graph vs CPU mkpts1_f", maxAbsDiff(graph.mkpts1_f, cpu.mkpts1_f), 1e-4);
    checks.check(tag + "graph vs CPU mconf", maxAbsDiff(graph.mconf, cpu.mconf), 2e-3);
    if (sameMatches(graph, eager))
      checks.check(tag + "graph vs eager mkpts1_f", maxAbsDiff(graph.mkpts1_f, eager.mkpts1_f), 1e-4);
  }
  reportHalfPrecision(weights, inputs, cpu, device);
  std::printf("%s\n", checks.passed() ? "test_litesam_cuda: PASS" : "test_litesam_cuda: FAIL");
  return checks.passed() ? 0 : 1;
}

}  // namespace

int main() {
  const std::optional<std::string> device_text = skytrace::test::deviceUnderTest();
  if (!device_text) return skytrace::test::skipNoCudaDevice("test_litesam_cuda");
  try {
    const std::string root = skytrace::test::parityFixtureDir();
    const std::string dir = root + "/litesam";
    if (!std::ifstream(dir + "/weights.pt").good() || !std::ifstream(dir + "/inputs.pt").good()) {
      std::printf("litesam fixture not found in %s (set SKYTRACE_PARITY_DIR): SKIP\n", dir.c_str());
      return 77;
    }
    configureTorchRuntime();  // exact float32 (TF32 off)
    const at::Device device(*device_text);
    std::printf("%s\ndevice %s\n", torchRuntimeSummary().c_str(), device_text->c_str());

    const StateDict weights = loadTorchCheckpoint(dir + "/weights.pt");
    const StateDict inputs = loadTorchCheckpoint(dir + "/inputs.pt");
    if (!std::ifstream(dir + "/outputs.pt").good()) {
      // Without the reference outputs (a lighter device carry): the device's default path
      // (CUDA graph for the dense stages) against the CPU port and the eager device path.
      return checkAgainstCpuOnly(weights, inputs, device);
    }
    const StateDict ref = loadTorchCheckpoint(dir + "/outputs.pt");
    const auto R = [&](const char* key) { return ref.at(key); };
    c10::InferenceMode inference;
    const at::Tensor image0 = inputs.at("image0").to(device), image1 = inputs.at("image1").to(device);

    litesam::LiteSamOutput cpu_out;
    {
      const litesam::LiteSamModel cpu_model(weights, at::kCPU);
      cpu_out = cpu_model.forward(inputs.at("image0"), inputs.at("image1"));
    }
    for (const bool fused : {false, true}) {
      litesam::LiteSamModel model(weights, device);
      if (fused) model.reparameterizeBackbone();
      const std::string tag = fused ? "fused " : "";
      litesam::LiteSamTrace trace;
      const litesam::LiteSamOutput out = model.forward(image0, image1, &trace);
      const bool same_cells = out.i_ids.sizes() == R("i_ids").sizes() &&
                              at::equal(out.i_ids.cpu(), R("i_ids")) &&
                              at::equal(out.j_ids.cpu(), R("j_ids"));
      checks.check(tag + "coarse matches equal (0 = yes)", same_cells ? 0.0 : 1.0, 0.0);
      if (!same_cells) continue;
      checks.check(tag + "idx_l/idx_r equal (0 = yes)",
            at::equal(trace.fine.idx_l.cpu(), R("idx_l")) && at::equal(trace.fine.idx_r.cpu(), R("idx_r")) ? 0.0 : 1.0,
            0.0);
      checks.check(tag + "mconf", maxAbsDiff(out.mconf, R("mconf")), 2e-3);
      checks.check(tag + "mkpts0_f", maxAbsDiff(out.mkpts0_f, R("mkpts0_f")), 0.0);
      checks.check(tag + "mkpts1_f", maxAbsDiff(out.mkpts1_f, R("mkpts1_f")), 1e-4);
      checks.check(tag + "offset_xy", maxAbsDiff(trace.fine.offset_xy, R("offset_xy")), 2e-5);
      checks.check(tag + "softmax_matrix_f", maxAbsDiff(trace.fine.softmax_matrix_f, R("softmax_matrix_f")),
            1e-5);
      if (!fused) {
        checks.check("feats_c_crop",
              maxAbsDiff(crop(both(trace.backbone0.feats_c, trace.backbone1.feats_c), 18, 42), R("feats_c_crop")),
              2e-4);
        checks.check("tf_layer0_out_crop",
              maxAbsDiff(crop(both(trace.transformer.layer_outputs[0][0], trace.transformer.layer_outputs[0][1]), 22, 38),
                         R("tf_layer0_out_crop")),
              5e-4);
        checks.check("feat_c_tf_crop",
              maxAbsDiff(crop(both(trace.transformer_out[0], trace.transformer_out[1]), 18, 42), R("feat_c_tf_crop")),
              2e-3);
        checks.check("conf_matrix_block", maxAbsDiff(trace.conf_matrix[0].slice(0, 1800, 1860), R("conf_matrix_block")), 1e-4);
        checks.check("fpn_out_crop", maxAbsDiff(crop(both(trace.fpn[0], trace.fpn[1]), 224, 256), R("fpn_out_crop")), 5e-4);
        checks.check("heatmap_3x3", maxAbsDiff(trace.fine.heatmap_3x3, R("heatmap_3x3")), 2e-4);
        checks.check("device vs CPU port mkpts1_f", maxAbsDiff(out.mkpts1_f, cpu_out.mkpts1_f), 1e-4);
        checks.check("device vs CPU port mconf", maxAbsDiff(out.mconf, cpu_out.mconf), 2e-3);
      }
    }
    reportHalfPrecision(weights, inputs, cpu_out, device);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 2;
  }
  std::printf("%s\n", checks.passed() ? "test_litesam_cuda: PASS" : "test_litesam_cuda: FAIL");
  return checks.passed() ? 0 : 1;
}
