#!/usr/bin/env python3
"""Where two `skytrace-cli process` results folders of one flight part ways.

Usage: bench/compare_runs.py RUN_A RUN_B [--out compare.json]

Reads each folder's report.json and fixes.csv (header in docs/process_output.md) and
prints, as JSON: per run the accepted / attempted fixes, VO's lost frames and keyframes;
the registration attempts whose outcome differs (accepted in one run only, or a different
rejection reason) with both runs' inliers; and, for the attempts accepted in both, how far
apart the two fixes are (horizontal metres, local equirectangular approximation: the fixes
of one flight lie within a few kilometres). The tracks themselves are compared by
`skytrace-cli eval --truth RUN_A/track.csv --track RUN_B/track.csv`.
"""
import argparse
import csv
import json
import math
import os
import sys

EARTH_RADIUS_M = 6371008.8


def read_fixes(folder):
    """fixes.csv as {(frame, mode): row}; the last attempt wins when a frame has several."""
    path = os.path.join(folder, "fixes.csv")
    with open(path, newline="") as f:
        return {(int(row["frame"]), row["mode"]): row for row in csv.DictReader(f)}


def horizontal_m(a, b):
    lat_a, lon_a = float(a["lat_deg"]), float(a["lon_deg"])
    lat_b, lon_b = float(b["lat_deg"]), float(b["lon_deg"])
    north = math.radians(lat_b - lat_a) * EARTH_RADIUS_M
    east = math.radians(lon_b - lon_a) * EARTH_RADIUS_M * math.cos(math.radians(0.5 * (lat_a + lat_b)))
    return math.hypot(east, north)


def summary(folder):
    with open(os.path.join(folder, "report.json")) as f:
        report = json.load(f)
    fixes = report.get("fixes", {})
    odometry = report.get("odometry", {})
    return {
        "folder": folder,
        "device": report.get("device"),
        "fixes_accepted": fixes.get("accepted"),
        "fixes_attempted": fixes.get("attempted"),
        "rejected_by_reason": fixes.get("rejected_by_reason"),
        "vo_lost_frames": odometry.get("lost_frames"),
        "vo_keyframes": odometry.get("keyframes"),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_a")
    parser.add_argument("run_b")
    parser.add_argument("--out")
    args = parser.parse_args()

    fixes_a, fixes_b = read_fixes(args.run_a), read_fixes(args.run_b)
    differing, common_distances = [], []
    for key in sorted(set(fixes_a) | set(fixes_b)):
        a, b = fixes_a.get(key), fixes_b.get(key)
        accepted_a = a is not None and a["accepted"] == "1"
        accepted_b = b is not None and b["accepted"] == "1"
        if accepted_a and accepted_b:
            common_distances.append(horizontal_m(a, b))
            continue
        reason_a = None if a is None else (a["reason"] or "accepted")
        reason_b = None if b is None else (b["reason"] or "accepted")
        if reason_a == reason_b:
            continue
        differing.append({
            "frame": key[0],
            "mode": key[1],
            "a": reason_a,
            "b": reason_b,
            "inliers_a": None if a is None else int(float(a["inliers"] or 0)),
            "inliers_b": None if b is None else int(float(b["inliers"] or 0)),
            "inlier_ratio_a": None if a is None else float(a["inlier_ratio"] or 0),
            "inlier_ratio_b": None if b is None else float(b["inlier_ratio"] or 0),
        })
    distances = sorted(common_distances)
    result = {
        "a": summary(args.run_a),
        "b": summary(args.run_b),
        "attempts_only_in_a": len(set(fixes_a) - set(fixes_b)),
        "attempts_only_in_b": len(set(fixes_b) - set(fixes_a)),
        "differing_outcomes": differing,
        "common_fixes": {
            "count": len(distances),
            "rms_m": math.sqrt(sum(d * d for d in distances) / len(distances)) if distances else None,
            "median_m": distances[len(distances) // 2] if distances else None,
            "max_m": distances[-1] if distances else None,
        },
    }
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
