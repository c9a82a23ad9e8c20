// DINOv2 behind the GlobalDescriptorExtractor interface (no torch types). Preprocessing:
// BGR/gray -> RGB, resize so that the shorter side is input_size_px (a multiple of 14)
// and the longer side the nearest multiple of 14 (area interpolation when shrinking,
// bicubic when enlarging; no resize when the image already has that size), ToTensor
// (/255), ImageNet Normalize (mean 0.485 0.456 0.406, std 0.229 0.224 0.225).
// Pooling: see GlobalDescriptorOptions::pooling.
// Thread: create and use on one thread.
#pragma once

#include <memory>

#include "core/vision/dinov2_config.h"
#include "core/vision/global_descriptor.h"

namespace skytrace::vision {

// The published model options.model names ("dinov2-vits14", ...), weights resolved by
// resolveWeightsPath (ModelError naming the expected file and where it is published).
std::unique_ptr<GlobalDescriptorExtractor> createDinov2DescriptorExtractor(
    const GlobalDescriptorOptions& options);

// Same with an explicit architecture (e.g. the reduced-depth parity fixture); the weights
// come from options.weights_path, else the model directory + config.published_file.
std::unique_ptr<GlobalDescriptorExtractor> createDinov2DescriptorExtractor(
    const GlobalDescriptorOptions& options, const Dinov2Config& config);

}  // namespace skytrace::vision
