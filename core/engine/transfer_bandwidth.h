// Host-to-device copy bandwidth of a CUDA device, from pinned and from pageable host
// memory: what the frame feed's pinned ring buys (bench.json's "h2d").
// Thread: any; creates its own stream and buffers on the calling thread.
#pragma once

#include <cstdint>

#include "core/vision/torch_runtime.h"

namespace skytrace::engine {

struct TransferBandwidth {
  double pinned_gb_s = 0.0;
  double pageable_gb_s = 0.0;
};

// Copies `bytes` to `device` `repeats` times from each kind of host buffer on one stream,
// timed with device events (after one warm-up copy). Throws InvalidArgument for a CPU
// device or a size or count below 1.
TransferBandwidth measureHostToDeviceBandwidth(const vision::DeviceSpec& device, std::int64_t bytes, int repeats);

}  // namespace skytrace::engine
