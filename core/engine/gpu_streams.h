// Streams, events and device memory figures for the engine's workers, without torch or
// CUDA types. On a CUDA build (SKYTRACE_WITH_CUDA) they wrap CUDA streams from
// LibTorch's pool and CUDA events (gpu_streams_cuda.cpp); on the CPU (and in the
// CPU-only build, gpu_streams_cpu.cpp) a stream is inert and an event is a steady-clock
// timestamp, so the same worker code runs, and is timed, on both.
// Thread: a DeviceStream may be shared between threads (work is enqueued on it by one
// thread at a time); a StreamGuard is per thread; a DeviceEvent is recorded by one
// thread and may be waited on / queried from any.
#pragma once

#include <cstdint>
#include <memory>

#include "core/vision/torch_runtime.h"

namespace skytrace::engine {

enum class StreamPriority { High, Normal };

// A stream of work on one device. Default-constructed: the CPU (inert).
class DeviceStream {
 public:
  DeviceStream();
  // A stream from the device's pool (CUDA), created on the calling thread. For a CPU
  // device returns an inert stream. Throws InvalidArgument when the device is absent.
  // sm_limit > 0 (CUDA): a stream of its own whose kernels run on at most that many of the
  // device's SMs (a CUDA green context, driver 12.4+; rounded up to the device's SM group
  // size), so that work on other streams always finds the remaining SMs free; throws
  // skytrace::Error when the driver cannot create one. Ignored on the CPU.
  static DeviceStream create(const vision::DeviceSpec& device, StreamPriority priority, int sm_limit = 0);

  const vision::DeviceSpec& device() const { return device_; }
  bool isCuda() const { return device_.cuda; }
  // Blocks the calling thread until all work enqueued so far is done (CPU: no-op).
  void synchronize() const;

  struct Impl;
  const Impl* impl() const { return impl_.get(); }

 private:
  vision::DeviceSpec device_;
  std::shared_ptr<Impl> impl_;
};

// Makes `stream` the current stream of its device for the calling thread (every ATen
// operation on that device issued by this thread goes there) until destruction. For an
// SM-limited stream it also makes its green context the thread's current CUDA context,
// which is what confines the thread's kernels to those SMs.
class StreamGuard {
 public:
  explicit StreamGuard(const DeviceStream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A point in a stream: CUDA event with timing (GPU) or a steady-clock time (CPU).
class DeviceEvent {
 public:
  DeviceEvent();
  ~DeviceEvent();
  DeviceEvent(DeviceEvent&&) noexcept;
  DeviceEvent& operator=(DeviceEvent&&) noexcept;
  DeviceEvent(const DeviceEvent&) = delete;
  DeviceEvent& operator=(const DeviceEvent&) = delete;

  // Marks the current end of `stream`'s queue (CPU: now).
  void record(const DeviceStream& stream);
  bool isRecorded() const;
  // Makes `stream` wait (on the device, the host does not block) until this event has
  // completed. No-op when never recorded or on the CPU.
  void block(const DeviceStream& stream) const;
  // Blocks the calling thread until the event has completed (no-op when not recorded).
  void synchronize() const;
  // True when the event completed (or was never recorded).
  bool query() const;
  // Milliseconds from this event to `later`; both recorded on the same device and
  // completed (call synchronize() on `later` first).
  double elapsedMsUntil(const DeviceEvent& later) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Bytes held by tensors on `device` now / at the peak since the last reset (LibTorch's
// caching allocator; -1 on the CPU, where nothing is tracked).
std::int64_t deviceBytesInUse(const vision::DeviceSpec& device);
std::int64_t peakDeviceBytes(const vision::DeviceSpec& device);
void resetPeakDeviceBytes(const vision::DeviceSpec& device);

// Waits for all work on the device (CPU: no-op).
void synchronizeDevice(const vision::DeviceSpec& device);

// True when this build has the CUDA implementation (gpu_streams_cuda.cpp).
bool engineBuiltWithCuda();

}  // namespace skytrace::engine
