#!/usr/bin/env python3
"""tools.cluster_results.*: docs/results/cluster/results.md is what its runs render, its gains are
the paired-gain definition, and a bad row is named.

Usage: test_cluster_results.py CHECK --tool tools/cluster_results.py --root REPO
  committed_page_up_to_date  --render-only --check on the committed folder passes
  gains_match_definition     on runs written here: a combination 10 % and 20 % faster than the
                             reference on two scenarios reads +15.0 % with the Student-t CI
                             12.706 x stdev(10, 20) / sqrt(2) = 63.5; an equal one +0.0 % ± 0.0
  bad_row_named              a seed that is not a number is named with its file and line, exit 1
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

FABRICS = ("random+ecmp", "random+balanced", "vclos")
CONTROLLERS = ("fifo", "progress+guard", "policy")


def run(tool, out, *extra):
    return subprocess.run([sys.executable, tool, "--render-only", "--out", out, *extra], capture_output=True, text=True)


def expect(cond, what):
    if not cond:
        print(f"FAILED: {what}")
        sys.exit(1)


def write_runs(out, jct, seed_text=None):
    """One job per scenario; jct(load, seed, fabric, controller) its JCT and iteration time."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "measured.json"), "w") as f:
        json.dump({"code": "test", "date": "2026-01-01", "runs": 36, "seeds": 2, "threads": 1, "wall_s": 1}, f)
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["load", "seed", "fabric", "controller", "job", "workers", "placed", "wait_ms", "iterations",
                    "iteration_mean_ms", "jct_ms"])
        for load in ("light", "heavy"):
            for seed in (1, 2):
                for fabric in FABRICS:
                    for controller in CONTROLLERS:
                        v = jct(load, seed, fabric, controller)
                        w.writerow([load, seed_text or seed, fabric, controller, "a", 4, 1, "0.000", 3, v, v])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("--tool", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    if a.check == "committed_page_up_to_date":
        r = run(a.tool, os.path.join(a.root, "docs", "results", "cluster"), "--check")
        expect(r.returncode == 0, f"the committed page renders from its runs: {r.stderr.strip()}")
    elif a.check == "gains_match_definition":
        with tempfile.TemporaryDirectory() as tmp:
            def jct(load, seed, fabric, controller):
                ref = 100.0 * seed
                return ref * (1 - 0.1 * seed) if (fabric, controller) == ("vclos", "fifo") else ref
            write_runs(tmp, jct)
            r = run(a.tool, tmp)
            expect(r.returncode == 0, f"renders: {r.stderr.strip()}")
            page = open(os.path.join(tmp, "results.md")).read()
            row = next(line for line in page.splitlines() if line.startswith("| vclos | fifo |"))
            expect(row.count("+15.0 % ± 63.5") == 4, f"vclos/fifo reads +15.0 % ± 63.5 in every cell: {row}")
            row = next(line for line in page.splitlines() if line.startswith("| random+balanced | fifo |"))
            expect(row.count("+0.0 % ± 0.0") == 4, f"an equal combination reads +0.0 % ± 0.0: {row}")
            expect("the reference's mean JCT 0.15 s ± 0.64" in page, "the reference's mean JCT (0.1 and 0.2 s)")
    elif a.check == "bad_row_named":
        with tempfile.TemporaryDirectory() as tmp:
            write_runs(tmp, lambda *k: 1.0, seed_text="x")
            r = run(a.tool, tmp)
            expect(r.returncode == 1 and "runs.csv:2" in r.stderr, f"names the file and line: {r.stderr.strip()}")
    else:
        sys.exit(f"unknown check {a.check}")


if __name__ == "__main__":
    main()
