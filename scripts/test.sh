#!/usr/bin/env bash
# The test command of the README: installs what is missing, builds, runs every test.
# Tests that need ../shared carry the ctest label 'data' and skip visibly without it.
# Usage: scripts/test.sh [extra ctest args, e.g. -L unit]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=${SKYTRACE_BUILD_DIR:-build}
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
ctest --test-dir "$build_dir" --output-on-failure -j "${SKYTRACE_TEST_JOBS:-2}" "$@"
