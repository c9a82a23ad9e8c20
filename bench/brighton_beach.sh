#!/usr/bin/env bash
# The 18 real Brighton Beach photos (../shared/data/brighton_beach: DJI Phantom 3,
# 1600x900, ~40 m up, 7 s apart) placed on the OpenDroneMap orthophoto of the same
# place, scored against the photos' own EXIF GPS (consumer GPS: metres of error of its
# own). Three ways an analyst can place them:
#   locate      each photo on its own, no prior (`skytrace-cli locate`);
#   process     the photos as one flight with their metadata as its log (`process
#               --video DIR --telemetry DIR`): the GPS is a search prior and the
#               comparison, never fused into the visual track;
#   no-log      the photos as one flight without any log (`process --video DIR`).
# The truth: the photos' GPS as process writes it (gnss.csv of the process run).
# Prints per way: photos placed, median / p90 / max distance to the GPS (eval), and
# the distance per photo.
# Usage: bench/brighton_beach.sh OUT_DIR [extra process args, e.g. --model sift]
# Needs build/app/cli/skytrace-cli (or SKYTRACE_CLI) and ../shared (or SKYTRACE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${SKYTRACE_CLI:-$root/build/app/cli/skytrace-cli}"
data="${SKYTRACE_SHARED_DIR:-$root/../shared}/data/brighton_beach"
out="${1:?usage: brighton_beach.sh OUT_DIR [process args]}"
shift
mkdir -p "$out"
images="$data/images"
ortho="$data/odm_reference/nodeodm_test_odm_orthophoto.tif"

"$cli" process --video "$images" --telemetry "$images" --basemap "$ortho" --out "$out/process" "$@" \
  > "$out/process.log" 2>&1 || { echo "process failed (see $out/process.log)"; exit 1; }
"$cli" process --video "$images" --basemap "$ortho" --out "$out/no-log" "$@" \
  > "$out/no-log.log" 2>&1 || { echo "process without a log failed (see $out/no-log.log)"; exit 1; }
"$cli" locate --basemap "$ortho" --out "$out/locate.csv" "$images"/*.JPG > "$out/locate.log" 2>&1 ||
  { echo "locate failed (see $out/locate.log)"; exit 1; }

# The truth: one row per photo, the GPS process read from it.
python3 - "$out/process/gnss.csv" "$out/truth.csv" <<'PY'
import csv, sys
with open(sys.argv[2], "w") as f:
    f.write("frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg\n")
    for r in csv.DictReader(open(sys.argv[1])):
        f.write(f"{r['frame']},{r['t_s']},{r['lat_deg']},{r['lon_deg']},{r['alt_m']},,,\n")
PY
# locate's rows as a track (frame = the photo's place in the folder).
python3 - "$out/locate.csv" "$out/truth.csv" "$out/locate_track.csv" <<'PY'
import csv, os, sys
truth = list(csv.DictReader(open(sys.argv[2])))
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: os.path.basename(r["image"]))
with open(sys.argv[3], "w") as f:
    f.write("frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg\n")
    for i, r in enumerate(rows):
        if r["accepted"] == "1":
            f.write(f"{i},{truth[i]['t_s']},{r['lat_deg']},{r['lon_deg']},,,,\n")
PY
printf "%-8s %7s %9s %7s %7s  %s\n" way placed median_m p90_m max_m "distance per photo, m (DJI_0018..0035)"
for way in locate process no-log; do
  track="$out/$way/track.csv"
  [[ "$way" == locate ]] && track="$out/locate_track.csv"
  "$cli" eval --truth "$out/truth.csv" --track "$track" --out "$out/$way.eval.json" > "$out/$way.eval.log" 2>&1 ||
    { echo "$way: eval failed (see $out/$way.eval.log)"; continue; }
  python3 - "$out/$way.eval.json" "$way" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
o = e["overall"]
h = o["horizontal_error"]
per = {f["frame"]: f["horizontal_error_m"] for f in e["frames"] if f["has_position"]}
cells = " ".join(f"{per[i]:.1f}" if i in per else "-" for i in range(o["truth_frames"]))
print(f"{sys.argv[2]:8s} {len(per):3d}/{o['truth_frames']:<3d} {h['median_m']:9.2f} {h['p90_m']:7.2f} {h['max_m']:7.2f}  {cells}")
PY
done
