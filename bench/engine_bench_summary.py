#!/usr/bin/env python3
"""Prints engine benchmark reports (skytrace-bench-engine / skytrace-cli bench JSON) as
Markdown tables: per mode the end-to-end fps, VO frame and satellite keyframe p50 (p99),
the stage p50s and the keyframe counts; then the summary ratios issue 7's targets are
stated in. Times in ms.

Usage: bench/engine_bench_summary.py bench.json [more.json ...]
"""
import json
import math
import sys

STAGES = ["decode", "upload", "extract", "match", "pose", "retrieval", "fine_match"]


def number(value, digits=2):
    if isinstance(value, (int, float)) and math.isfinite(value):
        return f"{value:.{digits}f}"
    return "-"


def distribution(entry):
    if not isinstance(entry, dict) or "p50_ms" not in entry:
        return "-"
    return f"{number(entry['p50_ms'])} ({number(entry['p99_ms'])})"


def main(paths):
    for path in paths:
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, ValueError) as error:
            print(f"`{path}`: unreadable ({error})\n")
            continue
        workload = report.get("workload", {})
        print(f"`{path}`: {report.get('date_utc', '?')}, devices {report.get('cuda_devices', '?')}, "
              f"tf32 {workload.get('tf32', False)}, cuDNN autotune {workload.get('cudnn_autotune', False)}, "
              f"ALIKED fused kernels {workload.get('aliked_fused_kernels', False)}, "
              f"ALIKED float16 {workload.get('aliked_float16', False)}, "
              f"paced at {workload.get('pace_fps') or 'free-running'} fps, "
              f"satellite SM limit {workload.get('satellite_sm_limit') or 'none'}, keyframe policy "
              f"{workload.get('keyframe_policy', 'latest')}, VO {workload.get('vo_model', '?')}, "
              f"satellite {workload.get('satellite_model', '?')}\n")
        print("| mode | fps | VO frame | satellite keyframe | " + " | ".join(STAGES) +
              " | keyframes requested / processed / dropped |")
        print("|---|---|---|---|" + "---|" * len(STAGES) + "---|")
        for mode in report.get("modes", []):
            if "skipped" in mode:
                print(f"| {mode['mode']} | skipped: {mode['skipped']} |")
                continue
            stages = mode.get("stages", {})
            cells = [number(stages.get(s, {}).get("p50_ms")) for s in STAGES]
            keyframes = mode.get("keyframes", {})
            error = f" error: {mode['error']}" if mode.get("error") else ""
            print(f"| {mode['mode']}{error} | {number(mode.get('fps'), 1)} | "
                  f"{distribution(mode.get('vo_frame'))} | "
                  f"{distribution(mode.get('satellite_keyframe'))} | " + " | ".join(cells) +
                  f" | {keyframes.get('requested', '-')} / {keyframes.get('processed', '-')} / "
                  f"{keyframes.get('dropped', '-')} |")
        print()
        for mode in report.get("modes", []):
            slowest = mode.get("slowest_vo_frames")
            if slowest:
                cells = ["frame %d %.2f ms (%s)" % (f["frame"], f["vo_ms"], ", ".join(
                    "%s %.2f" % (k, v) for k, v in f.get("stages", {}).items())) for f in slowest]
                print(f"- slowest VO frames, {mode['mode']}: " + "; ".join(cells))
            slowest = mode.get("slowest_satellite_keyframes")
            if slowest:
                cells = ["frame %d %.2f ms (%s)" % (f["frame"], f["stages_ms"], ", ".join(
                    "%s %.2f" % (k, v) for k, v in f.get("stages", {}).items())) for f in slowest]
                print(f"- slowest satellite keyframes, {mode['mode']}: " + "; ".join(cells))
        for key, value in report.get("summary", {}).items():
            print(f"- {key}: {number(value, 3) if isinstance(value, (int, float)) else value}")
        h2d = report.get("h2d", {})
        if h2d:
            print(f"- h2d: {json.dumps(h2d)[:300]}")
        print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1:])
