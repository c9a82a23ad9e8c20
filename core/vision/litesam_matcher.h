// LiteSAM behind the DenseMatcher interface. Declared for dense_matcher.cpp's factory.
// No torch types in this header.
#pragma once

#include <memory>

#include "core/vision/dense_matcher.h"

namespace skytrace::vision {

// Where the LiteSAM authors publish their checkpoint (weights/mloftr.ckpt in their repo).
inline constexpr const char* kLiteSamPublishedFile = "mloftr.ckpt";
inline constexpr const char* kLiteSamWeightsUrl =
    "https://github.com/boyagesmile/LiteSAM (README: Google Drive link, file mloftr.ckpt)";

// Creates the LiteSAM matcher, loading its weights (options.weights_path, else
// mloftr.ckpt in the model directory). Throws ModelError when missing or not fitting.
std::unique_ptr<DenseMatcher> createLiteSamMatcher(const DenseMatcherOptions& options);

}  // namespace skytrace::vision
