#!/usr/bin/env bash
# The whole tree on a CUDA machine with the `cuda` preset: every target (CLI, GUI, tests,
# benchmarks) against PyTorch's CUDA LibTorch, `ctest` with the gpu label, the benchmarks.
# A CUDA machine typically has PyTorch (with its LibTorch), nvcc, cmake, ninja and g++ but
# neither Qt, OpenCV, GDAL nor Ceres, and often no network: `deps` gathers those as Debian 12
# packages on a machine that has apt, and the CUDA machine unpacks them into a prefix.
#
#   scripts/device.sh deps        On Debian 12 with apt and network: downloads the packages
#                                 (headers, CMake files, the shared-library closure of what
#                                 Skytrace links; no LibTorch) and packs them as
#                                 device-deps/part-N.tar.xz, each under 60 MB.
#   scripts/device.sh unpack      On the CUDA machine: unpacks every device-deps/part-N.tar.xz
#                                 present into device-deps/prefix (parts already unpacked are
#                                 skipped, so parts may arrive one at a time).
#   scripts/device.sh build       Configures the cuda preset (build-cuda/) against LibTorch
#                                 (python3's torch, or SKYTRACE_TORCH_PREFIX) and the prefix;
#                                 builds everything (or $SKYTRACE_BUILD_TARGETS).
#   scripts/device.sh test [ARGS] ctest in build-cuda (ARGS e.g. -L gpu).
#   scripts/device.sh bench       skytrace-cli bench (the product's navigation, ALIKED-n16rot,
#                                 on a 640x480 synthetic flight, every mode the GPUs
#                                 allow), the same on a rendered flight when
#                                 $SKYTRACE_BENCH_FLIGHT (default device-deps/flight) holds
#                                 one, and skytrace-bench-vision; JSON into the results
#                                 folder. $SKYTRACE_TEST_FLIGHT_DIR (that flight) also
#                                 enables test_engine_cuda's navigation check.
#   scripts/device.sh product     the programs analysts run on a rendered flight: process
#                                 (every layout the GPUs allow, scored against the truth),
#                                 bench --flight (every keyframe registered),
#                                 the GUI processing it (latency plot screenshot).
#   scripts/device.sh cpu-gpu     one 20 s flight (rendered over device-deps/flight/ortho.tif
#                                 or $SKYTRACE_CPU_GPU_MAP) through `process --mode
#                                 sequential` on the CPU and on cuda:0, ALIKED-n16rot, each
#                                 with the default robust estimators and with the other
#                                 device's (CPU `--robust-estimator lo-ransac`, GPU
#                                 `magsac-first`): the tracks' distance (`eval`) and where
#                                 the runs part ways (bench/compare_runs.py).
#   scripts/device.sh video-only [ARGS]
#                                 bench/video_only.sh (flights without a flight log over
#                                 every shared orthophoto; ARGS go to `process`). Its
#                                 renders go to a temporary folder, or to
#                                 $VIDEO_ONLY_WORK, kept, so that a later call can run
#                                 the wrong-map pass alone (MAIN=0; WRONG_MAP=0 the other).
#   scripts/device.sh seed        SuperPoint + LightGlue: the original code (a checkout of
#                                 cvg/LightGlue in $SKYTRACE_ORIGINAL_DIR, default
#                                 device-deps/seed/original/LightGlue; never committed)
#                                 and Skytrace's ports timed on the same frames and weight
#                                 files (seeded random weights of the official shapes,
#                                 written by the original code), each lever on its own;
#                                 the parity fixtures' float16 deviations
#                                 (test_seed_models_cuda; fixtures in $SKYTRACE_PARITY_DIR,
#                                 default device-deps/seed/parity); `process` and `bench`
#                                 with SuperPoint + LightGlue VO on a 640x480 flight rendered
#                                 over device-deps/seed/ortho.tif (registration with
#                                 ALIKED-n16rot from device-deps/seed or the model folder).
#                                 With device-deps/seed/dinov2_vits14_keys.json and the
#                                 litesam fixture also `satellite`'s measurements.
#   scripts/device.sh satellite   DINOv2 + LiteSAM: bench-vision in float32 and float16,
#                                 with and without the fused matching kernels;
#                                 test_litesam_cuda and test_fused_ops_cuda; one float16
#                                 LiteSAM forward under Nsight Compute; the original code
#                                 (device-deps/seed/original/{LiteSAM,dinov2}, never
#                                 committed) on the same pair and weight files when present.
#   scripts/device.sh all         unpack, build, test, bench.
# Results and logs: $OUT (default out/device), packed as $OUT/device-results.tar.gz after
# every step. Weights: $SKYTRACE_MODEL_DIR, else ../shared/models/aliked; the data tests
# use ../shared when it is there (SKYTRACE_SHARED_DIR) and skip visibly otherwise.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
deps_dir="$root/device-deps"
prefix="$deps_dir/prefix"
build_dir="$root/build-cuda"
out="${OUT:-$root/out/device}"
multiarch=x86_64-linux-gnu

log() { echo "[device] $*" | tee -a "$out/device.log"; }
pack() {
  local tmp
  tmp=$(mktemp "${TMPDIR:-/tmp}/device-results.XXXXXX")
  tar -czf "$tmp" -C "$out" --exclude=device-results.tar.gz . && mv "$tmp" "$out/device-results.tar.gz"
}

# --- deps (Debian 12 with apt) ------------------------------------------------------
# Headers and CMake packages the cuda preset's find_package calls need (and what their
# CMake files look for in turn: PROJ, libkml and OpenJPEG for GDAL; Eigen, glog, gflags
# and SuiteSparse for Ceres; OpenGL and xkbcommon for Qt 6 Gui).
dev_packages=(
  qt6-base-dev qt6-base-dev-tools qmake6 qmake6-bin qt6-tools-dev qt6-tools-dev-tools
  qt6-l10n-tools libqcustomplot-dev nlohmann-json3-dev
  libopencv-dev libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev
  libopencv-videoio-dev libopencv-features2d-dev libopencv-calib3d-dev libopencv-flann-dev
  libgdal-dev gdal-data libproj-dev proj-data libkml-dev libopenjp2-7-dev
  libceres-dev libeigen3-dev libgoogle-glog-dev libgflags-dev libsuitesparse-dev
  libgl-dev libglx-dev libopengl-dev libegl-dev libxkbcommon-dev libvulkan-dev libunwind-dev
  fonts-dejavu-core
)
# Shared libraries Skytrace links (their package closure comes along); the Qt platform
# plugin for offscreen GUI runs.
linked_libraries=(
  libQt6Core.so.6 libQt6Gui.so.6 libQt6Widgets.so.6 libQt6PrintSupport.so.6 libQt6Test.so.6
  libQt6Concurrent.so.6 libQt6OpenGL.so.6 libQCustomPlotQt6.so.2.1
  libopencv_core.so.406 libopencv_imgproc.so.406 libopencv_imgcodecs.so.406
  libopencv_videoio.so.406 libopencv_features2d.so.406 libopencv_calib3d.so.406
  libgdal.so.32 libceres.so.3 qt6/plugins/platforms/libqoffscreen.so
)
# The base system of any CUDA machine (and glibc >= Debian 12's 2.36): never shipped.
base_packages_regex='^(libc6|libgcc-s1|libstdc\+\+6|libc-dev-bin|libc6-dev|linux-libc-dev|libcrypt1|libcrypt-dev|libgomp1|zlib1g|libzstd1|liblzma5|libbz2-1.0|libselinux1|libpcre2-8-0|libtinfo6|libudev1|libsystemd0|libcap2|libgcrypt20|libgpg-error0|liblz4-1|libmd0|libbsd0|debconf|dpkg|perl-base|tar|coreutils)$'

deps() {
  command -v apt-get >/dev/null || { echo "deps needs apt (Debian 12)"; exit 2; }
  local work="$deps_dir/download"
  rm -rf "$work/tree" "$deps_dir"/part-*.tar.xz
  mkdir -p "$work/debs" "$out"
  # Runtime closure: the packages owning every library the linked ones load (ldd, on this
  # machine with the default build's packages installed), plus every OpenCV module library
  # (OpenCV's CMake files check that each module's file exists).
  local libdir=/usr/lib/$multiarch libs=() lib pkgs=()
  for lib in "${linked_libraries[@]}"; do
    [[ -e "$libdir/$lib" ]] || { echo "missing $libdir/$lib: run scripts/setup.sh first"; exit 2; }
    libs+=("$libdir/$lib")
  done
  # One dpkg query for every path and its resolved name (dpkg knows either, merged /usr).
  local paths=() path
  while read -r path; do paths+=("$path" "$(readlink -f "$path")"); done < <(
    { printf '%s\n' "${libs[@]}"; ldd "${libs[@]}" | awk '/=>/ {print $3}'; } | sort -u)
  mapfile -t pkgs < <(
    { dpkg -S "${paths[@]}" 2>/dev/null || true; } | grep -v '^diversion' | cut -d: -f1
    dpkg-query -W -f='${Package}\n' 'libopencv-*406' 'libopencv-*-dev' 2>/dev/null
    printf '%s\n' "${dev_packages[@]}")
  mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u | grep -Ev "$base_packages_regex" | grep -v '^$')
  local missing=() pkg
  for pkg in "${pkgs[@]}"; do
    compgen -G "$work/debs/${pkg}_*.deb" > /dev/null || missing+=("$pkg")
  done
  echo "== ${#pkgs[@]} packages, downloading ${#missing[@]}"
  ((${#missing[@]} == 0)) || (cd "$work/debs" && apt-get download -qq "${missing[@]}" 2>&1 | grep -v unsandboxed || true)
  # Unpack into one tree, drop what a build and a run never read, and pack the tree in
  # parts of whole folders under 60 MB each (xz).
  local tree="$work/tree" deb
  mkdir -p "$tree"
  for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$tree"; done
  rm -rf "$tree"/usr/share/{doc,man,info,locale,lintian,bug,help,icons,applications}
  # Static libraries, except those a CMake package names (Ceres is static in Debian;
  # gflags' and glog's files list theirs): the rest are never linked.
  local keep
  keep=$(grep -rhoE '[A-Za-z0-9_+-]+\.a\b' --include='*.cmake' "$tree/usr/lib/$multiarch/cmake" | sort -u || true)
  find "$tree" -name '*.a' -print0 | while IFS= read -r -d '' lib; do
    grep -qxF "$(basename "$lib")" <<< "$keep" || rm -f "$lib"
  done
  printf '%s\n' "${pkgs[@]}" > "$tree/usr/share/skytrace-device-packages.txt"
  python3 - "$tree" "$deps_dir" <<'PY'
import os, subprocess, sys
tree, dest = sys.argv[1], sys.argv[2]
# Files largest first into the first part with room for them (first-fit decreasing);
# the parts are independent archives, unpacked in any order.
files = []
for d, _, names in os.walk(tree):
    for n in names:
        p = os.path.join(d, n)
        if not os.path.islink(p): files.append((os.path.getsize(p), os.path.relpath(p, tree)))
    for n in os.listdir(d):
        p = os.path.join(d, n)
        if os.path.islink(p): files.append((0, os.path.relpath(p, tree)))
files.sort(reverse=True)
budget = 150 * 1024 * 1024  # uncompressed bytes per part; xz -6 brings that under 60 MB
parts = []
for size, rel in files:
    for part in parts:
        if part[0] + size <= budget:
            part[0] += size; part[1].append(rel); break
    else:
        parts.append([size, [rel]])
for i, (_, rels) in enumerate(parts, 1):
    listing = os.path.join(dest, f"part-{i}.list")
    with open(listing, "w") as f: f.write("\n".join(rels) + "\n")
    subprocess.run(["tar", "-C", tree, "-cJf", os.path.join(dest, f"part-{i}.tar.xz"), "-T", listing], check=True,
                   env=dict(os.environ, XZ_OPT="-6 -T0"))
    os.remove(listing)
PY
  rm -rf "$work"
  ls -la "$deps_dir"/part-*.tar.xz
}

# --- on the CUDA machine -------------------------------------------------------------
unpack() {
  mkdir -p "$prefix"
  local part name n=0
  shopt -s nullglob
  for part in "$deps_dir"/part-*.tar.xz; do
    name=$(basename "$part")
    [[ -f "$prefix/.unpacked-$name" ]] && continue
    tar -C "$prefix" -xJf "$part"
    touch "$prefix/.unpacked-$name"
    n=$((n + 1))
  done
  shopt -u nullglob
  # What update-alternatives would have made (dpkg -x runs no maintainer scripts): the
  # BLAS and LAPACK that OpenCV and Ceres load and link.
  local lib_dir="$prefix/usr/lib/$multiarch" alt
  for alt in libblas liblapack; do
    if [[ -e "$lib_dir/openblas-openmp/$alt.so.3" ]]; then
      ln -sfn "openblas-openmp/$alt.so.3" "$lib_dir/$alt.so.3"
      ln -sfn "openblas-openmp/$alt.so.3" "$lib_dir/$alt.so"
    fi
  done
  # Fontconfig reads /etc/fonts, which a bare CUDA machine may lack: a configuration of
  # the prefix's own fonts (DejaVu), so that the GUI's offscreen screenshots show text.
  mkdir -p "$prefix/etc/fonts" "$prefix/var/cache/fontconfig"
  printf '%s\n' '<?xml version="1.0"?>' '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">' '<fontconfig>' \
    "  <dir>$prefix/usr/share/fonts</dir>" "  <cachedir>$prefix/var/cache/fontconfig</cachedir>" \
    '</fontconfig>' > "$prefix/etc/fonts/fonts.conf"
  # Debian's CMake files name some files by absolute path (/usr/lib/<multiarch>/*.so,
  # /usr/share/glog/cmake, ...): point them into the prefix. Idempotent (a path already
  # in the prefix no longer starts with /usr/ after a quote, a space or a semicolon).
  { find "$prefix/usr/lib/$multiarch/cmake" "$prefix/usr/share" -name '*.cmake' -type f -print0 2>/dev/null || true; } |
    xargs -0 -r sed -i -E "s#([\"; (])/usr/(lib|include|share|bin)/#\1$prefix/usr/\2/#g"
  # Development symlinks (lib*.so) that CMake files name but no shipped package provides
  # (ATLAS's for Ceres): to the versioned library beside them.
  local so candidate
  { grep -rhoE "$lib_dir/[A-Za-z0-9_+.-]+\.so([\";]|$)" --include='*.cmake' "$lib_dir/cmake" 2>/dev/null || true; } |
    sed -E 's/[";]$//' | sort -u | while read -r so; do
      if [[ -e "$so" ]]; then continue; fi
      candidate=$(find "$lib_dir" -maxdepth 1 -name "$(basename "$so").*" | sort | head -1)
      if [[ -n "$candidate" ]]; then ln -sfn "$(basename "$candidate")" "$so"; fi
    done
  log "unpacked $n new part(s) into $prefix ($(find "$prefix" -maxdepth 1 -name '.unpacked-*' | wc -l) in all)"
}

environment() {
  # Every library folder of the packages (some live in /usr/lib: HDF4, OGDI, Armadillo;
  # some in /lib: libtirpc, expat); the linker reads it too, for the libraries the linked
  # ones need.
  local dirs="$prefix/usr/lib/$multiarch:$prefix/usr/lib:$prefix/lib/$multiarch:$prefix/lib"
  export LD_LIBRARY_PATH="$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export QT_PLUGIN_PATH="$prefix/usr/lib/$multiarch/qt6/plugins"
  export PROJ_DATA="$prefix/usr/share/proj" GDAL_DATA="$prefix/usr/share/gdal"
  export QT_QPA_PLATFORM=offscreen
  [[ -f "$prefix/etc/fonts/fonts.conf" ]] && export FONTCONFIG_FILE="$prefix/etc/fonts/fonts.conf"
  torch_prefix="${SKYTRACE_TORCH_PREFIX:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)}"
  [[ -n "$torch_prefix" ]] || { log "no LibTorch: python3 has no torch; set SKYTRACE_TORCH_PREFIX"; exit 2; }
  nvcc_path="$(command -v nvcc || true)"
  [[ -z "$nvcc_path" && -x /usr/local/cuda/bin/nvcc ]] && nvcc_path=/usr/local/cuda/bin/nvcc
  model_dir="${SKYTRACE_MODEL_DIR:-$root/../shared/models/aliked}"
}

record_environment() {
  {
    date -u +"%Y-%m-%dT%H:%M:%SZ"
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader || true
    echo "cpus: $(nproc)"
    g++ --version | head -1
    cmake --version | head -1
    "${nvcc_path:-nvcc}" --version 2>/dev/null | tail -1 || true
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' || true
    git -C "$root" log -1 --format='commit %H %s' 2>/dev/null || true
    # A copied checkout may carry stale git metadata or uncommitted changes: say whether
    # the tree built is that commit, and name the tracked files that differ.
    local changed
    changed=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null || true)
    if [[ -z "$changed" ]]; then
      echo "tree: as committed"
    else
      echo "tree: $(wc -l <<< "$changed") tracked files differ from that commit:"
      head -20 <<< "$changed"
    fi
  } > "$out/environment.txt" 2>&1
}

build() {
  environment
  record_environment
  # The prefix's CMake packages and tools come first; nothing else from it is searched.
  local start=$SECONDS
  if ! cmake --preset cuda \
        -DCMAKE_PREFIX_PATH="$torch_prefix;$prefix/usr;$prefix/usr/lib/$multiarch/cmake" \
        -DCMAKE_INCLUDE_PATH="$prefix/usr/include" -DCMAKE_LIBRARY_PATH="$prefix/usr/lib/$multiarch" \
        -DCMAKE_PROGRAM_PATH="$prefix/usr/bin;$prefix/usr/lib/qt6/bin;$prefix/usr/lib/qt6/libexec" \
        -DQT_HOST_PATH="$prefix/usr" -DQT_ADDITIONAL_PACKAGES_PREFIX_PATH="$prefix/usr" \
        ${nvcc_path:+-DCMAKE_CUDA_COMPILER="$nvcc_path"} \
        -DSKYTRACE_SHARED_DIR="${SKYTRACE_SHARED_DIR:-$root/../shared}" > "$out/configure.log" 2>&1; then
    tail -40 "$out/configure.log"; log "configure failed (configure.log)"; pack; exit 1
  fi
  # SKYTRACE_BUILD_TARGETS (e.g. "skytrace-cli"): only those targets, for a quick check.
  if ! cmake --build "$build_dir" -j "$(nproc)" ${SKYTRACE_BUILD_TARGETS:+--target $SKYTRACE_BUILD_TARGETS} \
        > "$out/build.log" 2>&1; then
    grep -m 20 -B2 -A8 "error" "$out/build.log" | head -80; log "build failed (build.log)"; pack; exit 1
  fi
  log "build: $((SECONDS - start)) s"
  pack
}

run_tests() {
  environment
  local start=$SECONDS status=0
  ctest --test-dir "$build_dir" --output-on-failure -j 4 "$@" > "$out/ctest.log" 2>&1 || status=$?
  tail -40 "$out/ctest.log"
  log "ctest $*: exit $status after $((SECONDS - start)) s"
  pack
  return $status
}

bench() {
  environment
  local status=0 devices
  devices=$(nvidia-smi -L 2>/dev/null | wc -l)
  local modes=sequential,vo_only,overlapped
  ((devices >= 2)) && modes+=",multi_gpu,multi_gpu_frames"
  "$build_dir/app/cli/skytrace-cli" bench --synthetic 640x480 --frames 300 --preload --device cuda \
    --modes "$modes" --weights-dir "$model_dir" --out "$out/bench_engine.json" > "$out/bench_engine.log" 2>&1 || status=1
  # The product's navigation on a rendered flight, when there is one: every layout scored
  # against the flight's truth (its basemap beside it as ortho.tif when flight.json names
  # a path of another machine).
  local flight="${SKYTRACE_BENCH_FLIGHT:-$deps_dir/flight}" basemap=()
  if [[ -f "$flight/flight.json" ]]; then
    [[ -f "$flight/ortho.tif" ]] && basemap=(--basemap "$flight/ortho.tif")
    "$build_dir/app/cli/skytrace-cli" bench --flight "$flight" "${basemap[@]}" --frames 600 --preload \
      --device cuda --modes "${modes/,multi_gpu_frames/}" --out "$out/bench_flight.json" \
      > "$out/bench_flight.log" 2>&1 || status=1
  fi
  "$build_dir/bench/skytrace-bench-vision" --device cuda --models aliked-n16rot --sizes 640x480 \
    --weights-dir "$model_dir" --out "$out/bench_vision.json" \
    > "$out/bench_vision.log" 2>&1 || status=1
  log "bench: exit $status (bench_engine.json, bench_flight.json, bench_vision.json)"
  pack
  return $status
}

# --- product (the programs analysts run, on a rendered flight) ------------------------
# `process` in every layout the GPUs allow (report.json: fps, stages, frame_transfers; eval against the
# truth), `bench --flight` (every layout with accuracy) and the GUI processing the flight
# with its latency plot as a screenshot. The flight: $SKYTRACE_BENCH_FLIGHT (default
# device-deps/flight; its basemap as ortho.tif beside it).
product() {
  environment
  local flight="${SKYTRACE_BENCH_FLIGHT:-$deps_dir/flight}" status=0 mode work gpus
  [[ -f "$flight/flight.json" && -f "$flight/ortho.tif" ]] || { log "product: no flight in $flight"; return 2; }
  local cli="$build_dir/app/cli/skytrace-cli" video="$flight/flight.mp4" map="$flight/ortho.tif" srt="$flight/flight.srt"
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  # One GPU: overlapped (the default there) and sequential on cuda:0; with two or more
  # also frame-parallel over every GPU and the default layout (`--device auto`).
  local modes=(overlapped sequential) bench_modes=sequential,vo_only,overlapped
  (( gpus >= 2 )) && modes+=(frame-parallel auto) && bench_modes+=,multi_gpu,multi_gpu_frames
  work=$(mktemp -d "${TMPDIR:-/tmp}/skytrace-product.XXXXXX")
  for mode in "${modes[@]}"; do
    local placement=(--device cuda --mode "$mode")
    [[ $mode == frame-parallel ]] && placement=(--mode frame-parallel)
    [[ $mode == auto ]] && placement=(--device auto)
    "$cli" process --video "$video" --basemap "$map" --telemetry "$srt" "${placement[@]}" \
      --out "$work/$mode" > "$out/process_$mode.log" 2>&1 || status=1
    cp "$work/$mode/report.json" "$out/process_${mode}_report.json" 2>/dev/null || status=1
    "$cli" eval --truth "$flight/truth.csv" --track "$work/$mode/track.csv" --out "$out/process_${mode}_eval.json" \
      > /dev/null 2>&1 || status=1
  done
  "$cli" bench --flight "$flight" --basemap "$map" --frames 600 --preload --device cuda \
    --modes "$bench_modes" --keyframe-policy every --out "$out/bench_flight.json" > "$out/bench_flight.log" 2>&1 ||
    status=1
  "$cli" bench --synthetic 640x480 --frames 600 --preload --device cuda --modes "$bench_modes" \
    --keyframe-policy every --weights-dir "$model_dir" --out "$out/bench_synthetic.json" \
    > "$out/bench_synthetic.log" 2>&1 || status=1
  # The GUI with nothing chosen: the defaults of `process`. It saves <video stem>.skytrace
  # and writes <video stem>_results beside the video (<stem>-2.* when those exist: both
  # are removed before and after).
  local gui_stem
  gui_stem="$flight/$(basename "${video%.*}")"
  local gui_results="${gui_stem}_results" gui_project="$gui_stem.skytrace"
  rm -rf "$gui_results" "$gui_project"
  timeout 300 "$build_dir/app/gui/skytrace" --video "$video" --basemap "$map" --telemetry "$srt" --process \
    --plot latency --screenshot "$out/gui_latency.png" > "$out/gui.log" 2>&1 || status=1
  cp "$gui_results/report.json" "$out/gui_report.json" 2>/dev/null || status=1
  "$cli" eval --truth "$flight/truth.csv" --track "$gui_results/track.csv" --out "$out/gui_eval.json" \
    > /dev/null 2>&1 || status=1
  rm -rf "$work" "$gui_results" "$gui_project"
  log "product: exit $status (process_*_report.json, process_*_eval.json, bench_flight.json, gui_latency.png," \
    "gui_report.json, gui_eval.json)"
  pack
  return $status
}

# --- cpu-gpu (one flight on both devices) ---------------------------------------------
# The same binary on the same frames: the CPU's track against the GPU's. Both devices'
# default estimators (VO: MAGSAC++ first on the CPU, LO-RANSAC on a GPU) and each with
# the other's, so that the estimator's share of the difference shows. Per run:
# cpu_gpu/<run>/{report.json,fixes.csv,track.csv,odometry.csv}; the comparisons as
# cpu_gpu/<a>_vs_<b>_{eval,fixes}.json.
cpu_gpu() {
  environment
  local cli="$build_dir/app/cli/skytrace-cli" map="${SKYTRACE_CPU_GPU_MAP:-$deps_dir/flight/ortho.tif}"
  local status=0 work res="$out/cpu_gpu" run pair
  [[ -f "$map" ]] || { log "cpu-gpu: no orthophoto at $map"; return 2; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/skytrace-cpu-gpu.XXXXXX")
  mkdir -p "$res"
  "$cli" render --basemap "$map" --out "$work/flight" --size 640x480 --fps 30 --duration-s 20 --seed 7 \
    --shutter-s 0 > "$res/render.log" 2>&1 || status=1
  local -A placement=([cuda]="--device cuda:0" [cuda_magsac_first]="--device cuda:0 --robust-estimator magsac-first"
                      [cpu]="--device cpu" [cpu_lo_ransac]="--device cpu --robust-estimator lo-ransac")
  for run in cuda cuda_magsac_first cpu cpu_lo_ransac; do
    # shellcheck disable=SC2086  # the placement's words
    SKYTRACE_MODEL_DIR="$model_dir" "$cli" process --video "$work/flight/flight.mp4" --basemap "$map" \
      --telemetry "$work/flight/flight.srt" --mode sequential ${placement[$run]} --out "$work/$run" \
      > "$res/$run.log" 2>&1 || status=1
    mkdir -p "$res/$run"
    cp "$work/$run"/{report.json,fixes.csv,track.csv,odometry.csv} "$res/$run/" 2>/dev/null || status=1
    "$cli" eval --truth "$work/flight/truth.csv" --track "$work/$run/track.csv" --out "$res/$run/eval.json" \
      > /dev/null 2>&1 || status=1
  done
  for pair in cpu:cuda cpu_lo_ransac:cuda cpu:cuda_magsac_first; do
    local a=${pair%%:*} b=${pair##*:}
    "$cli" eval --truth "$work/$a/track.csv" --track "$work/$b/track.csv" --out "$res/${a}_vs_${b}_eval.json" \
      > /dev/null 2>&1 || status=1
    python3 "$root/bench/compare_runs.py" "$work/$a" "$work/$b" --out "$res/${a}_vs_${b}_fixes.json" \
      > /dev/null || status=1
  done
  rm -rf "$work"
  log "cpu-gpu: exit $status (cpu_gpu/: per run report.json, fixes.csv, track.csv, odometry.csv, eval.json; *_vs_*_{eval,fixes}.json)"
  pack
  return $status
}

# bench/video_only.sh with the CUDA build: rendered flights over every shared orthophoto
# processed without a flight log (ALIKED-n16rot from $SKYTRACE_MODEL_DIR or the model
# folder; the orthophotos under $SKYTRACE_SHARED_DIR, default ../shared). Per-flight
# logs and the summary into $out/video_only/.
video_only() {
  environment
  local status=0 work flight name
  work="${VIDEO_ONLY_WORK:-}"
  if [[ -n "$work" ]]; then mkdir -p "$work"; else work=$(mktemp -d "${TMPDIR:-/tmp}/skytrace-video-only.XXXXXX"); fi
  SKYTRACE_CLI="$build_dir/app/cli/skytrace-cli" SKYTRACE_MODEL_DIR="$model_dir" \
    "$root/bench/video_only.sh" "$work" "$@" > "$out/video_only.log" 2>&1 || status=1
  # The results without the videos and maps.
  mkdir -p "$out/video_only"
  cp "$work"/summary.tsv "$work"/wrong_map.tsv "$work"/*.log "$out/video_only/" 2>/dev/null || true
  for flight in "$work"/*/; do
    name=$(basename "$flight")
    mkdir -p "$out/video_only/$name"
    cp "$flight/flight.json" "$flight/eval.json" "$flight/out/report.json" "$flight/out/fixes.csv" \
      "$out/video_only/$name/" 2>/dev/null || true
  done
  [[ -n "${VIDEO_ONLY_WORK:-}" ]] || rm -rf "$work"
  log "video-only: exit $status (video_only.log, video_only/summary.tsv, video_only/FLIGHT/)"
  pack
  return $status
}

# --- satellite (DINOv2 + LiteSAM: the ports, and the original code when it is there) ----
# satellite_models WEIGHTS_DIR RESULTS_DIR: DINOv2-S/14 with seeded random weights of the
# published shapes (bench/random_weights.py from the parity fixture's key list) and LiteSAM
# with the parity fixture's weights: retrieval crops and LiteSAM pairs in float32 and
# float16, with and without the fused matching kernels; test_litesam_cuda and
# test_fused_ops_cuda; one float16 LiteSAM forward under Nsight Compute; and, with the
# original sources in device-deps/seed/original/{LiteSAM,dinov2} (never committed), the
# originals timed on the same pair and the same weight files in the same call.
satellite_models() {
  local weights="$1" res="$2" status=0 seed_dir="$deps_dir/seed"
  local vision="$build_dir/bench/skytrace-bench-vision"
  local parity="${SKYTRACE_PARITY_DIR:-$seed_dir/parity}"
  if [[ ! -f "$seed_dir/dinov2_vits14_keys.json" || ! -f "$parity/litesam/weights.pt" ]]; then
    log "satellite: no DINOv2 key list or LiteSAM fixture in $seed_dir: skipped"
    return 0
  fi
  local frames="$weights/frames"
  mkdir -p "$frames"
  python3 "$root/bench/random_weights.py" --keys "$seed_dir/dinov2_vits14_keys.json" \
    --out "$weights/dinov2_vits14_pretrain.pth" > "$res/satellite_weights.log" 2>&1 || status=1
  cp "$parity/litesam/weights.pt" "$weights/mloftr.ckpt"
  local common=(--device cuda --models '' --retrieval dinov2-vits14 --retrieval-size 224 --dense litesam
                --dense-size 512 --iterations 100 --warmup 10 --weights-dir "$weights")
  "$vision" "${common[@]}" --save-frames "$frames" --out "$res/satellite.json" > "$res/satellite.log" 2>&1 || status=1
  "$vision" "${common[@]}" --no-fused-kernels --out "$res/satellite_unfused.json" \
    > "$res/satellite_unfused.log" 2>&1 || status=1
  local original="$seed_dir/original"
  if [[ -d "$original/LiteSAM" && -d "$original/dinov2" ]]; then
    python3 "$root/bench/original_satellite_models.py" time --litesam "$original/LiteSAM" \
      --dinov2 "$original/dinov2" --weights "$weights" --frames "$frames" --size 512 --retrieval-size 224 \
      --iterations 100 --warmup 10 --out "$res/original_satellite.json" > "$res/original_satellite.log" 2>&1 || status=1
    "$vision" "${common[@]}" --out "$res/satellite_again.json" > "$res/satellite_again.log" 2>&1 || status=1
  fi
  SKYTRACE_PARITY_DIR="$parity" ctest --test-dir "$build_dir" -R 'test_litesam_cuda|test_fused_ops_cuda' \
    --output-on-failure -V > "$res/litesam_check.log" 2>&1 || status=1
  local ncu_bin
  ncu_bin="$(command -v ncu || true)"; [[ -z "$ncu_bin" && -x /usr/local/cuda/bin/ncu ]] && ncu_bin=/usr/local/cuda/bin/ncu
  if [[ -n "$ncu_bin" ]]; then  # one float16 LiteSAM forward under Nsight Compute
    "$ncu_bin" --profile-from-start off --csv --metrics gpu__time_duration.sum --print-units base \
      "$vision" --device cuda --models '' --dense litesam --dense-size 512 --iterations 1 --warmup 2 \
      --weights-dir "$weights" --profile-step --out "$weights/ncu_litesam.json" > "$weights/ncu_litesam.csv" \
      2> "$res/ncu_litesam.log" || status=1
    python3 "$root/bench/ncu_kernel_summary.py" "$weights/ncu_litesam.csv" "$res/ncu_litesam_float16.txt" --top 60 \
      || status=1
  fi
  return $status
}

satellite() {
  environment
  local res="$out/satellite" work status=0
  work=$(mktemp -d "${TMPDIR:-/tmp}/skytrace-satellite.XXXXXX")
  mkdir -p "$res"
  satellite_models "$work" "$res" || status=1
  rm -rf "$work"
  pack
  return $status
}

# --- seed (SuperPoint + LightGlue against the original code) ---------------------------
seed() {
  environment
  local status=0 seed_dir="$deps_dir/seed"
  local original="${SKYTRACE_ORIGINAL_DIR:-$seed_dir/original/LightGlue}"
  local res="$out/seed" work
  work=$(mktemp -d "${TMPDIR:-/tmp}/skytrace-seed.XXXXXX")
  local weights="$work/weights" frames="$work/frames"  # weights: ~50 MB, not sent back
  local vision="$build_dir/bench/skytrace-bench-vision" cli="$build_dir/app/cli/skytrace-cli"
  mkdir -p "$weights" "$frames" "$res"
  python3 "$root/bench/original_seed_models.py" weights --original "$original" --out "$weights" \
    > "$res/original_weights.log" 2>&1 || { log "seed: the original code wrote no weights"; cat "$res/original_weights.log"; return 1; }
  cp "$seed_dir/aliked-n16rot.pth" "$weights/" 2>/dev/null || cp "$model_dir/aliked-n16rot.pth" "$weights/" || true
  # Ours, every lever on its own: float32 (both images one batch, CUDA graphs: the
  # default), images one by one, float16 attention, everything float16, the adaptive
  # default; the same eagerly, with TF32, without the fused kernels and with each
  # attention backend; the original in between, then ours again.
  local common=(--device cuda --sizes 640x480 --keypoints 1024 --iterations 100 --warmup 10 --weights-dir "$weights")
  local levers=superpoint+lightglue-full,superpoint+lightglue-full-unbatched,superpoint+lightglue-full-fp16
  levers+=,superpoint-half+lightglue-full-half,superpoint+lightglue
  "$vision" "${common[@]}" --models "$levers" --save-frames "$frames" --out "$res/ours.json" \
    > "$res/ours.log" 2>&1 || status=1
  "$vision" "${common[@]}" --models superpoint+lightglue-full,superpoint-half+lightglue-full-half --no-cuda-graphs \
    --out "$res/ours_eager.json" > "$res/ours_eager.log" 2>&1 || status=1
  "$vision" "${common[@]}" --models superpoint+lightglue-full,superpoint+lightglue-full-fp16 --tf32 \
    --out "$res/ours_tf32.json" > "$res/ours_tf32.log" 2>&1 || status=1
  "$vision" "${common[@]}" --models superpoint+lightglue-full,superpoint-half+lightglue-full-half --no-fused-kernels \
    --out "$res/ours_unfused.json" > "$res/ours_unfused.log" 2>&1 || status=1
  local backend
  for backend in flash efficient cudnn; do  # scaled_dot_product_attention's backends one by one
    "$vision" "${common[@]}" --models superpoint-half+lightglue-full-half --sdpa $backend \
      --out "$res/ours_sdpa_$backend.json" > "$res/ours_sdpa_$backend.log" 2>&1 || status=1
  done
  python3 "$root/bench/original_seed_models.py" time --original "$original" --weights "$weights" \
    --frames "$frames" --out "$res/original.json" > "$res/original.log" 2>&1 || status=1
  "$vision" "${common[@]}" --models superpoint+lightglue-full,superpoint-half+lightglue-full-half \
    --out "$res/ours_again.json" > "$res/ours_again.log" 2>&1 || status=1
  # The parity fixtures: float32 checks and the float16 deviations.
  SKYTRACE_PARITY_DIR="${SKYTRACE_PARITY_DIR:-$seed_dir/parity}" \
    ctest --test-dir "$build_dir" -R 'test_seed_models_cuda|test_fused_ops_cuda' --output-on-failure -V \
    > "$res/gpu_check.log" 2>&1 || status=1
  # One step of everything-float16 under Nsight Compute: per-kernel times (clocks locked
  # by ncu: for the breakdown, not for the totals).
  local ncu_bin
  ncu_bin="$(command -v ncu || true)"; [[ -z "$ncu_bin" && -x /usr/local/cuda/bin/ncu ]] && ncu_bin=/usr/local/cuda/bin/ncu
  if [[ -n "$ncu_bin" ]]; then
    local variant
    for variant in superpoint-half+lightglue-full-half superpoint+lightglue-full; do
      "$ncu_bin" --profile-from-start off --csv --metrics gpu__time_duration.sum --print-units base \
        "$vision" --device cuda --sizes 640x480 --keypoints 1024 --iterations 2 --warmup 2 --weights-dir "$weights" \
        --models "$variant" --profile-step --out "$work/ncu.json" > "$work/ncu_$variant.csv" 2> "$res/ncu_$variant.log" || status=1
      python3 "$root/bench/ncu_kernel_summary.py" "$work/ncu_$variant.csv" "$res/ncu_$variant.txt" --top 60 || status=1
    done
  fi
  satellite_models "$weights" "$res" || status=1
  # The product: a 20 s 640x480 flight, SuperPoint + LightGlue VO through `process` and `bench`.
  if [[ -f "$seed_dir/ortho.tif" ]]; then
    "$cli" render --basemap "$seed_dir/ortho.tif" --out "$work/flight" --size 640x480 --fps 30 --duration-s 20 \
      --seed 7 --shutter-s 0 > "$res/render.log" 2>&1 || status=1
    local vo=(--vo-model superpoint+lightglue --sat-model aliked-n16rot --device cuda --mode overlapped)
    local name args
    for name in full full_half adaptive; do
      case $name in
        full) args=(--lightglue-depth full) ;;
        full_half) args=(--lightglue-depth full --half-precision) ;;
        adaptive) args=() ;;
      esac
      SKYTRACE_MODEL_DIR="$weights" "$cli" process --video "$work/flight/flight.mp4" --basemap "$seed_dir/ortho.tif" \
        --telemetry "$work/flight/flight.srt" "${vo[@]}" "${args[@]}" --out "$work/$name" \
        > "$res/process_$name.log" 2>&1 || status=1
      cp "$work/$name/report.json" "$res/process_${name}_report.json" 2>/dev/null || status=1
    done
    for name in full full_half; do
      args=(); [[ $name == full_half ]] && args=(--half-precision)
      SKYTRACE_MODEL_DIR="$weights" "$cli" bench --flight "$work/flight" --basemap "$seed_dir/ortho.tif" --frames 600 \
        --preload --device cuda --modes sequential,vo_only,overlapped --keyframe-policy every \
        --vo-model superpoint+lightglue --sat-model aliked-n16rot --lightglue-depth full "${args[@]}" \
        --out "$res/bench_$name.json" > "$res/bench_$name.log" 2>&1 || status=1
    done
  fi
  rm -rf "$work"
  tar -czf "$out/seed-results.tar.gz" -C "$res" . && rm -rf "$res"
  log "seed: exit $status (seed-results.tar.gz: ours*.json, original.json, gpu_check.log, ncu_*.txt," \
    "process_*_report.json, bench_*.json)"
  return $status
}

mkdir -p "$out"
case "${1:-}" in
  deps) deps ;;
  unpack) unpack ;;
  build) build ;;
  test) shift; run_tests "$@" ;;
  bench) bench ;;
  product) product ;;
  cpu-gpu) cpu_gpu ;;
  video-only) shift; video_only "$@" ;;
  seed) seed ;;
  satellite) satellite ;;
  all) unpack; build; status=0; run_tests || status=1; bench || status=1; exit $status ;;
  *) sed -n '2,/^set -euo pipefail/{/^set -euo/!p}' "$0"; exit 2 ;;  # the usage above
esac
