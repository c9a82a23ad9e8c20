#!/usr/bin/env bash
# Video-only flights (issue 23): the flights of bench/flights.sh (every shared orthophoto,
# a lawnmower and an orbit each, 640x480 at 10 fps, 30 s) and the issue's own flight
# (render's defaults over the Manila orthophoto: 960x540 at 30 fps, 60 s, seed 7),
# processed against the DEGRADED basemap the renderer writes WITHOUT a flight log: no
# position, height or heading prior. Per flight: when the first fix came (seconds of
# flight), how far it was from the truth (a first fix more than 10 m off is a false
# fix), the share of frames with a position, ATE over the whole flight, the fixes and
# the frames placed before the first fix (back-filled); then the issue's four figures.
# Then each flight again against another orthophoto's degraded map: every fix accepted
# there is a false fix (wrong_map.tsv; WRONG_MAP=0 leaves this pass out, MAIN=0 the
# first: run again on the same OUT_DIR, it reuses the renders and keeps summary.tsv).
# Usage: bench/video_only.sh OUT_DIR [extra process args...]
# Needs build/app/cli/skytrace-cli (or SKYTRACE_CLI) and ../shared (or SKYTRACE_SHARED_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/flights.sh"
out="${1:?usage: video_only.sh OUT_DIR [process args]}"
shift
mkdir -p "$out"
flights+=("manila-issue23|5b90f92da0d7280005fab355_4310.tif|lawnmower|-|-|-")
summary="$out/summary.tsv"
if [[ "${MAIN:-1}" != 0 ]]; then
  printf "flight\tframes\tfirst_fix_s\tfirst_fix_error_m\tpositioned_pct\tate_m\tfixes\tbackfilled\n" > "$summary"
  printf "%-16s %7s %8s %9s %7s %7s %9s %10s\n" flight frames first_s first_err loc% ate_m fixes backfilled
fi
for f in "${flights[@]}"; do
  [[ "${MAIN:-1}" == 0 ]] && break
  name="${f%%|*}"
  [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && continue
  d="$out/$name"
  if [[ ! -f "$d/flight.mp4" ]]; then
    if [[ "$name" == manila-issue23 ]]; then
      "$cli" render --basemap "$ortho/5b90f92da0d7280005fab355_4310.tif" --seed 7 --degrade --out "$d" \
        > "$d.render.log" 2>&1 || { echo "$name: render failed (see $d.render.log)"; continue; }
    else
      render_flight "$cli" "$ortho" "$f" "$d" > "$d.render.log" 2>&1 ||
        { echo "$name: render failed (see $d.render.log)"; continue; }
    fi
  fi
  # No fix at all exits 1 with its reason; the row then says so.
  "$cli" process --video "$d/flight.mp4" --basemap "$d/basemap_degraded.tif" --out "$d/out" "$@" \
    > "$d.process.log" 2>&1 || true
  [[ -f "$d/out/report.json" ]] || { echo "$name: process failed (see $d.process.log)"; continue; }
  if [[ -s "$d/out/track.csv" ]]; then
    "$cli" eval --truth "$d/truth.csv" --track "$d/out/track.csv" --out "$d/eval.json" > "$d.eval.log" 2>&1 || true
  fi
  python3 - "$d" "$name" "$summary" <<'PY'
import csv, json, math, os, sys
d, name, summary = sys.argv[1:4]
r = json.load(open(f"{d}/out/report.json"))
truth = {int(row["frame"]): row for row in csv.DictReader(open(f"{d}/truth.csv"))}
first_t = first_err = float("nan")
for row in csv.DictReader(open(f"{d}/out/fixes.csv")):
    if row["accepted"] != "1":
        continue
    t = truth[int(row["frame"])]
    lat0 = math.radians(float(t["lat_deg"]))
    dn = math.radians(float(row["lat_deg"]) - float(t["lat_deg"])) * 6371000.0
    de = math.radians(float(row["lon_deg"]) - float(t["lon_deg"])) * 6371000.0 * math.cos(lat0)
    first_t, first_err = float(row["t_s"]), math.hypot(de, dn)
    break
loc = ate = float("nan")
if os.path.exists(f"{d}/eval.json"):
    e = json.load(open(f"{d}/eval.json"))["overall"]
    loc, ate = 100 * e["fraction_with_position"], e["ate_rmse_m"]
else:
    loc = 0.0
fixes = f"{r['fixes']['accepted']}/{r['fixes']['attempted']}"
backfilled = r["frames"].get("backfilled", 0)
print(f"{name:16s} {r['frames']['processed']:7d} {first_t:8.2f} {first_err:9.2f} {loc:7.1f} {ate:7.2f} "
      f"{fixes:>9s} {backfilled:10d}")
with open(summary, "a") as out:
    out.write(f"{name}\t{r['frames']['processed']}\t{first_t:.3f}\t{first_err:.3f}\t{loc:.2f}\t{ate:.3f}\t"
              f"{fixes}\t{backfilled}\n")
PY
done
# False fixes: each flight against the degraded map of the next flight over another
# orthophoto. Every fix accepted there is false by construction.
wrong="$out/wrong_map.tsv"
printf "flight\tmap_of\taccepted\tattempted\n" > "$wrong"
for i in "${!flights[@]}"; do
  [[ "${WRONG_MAP:-1}" == 0 ]] && break
  name="${flights[$i]%%|*}"
  [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && continue
  file=$(cut -d'|' -f2 <<< "${flights[$i]}")
  for ((k = 1; k < ${#flights[@]}; ++k)); do
    other="${flights[$(( (i + k) % ${#flights[@]} ))]}"
    [[ "$(cut -d'|' -f2 <<< "$other")" != "$file" ]] && break
  done
  other="${other%%|*}"
  d="$out/$name"
  [[ -f "$d/flight.mp4" && -f "$out/$other/basemap_degraded.tif" ]] || continue
  "$cli" process --video "$d/flight.mp4" --basemap "$out/$other/basemap_degraded.tif" --out "$d/wrong_map" "$@" \
    > "$d.wrong_map.log" 2>&1 || true
  [[ -f "$d/wrong_map/report.json" ]] || { echo "$name: process on $other's map failed (see $d.wrong_map.log)"; continue; }
  python3 - "$d/wrong_map/report.json" "$name" "$other" "$wrong" <<'PY'
import json, sys
path, name, other, wrong = sys.argv[1:5]
f = json.load(open(path))["fixes"]
print(f"{name:16s} on the map of {other}: {f['accepted']} fixes accepted of {f['attempted']}")
with open(wrong, "a") as out:
    out.write(f"{name}\t{other}\t{f['accepted']}\t{f['attempted']}\n")
PY
done
python3 - "$summary" "$wrong" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
wrong = list(csv.DictReader(open(sys.argv[2]), delimiter="\t"))
if not rows:
    sys.exit(0)
n = len(rows)
fix = lambda r: not math.isnan(float(r["first_fix_s"]))
within3 = sum(1 for r in rows if fix(r) and float(r["first_fix_s"]) <= 3.0)
false_fix = sum(1 for r in rows if fix(r) and float(r["first_fix_error_m"]) > 10.0)
positioned = sum(1 for r in rows if float(r["positioned_pct"]) >= 99.0)
ate3 = sum(1 for r in rows if not math.isnan(float(r["ate_m"])) and float(r["ate_m"]) <= 3.0)
print(f"first fix within 3 s: {within3}/{n} flights ({100 * within3 / n:.0f} %); false first fixes: {false_fix}; "
      f">= 99 % of frames with a position: {positioned}/{n}; ATE <= 3 m: {ate3}/{n}")
if wrong:
    accepted = sum(int(r["accepted"]) for r in wrong)
    attempted = sum(int(r["attempted"]) for r in wrong)
    print(f"on another orthophoto's map (every fix false): {accepted} fixes accepted of {attempted} attempts, "
          f"{len(wrong)} flights")
PY
