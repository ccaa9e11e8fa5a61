#!/usr/bin/env python3
"""docs/results/cluster/: what fabric placement and routing and NIC scheduling each win, alone
and together, on clusters drawn at random (docs/cluster.md, "Results").

For each load (light, heavy) and seed, a cluster scenario is drawn (the draw below, written to
docs/results/cluster/scenarios/LOAD-SEED.yaml) and run by `nicsim cluster --json` under every
combination of a fabric policy and a NIC controller:

  fabric   random placement + ECMP (a scheduler that ignores the topology, the reference),
           random placement + balanced routing, vClos placement (its own spines)
  NIC      fifo (a plain NIC), progress+guard (the best heuristic of docs/results.md), and
           the committed learned policy (agent/policies/default, run by `nicagent cluster`)

Per scenario and combination: the mean job completion time (arrival to the last iteration's
end, the wait for room included) over the jobs that completed in every combination of that
scenario, and the mean over jobs of each job's mean iteration time. Per load: each
combination's paired gain against the reference over the scenarios (the % by which its mean
is lower, mean and 95 % Student-t CI over scenarios, tools/starvation.py's paired_gain).

The draw (per load and seed, Python's random.Random(seed * 10 + load index)):
  fabric     4 leaves x 2 spines; 2, 4 or 8 servers per leaf (8-32 servers); 4 or 8 GPUs
             per server; 100 Gbit/s server links; leaf-spine links at 1x or 0.5x the leaf's
             server bandwidth over the spines (1:1 or 2:1 oversubscription); 1 MiB port
             buffers; 1 us link latency
  jobs       DDP (model preset resnet50, bert, vgg16 or gpt), workers 4-32 (at most a
             quarter of the GPUs), 3-8 iterations, arriving uniformly over the first 2 s;
             light: jobs asking for about 60 % of the GPUs in all, heavy: about 150 %
  pinned     two FL clients and one background stream through the fabric (10-40 Gbit/s)
  run        scale 1000, 12 s of the real cluster, clock 250 MHz, NIC model backend

Usage: tools/cluster_results.py --nicsim BUILD/sim/nicsim --nicagent BUILD/agent/nicagent [--seeds 5]
                                [--threads 2] [--code HASH] [--policy agent/policies/default]
                                [--out docs/results/cluster]
       tools/cluster_results.py --render-only [--check] [--out ...]
Writes OUT/scenarios/*.yaml, OUT/runs.csv, OUT/measured.json (date, code, settings, wall
time) and OUT/results.md, which --render-only rebuilds from runs.csv and measured.json alone
(--check: the committed page against the committed runs, as tests/tools does). Exit 0, or 1
with a message.
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from starvation import ci95_half_width, paired_gain  # noqa: E402  (one definition of the CI)

LOADS = (("light", 0.6), ("heavy", 1.5))
FABRICS = (("random+ecmp", "random", "ecmp"), ("random+balanced", "random", "balanced"), ("vclos", "vclos", "ecmp"))
CONTROLLERS = ("fifo", "progress+guard", "policy")
REFERENCE = ("random+ecmp", "fifo")
MODELS = ("resnet50", "bert", "vgg16", "gpt")


def draw(load_index, share, seed):
    """The cluster scenario of (load, seed) as YAML text."""
    rng = random.Random(seed * 10 + load_index)
    per_leaf = rng.choice((2, 4, 8))
    gpus = rng.choice((4, 8))
    servers = 4 * per_leaf
    total = servers * gpus
    uplink = per_leaf * 100 / 2 * rng.choice((1.0, 0.5))  # 2 spines: 1:1 or 2:1
    lines = [
        f"# drawn by tools/cluster_results.py: load {LOADS[load_index][0]}, seed {seed}",
        f"name: {LOADS[load_index][0]}-{seed}",
        f"seed: {seed}",
        "scale: 1000",
        "duration_s: 12",
        "clock_mhz: 250",
        "link_gbps: 100",
        "nic: {tenants: 8, crypto_slots: 4, backend: model}",
        f"fabric: {{leaves: 4, spines: 2, hosts_per_leaf: {per_leaf}, gpus_per_host: {gpus}, "
        f"uplink_gbps: {uplink:g}, port_buffer_kb: 1024, link_latency_ns: 1000}}",
        "tenants:",
    ]
    asked = 0
    j = 0
    while asked < share * total:
        workers = min(rng.choice((4, 8, 12, 16, 24, 32)), max(2, total // 4))
        model = rng.choice(MODELS)
        start = rng.uniform(0, 2000)
        iterations = rng.randint(3, 8)
        lines.append(f"  - {{name: job{j}, type: ddp, model: {model}, workers: {workers}, "
                     f"iterations: {iterations}, start_ms: {start:.1f}, jitter: 0.05}}")
        asked += workers
        j += 1
    fl_hosts = rng.sample(range(servers), 2)
    for k, h in enumerate(fl_hosts):
        lines.append(f"  - {{name: fl{k}, type: fl, host: {h}, update_mb: 20, train_ms: 500, expansion: 2.0}}")
    src, dst = rng.sample(range(servers), 2)
    lines.append(f"  - {{name: bg, type: background, host: {src}, to_host: {dst}, pattern: poisson, "
                 f"rate_gbps: {rng.choice((10, 20, 40))}}}")
    return "\n".join(lines) + "\n"


def run(programs, scenario, fabric, controller):
    _, placement, routing = next(f for f in FABRICS if f[0] == fabric)
    if controller == "policy":  # needs libtorch: nicagent runs it
        cmd = [programs["nicagent"], "cluster", scenario, "--policy", programs["policy"]]
    else:
        cmd = [programs["nicsim"], "cluster", scenario, "--baseline", controller]
    out = subprocess.run(cmd + ["--placement", placement, "--routing", routing, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cluster_results: nicsim cluster {scenario} ({fabric}, {controller}) failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def fmt_gain(g):
    if g.n == 0 or math.isnan(g.mean):
        return "-"
    ci = f" ± {g.ci:.1f}" if g.ci is not None else ""
    return f"{g.mean:+.1f} %{ci}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nicsim", help="nicsim to run (not needed with --render-only)")
    ap.add_argument("--nicagent", help="nicagent to run the policy with (not needed with --render-only)")
    ap.add_argument("--policy", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "agent",
                                                      "policies", "default"), help="exported policy folder")
    ap.add_argument("--render-only", action="store_true", help="re-render results.md from runs.csv alone")
    ap.add_argument("--check", action="store_true",
                    help="with --render-only: write nothing, exit 1 when results.md differs from the render")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "results",
                                                   "cluster"))
    ap.add_argument("--code", default="unknown", help="the commit measured, for the page")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    if a.render_only:
        text = render(out)
        if a.check:
            with open(os.path.join(out, "results.md")) as f:
                if f.read() != text:
                    sys.exit(f"cluster_results: {out}/results.md differs from the render of runs.csv "
                             "(tools/cluster_results.py --render-only rewrites it)")
            return
        write_page(out)
        return
    if not a.nicsim or not a.nicagent:
        ap.error("--nicsim and --nicagent are required (or --render-only)")
    os.makedirs(os.path.join(out, "scenarios"), exist_ok=True)
    t0 = time.time()

    tasks = []
    for li, (load, share) in enumerate(LOADS):
        for seed in range(1, a.seeds + 1):
            path = os.path.join(out, "scenarios", f"{load}-{seed}.yaml")
            with open(path, "w") as f:
                f.write(draw(li, share, seed))
            for fabric, _, _ in FABRICS:
                for controller in CONTROLLERS:
                    tasks.append((load, seed, path, fabric, controller))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(a.threads) as pool:
        programs = {"nicsim": a.nicsim, "nicagent": a.nicagent, "policy": a.policy}
        futures = {pool.submit(run, programs, t[2], t[3], t[4]): t for t in tasks}
        for fut in concurrent.futures.as_completed(futures):
            load, seed, _, fabric, controller = futures[fut]
            results[(load, seed, fabric, controller)] = fut.result()

    rows = []
    for (load, seed, fabric, controller), r in sorted(results.items()):
        for j in r["jobs"]:
            rows.append({"load": load, "seed": seed, "fabric": fabric, "controller": controller, "job": j["name"],
                         "workers": j["workers"], "placed": int(j["placed"]), "wait_ms": f"{j['wait_ms']:.3f}",
                         "iterations": j["iterations"],
                         "iteration_mean_ms": f"{j['iteration_mean_ms']:.3f}" if "iteration_mean_ms" in j else "",
                         "jct_ms": f"{j['jct_ms']:.3f}" if "jct_ms" in j else ""})
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    measured = {"date": time.strftime("%Y-%m-%d", time.gmtime()), "code": a.code, "seeds": a.seeds,
                "threads": a.threads, "runs": len(tasks), "wall_s": round(time.time() - t0)}
    with open(os.path.join(out, "measured.json"), "w") as f:
        json.dump(measured, f, indent=1, sort_keys=True)
        f.write("\n")
    write_page(out)


def read_runs(out):
    """runs.csv as {(load, seed, fabric, controller): {job: row}}; exits naming the file on a bad row."""
    path = os.path.join(out, "runs.csv")
    runs = {}
    with open(path, newline="") as f:
        for n, row in enumerate(csv.DictReader(f), 2):
            try:
                key = (row["load"], int(row["seed"]), row["fabric"], row["controller"])
                runs.setdefault(key, {})[row["job"]] = {
                    "jct_ms": float(row["jct_ms"]) if row["jct_ms"] else None,
                    "iteration_mean_ms": float(row["iteration_mean_ms"]) if row["iteration_mean_ms"] else None}
            except (KeyError, ValueError) as e:
                sys.exit(f"cluster_results: {path}:{n}: {e}")
    return runs


def render(out):
    """results.md's text from runs.csv and measured.json alone."""
    runs = read_runs(out)
    with open(os.path.join(out, "measured.json")) as f:
        m = json.load(f)
    seeds = sorted({k[1] for k in runs})
    combos = [(f, c) for f, _, _ in FABRICS for c in CONTROLLERS]
    md = ["# Cluster results: fabric placement and routing, and NIC scheduling", "",
          "Generated by `tools/cluster_results.py` (docs/cluster.md, \"Results\"); do not edit.", "",
          "| measured | code | command | runs | wall |", "| --- | --- | --- | ---: | ---: |",
          f"| {m['date']} | {m['code']} | `tools/cluster_results.py --nicsim build/sim/nicsim --nicagent "
          f"build/agent/nicagent --seeds {m['seeds']}` "
          f"| {m['runs']} | {m['wall_s']} s on {m['threads']} threads |", "",
          "Scenarios: [scenarios/](scenarios/); every job of every run: [runs.csv](runs.csv).", "",
          "Each cell: the % by which the combination's mean job completion time (JCT, wait included) is lower than "
          f"{REFERENCE[0]} with {REFERENCE[1]} NICs, paired per scenario, mean and 95 % CI over the {len(seeds)} "
          "scenarios of the load; positive is faster. In brackets the same for the mean iteration time. Jobs count "
          "where they completed (for JCT) or iterated (for iteration time) in every combination of their scenario "
          "(how many, per load, below the table).", ""]
    md.append("| fabric | NIC | " + " | ".join(f"{load}: JCT (iteration time)" for load, _ in LOADS) + " |")
    md.append("| --- | --- | " + " | ".join("---:" for _ in LOADS) + " |")
    counted, per = {}, {}
    for load, _ in LOADS:
        for seed in seeds:
            jobs = {c: runs[(load, seed, c[0], c[1])] for c in combos}
            done = set.intersection(*({n for n, j in r.items() if j["jct_ms"] is not None} for r in jobs.values()))
            iterated = set.intersection(*({n for n, j in r.items() if j["iteration_mean_ms"] is not None}
                                          for r in jobs.values()))
            counted.setdefault(load, []).append((len(done), len(jobs[REFERENCE])))
            for c, r in jobs.items():
                jct = [r[n]["jct_ms"] for n in sorted(done)]
                it = [r[n]["iteration_mean_ms"] for n in sorted(iterated)]
                per.setdefault((load, c), []).append((statistics.mean(jct) if jct else math.nan,
                                                     statistics.mean(it) if it else math.nan))
    for c in combos:
        cells = []
        for load, _ in LOADS:
            x, ref = per[(load, c)], per[(load, REFERENCE)]
            g_jct = paired_gain([v[0] for v in x], [v[0] for v in ref])
            g_it = paired_gain([v[1] for v in x], [v[1] for v in ref])
            cells.append(f"{fmt_gain(g_jct)} ({fmt_gain(g_it)})")
        md.append(f"| {c[0]} | {c[1]} | " + " | ".join(cells) + " |")
    md.append("")
    for load, _ in LOADS:
        done = sum(d for d, _ in counted[load])
        total = sum(t for _, t in counted[load])
        ref_jct = [v[0] / 1e3 for v in per[(load, REFERENCE)] if not math.isnan(v[0])]
        ci = ci95_half_width(ref_jct)
        md.append(f"- {load}: {done} of {total} jobs completed in every combination and count for JCT; the "
                  f"reference's mean JCT {statistics.mean(ref_jct):.2f} s" + (f" ± {ci:.2f}" if ci is not None else "")
                  + " (real time, mean over scenarios).")
    return "\n".join(md) + "\n"


def write_page(out):
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(render(out))
    print(f"cluster_results: wrote {out}/results.md")


if __name__ == "__main__":
    main()
