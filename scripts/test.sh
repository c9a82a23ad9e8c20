#!/usr/bin/env bash
# The test command of the README (and of CI, .ci/run): installs what is missing, builds,
# runs every test, then the sanitizer builds:
#   1. default preset (scripts/setup.sh): build, then every test (`ctest`); tests that need
#      ../shared carry the label 'data' and skip visibly without it, tests labelled 'gpu'
#      skip visibly without a CUDA device.
#   2. tsan preset: the tests labelled 'tsan' (the engine's threading) under ThreadSanitizer.
#   3. fuzz preset (clang): the tests labelled 'asan' under ASan + UBSan, and a short
#      smoke run of every parser's libFuzzer target (label 'fuzz').
# Usage: scripts/test.sh [extra ctest args for step 1, e.g. -L unit]
# Env:   SKYTRACE_TEST_SANITIZERS=0 skips steps 2 and 3; SKYTRACE_BUILD_DIR (default build),
#        SKYTRACE_JOBS (build jobs, default nproc), SKYTRACE_TEST_JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=${SKYTRACE_BUILD_DIR:-build}
jobs=${SKYTRACE_JOBS:-$(nproc)}
test_jobs=${SKYTRACE_TEST_JOBS:-2}
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
shared_dir=${SKYTRACE_SHARED_DIR:-$PWD/../shared}

status=0
stage() { echo "== $1 ($(date -u +%H:%M:%S) UTC)"; }

stage "tests: default build"
ctest --test-dir "$build_dir" --output-on-failure -j "$test_jobs" "$@" || status=1

if [[ "${SKYTRACE_TEST_SANITIZERS:-1}" != 0 ]]; then
  for preset in tsan fuzz; do
    stage "sanitizers: $preset preset (build-$preset)"
    mkdir -p "build-$preset"
    cmake --preset "$preset" -DSKYTRACE_SHARED_DIR="$shared_dir" > "build-$preset/configure.log" 2>&1 \
      || { cat "build-$preset/configure.log"; exit 1; }
    cmake --build --preset "$preset" -j "$jobs"
    ctest --preset "$preset" -j "$test_jobs" || status=1
  done
fi
stage "done: $([[ $status == 0 ]] && echo passed || echo FAILED)"
exit $status
