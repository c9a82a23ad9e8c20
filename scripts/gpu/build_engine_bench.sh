#!/usr/bin/env bash
# Builds the engine + its benchmark on the CUDA device machine (PyTorch's LibTorch,
# cmake, ninja, g++; no Qt/OpenCV/GDAL, no network), runs the gpu-labelled checks and
# the engine benchmark, and leaves JSON + logs in $OUT (or ./out/gpu-engine). Run from
# the repository root:
#   scripts/gpu/build_engine_bench.sh [--quick] [--frames N] [--build-only]
# Inputs (carried with the working tree, see docs/engine.md):
#   .device-prefix/debs   Debian's Qt 6 Core (+ nlohmann-json) .debs, unpacked here into
#                         build-engine-gpu/prefix (dpkg -x, or ar + tar without dpkg)
#   build-gpu-deps        nlohmann/json.hpp (include/) and ALIKED weights (models/aliked)
# Environment: SKYTRACE_ENGINE_CUDA=OFF builds the CPU twin (dry run on a CPU LibTorch,
# with SKYTRACE_TORCH_PREFIX=/usr/lib/x86_64-linux-gnu/cmake where python has no torch);
# SKYTRACE_BENCH_DEVICE (default cuda:0) is the device the benchmark and checks use.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/out/gpu-engine}"
mkdir -p "$out"
work="$root/build-engine-gpu"
prefix="$work/prefix"
build="$work/build"
quick=0
frames=300
build_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1; frames=100 ;;
    --frames) frames="$2"; shift ;;
    --build-only) build_only=1 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
  shift
done
engine_cuda="${SKYTRACE_ENGINE_CUDA:-ON}"
device="${SKYTRACE_BENCH_DEVICE:-cuda:0}"

log() { echo "[build_engine_bench] $*" | tee -a "$out/build_engine_bench.log"; }

# --- environment -------------------------------------------------------------------
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader || true
  echo "cpus: $(nproc)"
  g++ --version | head -1
  cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} > "$out/environment.txt" 2>&1 || true
cat "$out/environment.txt"

torch_prefix="${SKYTRACE_TORCH_PREFIX:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')}"
log "LibTorch CMake prefix: $torch_prefix"

# --- Qt Core (and nlohmann-json) from the carried Debian packages ---------------------
if [[ ! -f "$prefix/.unpacked" ]]; then
  shopt -s nullglob
  debs=("$root"/.device-prefix/debs/*.deb)
  if [[ ${#debs[@]} -eq 0 ]]; then
    log "ERROR: no .deb files in .device-prefix/debs (carry .device-prefix with the run)"
    exit 2
  fi
  mkdir -p "$prefix"
  for deb in "${debs[@]}"; do
    if command -v dpkg >/dev/null 2>&1; then
      dpkg -x "$deb" "$prefix"
    else
      tmp="$(mktemp -d)"
      (cd "$tmp" && ar x "$deb" && tar xf data.tar.* -C "$prefix")
      rm -rf "$tmp"
    fi
  done
  touch "$prefix/.unpacked"
  log "unpacked ${#debs[@]} packages into $prefix"
fi
qt_cmake="$prefix/usr/lib/x86_64-linux-gnu/cmake"
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

include_dir=""
for candidate in "${SKYTRACE_EXTRA_INCLUDE_DIR:-}" "$root/build-gpu-deps/include" "$prefix/usr/include" /usr/include; do
  if [[ -n "$candidate" && -f "$candidate/nlohmann/json.hpp" ]]; then include_dir="$candidate"; break; fi
done
[[ -z "$include_dir" ]] && { log "ERROR: nlohmann/json.hpp not found"; exit 2; }

model_dir=""
for candidate in "${SKYTRACE_MODEL_DIR:-}" "$root/shared/models/aliked" "$root/../shared/models/aliked" "$root/build-gpu-deps/models/aliked"; do
  if [[ -n "$candidate" && -f "$candidate/aliked-n16rot.pth" ]]; then model_dir="$(cd "$candidate" && pwd)"; break; fi
done
[[ -z "$model_dir" ]] && { log "ERROR: no ALIKED weights (aliked-n16rot.pth); carry build-gpu-deps/models/aliked"; exit 2; }
export SKYTRACE_MODEL_DIR="$model_dir"
log "ALIKED weights: $model_dir; nlohmann: $include_dir; Qt: $qt_cmake"

# --- configure and build -----------------------------------------------------------
nvcc_path="$(command -v nvcc || true)"
[[ -z "$nvcc_path" && -x /usr/local/cuda/bin/nvcc ]] && nvcc_path=/usr/local/cuda/bin/nvcc
configure() {
  cmake -S "$root/scripts/gpu/engine" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$qt_cmake" \
    -DSKYTRACE_EXTRA_INCLUDE_DIR="$include_dir" \
    -DSKYTRACE_GPU_CXX_STANDARD="$1" \
    -DSKYTRACE_ENGINE_CUDA="$engine_cuda" \
    ${nvcc_path:+-DCMAKE_CUDA_COMPILER="$nvcc_path"} \
    -DTORCH_CUDA_ARCH_LIST="9.0" >> "$out/engine_configure.log" 2>&1
}
build_all() { cmake --build "$build" -j "$(nproc)" >> "$out/engine_build.log" 2>&1; }
log "configuring (C++17, engine CUDA=$engine_cuda)"
if ! configure 17 || ! build_all; then
  log "C++17 configure/build failed (engine_configure.log/engine_build.log); retrying with C++20"
  rm -rf "$build"
  if ! configure 20 || ! build_all; then
    log "ERROR: build failed"; tail -40 "$out/engine_configure.log"; tail -60 "$out/engine_build.log"; exit 1
  fi
fi
log "built: $build/skytrace-bench-engine"
[[ $build_only == 1 ]] && exit 0

# --- gpu-labelled checks (vision gpu_check + engine_gpu_check) ----------------------
export SKYTRACE_GPU_CHECK_DEVICE="$device"
set +e
(cd "$build" && timeout 420 ctest -L gpu --output-on-failure --timeout 300) > "$out/engine_gpu_checks.log" 2>&1
check_status=$?
set -e
grep -E "PASS|FAIL|SKIP|ALL|tests passed|Test +#" "$out/engine_gpu_checks.log" | cut -c1-300 || true

# --- the engine benchmark --------------------------------------------------------------
common=(--synthetic 640x480 --frames "$frames" --warmup 20 --vo-model aliked-n16rot --vo-keypoints 1024
        --sat-model aliked-n16rot --sat-keypoints 2048 --weights-dir "$model_dir")
log "engine bench on $device: every frame a keyframe ($frames frames per mode)"
"$build/skytrace-bench-engine" "${common[@]}" --device "$device" --keyframe-interval 1 \
  --out "$out/bench_engine_cuda.json" 2>&1 | tee "$out/bench_engine_cuda.log"
if [[ $quick == 0 ]]; then
  log "engine bench on $device: every 5th frame a keyframe"
  "$build/skytrace-bench-engine" "${common[@]}" --device "$device" --keyframe-interval 5 \
    --modes sequential,overlapped --transfer-mib 256 \
    --out "$out/bench_engine_cuda_kf5.json" 2>&1 | tee "$out/bench_engine_cuda_kf5.log"
fi
log "done: results in $out (gpu checks exit status $check_status)"
exit "$check_status"
