// CUDA implementation of gpu_streams.h (compiled only with SKYTRACE_WITH_CUDA, against
// PyTorch's CUDA LibTorch; the CPU twin is gpu_streams_cpu.cpp). A CPU DeviceSpec still
// works here: streams are inert and events are steady-clock timestamps, as in the twin.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <optional>

#include "core/engine/gpu_streams.h"
#include "core/engine/gpu_streams_impl.h"
#include "core/util/error.h"

namespace skytrace::engine {

namespace {
c10::DeviceIndex ordinal(const vision::DeviceSpec& device) {
  return static_cast<c10::DeviceIndex>(device.index);
}
constexpr std::size_t kAggregateStat = 0;  // c10 StatType::AGGREGATE (stable first entry)

// The caching allocator initialises lazily on the first CUDA allocation; its statistics
// calls throw "Invalid device argument" before that (seen in the sequential bench mode,
// whose first CUDA call is resetPeakDeviceBytes). One tiny allocation initialises it.
void ensureAllocatorInitialized(const vision::DeviceSpec& device) {
  (void)at::empty({1}, at::TensorOptions().dtype(at::kByte).device(at::kCUDA, ordinal(device)));
}
}  // namespace

struct DeviceStream::Impl {
  c10::cuda::CUDAStream stream;
};

DeviceStream::DeviceStream() = default;

DeviceStream DeviceStream::create(const vision::DeviceSpec& device, StreamPriority priority) {
  DeviceStream result;
  result.device_ = device;
  if (!device.cuda) return result;
  vision::requireDeviceAvailable(device);
  result.impl_ = std::make_shared<Impl>(Impl{c10::cuda::getStreamFromPool(
      priority == StreamPriority::High, ordinal(device))});
  return result;
}

void DeviceStream::synchronize() const {
  if (impl_) impl_->stream.synchronize();
}

struct StreamGuard::Impl {
  std::optional<c10::cuda::CUDAStreamGuard> guard;
};

StreamGuard::StreamGuard(const DeviceStream& stream) : impl_(std::make_unique<Impl>()) {
  if (stream.impl()) impl_->guard.emplace(stream.impl()->stream);
}
StreamGuard::~StreamGuard() = default;

struct DeviceEvent::Impl {
  std::optional<at::cuda::CUDAEvent> event;  // GPU streams
  std::chrono::steady_clock::time_point time;  // CPU
  bool cuda = false;
};

DeviceEvent::DeviceEvent() = default;
DeviceEvent::~DeviceEvent() = default;
DeviceEvent::DeviceEvent(DeviceEvent&&) noexcept = default;
DeviceEvent& DeviceEvent::operator=(DeviceEvent&&) noexcept = default;

void DeviceEvent::record(const DeviceStream& stream) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  if (stream.impl()) {
    if (!impl_->event) impl_->event.emplace(cudaEventDefault);  // with timing
    impl_->event->record(stream.impl()->stream);
    impl_->cuda = true;
  } else {
    impl_->time = std::chrono::steady_clock::now();
    impl_->cuda = false;
  }
}

bool DeviceEvent::isRecorded() const { return impl_ != nullptr; }

void DeviceEvent::block(const DeviceStream& stream) const {
  if (impl_ && impl_->cuda && stream.impl()) impl_->event->block(stream.impl()->stream);
}

void DeviceEvent::synchronize() const {
  if (impl_ && impl_->cuda) impl_->event->synchronize();
}

bool DeviceEvent::query() const { return !(impl_ && impl_->cuda) || impl_->event->query(); }

double DeviceEvent::elapsedMsUntil(const DeviceEvent& later) const {
  if (!impl_ || !later.impl_) throw InvalidArgument("elapsedMsUntil: event not recorded");
  if (impl_->cuda != later.impl_->cuda)
    throw InvalidArgument("elapsedMsUntil: events of a CPU and a CUDA stream");
  if (impl_->cuda) return impl_->event->elapsed_time(*later.impl_->event);
  return std::chrono::duration<double, std::milli>(later.impl_->time - impl_->time).count();
}

std::int64_t deviceBytesInUse(const vision::DeviceSpec& device) {
  if (!device.cuda) return -1;
  ensureAllocatorInitialized(device);
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(ordinal(device));
  return stats.allocated_bytes[kAggregateStat].current;
}

std::int64_t peakDeviceBytes(const vision::DeviceSpec& device) {
  if (!device.cuda) return -1;
  ensureAllocatorInitialized(device);
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(ordinal(device));
  return stats.allocated_bytes[kAggregateStat].peak;
}

void resetPeakDeviceBytes(const vision::DeviceSpec& device) {
  if (!device.cuda) return;
  ensureAllocatorInitialized(device);
  c10::cuda::CUDACachingAllocator::resetPeakStats(ordinal(device));
}

void synchronizeDevice(const vision::DeviceSpec& device) {
  if (!device.cuda) return;
  c10::cuda::CUDAGuard guard(ordinal(device));
  c10::cuda::device_synchronize();
}

bool engineBuiltWithCuda() { return true; }

at::Tensor allocateHostBuffer(at::IntArrayRef sizes, at::ScalarType dtype,
                              const vision::DeviceSpec& device, bool pinned) {
  return at::empty(sizes, at::TensorOptions().dtype(dtype).pinned_memory(pinned && device.cuda));
}

}  // namespace skytrace::engine
