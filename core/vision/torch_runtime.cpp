#include "core/vision/torch_runtime.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/Context.h>
#include <torch/version.h>

#if AT_PARALLEL_OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <sstream>
#include <thread>

#include "core/util/error.h"
#include "core/util/thread_budget.h"

namespace skytrace::vision {

std::string DeviceSpec::toString() const {
  return cuda ? "cuda:" + std::to_string(index) : std::string("cpu");
}

DeviceSpec parseDevice(const std::string& text) {
  DeviceSpec spec;
  if (text == "cpu") return spec;
  if (text == "cuda") {
    spec.cuda = true;
    return spec;
  }
  if (text.rfind("cuda:", 0) == 0 && text.size() > 5 &&
      std::all_of(text.begin() + 5, text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    spec.cuda = true;
    spec.index = std::stoi(text.substr(5));
    return spec;
  }
  throw InvalidArgument("unknown device '" + text + "': use cpu, cuda or cuda:N");
}

void configureTorchRuntime(int intra_op_threads) {
  int threads = intra_op_threads;
  if (threads <= 0) threads = threadBudget().threads;
  at::set_num_threads(threads);
  setFastGpuMath(false);
}

void setCudnnAutotune(bool enabled) { at::globalContext().setBenchmarkCuDNN(enabled); }

bool cudnnAutotune() { return at::globalContext().benchmarkCuDNN(); }

void setFastGpuMath(bool fast) {
  // PyTorch enables TF32 for cuDNN convolutions by default; that alone moves ALIKED's
  // sub-pixel keypoints by more than the 1e-4 parity tolerance.
  at::globalContext().setAllowTF32CuDNN(fast);
  at::globalContext().setAllowTF32CuBLAS(fast);
}

int cudaDeviceCount() {
  if (!at::hasCUDA()) return 0;
  return static_cast<int>(at::detail::getCUDAHooks().getNumGPUs());
}

void requireDeviceAvailable(const DeviceSpec& device) {
  if (!device.cuda) return;
  const int count = cudaDeviceCount();
  if (count == 0) {
    throw InvalidArgument("device " + device.toString() +
                          " requested, but this build has no usable GPU (CPU-only LibTorch "
                          "or no CUDA device found): use --device cpu");
  }
  if (device.index >= count) {
    throw InvalidArgument("device " + device.toString() + " requested, but only " +
                          std::to_string(count) + " CUDA device(s) exist (cuda:0.." +
                          std::to_string(count - 1) + ")");
  }
}

int torchCpuThreads() { return at::get_num_threads(); }

std::string torchRuntimeSummary() {
  std::ostringstream out;
  out << "LibTorch " << TORCH_VERSION << ", " << at::get_num_threads() << " CPU threads, "
      << cudaDeviceCount() << " CUDA device(s)";
  return out.str();
}

ScopedSingleThreadedCpuOps::ScopedSingleThreadedCpuOps() {
#if AT_PARALLEL_OPENMP
  // at::get_num_threads() first runs ATen's lazy per-thread initialisation, which would
  // otherwise overwrite this thread's setting at its first parallel operator.
  const int current = at::get_num_threads();
  if (current > 1) {
    omp_set_num_threads(1);
    previous_threads_ = current;
  }
#endif
}

ScopedSingleThreadedCpuOps::~ScopedSingleThreadedCpuOps() {
#if AT_PARALLEL_OPENMP
  if (previous_threads_ > 0) omp_set_num_threads(previous_threads_);
#endif
}

namespace {
thread_local bool t_cuda_graphs_suppressed = false;
}  // namespace

ScopedNoCudaGraphs::ScopedNoCudaGraphs() : previous_(t_cuda_graphs_suppressed) { t_cuda_graphs_suppressed = true; }

ScopedNoCudaGraphs::~ScopedNoCudaGraphs() { t_cuda_graphs_suppressed = previous_; }

bool cudaGraphsSuppressedOnThisThread() { return t_cuda_graphs_suppressed; }

}  // namespace skytrace::vision
