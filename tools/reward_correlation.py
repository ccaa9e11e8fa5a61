#!/usr/bin/env python3
"""How well an episode's return tracks the evaluation metric
(docs/journal/2026-11-26-reward-and-metric.md).

Usage: tools/reward_correlation.py RUNS_CSV [RUNS_CSV ...] [--label LABEL ...] [--by-controller]

Each RUNS_CSV is the runs.csv of `nicagent eval --reward-config ENV_YAML ...` (one family,
one reward): a row per run with its metric (norm_iter_time: mean normalised iteration time,
lower is better) and its return under the reward (return, and return_progress: the progress
term's sum alone). For each file it prints one Markdown row with:
  - runs: runs with both a metric and a return;
  - Pearson and Spearman correlation over all runs between the return and minus the metric
    (1: a higher return always means a better run);
  - the same for the progress term's return alone;
  - within a draw: the mean over (scenario, seed) of the Spearman correlation between the
    controllers' returns and minus their metrics on that draw and seed (what a policy
    gradient sees: which decisions are better on the scenario it is in), and the share of
    pairs of controllers on the same draw that the return orders as the metric does
    (metric ties left out).
With --by-controller it prints instead, per file, each controller's mean metric and mean
return over its runs (which controllers the return ranks above which).
Only the Python standard library is used.
"""
import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict


def ranks(xs):
    """Ranks 1..n, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return r


def pearson(x, y):
    if len(x) < 3:
        return math.nan
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan


def spearman(x, y):
    return pearson(ranks(x), ranks(y))


def fmt(v):
    return "n/a" if math.isnan(v) else f"{v:+.2f}"


def summarise(path, label):
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if "return" not in row:
                sys.exit(f"{path}: no 'return' column: run nicagent eval with --reward-config")
            try:
                metric = float(row["norm_iter_time"])
                ret = float(row["return"])
                prog = float(row["return_progress"])
            except ValueError:
                continue
            if any(math.isnan(v) for v in (metric, ret, prog)):
                continue
            rows.append((row["scenario"], row["seed"], row["controller"], metric, ret, prog, row["reward"]))
    if not rows:
        sys.exit(f"{path}: no run with a metric and a return")
    good = [-r[3] for r in rows]
    ret = [r[4] for r in rows]
    prog = [r[5] for r in rows]
    draws = defaultdict(list)
    for r in rows:
        draws[(r[0], r[1])].append(r)
    within, agree, pairs = [], 0, 0
    for runs in draws.values():
        if len(runs) >= 3:
            rho = spearman([r[4] for r in runs], [-r[3] for r in runs])
            if not math.isnan(rho):
                within.append(rho)
        for i in range(len(runs)):
            for j in range(i + 1, len(runs)):
                dm = runs[i][3] - runs[j][3]
                if dm == 0:
                    continue
                pairs += 1
                agree += 1 if (runs[i][4] - runs[j][4]) * -dm > 0 else 0
    reward = rows[0][6]
    return (f"| {label} | {reward} | {len(rows)} | {fmt(pearson(ret, good))} | {fmt(spearman(ret, good))} | "
            f"{fmt(pearson(prog, good))} | {fmt(spearman(prog, good))} | "
            f"{fmt(statistics.fmean(within) if within else math.nan)} | "
            f"{100.0 * agree / pairs if pairs else math.nan:.0f} % of {pairs} |")


def by_controller(path, label):
    sums = defaultdict(lambda: [[], []])
    reward = "?"
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                metric, ret = float(row["norm_iter_time"]), float(row["return"])
            except (KeyError, ValueError):
                continue
            if math.isnan(metric) or math.isnan(ret):
                continue
            reward = row["reward"]
            sums[row["controller"]][0].append(metric)
            sums[row["controller"]][1].append(ret)
    for name, (m, r) in sums.items():
        print(f"| {label} | {reward} | {name} | {len(m)} | {statistics.fmean(m):.3f} | {statistics.fmean(r):.1f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="runs.csv files of nicagent eval --reward-config")
    ap.add_argument("--label", nargs="*", default=[], help="a label per file (default: its folder)")
    ap.add_argument("--by-controller", action="store_true", help="mean metric and return per controller")
    a = ap.parse_args()
    labels = [a.label[k] if k < len(a.label) else path.rsplit("/", 2)[-2] if "/" in path else path
              for k, path in enumerate(a.runs)]
    if a.by_controller:
        print("| family | reward | controller | runs | mean metric (lower is better) | mean return |")
        print("|---|---|---|---|---|---|")
        for path, label in zip(a.runs, labels):
            by_controller(path, label)
        return
    print("| family | reward | runs | Pearson | Spearman | Pearson (progress term) | Spearman (progress term) "
          "| within a draw (Spearman) | pairs on a draw ordered as the metric |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path, label in zip(a.runs, labels):
        print(summarise(path, label))


if __name__ == "__main__":
    main()
