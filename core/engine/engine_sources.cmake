# The engine sources that build everywhere: the main build (core/engine/CMakeLists.txt)
# and the GPU-only engine build on the CUDA machine (scripts/gpu/engine/CMakeLists.txt),
# which has LibTorch and Qt Core but no OpenCV, GDAL or core/nav. Paths relative to
# core/engine. Add a source here only if it needs nothing beyond core/util, the
# OpenCV-free tensor level of core/vision, Qt Core and LibTorch.
set(SKYTRACE_ENGINE_PORTABLE_SOURCES
  latency_publisher.cpp
  latency_recorder.cpp
  run_control.cpp
  device_placement.cpp
  stage_clock.cpp
  synthetic_frame_source.cpp
  frame_feed.cpp
  satellite_worker.cpp
  front_end_lanes.cpp
  pipeline.cpp
  sequential_run.cpp
  vision_extractor.cpp
  vision_payloads.cpp
  vision_payload_models.cpp
  engine_bench.cpp
  preloaded_frame_source.cpp
  paced_frame_source.cpp
)
# Exactly one of these, by SKYTRACE_WITH_CUDA.
set(SKYTRACE_ENGINE_CUDA_SOURCES gpu_streams_cuda.cpp)
set(SKYTRACE_ENGINE_CPU_SOURCES gpu_streams_cpu.cpp)
