// GPU-only build twin of vision_extractor_classical.cpp: no OpenCV features2d there.
#include "core/engine/vision_extractor_impl.h"
#include "core/util/error.h"

namespace skytrace::engine {

std::unique_ptr<TensorExtractor> createClassicalTensorExtractor(const std::string& model,
                                                                int /*keypoints*/,
                                                                const vision::DeviceSpec& /*device*/) {
  throw InvalidArgument("feature model '" + model +
                        "' is not available in this build (the GPU-only engine build has "
                        "ALIKED models only: aliked-t16, aliked-n16, aliked-n16rot, aliked-n32)");
}

}  // namespace skytrace::engine
