// Builds without the CUDA kernels (CPU LibTorch, or a CUDA build without nvcc): built()
// is false, so the models keep their ATen paths; calling an operator anyway is an error.
#include "core/util/error.h"
#include "core/vision/fused_ops.h"

namespace skytrace::vision::fused {
namespace {

[[noreturn]] void notBuilt() {
  throw InvalidArgument("fused CUDA operators are not built (needs a CUDA build with nvcc)");
}

}  // namespace

bool built() { return false; }
at::Tensor nmsScores(const at::Tensor&, int64_t, int64_t) { notBuilt(); }
at::Tensor layerNormGelu(const at::Tensor&, const at::Tensor&, const at::Tensor&, double) { notBuilt(); }
at::Tensor maxPool2x2(const at::Tensor&) { notBuilt(); }
at::Tensor rotaryQk(const at::Tensor&, const at::Tensor&, int64_t) { notBuilt(); }
DualSoftmaxMaxima dualSoftmaxMaxima(const at::Tensor&, double) { notBuilt(); }
FineWindowChoice fineWindowChoice(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&) {
  notBuilt();
}

}  // namespace skytrace::vision::fused
