// The four published ALIKED variants (Shiaoming/ALIKED, nets/aliked.py ALIKED_CFGS) and
// where their weights come from. Plain C++ (no torch). Thread: any (immutable data).
#pragma once

#include <string>
#include <vector>

namespace skytrace::vision {

struct AlikedConfig {
  std::string name;            // "aliked-t16", "aliked-n16", "aliked-n16rot", "aliked-n32"
  int c1 = 0, c2 = 0, c3 = 0, c4 = 0;  // encoder widths of blocks 1-4
  int dim = 0;                 // descriptor dimension (= c4)
  int kernel_size = 3;         // SDDH offset-estimation patch size K
  int sample_count = 16;       // SDDH deformable sample positions M
  std::string published_file;  // "aliked-t16.pth"
};

// Configuration of a variant; throws InvalidArgument naming the known ones.
const AlikedConfig& alikedConfig(const std::string& name);

std::vector<std::string> alikedVariantNames();

// Whether this binary has ALIKED's fused CUDA kernels, which models created on a CUDA
// device run unless told not to (ExtractorOptions::fused_kernels); see AlikedModel.
bool alikedFusedKernelsBuilt();

// Where the authors publish the weights (for "not found" messages).
inline constexpr const char* kAlikedWeightsUrl =
    "https://github.com/Shiaoming/ALIKED/tree/main/models";

}  // namespace skytrace::vision
