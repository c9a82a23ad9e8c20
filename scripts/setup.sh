#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/debian-packages.txt that are missing,
# then configures and builds Skytrace (Release, Ninja) into build/.
# Usage: scripts/setup.sh            (root, or a user with sudo)
# Env:   SKYTRACE_BUILD_DIR (default build), SKYTRACE_JOBS (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${SKYTRACE_BUILD_DIR:-build}
jobs=${SKYTRACE_JOBS:-$(nproc)}

mapfile -t wanted < <(grep -Ev '^\s*(#|$)' scripts/debian-packages.txt)
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "== installing ${#missing[@]} Debian packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "== configuring ($build_dir)"
cmake --preset default -B "$build_dir" ${SKYTRACE_CMAKE_ARGS:-}
echo "== building with $jobs jobs"
cmake --build "$build_dir" -j "$jobs"
