#!/usr/bin/env python3
"""Paired gains of controllers over each other from nicagent eval runs.csv files.

Usage: compare.py RUNS.csv [RUNS.csv ...] --rows A,B,... [--hindsight A,B,...]

Per run the slowdown against solo (norm_iter_time); per scenario the mean over seeds; the
paired gain of X over Y per scenario is 100 x (Y - X) / Y (positive = X faster), averaged
over scenarios with a 95 % Student-t CI (docs/results.md's definition). --hindsight adds a
row: per scenario the best of the named controllers, chosen on the scored seeds.
"""
import argparse
import csv
import math
import statistics
from collections import defaultdict

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
        20: 2.086, 24: 2.064, 29: 2.045, 39: 2.023}


def t975(df):
    return T975.get(df) or T975[max(k for k in T975 if k <= df)]


def mean_ci(xs):
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, t975(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--rows", required=True)
    ap.add_argument("--hindsight", default="")
    a = ap.parse_args()
    runs = defaultdict(lambda: defaultdict(list))  # scenario -> controller -> [slowdown per seed]
    for f in a.runs:
        with open(f) as fh:
            for r in csv.DictReader(fh):
                runs[r["scenario"]][r["controller"]].append(float(r["norm_iter_time"]))
    rows = a.rows.split(",")
    per = {}  # controller -> scenario -> mean slowdown
    scenarios = sorted(s for s in runs if all(c in runs[s] for c in rows))
    for c in rows:
        per[c] = {s: statistics.fmean(runs[s][c]) for s in scenarios}
    if a.hindsight:
        cands = a.hindsight.split(",")
        per["hindsight"] = {s: min(statistics.fmean(runs[s][c]) for c in cands) for s in scenarios}
        rows.append("hindsight")
    print(f"{len(scenarios)} scenarios; paired gain of the row over the column, % (95 % CI; faster / slower)")
    print("| row | mean slowdown (95 % CI) | " + " | ".join(f"over {c}" for c in rows) + " |")
    print("|---" * (len(rows) + 2) + "|")
    for x in rows:
        m, ci = mean_ci([per[x][s] for s in scenarios])
        cells = []
        for y in rows:
            if x == y:
                cells.append("-")
                continue
            g = [100 * (per[y][s] - per[x][s]) / per[y][s] for s in scenarios]
            gm, gci = mean_ci(g)
            faster = sum(v > 0 for v in g)
            slower = sum(v < 0 for v in g)
            cells.append(f"{gm:+.2f} % ± {gci:.2f} ({faster}/{slower})")
        print(f"| {x} | {m:.3f} ± {ci:.3f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
