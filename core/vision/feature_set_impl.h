// Internal (torch allowed; include only from core/vision and core/engine sources):
// the tensors behind a FeatureSet, and helpers that build one.
// Shapes/dtypes: keypoints_px [N,2] float32 (x, y in pixels, OpenCV convention: origin
// at the centre of the top-left pixel), scores [N] float32, descriptors [N,D] float32
// with L2-normalised rows. All three live on `device` and are never modified after the
// FeatureSet is created (FeatureSet copies share them).
#pragma once

#include <ATen/ATen.h>

#include <opencv2/core.hpp>

#include <memory>
#include <vector>

#include "core/vision/features.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::vision {

struct FeatureSet::Impl {
  at::Tensor keypoints_px;  // [N,2] float32
  at::Tensor scores;        // [N] float32
  at::Tensor descriptors;   // [N,D] float32, rows L2-normalised
  int image_width = 0;
  int image_height = 0;
  DeviceSpec device;
};

// The at::Device named by a DeviceSpec.
at::Device toAtDevice(const DeviceSpec& device);

// Builds a FeatureSet from tensors (moved to `device` if they are elsewhere; made
// contiguous float32). Checks shapes (throws InvalidArgument naming the mismatch).
// Descriptors are stored as given: callers pass L2-normalised rows.
FeatureSet makeFeatureSet(at::Tensor keypoints_px, at::Tensor scores, at::Tensor descriptors,
                          int image_width, int image_height, const DeviceSpec& device);

// Builds a FeatureSet from host data: N keypoints, N scores and an N x D CV_32F
// descriptor matrix (rows are L2-normalised here). Data is copied to `device`.
FeatureSet makeFeatureSetFromHost(const std::vector<cv::Point2f>& keypoints_px,
                                  const std::vector<float>& scores, const cv::Mat& descriptors,
                                  int image_width, int image_height, const DeviceSpec& device);

}  // namespace skytrace::vision
