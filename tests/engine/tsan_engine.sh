#!/usr/bin/env bash
# ThreadSanitizer run of the engine's threading tests (test_keyframe_queue,
# test_frame_feed, test_engine_pipeline) without rebuilding the whole project with
# -fsanitize=thread: the engine sources and these tests are compiled with TSAN into
# WORK, linked against the uninstrumented core_vision/core_util of an existing build
# (which must have built those tests once, for their moc files).
#   tests/engine/tsan_engine.sh [BUILD_DIR=build-engine] [WORK=/tmp/skytrace-tsan-engine]
#                               [INCLUDE_DIRS]
# INCLUDE_DIRS: ':'-separated system include directories of LibTorch, OpenCV and Qt 6
# Core/Test (ctest passes the configuration's own); without it, Debian 12's locations.
# Registered as the ctest test test_engine_tsan (label tsan), so every full test run
# (scripts/test.sh, CI) includes it. Exit status 0 when every test passes with no TSAN
# report. tsan.supp silences races
# reported inside the uninstrumented libQt6Core (QThread's wait condition).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:-$root/build-engine}" && pwd)"
work="${2:-/tmp/skytrace-tsan-engine}"
mkdir -p "$work"
cd "$work"
debian_includes=/usr/include/torch/csrc/api/include:/usr/include/opencv4:/usr/include/x86_64-linux-gnu/qt6:/usr/include/x86_64-linux-gnu/qt6/QtCore:/usr/include/x86_64-linux-gnu/qt6/QtTest
flags=(-std=c++17 -O1 -g -fsanitize=thread -fPIC -DQT_NO_KEYWORDS -D_GLIBCXX_USE_CXX11_ABI=1
       -I"$root" -I"$build/core/engine/core_engine_autogen/include")
IFS=: read -r -a include_dirs <<< "${3:-$debian_includes}"
declare -A seen=()
for dir in "${include_dirs[@]}"; do
  # The compiler's own directories stay implicit (-isystem /usr/include breaks #include_next).
  [[ -z "$dir" || "$dir" == /usr/include || "$dir" == /usr/local/include || -n "${seen[$dir]:-}" ]] && continue
  seen[$dir]=1
  flags+=(-isystem "$dir")
done
# The engine's portable sources (core/engine/engine_sources.cmake, the list the GPU-only
# build uses too) plus the CPU stream twin and the classical-extractor placeholder.
mapfile -t portable < <(sed -n '/^set(SKYTRACE_ENGINE_PORTABLE_SOURCES/,/^)/p' \
  "$root/core/engine/engine_sources.cmake" | grep -o '[a-z_0-9]*\.cpp' | sed 's/\.cpp$//')
[[ ${#portable[@]} -gt 0 ]] || { echo "no sources parsed from engine_sources.cmake" >&2; exit 2; }
engine=("${portable[@]}" gpu_streams_cpu vision_extractor_classical_unavailable)
tests=(test_keyframe_queue test_frame_feed test_engine_pipeline)
jobs=()
for s in "${engine[@]}"; do jobs+=("$root/core/engine/$s.cpp|$s.o|"); done
jobs+=("$build/core/engine/core_engine_autogen/mocs_compilation.cpp|mocs_compilation.o|")
for t in "${tests[@]}"; do jobs+=("$root/tests/engine/$t.cpp|$t.o|-I$build/tests/engine/${t}_autogen/include"); done
# An object is rebuilt when it is missing or older than its source or any header it
# included last time (g++ -MMD writes that list next to it).
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -I{} bash -c '
  IFS="|" read -r src obj extra <<< "{}"
  current=0
  if [[ -f "$obj" && -f "$obj.d" && "$obj" -nt "$src" ]]; then
    current=1
    for dep in $(sed -e "s/\\\\$//" -e "s/^[^:]*://" "$obj.d"); do
      [[ "$dep" -nt "$obj" ]] && { current=0; break; }
    done
  fi
  [[ $current == 1 ]] || g++ '"${flags[*]}"' $extra -MMD -MF "$obj.d" -c "$src" -o "$obj"'
objects=()
for s in "${engine[@]}"; do objects+=("$s.o"); done
libs=("$build/core/vision/libcore_vision.a" "$build/core/util/libcore_util.a" -ltorch -ltorch_cpu -lc10
      -lQt6Test -lQt6Core -lopencv_calib3d -lopencv_features2d -lopencv_imgproc -lopencv_core -lgomp -lpthread)
status=0
for t in "${tests[@]}"; do
  g++ -fsanitize=thread -o "$t" "$t.o" "${objects[@]}" mocs_compilation.o "${libs[@]}"
  set +e
  TSAN_OPTIONS="halt_on_error=0 suppressions=$root/tests/engine/tsan.supp" ./"$t" > "$t.log" 2>&1
  rc=$?
  set -e
  reports=$(grep -c "WARNING: ThreadSanitizer" "$t.log" || true)
  echo "$t: exit $rc, $reports TSAN reports ($(grep Totals "$t.log"))"
  [[ $rc -ne 0 || $reports -ne 0 ]] && status=1
done
exit $status
