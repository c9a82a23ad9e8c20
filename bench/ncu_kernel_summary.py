#!/usr/bin/env python3
"""Per-kernel-name totals of an Nsight Compute CSV log (ncu --csv --metrics
gpu__time_duration.sum --print-units base), largest first.

    bench/ncu_kernel_summary.py NCU.csv OUT.txt [--top N]

The first line of OUT.txt is "total T ms over K kernels"; then one line per kernel name
(truncated to 110 characters): summed GPU time in ms, launch count, name. Used for the per-kernel
profiles in docs/gpu.md.
"""
import argparse
import collections
import csv

UNIT_TO_MS = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv_log")
    parser.add_argument("out")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    with open(args.csv_log) as f:
        rows = list(csv.reader(line for line in f if line.startswith('"')))
    head = rows[0]
    name, value, unit = head.index("Kernel Name"), head.index("Metric Value"), head.index("Metric Unit")
    total = collections.defaultdict(float)
    count = collections.Counter()
    for row in rows[1:]:
        ms = float(row[value].replace(",", "")) * UNIT_TO_MS.get(row[unit], 1e-6)
        key = row[name][:110]
        total[key] += ms
        count[key] += 1
    with open(args.out, "w") as out:
        out.write("total %.3f ms over %d kernels\n" % (sum(total.values()), sum(count.values())))
        for key, ms in sorted(total.items(), key=lambda kv: -kv[1])[: args.top]:
            out.write("%8.3f ms %5d  %s\n" % (ms, count[key], key))


if __name__ == "__main__":
    main()
