#!/usr/bin/env python3
"""Where a policy starves tenants: paired comparison and worst tenants from `nicagent eval`
output (docs/journal/2026-11-27-starvation-validation-draws.md).

Usage: tools/starvation.py EVAL_DIR[:NAME] [EVAL_DIR[:NAME] ...] [--policy NAME] [--behind PCT]

Each EVAL_DIR is the --out folder of one `nicagent eval` (runs.csv, and tenants.csv from eval
at 2026-11-27 on); `:NAME` renames that folder's policy rows (`ppo`) to NAME, so that several
policies evaluated separately on the same scenarios are compared. The folders are read as one
set of runs; a run (scenario, controller, seed) given twice must have the same value (the
baselines are deterministic), else it is an error. Per controller: the mean over scenarios of
the per-scenario mean normalised iteration time (each scenario's mean over seeds, as eval's
family table), the paired gain of the policy (default `ppo`) against every other controller
(per scenario: % lower mean normalised time than the other's, mean over scenarios with a 95 %
Student-t CI whose quantile mirrors sim::student_t_975; eval's "policy paired with each
controller"), and the scenarios where each controller is at least --behind % (default 20)
behind FIFO. With tenants.csv: each controller's mean over scenarios of the worst tenant's
normalised iteration time (the worst scored tenant of each run, mean over seeds), and for each
scenario where a controller is behind FIFO by --behind %, its per-tenant normalised times
against FIFO's (mean over seeds). Only the Python standard library is used.
"""
import argparse
import collections
import csv
import math
import os
import statistics
import sys

# The two-sided 95 % Student-t quantile, t(0.975, df): this mirrors sim::student_t_975
# (sim/src/metrics.cpp), the rule of every CI `nicagent eval` prints, so that a CI here and
# one there agree: the same table to df 30, the same Cornish-Fisher expansion above, written
# in the same order of operations. tests/tools (tools.starvation.t95_matches_cpp) checks the
# two against each other for df 1-300; change both or neither.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t95(df):
    if df < 0:
        raise ValueError(f"t95: {df} degrees of freedom")
    if df == 0:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964  # the normal distribution's 0.975 quantile
    n = float(df)
    return z + (z * z * z + z) / (4 * n) + (5 * math.pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n)


def ci95_half_width(samples):
    """Half-width of the 95 % Student-t CI of the mean of samples, as sim::ci95_half_width;
    None for fewer than two samples."""
    if len(samples) < 2:
        return None
    return t95(len(samples) - 1) * statistics.stdev(samples) / math.sqrt(len(samples))


PairedGain = collections.namedtuple("PairedGain", "mean ci faster slower n")


def paired_gain(x, reference):
    """As sim::paired_gain: per pair the % by which x is lower than reference (positive = x
    faster), their mean and 95 % CI, and how many pairs are faster (> 0) and slower (< 0).
    Pairs with a NaN on either side are left out."""
    if len(x) != len(reference):
        raise ValueError(f"paired_gain: {len(x)} values against {len(reference)} reference values")
    g = [100.0 * (r - v) / r for v, r in zip(x, reference) if not (math.isnan(v) or math.isnan(r))]
    return PairedGain(statistics.mean(g) if g else math.nan, ci95_half_width(g),
                      sum(v > 0 for v in g), sum(v < 0 for v in g), len(g))


def fail(msg):
    sys.exit("starvation.py: " + msg)


def read_csv(path, needed):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    if rows and not needed <= set(rows[0]):
        fail(f"{path}: expected the columns {', '.join(sorted(needed))}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", metavar="EVAL_DIR")
    ap.add_argument("--policy", default="ppo", help="the controller paired with the others (default: ppo)")
    ap.add_argument("--behind", type=float, default=20.0, help="%% behind FIFO that counts as starving (default 20)")
    a = ap.parse_args()

    runs = collections.defaultdict(lambda: collections.defaultdict(list))  # ctrl -> scenario -> [norm]
    worst = collections.defaultdict(lambda: collections.defaultdict(dict))  # ctrl -> scenario -> seed -> worst
    per_tenant = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    seen = {}  # (scenario, controller, seed) -> value, over every folder
    for arg in a.dirs:
        d, _, name = arg.partition(":")
        rename = (lambda c: name if c == "ppo" else c) if name else (lambda c: c)
        here = set()
        rows = read_csv(os.path.join(d, "runs.csv"), {"scenario", "controller", "seed", "norm_iter_time"})
        # A controller with several rows for one (scenario, seed) in one folder is a search
        # (the static oracle writes every configuration it evaluated), not one controller's run.
        per_run = collections.Counter((r["scenario"], rename(r["controller"]), r["seed"]) for r in rows)
        searched = sorted({c for (_, c, _), n in per_run.items() if n > 1})
        if searched:
            print(f"{d}: left out {', '.join(searched)} (several rows per scenario and seed: a search, not one run)",
                  file=sys.stderr)
        for r in rows:
            c, v = rename(r["controller"]), float(r["norm_iter_time"])
            if c in searched:
                continue
            key = (r["scenario"], c, r["seed"])
            if key in seen:
                if key in here or not (seen[key] == v or (math.isnan(v) and math.isnan(seen[key]))):
                    fail(f"{d}/runs.csv: {key[0]} / {c} / seed {key[2]} is given twice with different values")
                continue
            seen[key] = v
            here.add(key)
            runs[c][r["scenario"]].append(v)
        tpath = os.path.join(d, "tenants.csv")
        if os.path.exists(tpath):
            for r in read_csv(tpath, {"scenario", "controller", "seed", "tenant", "norm_iter_time"}):
                c = rename(r["controller"])
                if (r["scenario"], c, r["seed"]) not in here:
                    continue  # a run read from an earlier folder
                v = float(r["norm_iter_time"])
                w = worst[c][r["scenario"]]
                w[r["seed"]] = max(w.get(r["seed"], v), v)
                per_tenant[c][r["scenario"]][r["tenant"]].append(v)
    if "fifo" not in runs:
        fail("no fifo runs: run eval with --baselines fifo ...")
    ctrls = sorted(runs, key=lambda c: (c != "fifo", c))
    scen = sorted(runs["fifo"])
    mean = {c: {s: statistics.mean(v) for s, v in runs[c].items() if not any(math.isnan(x) for x in v)} for c in ctrls}

    print(f"{len(scen)} scenarios ({' '.join(a.dirs)})\n")
    print("| controller | mean norm. iter time | vs FIFO | mean worst tenant | scenarios >= %g %% behind FIFO |" % a.behind)
    print("|---|---|---|---|---|")
    fifo_mean = statistics.mean(mean["fifo"][s] for s in scen)
    behind = {}
    for c in ctrls:
        on = [s for s in scen if s in mean[c] and s in mean["fifo"]]
        m = statistics.mean(mean[c][s] for s in on)
        vs = 100.0 * (fifo_mean - m) / fifo_mean
        w = [statistics.mean(worst[c][s].values()) for s in on if worst[c].get(s)]
        behind[c] = [s for s in on if mean[c][s] >= mean["fifo"][s] * (1 + a.behind / 100.0)]
        listed = ", ".join(f"{s} ({100.0 * (mean['fifo'][s] - mean[c][s]) / mean['fifo'][s]:+.0f} %)" for s in behind[c])
        print(f"| {c} | {m:.4f} | {vs:+.1f} % | {statistics.mean(w):.3f} | {len(behind[c])}{': ' + listed if listed else ''} |"
              if w else f"| {c} | {m:.4f} | {vs:+.1f} % | - | {len(behind[c])}{': ' + listed if listed else ''} |")

    if a.policy in mean:
        print(f"\n| {a.policy} against | {a.policy} faster by (95 % CI) | faster / slower of |")
        print("|---|---|---|")
        for c in ctrls:
            if c == a.policy:
                continue
            on = [s for s in scen if s in mean[c] and s in mean[a.policy]]
            g = paired_gain([mean[a.policy][s] for s in on], [mean[c][s] for s in on])
            ci = math.nan if g.ci is None else g.ci
            print(f"| {c} | {g.mean:+.2f} % ± {ci:.2f} | {g.faster} / {g.slower} of {g.n} |")

    for c in ctrls:
        for s in behind.get(c, []):
            if not per_tenant[c].get(s):
                continue
            tenants = sorted(per_tenant[c][s])
            cells = ", ".join(
                f"{t} {statistics.mean(per_tenant[c][s][t]):.2f} (fifo {statistics.mean(per_tenant['fifo'][s][t]):.2f})"
                for t in tenants if t in per_tenant["fifo"][s])
            print(f"\n{c} on {s}: {cells}")


if __name__ == "__main__":
    main()
