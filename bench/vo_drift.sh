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
  python3 - "$d" "$name" <<'PY'
import csv, math, sys
d, name = sys.argv[1], sys.argv[2]
truth = {int(r["frame"]): r for r in csv.DictReader(open(f"{d}/truth.csv"))}
vo = {int(r["frame"]): r for r in csv.DictReader(open(f"{d}/vo/odometry.csv")) if r["lat_deg"]}
frames = sorted(k for k in vo if k in truth)
lat0 = math.radians(float(truth[frames[0]]["lat_deg"]))
def en(r):  # local east/north metres (small areas)
    return (float(r["lon_deg"]) * 111320.0 * math.cos(lat0), float(r["lat_deg"]) * 110540.0)
t = [en(truth[k]) for k in frames]
e = [tuple(a - b for a, b in zip(en(vo[k]), p)) for k, p in zip(frames, t)]
flown = [0.0]
for a, b in zip(t, t[1:]):
    flown.append(flown[-1] + math.dist(a, b))
worst, j = None, 0  # None: no stretch of 50 m flown
for i in range(len(frames)):
    j = max(j, i)
    while j < len(frames) and flown[j] - flown[i] < 50.0:
        j += 1
    if j == len(frames):
        break
    drift = math.dist(e[j], e[i]) / (flown[j] - flown[i])
    worst = drift if worst is None else max(worst, drift)
whole = math.dist(e[-1], e[0]) / flown[-1] if flown[-1] > 0 else float("nan")
worst_text = "-" if worst is None else f"{100 * worst:.2f}"
print(f"{name:16s} {flown[-1]:9.0f} {worst_text:>13s} {100 * whole:11.2f}")
PY
done
