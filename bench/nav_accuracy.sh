#!/usr/bin/env bash
# Navigation accuracy on rendered flights over every shared orthophoto (issue 6):
# renders a lawnmower and an orbit flight per orthophoto (640x480, 10 fps, 60-150 m AGL,
# field of view chosen so that the footprint is ~45% of the map), with GNSS noise and a
# spoofed segment in the SRT, runs `skytrace-cli process` against the DEGRADED basemap the
# renderer writes, scores the track with `skytrace-cli eval`, and prints one line per
# flight. Usage: bench/nav_accuracy.sh OUT_DIR [extra process args...]
# Needs build/app/cli/skytrace-cli and ../shared (or SKYTRACE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${SKYTRACE_CLI:-$root/build/app/cli/skytrace-cli}"
shared="${SKYTRACE_SHARED_DIR:-$root/../shared}"
out="${1:?usage: nav_accuracy.sh OUT_DIR [process args]}"
shift
mkdir -p "$out"
ortho="$shared/data/orthophotos"
# name | file | trajectory | alt_m | hfov_deg | speed_mps
flights=(
  "manila-lawn|5b90f92da0d7280005fab355_4310.tif|lawnmower|80|50|8"
  "manila-orbit|5b90f92da0d7280005fab355_4310.tif|orbit|120|40|8"
  "oam1-lawn|5b3622402b6a08001185f8d8_10_00004.tif|lawnmower|60|54|6"
  "oam1-orbit|5b3622402b6a08001185f8d8_10_00004.tif|orbit|100|34|6"
  "oam2-lawn|5c15321f63d9810007f8b06f_10_00000.tif|lawnmower|70|54|7"
  "oam2-orbit|5c15321f63d9810007f8b06f_10_00000.tif|orbit|150|27|7"
  "sjer-lawn|2018_SJER_3_252000_4107000_image_477.tif|lawnmower|60|17|2"
  "sjer-orbit|2018_SJER_3_252000_4107000_image_477.tif|orbit|100|10|2"
  "osbs-lawn|OSBS_029.tif|lawnmower|90|11.5|2"
  "osbs-orbit|OSBS_029.tif|orbit|60|17|2"
  "australia-lawn|australia.tif|lawnmower|60|5.7|0.7"
  "australia-orbit|australia.tif|orbit|60|5.7|0.7"
)
printf "%-16s %8s %8s %8s %8s %8s %8s %s\n" flight frames loc% ate_m within5 head_deg fixes spoof_flagged
for f in "${flights[@]}"; do
  IFS='|' read -r name file traj alt hfov speed <<< "$f"
  [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && continue
  d="$out/$name"
  if [[ ! -f "$d/flight.mp4" ]]; then
    "$cli" render --basemap "$ortho/$file" --out "$d" --trajectory "$traj" --size 640x480 --fps 10 \
      --alt-m "$alt" --hfov-deg "$hfov" --speed-mps "$speed" --duration-s 30 --degrade \
      --gnss-noise-m 1.5 --spoof-start-s 12 --spoof-duration-s 8 --spoof-offset-m 40 --seed 7 \
      > "$d.render.log" 2>&1 || { echo "$name: render failed (see $d.render.log)"; continue; }
  fi
  "$cli" process --video "$d/flight.mp4" --basemap "$d/basemap_degraded.tif" --telemetry "$d/flight.srt" \
    --out "$d/out" "$@" > "$d.process.log" 2>&1 || { echo "$name: process failed (see $d.process.log)"; continue; }
  "$cli" eval --truth "$d/truth.csv" --track "$d/out/track.csv" --out "$d/eval.json" > "$d.eval.log" 2>&1
  python3 - "$d" "$name" <<'PY'
import json, sys
d, name = sys.argv[1], sys.argv[2]
e = json.load(open(f"{d}/eval.json"))["overall"]
r = json.load(open(f"{d}/out/report.json"))
segs = r["discrepancy"]["segments"]
flag = ";".join(f"{s['start_s']:.1f}-{s['end_s']:.1f}s/{s['max_m']:.0f}m" for s in segs) or "none"
print(f"{name:16s} {r['frames']['processed']:8d} {100*e['fraction_with_position']:8.1f} {e['ate_rmse_m']:8.2f} "
      f"{100*e['within_5m']:8.1f} {e['heading_rmse_deg']:8.2f} {r['fixes']['accepted']:3d}/{r['fixes']['attempted']:<4d} {flag}")
PY
done
