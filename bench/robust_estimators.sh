#!/usr/bin/env bash
# The robust homography estimators of VO and registration on the same rendered flights,
# in one run (core/vision/robust_homography.h): renders the flights of bench/flights.sh
# (as bench/nav_accuracy.sh does, or reuses them), runs `skytrace-cli process` on each with
# every estimator named, scores the track with `skytrace-cli eval`, and prints one line per
# flight and estimator: ATE, share within 5 m, accepted fixes, the pose stage (VO's robust
# fit) p50/p99 and the fine-match stage (registration's matching and robust fit) p50.
# Usage: bench/robust_estimators.sh OUT_DIR [extra process args...]
# Env:   ESTIMATORS (default "lo-ransac magsac"), ONLY (flights whose name contains it).
# Needs build/app/cli/skytrace-cli and ../shared (or SKYTRACE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/flights.sh"
out="${1:?usage: robust_estimators.sh OUT_DIR [process args]}"
shift
mkdir -p "$out"
printf "%-16s %-12s %7s %8s %7s %9s %9s %9s %8s\n" flight estimator ate_m within5 fixes \
  pose_p50 pose_p99 fine_p50 nav_fps
for f in "${flights[@]}"; do
  name="${f%%|*}"
  [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && continue
  d="$out/$name"
  if [[ ! -f "$d/flight.mp4" ]]; then
    render_flight "$cli" "$ortho" "$f" "$d" --gnss-noise-m 1.5 --spoof-start-s 12 --spoof-duration-s 8 \
      --spoof-offset-m 40 > "$d.render.log" 2>&1 || { echo "$name: render failed (see $d.render.log)"; continue; }
  fi
  for estimator in ${ESTIMATORS:-lo-ransac magsac}; do
    r="$d/$estimator"
    "$cli" process --video "$d/flight.mp4" --basemap "$d/basemap_degraded.tif" --telemetry "$d/flight.srt" \
      --robust-estimator "$estimator" --out "$r" "$@" > "$r.process.log" 2>&1 \
      || { echo "$name $estimator: process failed (see $r.process.log)"; continue; }
    "$cli" eval --truth "$d/truth.csv" --track "$r/track.csv" --out "$r/eval.json" > "$r.eval.log" 2>&1
    python3 - "$r" "$name" "$estimator" <<'PY'
import json, sys
r_dir, name, estimator = sys.argv[1:4]
e = json.load(open(f"{r_dir}/eval.json"))["overall"]
r = json.load(open(f"{r_dir}/report.json"))
st = r["timings"]["stages"]
get = lambda stage, key: st.get(stage, {}).get(key, float("nan"))
print(f"{name:16s} {estimator:12s} {e['ate_rmse_m']:7.2f} {100*e['within_5m']:7.1f}% "
      f"{r['fixes']['accepted']:3d}/{r['fixes']['attempted']:<3d} {get('pose','p50_ms'):9.2f} "
      f"{get('pose','p99_ms'):9.2f} {get('fine_match','p50_ms'):9.2f} {r['timings']['navigation_fps']:8.1f}")
PY
  done
done
