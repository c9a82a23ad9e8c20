// SuperPoint behind the FeatureExtractor interface ("superpoint"). No torch types here.
//
// Detection parameters: ExtractorOptions' detection_threshold and nms_radius_px are on
// ALIKED's score scale and are NOT used; SuperPoint runs with the original's own
// (keypoint_threshold 0.005, nms_radius 4, remove_borders 4) unless a
// SuperPointDetection is given. max_keypoints, weights_path and device are used.
#pragma once

#include <memory>

#include "core/vision/features.h"

namespace skytrace::vision {

// The original's detection settings (models/superpoint.py default_config).
struct SuperPointDetection {
  float keypoint_threshold = 0.005f;  // heatmap value after NMS must exceed it
  int nms_radius_px = 4;
  int remove_borders_px = 4;
};

// Creates the SuperPoint extractor, loading superpoint_v1.pth (options.weights_path,
// else the model directory). Throws ModelError when the weights are missing or do not
// fit, InvalidArgument for bad options.
std::unique_ptr<FeatureExtractor> createSuperPointExtractor(
    const ExtractorOptions& options, const SuperPointDetection& detection = {});

// Resolves the weights path the extractor would load (ModelError when absent), for
// callers that fall back to another model when the file is missing.
std::string superPointWeightsPath(const ExtractorOptions& options);

}  // namespace skytrace::vision
