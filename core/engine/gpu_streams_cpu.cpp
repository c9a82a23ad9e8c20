// CPU twin of gpu_streams_cuda.cpp (builds without CUDA): streams are inert, events are
// steady-clock timestamps, nothing is pinned. A CUDA device is refused with the reason.
#include <ATen/ATen.h>

#include <chrono>

#include "core/engine/gpu_streams.h"
#include "core/engine/gpu_streams_impl.h"
#include "core/util/error.h"

namespace skytrace::engine {

namespace {
void refuseCuda(const vision::DeviceSpec& device) {
  if (device.cuda)
    throw InvalidArgument("device " + device.toString() +
                          " requested, but this build of the engine has no CUDA support "
                          "(built with SKYTRACE_WITH_CUDA=OFF against a CPU-only LibTorch)");
}
}  // namespace

struct DeviceStream::Impl {};

DeviceStream::DeviceStream() = default;

DeviceStream DeviceStream::create(const vision::DeviceSpec& device, StreamPriority /*priority*/,
                                  int /*sm_limit*/) {
  refuseCuda(device);
  return DeviceStream();
}

void DeviceStream::synchronize() const {}

struct StreamGuard::Impl {};
StreamGuard::StreamGuard(const DeviceStream& /*stream*/) {}
StreamGuard::~StreamGuard() = default;

struct DeviceEvent::Impl {
  std::chrono::steady_clock::time_point time;
};

DeviceEvent::DeviceEvent() = default;
DeviceEvent::~DeviceEvent() = default;
DeviceEvent::DeviceEvent(DeviceEvent&&) noexcept = default;
DeviceEvent& DeviceEvent::operator=(DeviceEvent&&) noexcept = default;

void DeviceEvent::record(const DeviceStream& /*stream*/) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  impl_->time = std::chrono::steady_clock::now();
}
bool DeviceEvent::isRecorded() const { return impl_ != nullptr; }
void DeviceEvent::block(const DeviceStream& /*stream*/) const {}
void DeviceEvent::synchronize() const {}
bool DeviceEvent::query() const { return true; }

double DeviceEvent::elapsedMsUntil(const DeviceEvent& later) const {
  if (!impl_ || !later.impl_) throw InvalidArgument("elapsedMsUntil: event not recorded");
  return std::chrono::duration<double, std::milli>(later.impl_->time - impl_->time).count();
}

std::int64_t deviceBytesInUse(const vision::DeviceSpec& /*device*/) { return -1; }
std::int64_t peakDeviceBytes(const vision::DeviceSpec& /*device*/) { return -1; }
void resetPeakDeviceBytes(const vision::DeviceSpec& /*device*/) {}
void synchronizeDevice(const vision::DeviceSpec& device) { refuseCuda(device); }
bool engineBuiltWithCuda() { return false; }

at::Tensor allocateHostBuffer(at::IntArrayRef sizes, at::ScalarType dtype,
                              const vision::DeviceSpec& device, bool /*pinned*/) {
  refuseCuda(device);
  return at::empty(sizes, at::TensorOptions().dtype(dtype));
}

}  // namespace skytrace::engine
