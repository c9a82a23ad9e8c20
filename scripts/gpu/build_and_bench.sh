#!/usr/bin/env bash
# Builds the GPU-only vision core + skytrace-bench-vision + skytrace-gpu-check on the CUDA
# device machine (PyTorch's LibTorch, cmake, ninja, g++; no Qt/OpenCV/GDAL, no network),
# runs the gpu-labelled check and the benchmark, and leaves JSON + logs in $OUT (or
# ./out/gpu when $OUT is unset). Run from the repository root:
#   scripts/gpu/build_and_bench.sh [--quick] [--fast-paths [--profile]]
# --fast-paths replaces the ALIKED benchmark matrix with the side-by-side measurement of
# the CUDA-graph fast paths (issue 7/9): every timed configuration runs twice with
# SKYTRACE_CUDA_GRAPHS=0 and with graphs on (same binary, alternating; ALIKED-n16rot VO at
# 640x480 with 1024 keypoints and SuperPoint + LightGlue in two rounds, LiteSAM 512x512
# and DINOv2-S/14 224 px in one);
# with .orig/time_original_{superpoint_lightglue,litesam}.py present it also times the
# original code and benchmarks ours on the weights those scripts write. All results go
# into $OUT/fastpaths.tar.gz (the device returns at most 8 files). Also TF32 runs
# (--tf32, graphs on), and, when build-gpu-deps/baseline/robust_estimation.cpp exists (a
# previous version, copied there by hand), a second benchmark binary built with it for a
# same-call RANSAC comparison. --profile adds per-kernel GPU times (Nsight Compute,
# gpu__time_duration, eager mode, one iteration) summed by kernel name: profile_*.txt.
# Inputs it looks for (see docs/gpu.md):
#   nlohmann/json.hpp  in $SKYTRACE_EXTRA_INCLUDE_DIR, build-gpu-deps/include or /usr/include
#   ALIKED weights     in $SKYTRACE_MODEL_DIR, shared/models/aliked, ../shared/models/aliked
#                      or build-gpu-deps/models/aliked
#   SKYTRACE_GPU_BENCH_SOURCE (optional) another source file for skytrace-bench-vision
#   SKYTRACE_GPU_EXCLUDE_SOURCES (optional) ;-separated library source names to leave out
#   parity fixture     (optional) aliked-n16rot/{inputs,outputs}.pt in $SKYTRACE_PARITY_DIR,
#                      shared/fixtures/parity, ../shared/fixtures/parity or
#                      build-gpu-deps/fixtures/parity
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/out/gpu}"
mkdir -p "$out"
build="$root/build-gpu"
quick=0
fast_paths=0
profile=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --fast-paths) fast_paths=1 ;;
    --profile) profile=1 ;;
    *) echo "unknown option $arg"; exit 2 ;;
  esac
done

log() { echo "[build_and_bench] $*" | tee -a "$out/build_and_bench.log"; }

# --- environment -------------------------------------------------------------------
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  nproc
  g++ --version | head -1
  cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} > "$out/environment.txt" 2>&1 || true
cat "$out/environment.txt"

torch_prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
log "LibTorch CMake prefix: $torch_prefix"

include_dir=""
for candidate in "${SKYTRACE_EXTRA_INCLUDE_DIR:-}" "$root/build-gpu-deps/include" /usr/include /usr/local/include; do
  if [[ -n "$candidate" && -f "$candidate/nlohmann/json.hpp" ]]; then include_dir="$candidate"; break; fi
done
if [[ -z "$include_dir" ]]; then
  log "ERROR: nlohmann/json.hpp not found. On a machine with it: mkdir -p build-gpu-deps/include && cp -r /usr/include/nlohmann build-gpu-deps/include/ and carry build-gpu-deps"
  exit 2
fi

model_dir=""
for candidate in "${SKYTRACE_MODEL_DIR:-}" "$root/shared/models/aliked" "$root/../shared/models/aliked" "$root/build-gpu-deps/models/aliked"; do
  if [[ -n "$candidate" && -f "$candidate/aliked-n16rot.pth" ]]; then model_dir="$(cd "$candidate" && pwd)"; break; fi
done
if [[ -z "$model_dir" ]]; then
  log "WARNING: no ALIKED weights found; the ALIKED check is skipped and the benchmark has no models to run"
else
  log "ALIKED weights: $model_dir"
fi
export SKYTRACE_MODEL_DIR="$model_dir"

# The ALIKED parity fixture (real images + the original implementation's output) for the
# CUDA-vs-CPU check; optional.
parity_dir=""
for candidate in "${SKYTRACE_PARITY_DIR:-}" "$root/shared/fixtures/parity" "$root/../shared/fixtures/parity" "$root/build-gpu-deps/fixtures/parity"; do
  if [[ -n "$candidate" && -f "$candidate/aliked-n16rot/inputs.pt" ]]; then parity_dir="$(cd "$candidate" && pwd)"; break; fi
done
if [[ -n "$parity_dir" ]]; then log "parity fixtures: $parity_dir"; export SKYTRACE_PARITY_DIR="$parity_dir"; fi

# --- configure and build -------------------------------------------------------------
nvcc_path="$(command -v nvcc || true)"
[[ -z "$nvcc_path" && -x /usr/local/cuda/bin/nvcc ]] && nvcc_path=/usr/local/cuda/bin/nvcc
configure() {
  local standard="$1"
  cmake -S "$root/scripts/gpu" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$torch_prefix" \
    -DSKYTRACE_EXTRA_INCLUDE_DIR="$include_dir" \
    -DSKYTRACE_GPU_CXX_STANDARD="$standard" \
    ${nvcc_path:+-DCMAKE_CUDA_COMPILER="$nvcc_path"} \
    ${SKYTRACE_GPU_BENCH_SOURCE:+-DSKYTRACE_GPU_BENCH_SOURCE="$SKYTRACE_GPU_BENCH_SOURCE"} \
    ${SKYTRACE_GPU_EXCLUDE_SOURCES:+-DSKYTRACE_GPU_EXCLUDE_SOURCES="$SKYTRACE_GPU_EXCLUDE_SOURCES"} \
    -DTORCH_CUDA_ARCH_LIST="9.0" >> "$out/configure.log" 2>&1
}
build_all() { cmake --build "$build" -j "$(nproc)" >> "$out/build.log" 2>&1; }

log "configuring (C++17)"
if ! configure 17 || ! build_all; then
  log "C++17 configure/build failed (see configure.log/build.log); retrying with C++20 (newer PyTorch headers)"
  rm -rf "$build"
  configure 20
  build_all || { log "ERROR: build failed, see $out/build.log"; tail -40 "$out/build.log"; exit 1; }
fi
log "built: $build/skytrace-bench-vision $build/skytrace-gpu-check"

# --- checks ----------------------------------------------------------------------------
log "running ctest -L gpu"
set +e
(cd "$build" && ctest -L gpu -V) 2>&1 | tee "$out/gpu_check.log"
check_status=${PIPESTATUS[0]}
set -e

# --- benchmark -------------------------------------------------------------------------
iterations=100; warmup=10
[[ $quick == 1 ]] && { iterations=20; warmup=5; }
if [[ $fast_paths == 1 ]]; then
  fp="$out/fastpaths"
  mkdir -p "$fp"
  bench="$build/skytrace-bench-vision"
  common=(--device cuda:0 --sizes 640x480 --keypoints 1024 --iterations "$iterations" --warmup "$warmup")
  splg_weights=""
  if [[ -f "$root/.orig/time_original_superpoint_lightglue.py" ]]; then
    splg_weights="/tmp/splg_weights"
    log "original SuperPoint + LightGlue (writes the seeded weights both sides use)"
    PYTHONUNBUFFERED=1 python3 "$root/.orig/time_original_superpoint_lightglue.py" --weights-dir "$splg_weights" \
      --iterations "$iterations" --warmup "$warmup" --out "$fp/original_splg_cuda.json" > "$fp/original_splg.log" 2>&1 \
      || { log "original SuperPoint + LightGlue failed (see original_splg.log)"; splg_weights=""; }
  fi
  litesam_weights=""
  if [[ -f "$root/.orig/time_original_litesam.py" ]]; then
    litesam_weights="/tmp/litesam_weights"
    log "original LiteSAM 512x512 float32 (writes the seeded weights both sides use)"
    PYTHONUNBUFFERED=1 python3 "$root/.orig/time_original_litesam.py" --weights-dir "$litesam_weights" \
      --modes fp32 --iterations 50 --warmup 5 --out "$fp/original_litesam_cuda.json" > "$fp/original_litesam.log" 2>&1 \
      || { log "original LiteSAM failed (see original_litesam.log)"; litesam_weights=""; }
  fi
  cp "$out"/gpu_check.log "$fp"/ 2>/dev/null || true
  tar -C "$out" -czf "$out/fastpaths.tar.gz" fastpaths
  for round in 1 2; do
    for graphs in 0 1; do
      tag="graphs${graphs}_r${round}"
      log "fast paths: $tag"
      SKYTRACE_CUDA_GRAPHS=$graphs "$bench" "${common[@]}" --models aliked-n16rot --weights-dir "$model_dir" \
        --out "$fp/vo_aliked_$tag.json" > "$fp/vo_aliked_$tag.log" 2>&1 || log "aliked bench $tag failed"
      if [[ -n "$splg_weights" ]]; then
        SKYTRACE_CUDA_GRAPHS=$graphs "$bench" "${common[@]}" \
          --models superpoint,superpoint+lightglue-full,superpoint+lightglue-full-fp16,superpoint+lightglue \
          --weights-dir "$splg_weights" --out "$fp/splg_$tag.json" > "$fp/splg_$tag.log" 2>&1 || log "splg bench $tag failed"
      fi
      tar -C "$out" -czf "$out/fastpaths.tar.gz" fastpaths  # partial results survive a timeout
      [[ $round == 2 ]] && continue  # LiteSAM and DINOv2: one round (device time)
      if [[ -n "$litesam_weights" ]]; then
        SKYTRACE_CUDA_GRAPHS=$graphs "$bench" --device cuda:0 --models '' --dense litesam --dense-size 512 \
          --iterations 50 --warmup 5 --weights-dir "$litesam_weights" --out "$fp/litesam_$tag.json" \
          > "$fp/litesam_$tag.log" 2>&1 || log "litesam bench $tag failed"
      fi
      SKYTRACE_CUDA_GRAPHS=$graphs "$bench" "${common[@]}" --models '' --retrieval dinov2-vits14 \
        --weights-dir "$model_dir" --out "$fp/dinov2_$tag.json" > "$fp/dinov2_$tag.log" 2>&1 || log "dinov2 bench $tag failed"
      tar -C "$out" -czf "$out/fastpaths.tar.gz" fastpaths
    done
  done
  for graphs in 1; do
    tag="tf32"
    log "fast paths: TF32, graphs on"
    SKYTRACE_CUDA_GRAPHS=$graphs "$bench" "${common[@]}" --tf32 --models aliked-n16rot --weights-dir "$model_dir" \
      --out "$fp/vo_aliked_$tag.json" > "$fp/vo_aliked_$tag.log" 2>&1 || log "aliked bench $tag failed"
    [[ -n "$splg_weights" ]] && { SKYTRACE_CUDA_GRAPHS=$graphs "$bench" "${common[@]}" --tf32 \
      --models superpoint,superpoint+lightglue-full,superpoint+lightglue-full-fp16 \
      --weights-dir "$splg_weights" --out "$fp/splg_$tag.json" > "$fp/splg_$tag.log" 2>&1 || log "splg bench $tag failed"; }
    [[ -n "$litesam_weights" ]] && { "$bench" --device cuda:0 --tf32 --models '' --dense litesam --dense-size 512 \
      --iterations 50 --warmup 5 --weights-dir "$litesam_weights" --out "$fp/litesam_$tag.json" \
      > "$fp/litesam_$tag.log" 2>&1 || log "litesam bench $tag failed"; }
  done
  tar -C "$out" -czf "$out/fastpaths.tar.gz" fastpaths
  if [[ -f "$root/build-gpu-deps/baseline/robust_estimation.cpp" ]]; then
    log "baseline RANSAC (build-gpu-deps/baseline/robust_estimation.cpp) in a second bench binary"
    base=/tmp/base; rm -rf "$base"; mkdir -p "$base"; cp -r "$root/core" "$root/bench" "$root/scripts" "$base/"
    cp "$root/build-gpu-deps/baseline/robust_estimation.cpp" "$base/core/vision/"
    std="$(grep -o 'SKYTRACE_GPU_CXX_STANDARD:STRING=[0-9]*' "$build/CMakeCache.txt" | cut -d= -f2)"
    if cmake -S "$base/scripts/gpu" -B "$base/b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$torch_prefix" \
         -DSKYTRACE_EXTRA_INCLUDE_DIR="$include_dir" -DSKYTRACE_GPU_CXX_STANDARD="${std:-17}" \
         ${nvcc_path:+-DCMAKE_CUDA_COMPILER="$nvcc_path"} -DTORCH_CUDA_ARCH_LIST=9.0 > "$fp/base_configure.log" 2>&1 &&
       cmake --build "$base/b" -j "$(nproc)" --target skytrace-bench-vision > "$fp/base_build.log" 2>&1; then
      for round in 1 2; do
        "$base/b/skytrace-bench-vision" "${common[@]}" --models aliked-n16rot --weights-dir "$model_dir" \
          --out "$fp/vo_aliked_baseline_ransac_r$round.json" > "$fp/vo_aliked_baseline_ransac_r$round.log" 2>&1
        "$bench" "${common[@]}" --models aliked-n16rot --weights-dir "$model_dir" \
          --out "$fp/vo_aliked_new_ransac_r$round.json" > "$fp/vo_aliked_new_ransac_r$round.log" 2>&1
      done
    else
      log "baseline build failed (see base_build.log)"
    fi
  fi
  tar -C "$out" -czf "$out/fastpaths.tar.gz" fastpaths
  if [[ $profile == 1 ]] && command -v ncu > /dev/null; then
    summarize() { python3 "$root/bench/ncu_kernel_summary.py" "$1" "$2"; }  # ncu CSV -> per-kernel totals
    ncu_run() {  # tag, bench arguments...
      local tag="$1"; shift
      log "profile: $tag"
      SKYTRACE_CUDA_GRAPHS=0 timeout 240 ncu --clock-control none --print-units base --metrics gpu__time_duration.sum --csv \
        --log-file "$fp/ncu_$tag.csv" "$bench" --device cuda:0 --iterations 1 --warmup 0 "$@" --out /tmp/ncu_$tag.json \
        > "$fp/ncu_$tag.log" 2>&1 || log "profile $tag failed"
      summarize "$fp/ncu_$tag.csv" "$fp/profile_$tag.txt" 2>> "$fp/ncu_$tag.log" && rm -f "$fp/ncu_$tag.csv"
      head -16 "$fp/profile_$tag.txt" 2>/dev/null
    }
    # PROFILE_TARGETS (environment): which of these to profile (default: all).
    targets=" ${PROFILE_TARGETS:-aliked splg_fp32 splg_fp16 litesam} "
    [[ $targets == *" aliked "* ]] && ncu_run aliked --sizes 640x480 --keypoints 1024 --models aliked-n16rot --weights-dir "$model_dir"
    [[ -n "$splg_weights" && $targets == *" splg_fp32 "* ]] && ncu_run splg_fp32 --sizes 640x480 --keypoints 1024 --models superpoint+lightglue-full --weights-dir "$splg_weights"
    [[ -n "$splg_weights" && $targets == *" splg_fp16 "* ]] && ncu_run splg_fp16 --sizes 640x480 --keypoints 1024 --models superpoint+lightglue-full-fp16 --weights-dir "$splg_weights"
    [[ -n "$litesam_weights" && $targets == *" litesam "* ]] && ncu_run litesam --models '' --dense litesam --dense-size 512 --weights-dir "$litesam_weights"
    tar -C "$out" -czf "$out/fastpaths.tar.gz" fastpaths
  fi
  cp "$out"/*.log "$out"/*.txt "$fp"/ 2>/dev/null || true
  # One-line summary per run (the reply shows the end of the output).
  grep -H -E "k=1024|224x224|512x512|WARN|capture" "$fp"/*_r*.log "$fp"/*tf32*.log | sed "s|^$fp/||" | tee -a "$out/build_and_bench.log" || true
  for f in "$fp"/*_r*.log "$fp"/*tf32*.log; do echo "== $(basename "$f")"; grep -E "k=1024|224x224|512x512|WARN|capture" "$f"; done > "$fp/summary.txt" 2>/dev/null || true
  tar -C "$out" -czf "$out/fastpaths.tar.gz" fastpaths && rm -rf "$fp"
  log "done: $out/fastpaths.tar.gz (gpu check exit status $check_status)"
  exit "$check_status"
fi
models="aliked-t16,aliked-n16,aliked-n16rot,aliked-n32"
log "benchmark on cuda:0 ($models; 640x480,1280x720; 1024,2048 keypoints; $iterations iterations)"
"$build/skytrace-bench-vision" --device cuda:0 --models "$models" --sizes 640x480,1280x720 \
  --keypoints 1024,2048 --iterations "$iterations" --warmup "$warmup" \
  --weights-dir "$model_dir" --out "$out/bench_vision_cuda.json" 2>&1 | tee "$out/bench_cuda.log"
log "benchmark on the device machine's CPU (ALIKED-t16 640x360, the 2-core target's input size, 16 threads here)"
"$build/skytrace-bench-vision" --device cpu --models aliked-t16 --sizes 640x360 --keypoints 1024 \
  --iterations 10 --warmup 2 --weights-dir "$model_dir" --out "$out/bench_vision_device_cpu.json" \
  2>&1 | tee "$out/bench_device_cpu.log"

log "done: results in $out (gpu check exit status $check_status)"
exit "$check_status"
