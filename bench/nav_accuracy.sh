#!/usr/bin/env bash
# Navigation accuracy on rendered flights over every shared orthophoto (issue 6):
# renders a lawnmower and an orbit flight per orthophoto (640x480, 10 fps, 60-150 m AGL,
# field of view chosen so that the footprint is ~45% of the map), with GNSS noise and a
# spoofed segment in the SRT, runs `skytrace-cli process` against the DEGRADED basemap the
# renderer writes, scores the track with `skytrace-cli eval`, and prints one line per
# flight. FLIGHTS=scale-gap flies bench/flights.sh's scale-gap set instead (footprint
# 40-60 pixels of a map 3-10x coarser than the video's source, in other colours).
# Usage: [FLIGHTS=scale-gap] [ONLY=NAME] bench/nav_accuracy.sh OUT_DIR [extra process args...]
# Needs build/app/cli/skytrace-cli and ../shared (or SKYTRACE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/flights.sh"
out="${1:?usage: nav_accuracy.sh OUT_DIR [process args]}"
shift
mkdir -p "$out"
select_flights
printf "%-16s %6s %8s %8s %8s %8s %8s %8s %s\n" flight map_px frames loc% ate_m within5 head_deg fixes spoof_flagged
for f in "${flights[@]}"; do
  name="${f%%|*}"
  [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && continue
  d="$out/$name"
  if [[ ! -f "$d/flight.mp4" ]]; then
    render_flight "$cli" "$ortho" "$f" "$d" --gnss-noise-m 1.5 --spoof-start-s 12 --spoof-duration-s 8 \
      --spoof-offset-m 40 > "$d.render.log" 2>&1 || { echo "$name: render failed (see $d.render.log)"; continue; }
  fi
  "$cli" process --video "$d/flight.mp4" --basemap "$d/basemap_degraded.tif" --telemetry "$d/flight.srt" \
    --out "$d/out" "$@" > "$d.process.log" 2>&1 || { echo "$name: process failed (see $d.process.log)"; continue; }
  "$cli" eval --truth "$d/truth.csv" --track "$d/out/track.csv" --out "$d/eval.json" > "$d.eval.log" 2>&1
  python3 - "$d" "$name" <<'PY'
import json, sys
d, name = sys.argv[1], sys.argv[2]
e = json.load(open(f"{d}/eval.json"))["overall"]
r = json.load(open(f"{d}/out/report.json"))
m = json.load(open(f"{d}/flight.json"))
cam = json.load(open(f"{d}/camera.json"))
# The nadir camera footprint's width in pixels of the degraded map.
map_px = (m["trajectory"]["altitude_agl_m"] * cam["width_px"] / cam["fx_px"]
          / m["degraded_basemap"]["gsd_m"])
segs = r["discrepancy"]["segments"]
flag = ";".join(f"{s['start_s']:.1f}-{s['end_s']:.1f}s/{s['max_m']:.0f}m" for s in segs) or "none"
print(f"{name:16s} {map_px:6.0f} {r['frames']['processed']:8d} {100*e['fraction_with_position']:8.1f} {e['ate_rmse_m']:8.2f} "
      f"{100*e['within_5m']:8.1f} {e['heading_rmse_deg']:8.2f} {r['fixes']['accepted']:3d}/{r['fixes']['attempted']:<4d} {flag}")
PY
done
