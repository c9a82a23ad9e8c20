#include "core/vision/dense_matcher.h"

#include "core/util/error.h"
#include "core/vision/litesam_matcher.h"

namespace skytrace::vision {

void DenseMatcherOptions::check() const {
  if (model != "litesam")
    throw InvalidArgument("unknown dense matcher model '" + model + "' (available: litesam)");
  if (resize_long_side_px != 0 && resize_long_side_px < 32)
    throw InvalidArgument("dense matcher: resize_long_side_px must be 0 (keep) or >= 32, got " +
                          std::to_string(resize_long_side_px));
  if (!(coarse_threshold > 0.f && coarse_threshold < 1.f))
    throw InvalidArgument("dense matcher: coarse_threshold must be in (0, 1), got " +
                          std::to_string(coarse_threshold));
}

std::unique_ptr<DenseMatcher> createDenseMatcher(const DenseMatcherOptions& options) {
  options.check();
  requireDeviceAvailable(options.device);
  return createLiteSamMatcher(options);
}

std::vector<std::string> availableDenseMatcherModels() { return {"litesam"}; }

}  // namespace skytrace::vision
