#!/usr/bin/env bash
# The main job of the README: installs what is missing, builds, then generates the
# built-in demo (procedural basemap + rendered flight, processed where navigation
# exists) into out/demo. Needs no third-party data.
# Usage: scripts/demo.sh [extra `skytrace-cli demo` options]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=${SKYTRACE_BUILD_DIR:-build}
"$build_dir/app/cli/skytrace-cli" demo --out "${SKYTRACE_DEMO_DIR:-out/demo}" "$@"
