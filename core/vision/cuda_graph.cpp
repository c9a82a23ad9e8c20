#include "core/vision/cuda_graph_impl.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

#include "core/util/log.h"
#include "core/vision/torch_runtime.h"

#if defined(SKYTRACE_WITH_CUDA)
// CUDA builds only (cuda preset): Debian's LibTorch has no CUDA.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace skytrace::vision {

bool cudaGraphsCompiledIn() {
#if defined(SKYTRACE_WITH_CUDA)
  return true;
#else
  return false;
#endif
}

#if defined(SKYTRACE_WITH_CUDA)
c10::cuda::CUDAStream threadCaptureStream(c10::DeviceIndex device) {
  static std::mutex free_mutex;
  static std::map<c10::DeviceIndex, std::vector<cudaStream_t>> free_streams;
  struct Held {
    std::map<c10::DeviceIndex, cudaStream_t> streams;
    ~Held() {
      const std::lock_guard<std::mutex> lock(free_mutex);
      for (const auto& [index, stream] : streams) free_streams[index].push_back(stream);
    }
  };
  thread_local Held held;
  auto it = held.streams.find(device);
  if (it == held.streams.end()) {
    cudaStream_t stream = nullptr;
    {
      const std::lock_guard<std::mutex> lock(free_mutex);
      std::vector<cudaStream_t>& available = free_streams[device];
      if (!available.empty()) {
        stream = available.back();
        available.pop_back();
      }
    }
    if (!stream) {
      const c10::cuda::CUDAGuard on_device(device);
      C10_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }
    it = held.streams.emplace(device, stream).first;
  }
  return c10::cuda::getStreamFromExternal(it->second, device);
}
#endif

#if defined(SKYTRACE_WITH_CUDA)
namespace {
std::mutex& graphLifecycleMutex() {
  static std::mutex mutex;
  return mutex;
}
}  // namespace

LockedCudaGraph::LockedCudaGraph() = default;

LockedCudaGraph::~LockedCudaGraph() {
  const std::lock_guard<std::mutex> lock(graphLifecycleMutex());
  graph_.reset();
}

void LockedCudaGraph::capture(const std::function<void()>& record) {
  const std::lock_guard<std::mutex> lock(graphLifecycleMutex());
  graph_.reset();
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
  try {
    record();
  } catch (...) {
    // End the (invalidated) capture so that the stream and the allocator leave capture
    // mode; its own error is the less informative one.
    try {
      graph->capture_end();
    } catch (...) {
    }
    throw;
  }
  graph->capture_end();
  graph_ = std::move(graph);
}

void LockedCudaGraph::replay() { graph_->replay(); }
#endif

at::Tensor longPair(int64_t first, int64_t second, const at::TensorOptions& options) {
  return at::arange(2, options.dtype(at::kLong)) * (second - first) + first;
}

struct CapturedGraphs::Entry {
  bool failed = false;
#if defined(SKYTRACE_WITH_CUDA)
  std::vector<at::Tensor> static_inputs;
  std::vector<at::Tensor> outputs;  // live in the graph's private pool
  std::unique_ptr<LockedCudaGraph> graph;
#endif
};

CapturedGraphs::CapturedGraphs(std::string name, int capture_after)
    : name_(std::move(name)),
      capture_after_(std::max(1, capture_after)),
      enabled_(!cudaGraphsSuppressedOnThisThread()) {}

CapturedGraphs::~CapturedGraphs() = default;

void CapturedGraphs::setEnabled(bool enabled) {
  const std::lock_guard<std::mutex> lock(mutex_);
  enabled_ = enabled;
}

bool CapturedGraphs::enabled() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return enabled_;
}

int CapturedGraphs::failedCaptures() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  int failed = 0;
  for (const auto& entry : entries_) failed += entry.second->failed ? 1 : 0;
  return failed;
}

std::optional<std::vector<at::Tensor>> CapturedGraphs::run(const std::string& key,
                                                           const std::vector<at::Tensor>& inputs,
                                                           const Function& fn) {
#if !defined(SKYTRACE_WITH_CUDA)
  (void)key;
  (void)inputs;
  (void)fn;
  return std::nullopt;
#else
  if (inputs.empty() || !inputs.front().is_cuda()) return std::nullopt;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!enabled_) return std::nullopt;
  const at::Device device = inputs.front().device();
  std::ostringstream full_key;
  full_key << key << "|" << device;
  for (const at::Tensor& input : inputs) {
    if (!input.is_cuda() || input.device() != device) return std::nullopt;
    full_key << "|" << input.scalar_type() << input.sizes();
  }

  Entry* entry = nullptr;
  for (auto& [entry_key, value] : entries_) {
    if (entry_key == full_key.str()) entry = value.get();
  }
  if (!entry && capture_after_ > 1) {
    // Count this key's calls; capture from the capture_after-th on.
    auto seen = std::find_if(sightings_.begin(), sightings_.end(),
                             [&](const auto& kv) { return kv.first == full_key.str(); });
    if (seen == sightings_.end()) {
      if (sightings_.size() >= 64) sightings_.erase(sightings_.begin());
      sightings_.emplace_back(full_key.str(), 0);
      seen = sightings_.end() - 1;
    }
    if (++seen->second < capture_after_) return std::nullopt;
    sightings_.erase(seen);
  }
  if (!entry) {
    if (entries_.size() >= kMaxGraphs) entries_.erase(entries_.begin());
    auto made = std::make_unique<Entry>();
    const c10::cuda::CUDAGuard on_device(device);
    // Static inputs filled with this call's values (the warm-up and capture read them).
    for (const at::Tensor& input : inputs) made->static_inputs.push_back(input.clone());
    const auto capture_start = std::chrono::steady_clock::now();
    at::cuda::getCurrentCUDAStream(device.index()).synchronize();
    const c10::cuda::CUDAStream side = threadCaptureStream(device.index());
    try {
      const c10::cuda::CUDAStreamGuard on_side(side);
      fn(made->static_inputs);  // warm-up: library handles, cuDNN/cuBLAS choices, caches
      side.synchronize();
      made->graph = std::make_unique<LockedCudaGraph>();
      made->graph->capture([&] { made->outputs = fn(made->static_inputs); });
      side.synchronize();
      // A capture stalls its thread (warm-up, capture, instantiation): logged so that a
      // latency spike can be traced to it.
      SKYTRACE_LOG(Info, "vision.cuda_graph")
          << name_ << ": captured a CUDA graph for " << full_key.str() << " in "
          << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - capture_start).count()
          << " ms";
    } catch (const std::exception& e) {
      (void)cudaGetLastError();  // capture errors are not sticky; clear the last-error slot
      made->failed = true;
      made->outputs.clear();
      made->graph.reset();
      std::string reason = e.what();
      if (const size_t newline = reason.find('\n'); newline != std::string::npos)
        reason.resize(newline);
      SKYTRACE_LOG(Warning, "vision.cuda_graph")
          << name_ << ": CUDA graph capture failed for " << full_key.str() << " (" << reason
          << "); running eagerly";
    }
    entries_.emplace_back(full_key.str(), std::move(made));
    entry = entries_.back().second.get();
  }
  if (entry->failed) return std::nullopt;

  for (size_t i = 0; i < inputs.size(); ++i)
    entry->static_inputs[i].copy_(inputs[i], /*non_blocking=*/true);
  entry->graph->replay();  // on the current stream
  std::vector<at::Tensor> outputs;
  outputs.reserve(entry->outputs.size());
  for (const at::Tensor& output : entry->outputs) outputs.push_back(output.clone());
  return outputs;
#endif
}

}  // namespace skytrace::vision
