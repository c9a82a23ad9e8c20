"""Visual odometry drift of one processed flight against its truth.

Usage: odometry_drift.py FLIGHT_DIR ODOMETRY_CSV
FLIGHT_DIR holds the renderer's truth.csv; ODOMETRY_CSV is `process`'s odometry.csv of a
run with registration off. Drift over a stretch = how much the position error changed
along it / the distance flown along it. Prints three numbers: the distance flown (m),
the worst drift over any stretch of at least 50 m flown (%, "-" when the flight is
shorter) and the drift over the whole flight (%).
"""
import csv
import math
import sys

flight_dir, odometry_csv = sys.argv[1], sys.argv[2]
truth = {int(r["frame"]): r for r in csv.DictReader(open(f"{flight_dir}/truth.csv"))}
vo = {int(r["frame"]): r for r in csv.DictReader(open(odometry_csv)) if r["lat_deg"]}
frames = sorted(k for k in vo if k in truth)
lat0 = math.radians(float(truth[frames[0]]["lat_deg"]))


def east_north(row):  # local metres, good over the few hundred metres of a flight
    return (float(row["lon_deg"]) * 111320.0 * math.cos(lat0), float(row["lat_deg"]) * 110540.0)


t = [east_north(truth[k]) for k in frames]
e = [tuple(a - b for a, b in zip(east_north(vo[k]), p)) for k, p in zip(frames, t)]
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
print(f"{flown[-1]:.0f} {worst_text} {100 * whole:.2f}")
