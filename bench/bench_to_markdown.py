#!/usr/bin/env python3
"""Prints a skytrace-bench-vision JSON report as a Markdown table (for docs/benchmarks.md).

Usage: bench/bench_to_markdown.py bench_vision.json [more.json ...]
"""
import json
import sys


def main(paths):
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        load = report.get("load_average_1min_at_start")
        print(f"`{path}`: {report['device']}, {report['runtime']}, {report['date']}, "
              f"{report['iterations']} iterations after {report['warmup']} warm-up"
              + (f", 1-min load average at start {load}" if load is not None else "") + "\n")
        print("| model | frame | keypoints | extract ms (median / p99) | match ms (median / p99) "
              "| RANSAC ms (median / p99) | total ms (median / p99) | inliers / matches "
              "| corner error px |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in report["results"]:
            def cell(key):
                return f"{r[key]['median']:.1f} / {r[key]['p99']:.1f}"
            print(f"| {r['model']} | {r['width']}x{r['height']} | {r['keypoints']} | "
                  f"{cell('extract_ms')} | {cell('match_ms')} | {cell('ransac_ms')} | "
                  f"{cell('total_ms')} | {r['inliers_median']:.0f} / {r['matches_median']:.0f} | "
                  f"{r['corner_error_px_median']:.2f} |")
        print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
