// Internal (CUDA builds with nvcc only): what the tensor-level wrappers of the fused CUDA
// kernels (fused_ops.cpp, aliked_fused_ops.cpp) share around their raw launchers.
#pragma once

#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <string>

#include "core/util/error.h"

namespace skytrace::vision {

// The current CUDA stream of t's device: every launcher enqueues there.
inline cudaStream_t currentCudaStream(const at::Tensor& t) {
  return c10::cuda::getCurrentCUDAStream(t.device().index()).stream();
}

// Throws InvalidArgument("<owner> <op>: <CUDA's error text>") unless status is
// cudaSuccess (a launcher's cudaGetLastError(), or its refusal of a shape).
inline void checkLaunch(cudaError_t status, const char* owner, const char* op) {
  if (status != cudaSuccess)
    throw InvalidArgument(std::string(owner) + " " + op + ": " + cudaGetErrorString(status));
}

}  // namespace skytrace::vision
