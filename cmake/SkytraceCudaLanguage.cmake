# skytrace_enable_cuda_language(): enables CUDA when a compiler (nvcc) is found, for
# ALIKED's fused kernels (core/vision/aliked_cuda_kernels.cu), with sm_80 and sm_90 as
# the default architectures; without nvcc it leaves CMAKE_CUDA_COMPILER empty and the
# projects build ALIKED's ATen path. A macro, because enable_language() must run at file
# scope of the project's top-level directory, above every target linking CUDA objects.
# Shared by the main project and the GPU-only projects in scripts/gpu.
macro(skytrace_enable_cuda_language)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    enable_language(CUDA)
  endif()
endmacro()
