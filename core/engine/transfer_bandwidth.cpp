#include "core/engine/transfer_bandwidth.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "core/engine/engine_frame_impl.h"
#include "core/engine/gpu_streams.h"
#include "core/engine/gpu_streams_impl.h"
#include "core/util/check.h"

namespace skytrace::engine {

TransferBandwidth measureHostToDeviceBandwidth(const vision::DeviceSpec& device, std::int64_t bytes, int repeats) {
  checkArgument(device.cuda, "host-to-device bandwidth needs a CUDA device, not " + device.toString());
  checkArgument(bytes >= 1 && repeats >= 1, "host-to-device bandwidth needs bytes and repeats >= 1");
  c10::InferenceMode guard;
  const DeviceStream stream = DeviceStream::create(device, StreamPriority::Normal);
  StreamGuard stream_guard(stream);
  at::Tensor target = at::empty({bytes}, at::TensorOptions().dtype(at::kByte).device(atDevice(device)));
  TransferBandwidth result;
  for (const bool pinned : {true, false}) {
    at::Tensor host = allocateHostBuffer({bytes}, at::kByte, device, pinned);
    host.fill_(1);
    target.copy_(host, /*non_blocking=*/true);  // warm-up
    stream.synchronize();
    DeviceEvent start, end;
    start.record(stream);
    for (int r = 0; r < repeats; ++r) target.copy_(host, /*non_blocking=*/true);
    end.record(stream);
    end.synchronize();
    const double ms = start.elapsedMsUntil(end);
    const double gb_s = static_cast<double>(bytes) * repeats / (ms * 1e-3) / 1e9;
    (pinned ? result.pinned_gb_s : result.pageable_gb_s) = gb_s;
  }
  return result;
}

}  // namespace skytrace::engine
