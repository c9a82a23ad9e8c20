// Internal (torch allowed; core/vision sources, bench, GPU checks): fixed-shape tensor
// work replayed as CUDA graphs.
//
// Why: at the sizes Skytrace runs (one 640x480 frame, 1024 keypoints, one 224 px crop)
// the models are launch-bound on a data-centre GPU: hundreds of small kernels whose
// launch cost exceeds their arithmetic. A CUDA graph records such a function once and
// replays it as one launch.
//
// Contract for a function given to CapturedGraphs::run (checked only by trying: a
// violation makes the capture fail, see below):
//   - device work only, on the current CUDA stream: no host synchronisation (.item(),
//     nonzero, masked_select, printing tensors), no copy from pageable host memory (no
//     at::tensor({...}) on the device: see longPair), no random numbers;
//   - every shape a function of the input shapes and of values the key covers;
//   - inputs and outputs are device tensors; it must not keep references to its inputs.
// The key names everything besides the inputs' shapes/dtypes that changes the recorded
// work (options, thresholds); run() adds the inputs' shapes, dtypes and device itself.
//
// Fallback: in builds without CUDA (the main build: Debian's CPU LibTorch), for CPU
// tensors, when disabled, or when the capture for a key failed, run() returns nullopt
// and the caller runs its eager code (a failed capture is logged once as a warning and
// not retried for that key; nothing throws because of it).
//
// Switches: setEnabled(false) turns them off for one model (the options' use_cuda_graphs:
// side-by-side measurements with the same binary); ScopedNoCudaGraphs for the models a
// thread creates.
//
// Memory: each key's graph keeps its intermediate tensors in a private pool for as long
// as the instance lives (at most kMaxGraphs keys; the oldest are dropped beyond that).
// Outputs are returned as fresh copies, so callers may keep them across calls.
// Streams and threads: replays run on the calling thread's current CUDA stream (capture
// itself happens once, on the thread's capture stream: threadCaptureStream). Calls are serialised by a mutex; two threads
// replaying one instance on different streams are NOT ordered against each other on the
// device: use an instance from one stream (the models' one-thread rule ensures that).
#pragma once

#include <ATen/ATen.h>

#if defined(SKYTRACE_WITH_CUDA)
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace skytrace::vision {

// True in builds that can capture graphs (SKYTRACE_WITH_CUDA).
bool cudaGraphsCompiledIn();

// [first, second] as a 1-D int64 tensor made on the device by a kernel (arange), not
// copied from the host: usable inside a captured function, and the same values on
// every device (e.g. the (W-1, H-1) scale of normalised keypoints).
at::Tensor longPair(int64_t first, int64_t second, const at::TensorOptions& options);

#if defined(SKYTRACE_WITH_CUDA)
// The stream on which the calling thread captures CUDA graphs for `device`: one that no
// other thread uses while this thread lives. Not one of PyTorch's pool streams: those
// are handed out round-robin to every thread, so a capture on a fresh pool stream could
// land on another thread's current stream (seen on an H200: the satellite stage's copy
// failed with "Cannot copy between CPU and CUDA tensors during CUDA graph capture" while
// VO captured, and a run aborted destroying a graph). Made on first use, returned to a
// process-wide free list when the thread ends (never destroyed: graphs' memory pools may
// still refer to it), so threads of later runs reuse them.
c10::cuda::CUDAStream threadCaptureStream(c10::DeviceIndex device);

// A captured CUDA graph whose capture and destruction hold one process-wide lock. A graph
// registers with its device's CUDA generator state when its capture begins (and the
// capture updates that state until it ends) and unregisters when it is destroyed;
// PyTorch does not synchronise that bookkeeping between threads. Two engine threads
// capturing at once, or one destroying its graphs (thread exit, a full cache) while
// another captures, corrupted it: a 1,800-frame `process` run on an H200 aborted at
// the VO thread's exit with "The graph should be registered to the state". Replays
// take no lock.
class LockedCudaGraph {
 public:
  LockedCudaGraph();
  ~LockedCudaGraph();
  LockedCudaGraph(const LockedCudaGraph&) = delete;
  LockedCudaGraph& operator=(const LockedCudaGraph&) = delete;

  // Captures what `record` launches on the current stream (which must be the thread's
  // capture stream), in thread-local capture mode. Throws what the capture throws, with
  // the capture ended.
  void capture(const std::function<void()>& record);
  void replay();

 private:
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
};
#endif

class CapturedGraphs {
 public:
  using Function = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>& inputs)>;
  static constexpr size_t kMaxGraphs = 8;

  // name: used in the warning when a capture fails (e.g. "ALIKED aliked-n16rot").
  // capture_after: the call for a key that captures its graph (1: the first; 2: the
  // second, so that shapes seen only once, e.g. changing match counts, never pay for a
  // capture; earlier calls return nullopt).
  explicit CapturedGraphs(std::string name, int capture_after = 1);
  ~CapturedGraphs();
  CapturedGraphs(const CapturedGraphs&) = delete;
  CapturedGraphs& operator=(const CapturedGraphs&) = delete;

  void setEnabled(bool enabled);
  bool enabled() const;

  // Runs fn(inputs) through the graph for (key, input shapes): the first call for a key
  // runs fn once eagerly (lazy library handles, algorithm choice) and captures it; every
  // call copies `inputs` into the graph's static inputs and replays it on the current
  // stream. Returns copies of fn's outputs, or nullopt where no graph is used (see the
  // file comment): then the caller runs its eager code. inputs: non-empty, all on one
  // CUDA device.
  std::optional<std::vector<at::Tensor>> run(const std::string& key,
                                             const std::vector<at::Tensor>& inputs,
                                             const Function& fn);

  // Number of keys whose capture failed (diagnostics for checks and benchmarks).
  int failedCaptures() const;

 private:
  struct Entry;
  std::string name_;
  int capture_after_;
  bool enabled_;
  std::vector<std::pair<std::string, int>> sightings_;  // keys not captured yet (bounded)
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::unique_ptr<Entry>>> entries_;  // oldest first
};

// A model's graph cache as a copyable member: a copy of the model starts with an EMPTY
// cache of the same name and enabled state (a copy may run on another thread and stream,
// and must not replay, or race on, the original's static buffers; the graphs themselves
// read the weights both copies share). Moves keep the cache.
class ModelGraphs {
 public:
  explicit ModelGraphs(std::string name, int capture_after = 1)
      : name_(std::move(name)),
        capture_after_(capture_after),
        graphs_(std::make_unique<CapturedGraphs>(name_, capture_after_)) {}
  ModelGraphs(const ModelGraphs& other) : ModelGraphs(other.name_, other.capture_after_) {
    graphs_->setEnabled(other.graphs_->enabled());
  }
  ModelGraphs& operator=(const ModelGraphs& other) {
    if (this != &other) *this = ModelGraphs(other);
    return *this;
  }
  ModelGraphs(ModelGraphs&&) noexcept = default;
  ModelGraphs& operator=(ModelGraphs&&) noexcept = default;

  // Drops every captured graph (e.g. after the weights changed).
  void reset() { *this = ModelGraphs(*this); }

  CapturedGraphs* operator->() const { return graphs_.get(); }

 private:
  std::string name_;
  int capture_after_;
  std::unique_ptr<CapturedGraphs> graphs_;
};

}  // namespace skytrace::vision
