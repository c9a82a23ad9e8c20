// CUDA implementation of gpu_streams.h (compiled only with SKYTRACE_WITH_CUDA, against
// PyTorch's CUDA LibTorch; the CPU twin is gpu_streams_cpu.cpp). A CPU DeviceSpec still
// works here: streams are inert and events are steady-clock timestamps, as in the twin.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <optional>

#include "core/engine/gpu_streams.h"
#include "core/engine/gpu_streams_impl.h"
#include "core/util/error.h"
#include "core/util/log.h"

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

// A CUDA green context holding `sm_count` of a device's SMs and one stream in it; owns
// both (the stream is synchronised before they are destroyed). Kernels launched through
// the runtime API (ATen, cuDNN) go to the green context's SMs only while that context is
// the thread's current one: StreamGuard makes it so (as PyTorch's own
// GreenContext::setContext does); the green context shares the primary context's memory.
// CUDA graph replays are NOT confined (measured on an H100, session 6): SatelliteWorker
// runs an SM-limited stage eagerly (vision::ScopedNoCudaGraphs).
class SmPartitionStream {
 public:
  SmPartitionStream(const vision::DeviceSpec& device, int sm_count, StreamPriority priority) {
    const auto check = [&](CUresult status, const char* what) {
      if (status == CUDA_SUCCESS) return;
      const char* name = nullptr;
      cuGetErrorName(status, &name);
      throw Error(std::string("cannot limit the stream on ") + device.toString() + " to " +
                  std::to_string(sm_count) + " SMs (" + what + ": " + (name ? name : "unknown error") +
                  "; CUDA green contexts need driver 12.4+): leave the SM limit at 0");
    };
    c10::cuda::CUDAGuard guard(ordinal(device));
    ensureAllocatorInitialized(device);  // the primary context exists from here on
    CUdevice cu_device = 0;
    check(cuDeviceGet(&cu_device, device.index), "cuDeviceGet");
    CUdevResource all_sms{};
    check(cuDeviceGetDevResource(cu_device, &all_sms, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
    CUdevResource part{};
    CUdevResource rest{};
    unsigned int groups = 1;
    check(cuDevSmResourceSplitByCount(&part, &groups, &all_sms, &rest, 0, static_cast<unsigned int>(sm_count)),
          "cuDevSmResourceSplitByCount");
    if (groups < 1) check(CUDA_ERROR_INVALID_VALUE, "cuDevSmResourceSplitByCount (no group)");
    sm_count_ = static_cast<int>(part.sm.smCount);
    CUdevResourceDesc desc = nullptr;
    check(cuDevResourceGenerateDesc(&desc, &part, 1), "cuDevResourceGenerateDesc");
    check(cuGreenCtxCreate(&context_, desc, cu_device, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
    const CUresult as_context = cuCtxFromGreenCtx(&as_context_, context_);
    if (as_context != CUDA_SUCCESS) {
      cuGreenCtxDestroy(context_);
      check(as_context, "cuCtxFromGreenCtx");
    }
    int least = 0, greatest = 0;
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    const int cuda_priority = priority == StreamPriority::High ? greatest : least;
    const CUresult created = cuGreenCtxStreamCreate(&stream_, context_, CU_STREAM_NON_BLOCKING, cuda_priority);
    if (created != CUDA_SUCCESS) {
      cuGreenCtxDestroy(context_);
      check(created, "cuGreenCtxStreamCreate");
    }
  }
  ~SmPartitionStream() {
    cuStreamSynchronize(stream_);
    cuStreamDestroy(stream_);
    cuGreenCtxDestroy(context_);
  }
  SmPartitionStream(const SmPartitionStream&) = delete;
  SmPartitionStream& operator=(const SmPartitionStream&) = delete;

  cudaStream_t stream() const { return reinterpret_cast<cudaStream_t>(stream_); }
  CUcontext context() const { return as_context_; }
  int smCount() const { return sm_count_; }

 private:
  CUgreenCtx context_ = nullptr;
  CUcontext as_context_ = nullptr;
  CUstream stream_ = nullptr;
  int sm_count_ = 0;
};
}  // namespace

struct DeviceStream::Impl {
  c10::cuda::CUDAStream stream;
  std::shared_ptr<SmPartitionStream> partition;  // owns `stream` when set
};

DeviceStream::DeviceStream() = default;

DeviceStream DeviceStream::create(const vision::DeviceSpec& device, StreamPriority priority, int sm_limit) {
  DeviceStream result;
  result.device_ = device;
  if (!device.cuda) return result;
  vision::requireDeviceAvailable(device);
  if (sm_limit > 0) {
    auto partition = std::make_shared<SmPartitionStream>(device, sm_limit, priority);
    SKYTRACE_LOG(Info, "engine.streams") << "stream on " << device.toString() << " limited to "
                                         << partition->smCount() << " SMs (green context)";
    result.impl_ = std::make_shared<Impl>(
        Impl{c10::cuda::getStreamFromExternal(partition->stream(), ordinal(device)), partition});
    return result;
  }
  result.impl_ = std::make_shared<Impl>(Impl{c10::cuda::getStreamFromPool(
      priority == StreamPriority::High, ordinal(device)), nullptr});
  return result;
}

void DeviceStream::synchronize() const {
  if (impl_) impl_->stream.synchronize();
}

struct StreamGuard::Impl {
  std::optional<c10::cuda::CUDAStreamGuard> guard;
  bool pushed_context = false;  // an SM-limited stream's green context is current
};

StreamGuard::StreamGuard(const DeviceStream& stream) : impl_(std::make_unique<Impl>()) {
  if (!stream.impl()) return;
  if (const auto& partition = stream.impl()->partition) {
    if (cuCtxPushCurrent(partition->context()) != CUDA_SUCCESS)
      throw Error("cannot make the SM-limited (green) context current on " + stream.device().toString());
    impl_->pushed_context = true;
  }
  impl_->guard.emplace(stream.impl()->stream);
}
StreamGuard::~StreamGuard() {
  impl_->guard.reset();
  if (impl_->pushed_context) {
    CUcontext popped = nullptr;
    cuCtxPopCurrent(&popped);
  }
}

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
