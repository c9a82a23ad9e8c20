#!/usr/bin/env bash
# Low texture, oblique views and relief (issue 19, item 4): rendered flights over water,
# orchard rows, forest canopy, a real surface model and oblique cameras, each with GNSS
# noise and a spoofed segment (12-20 s, 40 m) in its log. Per case, `skytrace-cli
# process` runs twice against the DEGRADED basemap the renderer writes: with registration
# (scored by `skytrace-cli eval`) and with registration off (`--no-registration
# --use-gnss-prior`, the odometry alone, scored by bench/odometry_drift.py). Navigation
# assumes flat ground at the log's height; the relief cases render the video over the
# surface model and so measure what that assumption costs.
# Usage: [ONLY=NAME] bench/terrain_cases.sh OUT_DIR [extra process args...]
# (renders kept in OUT_DIR/<case> from an earlier run are reused).
# Needs build/app/cli/skytrace-cli (or SKYTRACE_CLI), gdal_translate and ../shared (or
# SKYTRACE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/flights.sh"
data="${SKYTRACE_SHARED_DIR:-$root/../shared}/data"
out="${1:?usage: terrain_cases.sh OUT_DIR [process args]}"
shift
mkdir -p "$out"

brighton="$data/brighton_beach/odm_reference"
# The Brighton Beach surface model (157-165 m, tree canopy over lawn and paths) with its
# relief stretched 4x about the top (133-165 m): 32 m of relief under a 40 m flight.
dsm_x4="$out/brighton_dsm_x4.tif"
[[ -f "$dsm_x4" ]] || gdal_translate -q -ot Float32 -scale 157 165 133 165 "$brighton/nodeodm_test_dsm.tif" "$dsm_x4"

# One line per case: name | basemap | surface model ("-": flat ground) | trajectory |
# height above ground (m) | horizontal field of view (deg) | ground speed (m/s) | gimbal
# pitch (deg, "-": nadir) | degraded map's pixel against the source's. An oblique camera
# sees 100-140 m ahead from 80 m, about the size of the shared maps: the oblique
# lawnmowers fly short lines and spend most of the time turning (up to 275 deg/s) with
# parts of the view off the map; the oblique orbits turn at most 58 deg/s.
cases=(
  "relief|$brighton/nodeodm_test_odm_orthophoto.tif|$brighton/nodeodm_test_dsm.tif|lawnmower|40|50|3|-|1"
  "relief-x4|$brighton/nodeodm_test_odm_orthophoto.tif|$dsm_x4|lawnmower|40|50|3|-|1"
  "relief-x4-oblique|$brighton/nodeodm_test_odm_orthophoto.tif|$dsm_x4|lawnmower|40|50|3|-60|1"
  "oblique-60|$ortho/5b90f92da0d7280005fab355_4310.tif|-|lawnmower|80|50|8|-60|2"
  "oblique-45|$ortho/5b90f92da0d7280005fab355_4310.tif|-|lawnmower|80|50|8|-45|2"
  "oblique-orbit-60|$ortho/5b90f92da0d7280005fab355_4310.tif|-|orbit|50|50|5|-60|2"
  "oblique-orbit-45|$ortho/5b90f92da0d7280005fab355_4310.tif|-|orbit|50|50|5|-45|2"
  "water|$ortho/5b90f92da0d7280005fab355_4310.tif|-|lawnmower|50|30|5|-|2"
  "fields|$ortho/5c15321f63d9810007f8b06f_10_00000.tif|-|lawnmower|40|30|5|-|2"
  "forest|$ortho/OSBS_029.tif|-|lawnmower|30|20|2|-|2"
)

printf "%-18s %6s %6s %7s %7s %8s %9s %8s %8s %s\n" case frames loc% ate_m within5 head_deg fixes vo_lost vo_50m% spoof_flagged
for c in "${cases[@]}"; do
  IFS='|' read -r name map dsm traj alt hfov speed pitch factor <<< "$c"
  [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && continue
  d="$out/$name"
  if [[ ! -f "$d/flight.mp4" ]]; then
    args=(render --basemap "$map" --out "$d" --trajectory "$traj" --alt-m "$alt" --hfov-deg "$hfov"
          --speed-mps "$speed" --size 640x480 --fps 10 --duration-s 30 --degrade --degrade-gsd-factor "$factor"
          --seed 7 --gnss-noise-m 1.5 --spoof-start-s 12 --spoof-duration-s 8 --spoof-offset-m 40)
    [[ "$dsm" != "-" ]] && args+=(--dsm "$dsm")
    [[ "$pitch" != "-" ]] && args+=(--gimbal-pitch-deg "$pitch")
    "$cli" "${args[@]}" > "$d.render.log" 2>&1 || { echo "$name: render failed (see $d.render.log)"; continue; }
  fi
  inputs=(--video "$d/flight.mp4" --basemap "$d/basemap_degraded.tif" --telemetry "$d/flight.srt")
  "$cli" process "${inputs[@]}" --out "$d/out" "$@" > "$d.process.log" 2>&1 ||
    { echo "$name: process failed (see $d.process.log)"; continue; }
  "$cli" eval --truth "$d/truth.csv" --track "$d/out/track.csv" --out "$d/eval.json" > "$d.eval.log" 2>&1
  "$cli" process "${inputs[@]}" --no-registration --use-gnss-prior --out "$d/vo" "$@" > "$d.vo.log" 2>&1 ||
    { echo "$name: odometry-only process failed (see $d.vo.log)"; continue; }
  read -r _ vo_worst _ < <(python3 "$root/bench/odometry_drift.py" "$d" "$d/vo/odometry.csv")
  python3 - "$d" "$name" "$vo_worst" <<'PY'
import json, sys
d, name, vo_worst = sys.argv[1:4]
e = json.load(open(f"{d}/eval.json"))["overall"]
r = json.load(open(f"{d}/out/report.json"))
vo = json.load(open(f"{d}/vo/report.json"))
fixes = r["fixes"]
segs = r["discrepancy"]["segments"]
flag = ";".join(f"{s['start_s']:.1f}-{s['end_s']:.1f}s/{s['max_m']:.0f}m" for s in segs) or "none"
print(f"{name:18s} {r['frames']['processed']:6d} {100*e['fraction_with_position']:6.1f} {e['ate_rmse_m']:7.2f} "
      f"{100*e['within_5m']:7.1f} {e['heading_rmse_deg']:8.2f} {fixes['accepted']:3d}/{fixes['attempted']:<3d}"
      f"{'a' + str(fixes['accepted_by_area_correlation']):>3s} {vo['odometry']['lost_frames']:8d} {vo_worst:>8s} {flag}")
PY
done
