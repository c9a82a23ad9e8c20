// ALIKED feature extractors ("aliked-t16", "aliked-n16", "aliked-n16rot", "aliked-n32").
// Declared here for core/vision/features.cpp's factory; defined by the ALIKED port.
// No torch types in this header.
#pragma once

#include <memory>

#include "core/vision/features.h"

namespace skytrace::vision {

// Creates the ALIKED extractor named by options.model, loading its weights
// (options.weights_path, else the published file in the model directory).
// Throws ModelError when the weights are missing or do not fit.
std::unique_ptr<FeatureExtractor> createAlikedExtractor(const ExtractorOptions& options);

}  // namespace skytrace::vision
