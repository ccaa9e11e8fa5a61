#!/usr/bin/env python3
"""cluster.mpi: `mpirun -np 2 nicsim cluster` gives the same JSON as one process, the
wall-clock fields (wall_seconds, cycles_per_second) aside.

Usage: mpi_equal.py --nicsim NICSIM --mpiexec MPIEXEC SCENARIO [nicsim cluster options...]
"""
import argparse
import json
import subprocess
import sys

WALL_CLOCK = {"wall_seconds", "cycles_per_second"}


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in WALL_CLOCK}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()}")
    return strip(json.loads(out.stdout))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nicsim", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = [a.nicsim, "cluster", *a.args, "--json"]
    one = run(cmd)
    two = run([a.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", "2", *cmd])
    if one != two:
        for key in one:
            if one[key] != two.get(key):
                print(f"FAILED: '{key}' differs between one process and two ranks")
        sys.exit(1)
    if not one["jobs"] or not any(j["iterations"] for j in one["jobs"]):
        sys.exit("FAILED: the run did nothing to compare")
    print(f"two ranks = one process: {len(one['jobs'])} jobs, {len(one['hosts'])} servers, {len(one['links'])} links")


if __name__ == "__main__":
    main()
