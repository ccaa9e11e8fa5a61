#!/usr/bin/env python3
"""Per-draw choice among strategies made on one workload seed and scored on the other (two
seeds), against a reference controller, paired over draws with a 95 % Student-t CI: what a
perfect scenario-level label is worth on draws it was not made on.
Usage: loo.py RUNS.csv [RUNS.csv ...] --strategies A,B,... --against C"""
import argparse
import csv
import math
import statistics
from collections import defaultdict

T975 = {19: 2.093, 9: 2.262, 39: 2.023}

ap = argparse.ArgumentParser()
ap.add_argument("runs", nargs="+")
ap.add_argument("--strategies", required=True)
ap.add_argument("--against", required=True)
a = ap.parse_args()
v = defaultdict(dict)  # (scenario, controller) -> seed -> slowdown
for f in a.runs:
    for r in csv.DictReader(open(f)):
        v[(r["scenario"], r["controller"])][int(r["seed"])] = float(r["norm_iter_time"])
cands = a.strategies.split(",")
scen = sorted({s for s, c in v if c == a.against})
gains = []
for s in scen:
    seeds = sorted(v[(s, a.against)])
    picked = []
    for k in seeds:
        other = [x for x in seeds if x != k]
        best = min(cands, key=lambda c: statistics.fmean(v[(s, c)][x] for x in other))
        picked.append(v[(s, best)][k])
    ours = statistics.fmean(picked)
    ref = statistics.fmean(v[(s, a.against)][k] for k in seeds)
    gains.append(100 * (ref - ours) / ref)
m = statistics.fmean(gains)
ci = T975.get(len(gains) - 1, 2.0) * statistics.stdev(gains) / math.sqrt(len(gains))
print(f"{len(gains)} draws: choice on the other seed over `{a.against}`: {m:+.2f} % ± {ci:.2f} "
      f"({sum(g > 0 for g in gains)} faster / {sum(g < 0 for g in gains)} slower)")
