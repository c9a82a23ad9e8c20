#!/usr/bin/env bash
# Visual odometry on real drone photo sequences (issue 19, item 3): every folder of
# ../shared/data/real_sequences (photos with EXIF GPS, no basemap) is processed as its
# own flight log, odometry only (`process --video DIR --telemetry DIR --no-registration
# --use-gnss-prior`: the chain starts at the first photo's GPS position, heights from the
# photos' GPS altitudes above the ground given below); odometry.csv is scored with
# `eval --align similarity` against a truth CSV made from the photos' GPS (gps.csv), so
# that an unknown start heading and scale do not count. Prints per sequence: photos,
# frames VO lost, GPS path length, RMSE and max after the alignment, and the RMSE as a
# share of the path (the drift figure).
# Usage: bench/real_sequences.sh OUT_DIR [extra process args...]
# Needs build/app/cli/skytrace-cli (or SKYTRACE_CLI) and ../shared (or SKYTRACE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${SKYTRACE_CLI:-$root/build/app/cli/skytrace-cli}"
sequences="${SKYTRACE_SHARED_DIR:-$root/../shared}/data/real_sequences"
out="${1:?usage: real_sequences.sh OUT_DIR [process args]}"
shift
mkdir -p "$out"
# One line per sequence: folder | ground altitude for --ground-alt-m (ellipsoidal metres;
# "-": none, heights come from the odometry itself). toledo_2015's EXIF altitudes are
# heights above take-off although EXIF says sea level: ground 0 m in that reference,
# which --ground-alt-m gives as the geoid undulation there (EGM96: -36 m).
list=(
  "toledo_2015|-36"
  "lewis_2015|-"
)
printf "%-12s %6s %5s %8s %9s %9s %7s\n" sequence photos lost path_m rmse_m max_m drift%
for line in "${list[@]}"; do
  IFS='|' read -r name ground <<< "$line"
  [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && continue
  images="$sequences/$name/images"
  d="$out/$name"
  args=(process --video "$images" --telemetry "$images" --no-registration --use-gnss-prior --out "$d/out")
  [[ "$ground" != "-" ]] && args+=(--ground-alt-m "$ground")
  "$cli" "${args[@]}" "$@" > "$d.process.log" 2>&1 || { echo "$name: process failed (see $d.process.log)"; continue; }
  # Truth: the photos' GPS at the frames' times (odometry.csv has one row per photo).
  python3 - "$sequences/$name/gps.csv" "$d/out/odometry.csv" "$d/truth.csv" <<'PY'
import csv, sys
gps = list(csv.DictReader(open(sys.argv[1])))
frames = {int(r["frame"]): r["t_s"] for r in csv.DictReader(open(sys.argv[2]))}
with open(sys.argv[3], "w") as f:
    f.write("frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg\n")
    for i, r in enumerate(gps):
        if i in frames:
            f.write(f"{i},{frames[i]},{r['lat_deg']},{r['lon_deg']},{r['alt_m']},,,\n")
PY
  "$cli" eval --truth "$d/truth.csv" --track "$d/out/odometry.csv" --align similarity --out "$d/eval.json" \
    > "$d.eval.log" 2>&1
  python3 - "$d" "$name" <<'PY'
import json, math, sys, csv
d, name = sys.argv[1], sys.argv[2]
e = json.load(open(f"{d}/eval.json"))["overall"]
r = json.load(open(f"{d}/out/report.json"))
truth = list(csv.DictReader(open(f"{d}/truth.csv")))
path = 0.0
for a, b in zip(truth, truth[1:]):
    lat = math.radians(float(a["lat_deg"]))
    de = (float(b["lon_deg"]) - float(a["lon_deg"])) * 111320.0 * math.cos(lat)
    dn = (float(b["lat_deg"]) - float(a["lat_deg"])) * 110540.0
    path += math.hypot(de, dn)
h = e["horizontal_error"]
print(f"{name:12s} {e['truth_frames']:6d} {r['odometry']['lost_frames']:5d} {path:8.0f} {e['ate_rmse_m']:9.1f} "
      f"{h['max_m']:9.1f} {100 * e['ate_rmse_m'] / path:7.2f}")
PY
done
