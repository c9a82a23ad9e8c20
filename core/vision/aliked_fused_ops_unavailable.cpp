// Builds without the CUDA kernels (CPU LibTorch, or a CUDA build without nvcc): built()
// is false, so AlikedModel keeps its ATen path; calling an operator anyway is an error.
#include "core/util/error.h"
#include "core/vision/aliked_fused_ops.h"

namespace skytrace::vision::aliked::fused {
namespace {

[[noreturn]] void notBuilt() {
  throw InvalidArgument("ALIKED fused CUDA operators are not built (needs a CUDA build with nvcc)");
}

}  // namespace

bool built() { return false; }
at::Tensor scaleShiftSelu(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&) { notBuilt(); }
at::Tensor seluChannelsLast(const at::Tensor&) { notBuilt(); }
at::Tensor scoreMap(const Levels&, const std::array<at::Tensor, 4>&) { notBuilt(); }
RefinedPeaks refinePeaks(const at::Tensor&, const at::Tensor&, int64_t, double) { notBuilt(); }
at::Tensor deformableColumns(const at::Tensor&, const at::Tensor&, double) { notBuilt(); }
at::Tensor descriptorPatches(const Levels&, const at::Tensor&, int64_t) { notBuilt(); }
DescriptorSamples descriptorSamples(const Levels&, const at::Tensor&, const at::Tensor&, double) { notBuilt(); }

}  // namespace skytrace::vision::aliked::fused
