#!/usr/bin/env bash
# Visual odometry drift on the rendered flights of bench/flights.sh (issue 19's "VO
# alone" bound): each flight is processed with registration off (`process
# --no-registration --use-gnss-prior`: odometry.csv is the odometry alone, chained from
# the first logged position, heights from the log), and odometry.csv is compared with
# truth.csv frame by frame. Drift over a stretch = how much the position error changed
# along it / the distance flown; printed per flight: the worst over any stretch of at
# least 50 m flown, the drift over the whole flight, and the distance.
# Usage: [FLIGHTS=scale-gap] [ONLY=NAME] bench/vo_drift.sh OUT_DIR [extra process args...]
# (renders kept in OUT_DIR/<flight> from an earlier run are reused).
# Needs build/app/cli/skytrace-cli (or SKYTRACE_CLI) and ../shared (or SKYTRACE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/flights.sh"
out="${1:?usage: vo_drift.sh OUT_DIR [process args]}"
shift
mkdir -p "$out"
select_flights
printf "%-16s %9s %13s %11s\n" flight flown_m worst_50m_% whole_%
for f in "${flights[@]}"; do
  name="${f%%|*}"
  [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && continue
  d="$out/$name"
  if [[ ! -f "$d/flight.mp4" ]]; then
    render_flight "$cli" "$ortho" "$f" "$d" > "$d.render.log" 2>&1 || { echo "$name: render failed"; continue; }
  fi
  "$cli" process --video "$d/flight.mp4" --basemap "$d/basemap_degraded.tif" --telemetry "$d/flight.srt" \
    --no-registration --use-gnss-prior --out "$d/vo" "$@" > "$d.vo.log" 2>&1 ||
    { echo "$name: process failed (see $d.vo.log)"; continue; }
  read -r flown worst whole < <(python3 "$root/bench/odometry_drift.py" "$d" "$d/vo/odometry.csv")
  printf "%-16s %9s %13s %11s\n" "$name" "$flown" "$worst" "$whole"
done
