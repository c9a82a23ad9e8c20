// LightGlue behind the Matcher interface ("lightglue"). No torch types here.
// Uses MatchOptions' learned-matcher fields: features ("superpoint" or "aliked"),
// weights_path (else <features>_lightglue.pth from the model directory), device,
// depth/width confidence and filter_threshold. The MNN fields are not used. The layer
// count comes from the checkpoint (9 in the release files).
#pragma once

#include <memory>
#include <string>

#include "core/vision/matcher.h"

namespace skytrace::vision {

// Loads the LightGlue weights for options.features onto options.device. Throws
// ModelError when the file is missing (naming it and where it is published) or does not
// fit, InvalidArgument for bad options.
std::unique_ptr<Matcher> createLightGlueMatcher(const MatchOptions& options);

// The weights file createLightGlueMatcher would load (ModelError when absent).
std::string lightGlueWeightsPath(const MatchOptions& options);

}  // namespace skytrace::vision
