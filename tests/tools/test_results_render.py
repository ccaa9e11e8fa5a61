#!/usr/bin/env python3
"""Checks of tools/results_render.py (tests/tools/CMakeLists.txt registers them as ctest tests).

  headline_matches_definition  renders from a runs.csv written here (8 scenarios x 3 seeds:
                               fifo, two heuristics, the policy, three oracle configurations
                               each; values drawn from a fixed seed, scenario 0 built by hand)
                               and checks every headline figure against the definition,
                               computed here: per-scenario means over seeds, the family mean
                               and its CI (t from print_student_t, i.e. sim::student_t_975),
                               the paired gains and their CIs, the best single heuristic, the
                               oracle and the hindsight choice chosen on the scored seeds and
                               on the other seeds, the lookahead oracle's row, and the goal
                               table's row (the policy's and the lookahead oracle's paired gains
                               over the best single heuristic, the share of that room, met or
                               missed). Scenario 0 has known answers: the hindsight
                               choice is 1.3 on the scored seeds and (1.3 + 1.3 + 2.0) / 3 on
                               the other seeds, the oracle 1.2 and (1.2 + 1.2 + 1.8) / 3.
  committed_page_up_to_date    rendering from the committed docs/results/families/*/runs.csv
                               and measured.txt gives the committed docs/results.md byte for
                               byte (drift: the page was edited by hand, or the runs changed
                               and the page was not re-rendered).
  bad_input_named              a bad value, a missing seed and a bad measured.txt each stop
                               the render with a message naming the file (and line), and
                               nothing is written.

Each can fail: tried by hand (2026-11-27) by scoring the held-out choice on the seeds it was
chosen on (headline_matches_definition reported scenario 0's 1.3 against 1.5333 and the family
rows), by editing one figure of docs/results.md (committed_page_up_to_date showed the line),
and by accepting 'nan' as a slowdown (bad_input_named).

Usage: test_results_render.py CHECK --tool tools/results_render.py --student-t PRINT_STUDENT_T
       [--root CHECKOUT]
Exit: 0 pass, 1 fail (the failures on stderr).
"""
import argparse
import difflib
import importlib.util
import math
import os
import random
import re
import subprocess
import sys
import tempfile

SEEDS = (1, 2, 3)
SCENARIOS = 8
HEURISTICS = ("fifo", "fair", "progress")
MEASURED = """# test fixture
commit: abc1234
date: 2026-11-28
backend: model
count: {count}
seeds: {seeds}
min_iterations: 20
oracle_evaluations: 4
threads: 2
policy: agent/policies/default
wall_s: 12
"""


def student_t(exe):
    out = subprocess.run([exe, "60"], check=True, capture_output=True, text=True).stdout
    return {int(df): float(v) for df, v in (line.split() for line in out.splitlines())}


def load(path):
    spec = importlib.util.spec_from_file_location("results_render", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def g6(v):
    return f"{v:.6g}"  # as eval writes runs.csv (ostream's default precision)


def fixture():
    """{(scenario, controller): [value per seed]} and {scenario: [[value per seed] per oracle
    configuration]}, the values as runs.csv will hold them."""
    rng = random.Random(2026)
    runs, oracle = {}, {}
    for i in range(SCENARIOS):
        s = f"test-{i}"
        if i == 0:  # by hand: the choices on the scored seeds and on the other seeds differ
            runs[(s, "fifo")] = [2.0, 2.0, 2.0]
            runs[(s, "fair")] = [1.0, 1.0, 2.0]      # mean 1.333; best on seeds 1, 2
            runs[(s, "progress")] = [1.3, 1.3, 1.3]  # mean 1.3: the best heuristic here
            runs[(s, "ppo")] = [1.5, 1.4, 1.6]
            runs[(s, "select")] = [1.1, 1.1, 1.1]    # below every heuristic: never one of them
            runs[(s, "lookahead")] = [1.2, 1.2, 1.2]  # nor is the lookahead oracle
            oracle[s] = [[1.9, 1.9, 1.9], [1.0, 1.0, 1.8], [1.2, 1.2, 1.2]]  # 1.267, 1.2: the third
            continue
        base = rng.uniform(1.1, 3.0)
        for c, lo, hi in (("fifo", 1.0, 1.0), ("fair", 0.9, 1.1), ("progress", 0.7, 1.4), ("ppo", 0.75, 1.2),
                          ("select", 0.5, 0.7), ("lookahead", 0.6, 0.8)):
            f = rng.uniform(lo, hi)
            runs[(s, c)] = [float(g6(base * f * rng.uniform(0.93, 1.07))) for _ in SEEDS]
        oracle[s] = [[float(g6(base * rng.uniform(0.8, 1.05) * rng.uniform(0.95, 1.05))) for _ in SEEDS]
                     for _ in range(3)]
    return runs, oracle


def write_family(folder, runs, oracle, measured=None):
    os.makedirs(folder)
    with open(os.path.join(folder, "runs.csv"), "w") as f:
        f.write("scenario,controller,seed,norm_iter_time,speed_vs_solo,simulated_ms,cycles\n")
        for s in sorted({s for s, _ in runs}, key=lambda x: int(x.split("-")[1])):
            for c in ("fifo", "fair", "progress", "ppo", "select", "lookahead"):
                for seed, v in zip(SEEDS, runs[(s, c)]):
                    f.write(f"{s},{c},{seed},{g6(v)},0.5,30,75000\n")
            for config in oracle[s]:
                for seed, v in zip(SEEDS, config):
                    f.write(f"{s},oracle,{seed},{g6(v)},0.5,30,75000\n")
    with open(os.path.join(folder, "measured.txt"), "w") as f:
        f.write(measured if measured is not None else MEASURED.format(count=SCENARIOS, seeds=len(SEEDS)))


def mean(xs):
    return sum(xs) / len(xs)


def ci(xs, t):
    m = mean(xs)
    return t[len(xs) - 1] * math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) / math.sqrt(len(xs))


def gain(x, ref):
    return [100.0 * (r - v) / r for v, r in zip(x, ref)]


def pick_on_others(candidates):
    """Leave one seed out, written as loops: candidates are [value per seed]."""
    total = 0.0
    for k in range(len(SEEDS)):
        best, best_mean = None, None
        for cand in candidates:
            m = sum(v for j, v in enumerate(cand) if j != k) / (len(SEEDS) - 1)
            if best_mean is None or m < best_mean:
                best, best_mean = cand, m
        total += best[k]
    return total / len(SEEDS)


def expected(runs, oracle):
    scen = sorted({s for s, _ in runs}, key=lambda x: int(x.split("-")[1]))
    per = {c: [mean(runs[(s, c)]) for s in scen] for c in HEURISTICS + ("ppo", "select", "lookahead")}
    fam = {c: mean(v) for c, v in per.items() if c in HEURISTICS}
    best = min(HEURISTICS, key=lambda c: (fam[c], HEURISTICS.index(c)))
    cands = {s: [runs[(s, "fifo")]] + oracle[s] for s in scen}
    heur = {s: [runs[(s, c)] for c in HEURISTICS] for s in scen}
    return {
        "fifo": per["fifo"],
        "best": per[best],
        "policy": per["ppo"],
        "selector": per["select"],
        "oracle": [min(mean(c) for c in cands[s]) for s in scen],
        "oracle_held_out": [pick_on_others(cands[s]) for s in scen],
        "hindsight": [min(mean(c) for c in heur[s]) for s in scen],
        "hindsight_held_out": [pick_on_others(heur[s]) for s in scen],
        "lookahead": per["lookahead"],
        "solo": [1.0] * len(scen),
    }, best


def headline_matches_definition(a):
    t = student_t(a.student_t)
    tool = load(a.tool)
    runs, oracle = fixture()
    want, want_best = expected(runs, oracle)
    failures = []
    # The hand-built scenario 0 (known answers, not computed).
    known = {"hindsight": 1.3, "hindsight_held_out": (1.3 + 1.3 + 2.0) / 3, "oracle": 1.2,
             "oracle_held_out": (1.2 + 1.2 + 1.8) / 3}
    for key, v in known.items():
        if abs(want[key][0] - v) > 1e-12:
            failures.append(f"fixture: this file's definition gives {key} {want[key][0]} on scenario 0, not {v}")
    # A wrong quantile (the normal 1.96) must print differently from t(7) = 2.365.
    if not abs(ci(want["policy"], t) * (1 - 1.96 / t[SCENARIOS - 1])) > 0.002:
        failures.append("fixture too weak: a normal quantile would print the same CI")

    with tempfile.TemporaryDirectory() as tmp:
        write_family(os.path.join(tmp, "docs", "results", "families", "test"), runs, oracle)
        fam = tool.Runs(os.path.join(tmp, "docs", "results", "families", "test", "runs.csv"))
        lines, best = tool.headline(fam)
        page_path = os.path.join(tmp, "page.md")
        subprocess.run([sys.executable, a.tool, "--root", tmp, "--out", page_path], check=True)
        with open(page_path) as f:
            page = f.read()

    if best != want_best:
        failures.append(f"best single heuristic: tool {best}, definition {want_best}")
    if sorted(lines) != sorted(want):
        failures.append(f"rows: tool {sorted(lines)}, definition {sorted(want)}")
    policy, fifo = want["policy"], want["fifo"]
    for key, per in want.items():
        if key not in lines:
            continue
        got = lines[key]
        if any(abs(x - y) > 1e-9 for x, y in zip(got.per_scenario, per)) or len(got.per_scenario) != len(per):
            failures.append(f"{key}: per-scenario {got.per_scenario}, definition {per}")
            continue
        figures = {"mean": (got.mean, mean(per)),
                   "gain over FIFO": (got.vs_fifo.mean, mean(gain(per, fifo))),
                   "gain over FIFO CI": (got.vs_fifo.ci, ci(gain(per, fifo), t)),
                   "policy's gain": (got.policy_vs.mean, mean(gain(policy, per))),
                   "policy's gain CI": (got.policy_vs.ci, ci(gain(policy, per), t))}
        if key != "solo":
            figures["CI"] = (got.ci, ci(per, t))
        for name, (g, w) in figures.items():
            if g is None or abs(g - w) > 1e-9:
                failures.append(f"{key}: {name} {g}, definition {w}")
        faster = sum(x > 0 for x in gain(policy, per))
        slower = sum(x < 0 for x in gain(policy, per))
        if (got.policy_vs.faster, got.policy_vs.slower) != (faster, slower):
            failures.append(f"{key}: faster / slower {got.policy_vs.faster} / {got.policy_vs.slower}, "
                            f"definition {faster} / {slower}")
        # The page prints the same figures, rounded.
        row = next((r for r in page.splitlines() if r.startswith(f"| {got.label} |")
                    or r.startswith(f"| **{got.label}** |")), None)
        if row is None:
            failures.append(f"{key}: no row '{got.label}' in the page")
            continue
        nums = [float(x) for x in re.findall(r"[+-]?\d+\.\d+", row)]
        printed = [mean(per)] + ([] if key == "solo" else [ci(per, t)])
        if key != "fifo":
            printed += [mean(gain(per, fifo)), ci(gain(per, fifo), t)]
        if key != "policy":
            printed += [mean(gain(policy, per)), ci(gain(policy, per), t)]
        if len(nums) != len(printed) or any(abs(n - p) > 0.0051 for n, p in zip(nums, printed)):
            failures.append(f"{key}: the page prints {row}, definition {['%.4f' % p for p in printed]}")
    # The goal section's row: the policy and the lookahead oracle against the best single
    # heuristic, and the share of the room (the ratio of their mean paired gains).
    pol, room = gain(policy, want["best"]), gain(want["lookahead"], want["best"])
    share = mean(pol) / mean(room)
    printed = [mean(pol), ci(pol, t), mean(room), ci(room, t), 100.0 * share]
    row = next((r for r in page.splitlines() if r.startswith("| `test` |") and "nicagent" not in r), None)
    if row is None:
        failures.append("goal: no `test` row in the page's goal table")
    else:
        nums = [float(x) for x in re.findall(r"[+-]?\d+(?:\.\d+)?", row.split("|", 2)[2])]
        if len(nums) < 5 or any(abs(n - p) > (0.51 if i == 4 else 0.0051) for i, (n, p) in enumerate(zip(nums, printed))):
            failures.append(f"goal: the page prints {row}, definition {['%.4f' % p for p in printed]}")
        met = mean(pol) > ci(pol, t) and share >= 0.5
        if ("| met |" in row) != met:
            failures.append(f"goal: the page says {row}, the definition {'met' if met else 'missed'}")
    for f in failures:
        print(f, file=sys.stderr)
    if not failures:
        print(f"{len(want)} headline rows match the definition (best single heuristic {best}; scenario 0: "
              f"hindsight {want['hindsight'][0]:.4f} / {want['hindsight_held_out'][0]:.4f} held out)")
    return 1 if failures else 0


def committed_page_up_to_date(a):
    page = os.path.join(a.root, "docs", "results.md")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "results.md")
        r = subprocess.run([sys.executable, a.tool, "--root", a.root, "--out", out], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"the render failed: {r.stderr.strip()}", file=sys.stderr)
            return 1
        with open(out, "rb") as f:
            rendered = f.read()
    with open(page, "rb") as f:
        committed = f.read()
    if rendered == committed:
        print(f"{page} is what the committed runs render ({len(committed)} bytes)")
        return 0
    diff = difflib.unified_diff(committed.decode().splitlines(), rendered.decode().splitlines(),
                                "docs/results.md (committed)", "docs/results.md (rendered)", lineterm="", n=1)
    print("\n".join(list(diff)[:60]), file=sys.stderr)
    print(f"{page} differs from what docs/results/families/*/runs.csv render: re-render it with "
          "`make results RENDER_ONLY=1` (tools/results.sh) instead of editing it", file=sys.stderr)
    return 1


def bad_input_named(a):
    runs, oracle = fixture()
    cases = []  # (what, runs.csv edit or measured.txt, expected message parts)
    with tempfile.TemporaryDirectory() as tmp:
        def case(name, edit_runs=None, measured=None, want=()):
            root = os.path.join(tmp, name)
            folder = os.path.join(root, "docs", "results", "families", "test")
            write_family(folder, runs, oracle, measured)
            if edit_runs:
                path = os.path.join(folder, "runs.csv")
                with open(path) as f:
                    lines = f.read().splitlines()
                edit_runs(lines)
                with open(path, "w") as f:
                    f.write("\n".join(lines) + "\n")
            out = os.path.join(root, "page.md")
            r = subprocess.run([sys.executable, a.tool, "--root", root, "--out", out], capture_output=True, text=True)
            cases.append((name, r, os.path.exists(out), want))

        def bad_value(lines):
            fields = lines[3].split(",")  # line 4 of the file
            fields[3] = "nan"
            lines[3] = ",".join(fields)

        def drop_seed(lines):
            del lines[5]  # test-0, fair, seed 2

        case("nan", bad_value, want=("runs.csv:4:", "norm_iter_time nan"))
        case("seed", drop_seed, want=("runs.csv:", "test-0 / fair has seeds [1, 3]"))
        case("measured", measured=MEASURED.format(count=SCENARIOS, seeds=len(SEEDS)).replace("wall_s", "wall"),
             want=("measured.txt:11:", "KEY: VALUE"))
        case("count", measured=MEASURED.format(count=SCENARIOS + 1, seeds=len(SEEDS)),
             want=("measured.txt:", "count 9 x seeds 3, but runs.csv has 8 scenarios x 3 seeds"))
    failures = []
    for name, r, wrote, want in cases:
        if r.returncode != 1 or wrote or not all(w in r.stderr for w in want):
            failures.append(f"{name}: exit {r.returncode}, page written: {wrote}, stderr '{r.stderr.strip()}', "
                            f"expected exit 1, no page and {want}")
        else:
            print(f"{name}: {r.stderr.strip()}")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    checks = {"headline_matches_definition": headline_matches_definition,
              "committed_page_up_to_date": committed_page_up_to_date, "bad_input_named": bad_input_named}
    ap.add_argument("check", choices=sorted(checks))
    ap.add_argument("--tool", required=True, help="tools/results_render.py")
    ap.add_argument("--student-t", required=True, help="the print_student_t executable")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    help="the checkout whose docs/results.md is checked (committed_page_up_to_date)")
    a = ap.parse_args()
    return checks[a.check](a)


if __name__ == "__main__":
    sys.exit(main())
