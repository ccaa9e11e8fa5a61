#!/usr/bin/env python3
"""Measured figures of the scenario families (docs/scaling.md, "Family figures").

Usage: tools/family_figures.py [--build DIR] [--count K] [--backend model|rtl] [--write]
                               [FAMILY ...] [--presets PRESET ...]

For each family (default: every sim/families/*.yaml) it draws K scenarios from the family's
first seed with `nicsim gen --json`, runs each with `nicsim run --json --baseline fifo`
(solo baselines included) and reports per family:
  - solo communication share of DDP iterations, measured: 1 - compute / solo iteration time
    (compute from the scenario, solo iteration time from the solo run), and at line rate
    (from the scenario alone, `nicsim gen`'s figure);
  - crypto demand / capacity (from the scenario: what the FL clients would need to run at
    line-rate speed, over slots x bytes/cycle x clock);
  - under FIFO: speed relative to solo (normalised progress) of the training tenants (DDP
    and FL), and crypto and link utilisation.
With --presets it runs each named DDP preset alone (a one-tenant family drawn with
`nicsim gen`) on 25, 50 and 100 Gbit/s links and reports its measured solo communication
share instead (the families too only if named). With --write the tables replace the ones between the family_figures
(and preset_figures) markers in docs/scaling.md; with families named, only their rows are replaced. Only the Python standard library is used.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def fmt_range(values, digits=2):
    if not values:
        return "-"
    return f"{statistics.mean(values):.{digits}f} [{min(values):.{digits}f}, {max(values):.{digits}f}]"


def family_row(nicsim, family_file, count, backend, work, cache):
    name = os.path.splitext(os.path.basename(family_file))[0]
    out = os.path.join(work, name)
    lines = run([nicsim, "gen", "--family", family_file, "--count", str(count), "--out", out, "--json"]).splitlines()
    solo_share, line_share, crypto_demand, link_demand = [], [], [], []
    speed, crypto_util, link_util, tenants = [], [], [], []
    slow_fraction = []
    for line in lines:
        gen = json.loads(line)
        res = json.loads(run([nicsim, "run", gen["file"], "--json", "--baseline", "fifo", "--backend", backend,
                              "--cache-dir", cache]))
        by_name = {t["name"]: t for t in res["tenants"]}
        tenants.append(len(gen["tenants"]))
        line_share.append(gen["ddp_comm_share_line_rate"])
        link_demand.append(gen["link_demand"])
        if any(t["kind"] == "fl" for t in gen["tenants"]):
            crypto_demand.append(gen["crypto_demand"])
        crypto_util.append(res["crypto_utilisation"])
        link_util.append(res["link_utilisation_tx"])
        scenario_speeds = []
        for t in gen["tenants"]:
            m = by_name[t["name"]]
            if t["kind"] == "ddp" and m["solo_iter_mean_us"]:
                solo_share.append(1.0 - t["compute_us"] / m["solo_iter_mean_us"])
            if t["kind"] in ("ddp", "fl") and m["normalised_progress"] is not None:
                scenario_speeds.append(m["normalised_progress"])
        speed.extend(scenario_speeds)
        if scenario_speeds:
            slow_fraction.append(sum(1 for v in scenario_speeds if v <= 0.7) / len(scenario_speeds))
    return (f"| `{name}` | {len(lines)} | {statistics.mean(tenants):.1f} | {fmt_range(solo_share)} | "
            f"{fmt_range(line_share)} | {fmt_range(link_demand)} | {fmt_range(crypto_demand)} | "
            f"{fmt_range(speed)} | {statistics.mean(slow_fraction) if slow_fraction else 0:.2f} | "
            f"{fmt_range(crypto_util)} | {fmt_range(link_util)} |")


def preset_rows(nicsim, presets, backend, work, cache):
    rows = []
    for name in presets:
        cells = []
        for link in (25, 50, 100):
            # A one-tenant family of the preset: `nicsim gen --json` gives its compute time.
            fam = os.path.join(work, f"preset-{name}-{link}.yaml")
            with open(fam, "w") as f:
                f.write(f"name: preset-{name}-{link}\nseeds: {{first: 1, last: 1}}\nduration_s: 30\ntenants: 1\n"
                        f"link_gbps: {link}\nmix: {{ddp: 1}}\nddp: {{model: {name}}}\n")
            gen = json.loads(run([nicsim, "gen", "--family", fam, "--out", os.path.join(work, "presets"), "--json"]))
            res = json.loads(run([nicsim, "run", gen["file"], "--json", "--baseline", "fifo", "--backend", backend,
                                  "--cache-dir", cache]))
            iteration_us = res["tenants"][0]["iter_mean_us"]
            share = 1.0 - gen["tenants"][0]["compute_us"] / iteration_us
            # At scale 1000 a real ms is a simulated us.
            cells.append(f"{iteration_us:.0f} ms, {share * 100:.0f} %")
        rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return ("| preset | 25 Gbit/s: solo iteration (real), comm share | 50 Gbit/s | 100 Gbit/s |\n"
            "| --- | ---: | ---: | ---: |\n" + "\n".join(rows))


def between(doc, marker):
    text = open(doc).read()
    return text[text.index(f"<!-- {marker}:begin -->") + len(f"<!-- {marker}:begin -->"):text.index(f"<!-- {marker}:end -->")]


def replace_between(doc, marker, table):
    text = open(doc).read()
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    i, j = text.index(begin) + len(begin), text.index(end)
    open(doc, "w").write(text[:i] + "\n" + table + "\n" + text[j:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("families", nargs="*")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--backend", default="model", choices=["model", "rtl"])
    ap.add_argument("--write", action="store_true", help="rewrite the table in docs/scaling.md")
    ap.add_argument("--presets", nargs="*", default=[], help="DDP presets to run alone on each link")
    args = ap.parse_args()
    nicsim = os.path.join(args.build, "sim", "nicsim")
    families = args.families
    if not families and not args.presets:  # nothing named: every family
        families = sorted(os.path.join(ROOT, "sim", "families", f)
                          for f in os.listdir(os.path.join(ROOT, "sim", "families")) if f.endswith(".yaml"))
    header = ("| family | scenarios | tenants (mean) | DDP solo comm share, measured | DDP comm share at line rate | "
              "TX link demand | crypto demand / capacity (with FL) | FIFO speed / solo (DDP+FL tenants) | "
              "share of them at <= 0.7 | FIFO crypto utilisation | FIFO link utilisation TX |\n"
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = []
    start = time.time()
    with tempfile.TemporaryDirectory() as work:
        cache = os.path.join(work, "cache")
        if args.presets:
            ptable = preset_rows(nicsim, args.presets, args.backend, work, cache)
            print(ptable)
            if args.write:
                replace_between(os.path.join(ROOT, "docs", "scaling.md"), "preset_figures",
                                f"Measured {time.strftime('%Y-%m-%d')} by `tools/family_figures.py --write --presets "
                                f"{' '.join(args.presets)}` (backend {args.backend}): each preset alone on the NIC, "
                                f"FIFO, 30 s real, 8 workers, no jitter; solo iteration time in real ms (at scale "
                                f"1000 a simulated us) and 1 - compute / iteration.\n\n" + ptable)
        for f in families:
            print(f"family_figures: {f}", file=sys.stderr)
            rows.append(family_row(nicsim, f, args.count, args.backend, work, cache))
    elapsed = time.time() - start
    table = (f"Measured {time.strftime('%Y-%m-%d')} by `tools/family_figures.py --count {args.count} --backend "
             f"{args.backend}{' --write' if args.write else ''}` ({elapsed:.0f} s wall on the shared build machine): "
             f"the first {args.count} seeds of each family, FIFO, full scenario length. Cells are mean [min, max] "
             f"over tenants (comm share, speed) or scenarios (the rest).\n\n" + header + "\n" + "\n".join(rows))
    if rows:
        print(table)
    if args.write and rows and args.families:
        # Families named: their rows replace those of the same family in the table, the
        # others stay as measured, and the table's header says which rows were re-measured.
        doc = os.path.join(ROOT, "docs", "scaling.md")
        old = between(doc, "family_figures").strip().split("\n")
        fresh = {r.split("|")[1].strip(): r for r in rows}
        merged = [fresh.pop(line.split("|")[1].strip(), line) if line.startswith("| `") else line for line in old]
        merged += list(fresh.values())
        names = ", ".join(f"`{n}`" for n in (os.path.splitext(os.path.basename(f))[0] for f in families))
        merged[0] = (merged[0].rstrip(".") + f"; the {names} row(s) re-measured {time.strftime('%Y-%m-%d')} by "
                     f"`tools/family_figures.py --count {args.count} --backend {args.backend} --write "
                     f"{' '.join(os.path.relpath(f, ROOT) for f in families)}` ({elapsed:.0f} s wall).")
        replace_between(doc, "family_figures", "\n".join(merged))
        print(f"family_figures: rewrote the rows of {names} in docs/scaling.md", file=sys.stderr)
    elif args.write and rows:
        replace_between(os.path.join(ROOT, "docs", "scaling.md"), "family_figures", table)
        print("family_figures: wrote the table into docs/scaling.md", file=sys.stderr)


if __name__ == "__main__":
    main()
