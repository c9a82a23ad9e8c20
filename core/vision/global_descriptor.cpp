#include "core/vision/global_descriptor.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/dinov2_descriptor.h"

namespace skytrace::vision {
namespace {

bool isDinov2(const std::string& model) { return model.rfind("dinov2-", 0) == 0; }

}  // namespace

float descriptorSimilarity(const GlobalDescriptor& a, const GlobalDescriptor& b) {
  checkArgument(a.values.size() == b.values.size(),
                "global descriptors of different dimensions (" + std::to_string(a.values.size()) +
                    " vs " + std::to_string(b.values.size()) + ")");
  double dot = 0.0;
  for (size_t i = 0; i < a.values.size(); ++i)
    dot += static_cast<double>(a.values[i]) * static_cast<double>(b.values[i]);
  return static_cast<float>(std::clamp(dot, -1.0, 1.0));
}

void GlobalDescriptorOptions::check() const {
  checkArgument(!model.empty(), "global descriptor: no model given");
  if (!isDinov2(model)) {
    std::string known;
    for (const std::string& name : dinov2ModelNames()) known += (known.empty() ? "" : ", ") + name;
    throw InvalidArgument("unknown global descriptor model '" + model + "' (known: " + known + ")");
  }
  dinov2Config(model);  // throws InvalidArgument naming the known ones
  checkArgument(input_size_px >= 14 && input_size_px <= 4088 && input_size_px % 14 == 0,
                "global descriptor input_size_px must be a multiple of the 14 px patch size in "
                "[14, 4088], got " + std::to_string(input_size_px) +
                    " (e.g. 224, 322, 448, 518)");
  checkArgument(pooling == "cls" || pooling == "gem" || pooling == "cls+gem",
                "global descriptor pooling must be cls, gem or cls+gem, got '" + pooling + "'");
  checkArgument(std::isfinite(gem_p) && gem_p >= 1.0f && gem_p <= 16.0f,
                "global descriptor gem_p must be in [1, 16], got " + std::to_string(gem_p));
  checkArgument(precision == "float32" || precision == "float16",
                "global descriptor precision must be float32 or float16, got '" + precision + "'");
  checkArgument(precision == "float32" || device.cuda,
                "global descriptor precision float16 needs a CUDA device (got " +
                    device.toString() + ")");
}

std::unique_ptr<GlobalDescriptorExtractor> createGlobalDescriptorExtractor(
    const GlobalDescriptorOptions& options) {
  options.check();
  return createDinov2DescriptorExtractor(options);
}

}  // namespace skytrace::vision
