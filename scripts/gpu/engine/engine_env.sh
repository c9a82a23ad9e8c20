# Sourced (bash) by scripts/gpu/build_engine_bench.sh and scripts/gpu/bench_seed_pipeline.sh:
# finds what the GPU-only engine build needs on the CUDA machine and exports it. Defines
#   engine_env_record FILE    writes the environment (date, GPUs, CPUs, compilers, torch)
#   engine_env_setup LOGFN    sets and exports, calling LOGFN with progress lines:
#     engine_root      repository root
#     engine_work      build-engine-gpu/, or SKYTRACE_ENGINE_WORK (engine_prefix = its
#                      prefix/, engine_build = its build/)
#     torch_prefix     LibTorch's CMake prefix (SKYTRACE_TORCH_PREFIX, else python3's torch)
#     qt_cmake         Qt 6 Core's CMake folder in the prefix where the carried Debian
#                      packages (.device-prefix/debs) are unpacked (dpkg -x, or ar + tar);
#                      LD_LIBRARY_PATH gets the prefix's library folder
#     include_dir      a folder with nlohmann/json.hpp (SKYTRACE_EXTRA_INCLUDE_DIR,
#                      build-gpu-deps/include, the prefix, /usr/include)
#     aliked_dir       ALIKED weights (SKYTRACE_MODEL_DIR, shared/models/aliked,
#                      ../shared/models/aliked, build-gpu-deps/models/aliked), "" if none
#   engine_step NAME CMD...   runs CMD with its output in $results/NAME.log, logs its exit
#                      status and time through the caller's `log`, shows the log's tail on
#                      failure, then calls the caller's `pack`; returns CMD's status (a
#                      failed step does not stop the script)
#   engine_env_build OUTDIR   configures and builds build-engine-gpu/build (C++17, C++20
#                      as fallback) with logs OUTDIR/engine_configure.log, engine_build.log;
#                      SKYTRACE_ENGINE_CUDA=OFF builds the CPU twin. Returns non-zero on failure.
# Returns non-zero (after a message) when something required is missing.

engine_env_record() {
  {
    date -u +"%Y-%m-%dT%H:%M:%SZ"
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader || true
    echo "cpus: $(nproc)"
    g++ --version | head -1
    cmake --version | head -1
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  } > "$1" 2>&1 || true
}

engine_env_setup() {
  local say="$1"
  engine_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
  engine_work="${SKYTRACE_ENGINE_WORK:-$engine_root/build-engine-gpu}"
  engine_prefix="$engine_work/prefix"
  engine_build="$engine_work/build"
  torch_prefix="${SKYTRACE_TORCH_PREFIX:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)}"
  if [[ -z "$torch_prefix" ]]; then
    "$say" "ERROR: no LibTorch (python3 has no torch; set SKYTRACE_TORCH_PREFIX)"; return 2
  fi
  "$say" "LibTorch CMake prefix: $torch_prefix"

  if [[ ! -f "$engine_prefix/.unpacked" ]]; then
    shopt -s nullglob
    local debs=("$engine_root"/.device-prefix/debs/*.deb)
    shopt -u nullglob
    if [[ ${#debs[@]} -eq 0 ]]; then
      "$say" "ERROR: no .deb files in .device-prefix/debs (carry .device-prefix with the run)"; return 2
    fi
    mkdir -p "$engine_prefix"
    local deb tmp
    for deb in "${debs[@]}"; do
      if command -v dpkg >/dev/null 2>&1; then
        dpkg -x "$deb" "$engine_prefix"
      else
        tmp="$(mktemp -d)"
        (cd "$tmp" && ar x "$deb" && tar xf data.tar.* -C "$engine_prefix")
        rm -rf "$tmp"
      fi
    done
    touch "$engine_prefix/.unpacked"
    "$say" "unpacked ${#debs[@]} packages into $engine_prefix"
  fi
  qt_cmake="$engine_prefix/usr/lib/x86_64-linux-gnu/cmake"
  export LD_LIBRARY_PATH="$engine_prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

  include_dir=""
  local candidate
  for candidate in "${SKYTRACE_EXTRA_INCLUDE_DIR:-}" "$engine_root/build-gpu-deps/include" "$engine_prefix/usr/include" /usr/include; do
    if [[ -n "$candidate" && -f "$candidate/nlohmann/json.hpp" ]]; then include_dir="$candidate"; break; fi
  done
  if [[ -z "$include_dir" ]]; then "$say" "ERROR: nlohmann/json.hpp not found"; return 2; fi

  aliked_dir=""
  for candidate in "${SKYTRACE_MODEL_DIR:-}" "$engine_root/shared/models/aliked" "$engine_root/../shared/models/aliked" "$engine_root/build-gpu-deps/models/aliked"; do
    if [[ -n "$candidate" && -f "$candidate/aliked-n16rot.pth" ]]; then aliked_dir="$(cd "$candidate" && pwd)"; break; fi
  done
  "$say" "ALIKED weights: ${aliked_dir:-none}; nlohmann: $include_dir; Qt: $qt_cmake"
  export engine_root engine_work engine_prefix engine_build torch_prefix qt_cmake include_dir aliked_dir
}

engine_env_build() {
  local out="$1"
  local engine_cuda="${SKYTRACE_ENGINE_CUDA:-ON}"
  local nvcc_path
  nvcc_path="$(command -v nvcc || true)"
  [[ -z "$nvcc_path" && -x /usr/local/cuda/bin/nvcc ]] && nvcc_path=/usr/local/cuda/bin/nvcc
  local standard
  for standard in 17 20; do
    [[ $standard == 20 ]] && rm -rf "$engine_build"
    if cmake -S "$engine_root/scripts/gpu/engine" -B "$engine_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
         -DCMAKE_PREFIX_PATH="$torch_prefix;$qt_cmake" \
         -DSKYTRACE_EXTRA_INCLUDE_DIR="$include_dir" \
         -DSKYTRACE_GPU_CXX_STANDARD="$standard" \
         -DSKYTRACE_ENGINE_CUDA="$engine_cuda" \
         ${nvcc_path:+-DCMAKE_CUDA_COMPILER="$nvcc_path"} \
         -DTORCH_CUDA_ARCH_LIST="9.0" >> "$out/engine_configure.log" 2>&1 &&
       cmake --build "$engine_build" -j "$(nproc)" >> "$out/engine_build.log" 2>&1; then
      return 0
    fi
    echo "C++$standard configure/build failed (engine_configure.log / engine_build.log)" >> "$out/engine_build.log"
  done
  tail -40 "$out/engine_configure.log"; tail -60 "$out/engine_build.log"
  return 1
}

engine_step() {
  local name="$1"; shift
  local start=$SECONDS
  "$@" > "$results/$name.log" 2>&1
  local status=$?
  log "$name: exit $status after $((SECONDS - start)) s"
  [[ $status != 0 ]] && tail -15 "$results/$name.log"
  pack
  return $status
}
