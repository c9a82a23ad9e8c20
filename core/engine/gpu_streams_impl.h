// Internal (torch allowed; core/engine sources only): host buffers for device transfers.
#pragma once

#include <ATen/ATen.h>

#include "core/engine/gpu_streams.h"

namespace skytrace::engine {

// A host tensor of `sizes`/`dtype` for transfers to `device`: page-locked (pinned) when
// `pinned` and the device is CUDA (asynchronous copies need it), plain otherwise.
at::Tensor allocateHostBuffer(at::IntArrayRef sizes, at::ScalarType dtype,
                              const vision::DeviceSpec& device, bool pinned);

}  // namespace skytrace::engine
