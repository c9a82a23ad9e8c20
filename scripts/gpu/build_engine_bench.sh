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
# Environment discovery and the build itself: scripts/gpu/engine/engine_env.sh (shared
# with scripts/gpu/bench_seed_pipeline.sh). SKYTRACE_ENGINE_CUDA=OFF builds the CPU twin
# (dry run on a CPU LibTorch, with SKYTRACE_TORCH_PREFIX=/usr/lib/x86_64-linux-gnu/cmake
# where python has no torch);
# SKYTRACE_BENCH_DEVICE (default cuda:0) is the device the benchmark and checks use.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/out/gpu-engine}"
mkdir -p "$out"
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
device="${SKYTRACE_BENCH_DEVICE:-cuda:0}"

log() { echo "[build_engine_bench] $*" | tee -a "$out/build_engine_bench.log"; }

# --- environment, LibTorch, Qt prefix, nlohmann, ALIKED weights (engine_env.sh) --------
source "$root/scripts/gpu/engine/engine_env.sh"
engine_env_record "$out/environment.txt"
cat "$out/environment.txt"
engine_env_setup log || exit 2
if [[ -z "$aliked_dir" ]]; then
  log "ERROR: no ALIKED weights (aliked-n16rot.pth); carry build-gpu-deps/models/aliked"; exit 2
fi
export SKYTRACE_MODEL_DIR="$aliked_dir"
model_dir="$aliked_dir"
build="$engine_build"

# --- configure and build -----------------------------------------------------------
log "configuring and building (engine CUDA=${SKYTRACE_ENGINE_CUDA:-ON})"
engine_env_build "$out" || { log "ERROR: build failed"; exit 1; }
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
