// A video frame as the engine's workers see it: index, time and the pixels on the
// worker's device. No torch types here: the pixels sit behind EngineFrame::Pixels
// (engine_frame_impl.h, core/engine sources only).
// Lifetime: a frame handed out by FrameFeed refers to a ring slot; it is valid until the
// consumer releases it. Anything kept longer (a keyframe request) must copy the pixels.
#pragma once

#include <cstdint>
#include <memory>

#include "core/vision/torch_runtime.h"

namespace skytrace::engine {

struct EngineFrame {
  std::int64_t index = -1;
  double t_s = 0.0;
  int width_px = 0;
  int height_px = 0;
  vision::DeviceSpec device;

  struct Pixels;  // at::Tensor bgr: [H,W,3] uint8 on `device` (engine_frame_impl.h)
  std::shared_ptr<const Pixels> pixels;
};

}  // namespace skytrace::engine
