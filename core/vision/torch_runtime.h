// Process-wide LibTorch setup and device selection, without exposing torch headers.
// Thread: any; configureTorchRuntime() should run once at start-up on the main thread.
#pragma once

#include <string>

namespace skytrace::vision {

// A compute device: "cpu" or "cuda:N".
struct DeviceSpec {
  bool cuda = false;
  int index = 0;  // CUDA ordinal; 0 for cpu

  std::string toString() const;
  bool operator==(const DeviceSpec& other) const { return cuda == other.cuda && (!cuda || index == other.index); }
  bool operator!=(const DeviceSpec& other) const { return !(*this == other); }
};

// Parses "cpu", "cuda" (= cuda:0) or "cuda:N". Throws InvalidArgument on other text.
DeviceSpec parseDevice(const std::string& text);

// Sets LibTorch's intra-op thread count (0 = the process's thread budget, threadBudget();
// Debian's default is 1)
// and selects exact float32 GPU math (see setFastGpuMath). cuDNN's convolution
// autotuning stays as it is (LibTorch's default: off; see setCudnnAutotune).
void configureTorchRuntime(int intra_op_threads = 0);

// enabled: cuDNN times its convolution algorithms once per input shape and keeps the
// fastest (PyTorch's cudnn.benchmark), instead of taking its heuristic's first choice.
// Our shapes are fixed per run (frame size, tile size), so the one-time cost falls in
// the first call, which CUDA-graph capture runs eagerly anyway. Precision is unchanged
// in kind (float32 algorithms; TF32 stays as setFastGpuMath says). Measured on an H100
// (docs/benchmarks.md, session 5): ALIKED-n16rot 640x480 extraction alone 2.59-2.64 ->
// 2.37 ms, but with the satellite stage on the same GPU both stages get much slower
// (overlapped 206 -> 122 fps): the tuned algorithms suit a GPU of one's own. Hence off by
// default. Process-wide; call before work starts. No effect on the CPU.
void setCudnnAutotune(bool enabled);
bool cudnnAutotune();

// fast = false (the default after configureTorchRuntime): float32 matrix products and
// convolutions on the GPU run in true float32, so CUDA results agree with the CPU build
// to ~1e-5. fast = true allows TF32 tensor cores (about 1e-3 relative deviation;
// benchmarks that use it must report the deviation). Process-wide; call before work starts.
void setFastGpuMath(bool fast);

// While one is alive on a thread, models and matchers created on that thread do not
// capture CUDA graphs (their default reads false), whatever their options say.
// For work that must run eagerly: a stage confined to part of a GPU's SMs by a CUDA green
// context, whose partition graph replays do not honour (measured on an H100, session 6:
// a graph-replayed satellite stage took 3.4 ms with 16 SMs as with all 132; eager, 10 ms).
// Scopes nest; thread-local, no effect on models created before or on other threads.
class ScopedNoCudaGraphs {
 public:
  ScopedNoCudaGraphs();
  ~ScopedNoCudaGraphs();
  ScopedNoCudaGraphs(const ScopedNoCudaGraphs&) = delete;
  ScopedNoCudaGraphs& operator=(const ScopedNoCudaGraphs&) = delete;

 private:
  bool previous_;
};
// Whether a ScopedNoCudaGraphs is alive on the calling thread.
bool cudaGraphsSuppressedOnThisThread();

// Number of CUDA devices usable by this build (0 for a CPU-only build or no GPU).
int cudaDeviceCount();

// Throws InvalidArgument with an actionable message if `device` cannot be used here
// (CPU-only build, no GPU, ordinal out of range).
void requireDeviceAvailable(const DeviceSpec& device);

// LibTorch's intra-op CPU thread count now (at::get_num_threads).
int torchCpuThreads();

// One line describing LibTorch: version, threads, CUDA availability.
std::string torchRuntimeSummary();

// While it lives, ATen CPU operators called from THIS thread run on one intra-op thread;
// every other thread, and threads started meanwhile, keep the process-wide count set by
// configureTorchRuntime. For code made of many small tensor operations (RANSAC), where
// OpenMP fork/join costs more than it gains and, with several worker threads in one
// process, would oversubscribe the cores. Mechanism: ATen's OpenMP backend takes the
// thread count of a parallel region from the calling thread's OpenMP `nthreads` setting,
// which is per thread; at::set_num_threads would instead change the process-wide default
// and clear oneDNN's primitive cache under other threads' feet. With a non-OpenMP ATen
// backend the guard does nothing. Thread: create and destroy on the same thread; nest freely.
class ScopedSingleThreadedCpuOps {
 public:
  ScopedSingleThreadedCpuOps();
  ~ScopedSingleThreadedCpuOps();
  ScopedSingleThreadedCpuOps(const ScopedSingleThreadedCpuOps&) = delete;
  ScopedSingleThreadedCpuOps& operator=(const ScopedSingleThreadedCpuOps&) = delete;

 private:
  int previous_threads_ = 0;  // this thread's count before the guard; 0: nothing to restore
};

}  // namespace skytrace::vision
