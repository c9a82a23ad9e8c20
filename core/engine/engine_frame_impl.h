// Internal (torch allowed; core/engine sources only): the pixels behind an EngineFrame.
#pragma once

#include <ATen/ATen.h>

#include "core/engine/engine_frame.h"

namespace skytrace::engine {

// The at::Device of a DeviceSpec (vision::toAtDevice lives in features.cpp, which the
// GPU-only build does not compile).
inline at::Device atDevice(const vision::DeviceSpec& device) {
  return device.cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device.index))
                     : at::Device(at::kCPU);
}

struct EngineFrame::Pixels {
  at::Tensor bgr;  // [H,W,3] uint8, contiguous, on the frame's device
};

// Frame pixels as a model input: [1,3,H,W] float32 RGB in [0,1] on the frame's device
// (runs on the calling thread's current stream).
inline at::Tensor rgbFloatImage(const at::Tensor& bgr_hwc_u8) {
  return bgr_hwc_u8.flip({2}).permute({2, 0, 1}).unsqueeze(0).to(at::kFloat).div_(255.0f).contiguous();
}

}  // namespace skytrace::engine
