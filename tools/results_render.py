#!/usr/bin/env python3
"""docs/results.md from the committed evaluation runs alone: the headline table of every family
(the committed policy against FIFO, the best single heuristic, the static oracle, the hindsight
choice and solo), rendered from docs/results/families/FAMILY/runs.csv and measured.txt, which
tools/results.sh's evaluation step writes (`nicagent eval --family ... --out DIR`). It runs no
simulation: `RENDER_ONLY=1 tools/results.sh` re-renders the page in a second.

Usage: tools/results_render.py [--root DIR] [--out FILE]   (default: this checkout, DIR/docs/results.md)
       tools/results_render.py --families                 (the families, in page order)

Definitions (the page's introduction says the same to its readers):
  slowdown     a run's norm_iter_time (mean over training tenants of iteration time / solo
               iteration time); per scenario the mean over seeds; per family the mean over
               scenarios with a 95 % Student-t CI over scenarios (sim::ci95_half_width).
  paired gain  per scenario the % by which A's slowdown is lower than B's, mean over scenarios
               with a 95 % CI (sim::paired_gain, mirrored by tools/starvation.py, imported here).
  heuristics   every controller in runs.csv except the policy (`ppo`), the online selector
               (`select`, a row of its own), the oracle and the lookahead oracle.
  lookahead    where runs.csv has `lookahead` rows (nicagent eval --lookahead): per scenario
               their mean over seeds, a row of its own.
  oracle       runs.csv's `oracle` rows are every configuration the offline search ran, in
               order, each on every seed; FIFO's configuration is judged by the fifo rows.
               The oracle of a scenario is the candidate with the lowest mean over seeds.
  hindsight    per scenario, the heuristic with the lowest mean over seeds.
  held-out     the oracle's and the hindsight choice's honest versions: for each seed, the
               candidate with the lowest mean over the other seeds (the first of equals) is
               scored on that seed; per scenario the mean of those scores.
Output is deterministic: the same files give the same page, byte for byte (tests/tools checks
the committed page against the committed runs).
Exit: 0, or 1 with a message naming the file (and line) that is wrong.
"""
import argparse
import csv
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from starvation import ci95_half_width, paired_gain  # noqa: E402  (one definition of the CI)

# The families in page order: tools/results.sh evaluates these by default (--families).
FAMILIES = ("test", "comm-heavy", "crypto-bound", "background", "arrivals")
POLICY = "ppo"  # eval's row name for the policy given with --policy


def is_selector(c):
    """The online selector (`select`, `select:A,B,...`): it runs the heuristics, so it is
    a row of its own, never one of them."""
    return c == "select" or c.startswith("select:")
ORACLE = "oracle"
LOOKAHEAD = "lookahead"  # eval --lookahead's row: the lookahead oracle (dynamic control by forking the run)
RUN_COLUMNS = ("scenario", "controller", "seed", "norm_iter_time")
# measured.txt: how the family's runs were measured (tools/results.sh writes it beside runs.csv).
MEASURED_KEYS = ("commit", "date", "backend", "count", "seeds", "min_iterations", "oracle_evaluations",
                 "threads", "policy", "wall_s")
# Keys a measured.txt may leave out: `lookahead`, eval's lookahead options ("none": without it;
# runs measured before the key was written have no lookahead rows).
OPTIONAL_KEYS = ("lookahead",)


class InputError(Exception):
    """Bad input, its message naming the file (and line)."""


def read_measured(path):
    fields = {}
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")
    for no, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or key not in MEASURED_KEYS + OPTIONAL_KEYS or not value:
            raise InputError(f"{path}:{no}: expected 'KEY: VALUE' with KEY one of "
                             f"{', '.join(MEASURED_KEYS + OPTIONAL_KEYS)}")
        if key in fields:
            raise InputError(f"{path}:{no}: {key} given twice")
        fields[key] = value
    missing = [k for k in MEASURED_KEYS if k not in fields]
    if missing:
        raise InputError(f"{path}: missing {', '.join(missing)}")
    for key in ("count", "seeds", "min_iterations", "oracle_evaluations", "threads", "wall_s"):
        if not fields[key].isdigit():
            raise InputError(f"{path}: {key} must be a whole number, got '{fields[key]}'")
    return fields


class Runs:
    """One family's runs.csv: per controller (order of first appearance) and scenario (order of
    first appearance) the value of each seed, and per scenario the oracle's candidates."""

    def __init__(self, path):
        self.path = path
        self.scenarios = []
        self.controllers = []
        self.values = {}  # controller -> scenario -> {seed: value}
        self.oracle = {}  # scenario -> [{seed: value}] one per candidate, in search order
        try:
            with open(path, newline="") as f:
                rows = list(csv.reader(f))
        except OSError as e:
            raise InputError(f"{path}: cannot read: {e.strerror}")
        if not rows or not set(RUN_COLUMNS) <= set(rows[0]):
            raise InputError(f"{path}:1: expected a header with the columns {', '.join(RUN_COLUMNS)}")
        col = {name: rows[0].index(name) for name in RUN_COLUMNS}
        for no, row in enumerate(rows[1:], 2):
            if len(row) != len(rows[0]):
                raise InputError(f"{path}:{no}: {len(row)} fields, the header has {len(rows[0])}")
            s, c, seed_text, v_text = (row[col[k]] for k in RUN_COLUMNS)
            try:
                seed = int(seed_text)
            except ValueError:
                raise InputError(f"{path}:{no}: seed '{seed_text}' is not a whole number")
            try:
                v = float(v_text)
            except ValueError:
                raise InputError(f"{path}:{no}: norm_iter_time '{v_text}' is not a number")
            if not (math.isfinite(v) and v > 0):
                raise InputError(f"{path}:{no}: norm_iter_time {v_text} (a slowdown is finite and > 0)")
            if s not in self.oracle:
                self.scenarios.append(s)
                self.oracle[s] = []
            if c == ORACLE:
                groups = self.oracle[s]
                if not groups or seed in groups[-1]:
                    groups.append({})  # the next configuration of the search
                groups[-1][seed] = v
                continue
            if c not in self.values:
                self.controllers.append(c)
                self.values[c] = {}
            runs = self.values[c].setdefault(s, {})
            if seed in runs:
                raise InputError(f"{path}:{no}: {s} / {c} / seed {seed} given twice")
            runs[seed] = v
        self._check()

    def _check(self):
        if "fifo" not in self.values:
            raise InputError(f"{self.path}: no fifo runs (every comparison is against FIFO)")
        if POLICY not in self.values:
            raise InputError(f"{self.path}: no runs of the policy (controller '{POLICY}')")
        if len(self.values) < 3:
            raise InputError(f"{self.path}: no heuristic besides fifo")
        self.seeds = sorted(self.values["fifo"][self.scenarios[0]])
        for c in self.controllers:
            for s in self.scenarios:
                got = sorted(self.values[c].get(s, {}))
                if got != self.seeds:
                    raise InputError(f"{self.path}: {s} / {c} has seeds {got}, fifo has {self.seeds}")
        for s in self.scenarios:
            for k, group in enumerate(self.oracle[s], 1):
                if sorted(group) != self.seeds:
                    raise InputError(f"{self.path}: {s}: oracle configuration {k} has seeds {sorted(group)}, "
                                     f"fifo has {self.seeds}")

    def heuristics(self):
        return [c for c in self.controllers if c not in (POLICY, LOOKAHEAD) and not is_selector(c)]

    def selector(self):
        """The online selector's row name, or None when the runs have none."""
        return next((c for c in self.controllers if is_selector(c)), None)

    def per_scenario(self, c):
        """The controller's per-scenario mean over seeds, in scenario order."""
        return [statistics.mean(self.values[c][s].values()) for s in self.scenarios]

    def oracle_candidates(self, s):
        """The configurations the search judged on scenario s: FIFO's (the fifo runs) first."""
        return [self.values["fifo"][s]] + self.oracle[s]


def best_in_sample(candidates):
    """The lowest mean over seeds among candidates ({seed: value} each)."""
    return min(statistics.mean(c.values()) for c in candidates)


def best_held_out(candidates, seeds):
    """For each seed k: the candidate with the lowest mean over the other seeds (the first of
    equals), scored on k; the mean of those scores. Needs two seeds or more."""
    scores = []
    for k in seeds:
        others = [t for t in seeds if t != k]
        pick = min(range(len(candidates)), key=lambda i: (statistics.mean(candidates[i][t] for t in others), i))
        scores.append(candidates[pick][k])
    return statistics.mean(scores)


class Line:
    """One row of a headline table: its per-scenario slowdowns and what they give."""

    def __init__(self, label, per_scenario, fifo, policy):
        self.label = label
        self.per_scenario = per_scenario
        self.mean = statistics.mean(per_scenario)
        self.ci = ci95_half_width(per_scenario)
        self.vs_fifo = paired_gain(per_scenario, fifo)
        self.policy_vs = paired_gain(policy, per_scenario)


def headline(runs):
    """The headline rows of one family, in table order, as {key: Line}."""
    fifo = runs.per_scenario("fifo")
    policy = runs.per_scenario(POLICY)
    means = {c: statistics.mean(runs.per_scenario(c)) for c in runs.heuristics()}
    best = min(runs.heuristics(), key=lambda c: (means[c], runs.controllers.index(c)))
    heur = {s: [runs.values[c][s] for c in runs.heuristics()] for s in runs.scenarios}
    rows = {
        "fifo": ("FIFO", fifo),
        "best": (f"best single heuristic: `{best}`", runs.per_scenario(best)),
        "policy": ("committed policy", policy),
        "selector": (f"online selector: `{runs.selector()}`", runs.per_scenario(runs.selector()) if runs.selector()
                     else None),
        "oracle": ("oracle (static), chosen on the scored seeds",
                   [best_in_sample(runs.oracle_candidates(s)) for s in runs.scenarios]),
        "hindsight": ("hindsight: best heuristic per scenario, chosen on the scored seeds",
                      [best_in_sample(heur[s]) for s in runs.scenarios]),
        "lookahead": ("lookahead oracle (dynamic, offline: forks the run at its decisions)",
                      runs.per_scenario(LOOKAHEAD) if LOOKAHEAD in runs.controllers else None),
        "solo": ("solo", [1.0] * len(runs.scenarios)),
    }
    if len(runs.seeds) > 1:
        rows["oracle_held_out"] = ("oracle (static), chosen on the other seeds",
                                   [best_held_out(runs.oracle_candidates(s), runs.seeds) for s in runs.scenarios])
        rows["hindsight_held_out"] = ("hindsight, chosen on the other seeds",
                                      [best_held_out(heur[s], runs.seeds) for s in runs.scenarios])
    for optional in ("selector", "lookahead"):
        if rows[optional][1] is None:
            del rows[optional]
    order = ("fifo", "best", "selector", "policy", "oracle", "oracle_held_out", "hindsight", "hindsight_held_out",
             "lookahead", "solo")
    return {k: Line(rows[k][0], rows[k][1], fifo, policy) for k in order if k in rows}, best


def fmt_gain(g, counts=False):
    if g.n == 0 or g.ci is None:
        return "-"
    m = f"{g.mean:+.2f}".replace("-0.00", "+0.00")
    return f"{m} % ± {g.ci:.2f}" + (f" ({g.faster} / {g.slower} of {g.n})" if counts else "")


def verdict(g):
    """What a paired gain of the policy over a row resolves (its CI against 0)."""
    if g.ci is None:
        return "not resolved (one scenario)"
    if abs(g.mean) > g.ci:
        return f"{'faster' if g.mean > 0 else 'slower'} ({fmt_gain(g)} %, the CI excludes 0)"
    return f"not resolved ({fmt_gain(g)} %, the CI includes 0)"


def goal_section(data):
    """The learned controller's goal, per family: the policy against the best single heuristic,
    the room the lookahead oracle measures there, and the share of it the policy takes. data:
    (family, its headline rows) per family, in page order."""
    out = ["## The learned controller against its goal", "",
           "The goal of the committed policy: faster than the best single heuristic on `test` with the",
           "95 % CI of the paired gain excluding 0, and on every family where the lookahead oracle's room",
           "over the best single heuristic (its paired gain) is larger than what the family's runs",
           "resolve (the half-width of the policy's CI there); and at least half of that room taken on",
           "every family (the share: the policy's mean paired gain over the best single heuristic",
           "divided by the lookahead oracle's).", "",
           "| family | policy over the best single heuristic | lookahead oracle over it (the room) | "
           "share of the room taken | goal |",
           "|---|---|---|---|---|"]
    for name, lines in data:
        policy = lines["best"].policy_vs  # the policy's paired gain over the best single heuristic
        if "lookahead" not in lines:
            out.append(f"| `{name}` | {fmt_gain(policy)} | not measured | - | not judged (no lookahead runs) |")
            continue
        room = paired_gain(lines["lookahead"].per_scenario, lines["best"].per_scenario)
        share = policy.mean / room.mean if room.mean > 0 else math.nan
        resolved = policy.ci is not None and policy.mean > policy.ci
        must_win = name == "test" or (policy.ci is not None and room.mean > policy.ci)
        misses = ([] if resolved or not must_win else ["not faster with the CI excluding 0"]) + \
                 ([] if share >= 0.5 else ["under half of the room"])  # NaN >= 0.5 is False
        verdict_ = "missed: " + "; ".join(misses) if misses else "met"
        share_txt = "-" if math.isnan(share) else f"{100.0 * share:.0f} %"
        out.append(f"| `{name}` | {fmt_gain(policy)} | {fmt_gain(room)} | {share_txt} | {verdict_} |")
    out += ["", "Why the policy stands where it does, with every experiment that tried to move it (a strategy",
            "policy imitating the lookahead oracle, PPO fine-tuning near it, scenario labels, the online",
            "selector): [docs/results/learned-controller.md](results/learned-controller.md)."]
    return out


def family_section(name, runs, folder, lines, best):
    summary = (f"The committed policy against FIFO: {verdict(lines['fifo'].policy_vs)}; against the best single "
               f"heuristic: {verdict(lines['best'].policy_vs)}; against the static oracle: "
               f"{verdict(lines['oracle'].policy_vs)}.")
    out = [f"## Family `{name}`", "",
           f"{len(runs.scenarios)} scenarios x {len(runs.seeds)} seeds; per-scenario tables and figures: "
           f"[docs/results/families/{name}/results.md](results/families/{name}/results.md)"
           + "".join(f"; [{png}](results/families/{name}/{png})"
                     for png in sorted(p for p in os.listdir(folder) if p.endswith(".png"))) + ".", "",
           "| | mean slowdown (95 % CI) | gain over FIFO (paired, 95 % CI) | "
           "policy's gain over it (paired, 95 % CI; scenarios faster / slower) |",
           "|---|---|---|---|"]
    for key, line in lines.items():
        ci = "" if line.ci is None or key == "solo" else f" ± {line.ci:.3f}"
        label = f"**{line.label}**" if key == "policy" else line.label
        out.append(f"| {label} | {line.mean:.3f}{ci} | {'-' if key == 'fifo' else fmt_gain(line.vs_fifo)} | "
                   f"{'-' if key == 'policy' else fmt_gain(line.policy_vs, counts=True)} |")
    out += ["", summary]
    return out


def command(name, m):
    return (f"nicagent eval --family sim/families/{name}.yaml --count {m['count']} --seeds {m['seeds']} "
            f"--min-iterations {m['min_iterations']} --oracle-evaluations {m['oracle_evaluations']} "
            f"--backend {m['backend']} --threads {m['threads']} --policy {m['policy']}"
            + ("" if m.get("lookahead", "none") == "none" else f" {m['lookahead']}"))


INTRO = """\
# Results: the committed policy against FIFO, the heuristics and the oracle

What is compared: the committed PPO policy (`agent/policies/default`) against every
non-learned heuristic of `controllers/` (FIFO among them), a static oracle and solo runs, on
scenarios drawn from the scenario families of `sim/families/`.

How: whole-scenario evaluation (`nicagent eval --family`, docs/agent.md): each controller
runs each scenario (the family's first draws) on several seeds, on the {backend} of the
simulator, from the start until every training tenant has finished a set number of
iterations or rounds (`--min-iterations`); every controller sees the same scenarios and seeds.

The metric is the **slowdown against solo**: per run, the mean over training tenants of
their iteration (round) time divided by the same tenant's iteration time alone on the NIC
(1 = solo speed, lower is better); per scenario the mean over seeds, per family the mean
over scenarios with a 95 % Student-t CI over scenarios. A **paired gain** of A over B is,
per scenario, the % by which A's slowdown is lower than B's (positive = A faster), averaged
over scenarios with a 95 % Student-t CI; "scenarios faster / slower" counts the scenarios
on which the policy was faster or slower than the row.

The rows of each family's table:
- **FIFO**: the NIC's default, the reference of every gain.
- **best single heuristic**: the heuristic with the lowest family mean, one for the whole
  family (chosen on these runs).
- **online selector** (where the runs have it): `select`, a heuristic that tries the others
  during the run and keeps the one whose measured progress is best (docs/agent.md); it
  knows no future.
- **committed policy**: `agent/policies/default` (docs/agent.md says how it was trained and
  chosen).
- **oracle (static)**: per scenario, the best of the static NIC configurations an offline
  search ran (FIFO's among them). It knows the scenario in advance, which no online
  controller does. Chosen on the scored seeds, as the search chooses it, it also profits
  from the seeds' noise; chosen on the other seeds (each seed scored by the configuration
  that is best on the remaining ones, leave-one-seed-out) it does not.
- **hindsight**: per scenario, the heuristic that is best on it: what a perfect
  per-scenario choice among the heuristics would give, with the same two ways of choosing.
- **lookahead oracle** (where the runs have it): dynamic control that sees the future. At
  about eight points of each run it forks the simulation, plays every heuristic (and the
  static oracle's configuration, and keeping the current one) on its own copy, and
  commits the one whose copy ends best (docs/agent.md, `nicagent eval`). It is never worse
  than the best heuristic of the very seed it runs, so it is at least the hindsight
  choice: the ruler of how much a controller that changes strategy during a run can win.
- **solo**: every tenant alone on the NIC (slowdown 1 by definition): the bound no
  scheduler passes.
"""


def render(root):
    fam_dir = os.path.join(root, "docs", "results", "families")
    present = [f for f in FAMILIES if os.path.isfile(os.path.join(fam_dir, f, "runs.csv"))]
    if not present:
        raise InputError(f"{fam_dir}: no FAMILY/runs.csv for any of {', '.join(FAMILIES)}")
    data = []
    for f in present:
        d = os.path.join(fam_dir, f)
        runs = Runs(os.path.join(d, "runs.csv"))
        measured = read_measured(os.path.join(d, "measured.txt"))
        if (int(measured["count"]), int(measured["seeds"])) != (len(runs.scenarios), len(runs.seeds)):
            raise InputError(f"{d}/measured.txt: count {measured['count']} x seeds {measured['seeds']}, but "
                             f"runs.csv has {len(runs.scenarios)} scenarios x {len(runs.seeds)} seeds")
        data.append((f, runs, measured))
    folders = {f: os.path.join(fam_dir, f) for f in present}

    out = ["<!-- Generated by tools/results_render.py from docs/results/families/*/runs.csv and measured.txt; "
           "do not edit: `make results` (or `make results RENDER_ONLY=1`). -->"]
    backends = sorted({m["backend"] for _, _, m in data})
    out += INTRO.format(backend=" and ".join(f"`{b}` backend" for b in backends)).splitlines()
    minutes = round(sum(int(m["wall_s"]) for _, _, m in data) / 60 / 5) * 5  # the eval wall times below
    out += ["", "## How to regenerate", "",
            "```",
            f"make results                   # evaluate every family, then render this page (about {minutes} min on 2 cores)",
            "make results RENDER_ONLY=1     # render this page from the committed runs.csv files (a second)",
            "make results FAMILIES=background   # re-evaluate one family, then render",
            "```", "",
            "`make results` runs `tools/results.sh`: per family the `nicagent eval` command below, whose",
            "output folder `docs/results/families/FAMILY/` keeps `runs.csv` (every run), `tenants.csv`,",
            "`results.md` (per-scenario tables, decision latency, timeline figure), `eval.log` and",
            "`measured.txt`; then `tools/results_render.py` builds this page from those files alone.", "",
            "| family | scenarios x seeds | code that measured it (commit) | date | eval wall time | command (each with `--out docs/results/families/FAMILY`) |",
            "|---|---|---|---|---|---|"]
    for f, runs, m in data:
        out.append(f"| `{f}` | {len(runs.scenarios)} x {len(runs.seeds)} | {m['commit']} | {m['date']} | "
                   f"{int(m['wall_s']):,} s | `{command(f, m)}` |")
    heads = {f: headline(runs) for f, runs, _ in data}  # per family: its rows and best heuristic
    out.append("")
    out += goal_section([(f, heads[f][0]) for f, _, _ in data])
    for f, runs, m in data:
        out.append("")
        out += family_section(f, runs, folders[f], *heads[f])
    out += ["", "## History", "",
            "How the committed policy, the heuristics and these figures came about (experiments, each "
            "with its question, commands, figures and conclusion): [docs/journal/](journal/)."]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the checkout whose docs/results/families are read (default: this one)")
    ap.add_argument("--out", help="the page to write (default: ROOT/docs/results.md)")
    ap.add_argument("--families", action="store_true", help="print the families in page order and exit")
    a = ap.parse_args()
    if a.families:
        print(" ".join(FAMILIES))
        return 0
    try:
        page = render(a.root)
    except InputError as e:
        sys.exit(f"results_render.py: {e}")
    out = a.out or os.path.join(a.root, "docs", "results.md")
    with open(out, "w") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
