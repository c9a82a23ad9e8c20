// Built only while the ALIKED port (aliked_extractor.cpp) is absent from the tree:
// asking for an ALIKED model then fails with a clear message instead of a link error.
#include "core/util/error.h"
#include "core/vision/aliked_extractor.h"

namespace skytrace::vision {

std::unique_ptr<FeatureExtractor> createAlikedExtractor(const ExtractorOptions& options) {
  throw ModelError("feature model '" + options.model +
                   "' is not available in this build (the ALIKED port is not compiled in); "
                   "use --model orb or --model sift");
}

}  // namespace skytrace::vision
