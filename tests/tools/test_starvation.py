#!/usr/bin/env python3
"""Checks of tools/starvation.py (tests/tools/CMakeLists.txt registers them as ctest tests).

  t95_matches_cpp         starvation.t95(df) equals sim::student_t_975(df), as printed by
                          print_student_t, to 1e-9 for df 1-300: the two definitions of the
                          quantile have not drifted apart.
  paired_gain_end_to_end  the tool, run on two eval folders written here (runs.csv and
                          tenants.csv, 32 scenarios x 3 seeds, values drawn from a fixed seed),
                          prints for the policy against each other controller the paired gain
                          and 95 % CI that this file computes from the definition: per
                          scenario the % gain of the policy's mean over seeds against the
                          other's, their mean, and t(0.975, n-1) x sample sd / sqrt(n) with t
                          from print_student_t.

  search_rows_left_out   a folder whose runs.csv has several rows per (scenario, seed) for one
                          controller (the static oracle writes every configuration it tried)
                          is read with that controller left out and named on stderr, the
                          others' table unchanged; a run repeated across folders with another
                          value is still an error that names it.

The first two can fail on a wrong quantile. A wrong quantile fails both: tried by hand (2026-11-27) by putting the old
"next tabulated df above" rule back into starvation.t95 (2.021 for df 31-40, 2.000 for 41-60,
1.980 for 61-120, 1.960 above): t95_matches_cpp reported df 31-300 (270 of 300 quantiles), and
paired_gain_end_to_end each of the three CIs (6.89 printed against 6.95 by the definition, ...;
32 scenarios: df 31, where the old rule gives 2.021 and the C++ rule 2.0394).
The fixture is sized so that it can see that difference: the test first checks that each CI,
recomputed with 2.021, would differ from the right one by more than the printed precision,
and fails if not.

Usage: test_starvation.py CHECK --tool tools/starvation.py --student-t PRINT_STUDENT_T
Exit: 0 pass, 1 fail (the failures on stderr).
"""
import argparse
import csv
import importlib.util
import math
import os
import random
import re
import subprocess
import sys
import tempfile

MAX_DF = 300
SCENARIOS = 32  # df 31: the first df past the table, where the old rule (2.021) was furthest off
SEEDS = (1, 2, 3)


def cpp_quantiles(exe):
    out = subprocess.run([exe, str(MAX_DF)], check=True, capture_output=True, text=True).stdout
    t = {}
    for line in out.splitlines():
        df, value = line.split()
        t[int(df)] = float(value)
    if sorted(t) != list(range(1, MAX_DF + 1)):
        sys.exit(f"{exe}: expected df 1-{MAX_DF}, got {len(t)} lines")
    return t


def load_tool(path):
    spec = importlib.util.spec_from_file_location("starvation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def t95_matches_cpp(a):
    t = cpp_quantiles(a.student_t)
    tool = load_tool(a.tool)
    bad = [(df, tool.t95(df), t[df]) for df in sorted(t) if not abs(tool.t95(df) - t[df]) <= 1e-9]
    for df, py, cpp in bad:
        print(f"df {df}: starvation.t95 {py!r}, sim::student_t_975 {cpp!r}", file=sys.stderr)
    if bad:
        print(f"{len(bad)} of {len(t)} quantiles differ: tools/starvation.py no longer mirrors "
              "sim::student_t_975 (sim/src/metrics.cpp)", file=sys.stderr)
        return 1
    print(f"starvation.t95 == sim::student_t_975 for df 1-{MAX_DF}")
    return 0


def write_eval(folder, runs):
    """runs: {(scenario, controller, seed): [per-tenant norm. iter times]}; the run's value is
    their mean, as eval's score_run."""
    os.makedirs(folder)
    with open(os.path.join(folder, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "controller", "seed", "norm_iter_time"])
        for (s, c, seed), tenants in sorted(runs.items()):
            w.writerow([s, c, seed, repr(sum(tenants) / len(tenants))])
    with open(os.path.join(folder, "tenants.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "controller", "seed", "tenant", "kind", "norm_iter_time", "finished"])
        for (s, c, seed), tenants in sorted(runs.items()):
            for i, v in enumerate(tenants):
                w.writerow([s, c, seed, f"t{i}", "ddp", repr(v), 1])


def mean(xs):
    return sum(xs) / len(xs)


def paired(policy, other):
    """policy, other: {scenario: [value per seed]} -> (mean gain %, sample sd of the gains, n,
    draws faster, draws slower), faster / slower counted as sim::paired_gain does (> 0, < 0)."""
    g = [100.0 * (mean(other[s]) - mean(policy[s])) / mean(other[s]) for s in sorted(policy)]
    m = mean(g)
    sd = math.sqrt(sum((x - m) ** 2 for x in g) / (len(g) - 1))
    return m, sd, len(g), sum(x > 0 for x in g), sum(x < 0 for x in g)


def paired_gain_end_to_end(a):
    t = cpp_quantiles(a.student_t)
    rng = random.Random(15)
    values = {c: {} for c in ("fifo", "progress", "base", "cand")}  # controller -> scenario -> [per seed]
    folder_a, folder_b = {}, {}  # eval A: fifo, progress, ppo (named base); eval B: fifo, ppo (named cand)
    for i in range(SCENARIOS):
        s = f"train-{900000 + i}"
        fifo = rng.uniform(1.1, 3.0)
        factor = {"fifo": 1.0, "progress": rng.uniform(0.7, 1.5), "base": rng.uniform(0.75, 1.3),
                  "cand": rng.uniform(0.7, 1.3)}
        fifo_runs = {}
        for c, f in factor.items():
            values[c][s] = []
            for seed in SEEDS:
                tenants = [fifo * f * rng.uniform(0.9, 1.1) for _ in range(rng.randint(2, 4))]
                if c == "fifo":
                    fifo_runs[seed] = tenants
                if c == "cand" and i == 0:
                    # 0.05 % faster than FIFO: counts as faster (> 0, as eval), which a
                    # threshold such as the tool's old +-0.1 % would miss
                    tenants = [v * 0.9995 for v in fifo_runs[seed]]
                values[c][s].append(sum(tenants) / len(tenants))
                name = "ppo" if c in ("base", "cand") else c
                if c != "cand":
                    folder_a[(s, name, seed)] = tenants
                if c in ("fifo", "cand"):
                    folder_b[(s, name, seed)] = tenants  # fifo in both: the tool must accept equal repeats

    with tempfile.TemporaryDirectory() as tmp:
        write_eval(os.path.join(tmp, "ev-a"), folder_a)
        write_eval(os.path.join(tmp, "ev-b"), folder_b)
        out = subprocess.run([sys.executable, a.tool, os.path.join(tmp, "ev-a") + ":base",
                              os.path.join(tmp, "ev-b") + ":cand", "--policy", "cand"],
                             check=True, capture_output=True, text=True).stdout

    rows = {}
    if "| cand against |" not in out:
        print(f"no paired table for cand in the tool's output:\n{out}", file=sys.stderr)
        return 1
    section = out[out.index("| cand against |"):]
    row = re.compile(r"^\| (\w+) \| ([+-]\d+\.\d+) % ± (\d+\.\d+) \| (\d+) / (\d+) of (\d+) \|$", re.M)
    for m in row.finditer(section):
        rows[m.group(1)] = (float(m.group(2)), float(m.group(3)), int(m.group(6)), int(m.group(4)),
                            int(m.group(5)))
    failures = []
    if sorted(rows) != ["base", "fifo", "progress"]:
        failures.append(f"expected rows for base, fifo, progress in:\n{section}")
    for other in ("fifo", "progress", "base"):
        gain, sd, n, faster, slower = paired(values["cand"], values[other])
        ci = t[n - 1] * sd / math.sqrt(n)
        old_rule_ci = 2.021 * sd / math.sqrt(n)  # what the tool printed before it mirrored the C++ rule
        if not abs(old_rule_ci - ci) > 0.015:
            failures.append(f"fixture too weak: against {other} the CI {ci:.4f} and the old rule's "
                            f"{old_rule_ci:.4f} print alike, a wrong quantile would pass")
        if other not in rows:
            continue
        got_gain, got_ci, got_n, got_faster, got_slower = rows[other]
        # The tool prints two decimals: each figure within half a unit of the last place.
        if (got_n != n or abs(got_gain - gain) > 0.005 + 1e-9 or abs(got_ci - ci) > 0.005 + 1e-9 or
                (got_faster, got_slower) != (faster, slower)):
            failures.append(f"cand against {other}: tool {got_gain:+.2f} % ± {got_ci:.2f}, "
                            f"{got_faster} / {got_slower} of {got_n}, definition {gain:+.4f} % ± {ci:.4f}, "
                            f"{faster} / {slower} of {n} (t({n - 1}) = {t[n - 1]:.6f})")
        else:
            print(f"cand against {other}: {got_gain:+.2f} % ± {got_ci:.2f} of {got_n} "
                  f"(definition {gain:+.4f} % ± {ci:.4f})")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


def search_rows_left_out(a):
    failures = []
    runs = {(f"train-{900000 + i}", c, seed): [1.0 + 0.1 * i + 0.01 * seed + (0.05 if c == "ppo" else 0.0)]
            for i in range(3) for c in ("fifo", "ppo") for seed in SEEDS}
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "ev")
        write_eval(folder, runs)
        with open(os.path.join(folder, "runs.csv"), "a", newline="") as f:
            w = csv.writer(f)
            for i in range(3):
                for seed in SEEDS:
                    for config in range(3):  # three configurations tried per run
                        w.writerow([f"train-{900000 + i}", "oracle", seed, repr(0.9 + 0.1 * config)])
        r = subprocess.run([sys.executable, a.tool, folder], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"the tool failed on a folder with oracle search rows:\n{r.stderr}")
        else:
            if "left out oracle" not in r.stderr:
                failures.append(f"the tool did not name the left-out search on stderr:\n{r.stderr}")
            if "| oracle |" in r.stdout:
                failures.append(f"the oracle's search rows were read as one controller's runs:\n{r.stdout}")
            if "| ppo | 1.1700 |" not in r.stdout:
                failures.append(f"ppo's mean (1.1700 by construction) is not in the table:\n{r.stdout}")
        other = os.path.join(tmp, "ev2")
        changed = dict(runs)
        changed[("train-900001", "fifo", 2)] = [5.0]
        write_eval(other, changed)
        r = subprocess.run([sys.executable, a.tool, folder, other], capture_output=True, text=True)
        if r.returncode == 0 or "train-900001 / fifo / seed 2" not in r.stderr:
            failures.append(f"a run repeated with another value was not named as an error: rc {r.returncode}, "
                            f"stderr {r.stderr!r}")
    for f in failures:
        print(f, file=sys.stderr)
    if not failures:
        print("oracle search rows left out and named; a conflicting repeat is an error")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("check", choices=["t95_matches_cpp", "paired_gain_end_to_end", "search_rows_left_out"])
    ap.add_argument("--tool", required=True, help="tools/starvation.py")
    ap.add_argument("--student-t", required=True, help="the print_student_t executable")
    a = ap.parse_args()
    return {"t95_matches_cpp": t95_matches_cpp, "paired_gain_end_to_end": paired_gain_end_to_end,
            "search_rows_left_out": search_rows_left_out}[a.check](a)


if __name__ == "__main__":
    sys.exit(main())
