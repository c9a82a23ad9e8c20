// Internal (torch allowed; core/engine sources only): feature extraction from device
// pixels for the vision payloads.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <string>

#include "core/vision/torch_runtime.h"

namespace skytrace::engine {

struct TensorFeatures {
  at::Tensor keypoints_px;  // [N,2] float32, pixels (x right, y down), on the device
  at::Tensor descriptors;   // [N,D] float32, L2-normalised rows, on the device
};

// Thread: create and use on one thread.
class TensorExtractor {
 public:
  virtual ~TensorExtractor() = default;
  // bgr: [H,W,3] uint8 on the extractor's device.
  virtual TensorFeatures extract(const at::Tensor& bgr) = 0;
};

// "aliked-*" (every build) or a classical model (main build; the GPU-only build throws
// InvalidArgument). ALIKED weights: `weights_dir`/<published file>, or the model
// directory when `weights_dir` is empty (ModelError when missing). `aliked_float16`:
// ALIKED's dense part in float16 (AlikedModel::setHalfPrecision; InvalidArgument on the
// CPU); no effect on other models.
std::unique_ptr<TensorExtractor> createTensorExtractor(const std::string& model, int keypoints,
                                                       const std::string& weights_dir,
                                                       const vision::DeviceSpec& device,
                                                       bool aliked_float16 = false);

// Classical (OpenCV) extractors (vision_extractor_classical.cpp).
std::unique_ptr<TensorExtractor> createClassicalTensorExtractor(const std::string& model,
                                                                int keypoints,
                                                                const vision::DeviceSpec& device);

}  // namespace skytrace::engine
