#!/usr/bin/env python3
"""The transcripts of docs/guides/*.md and README.md: runs each guide's commands and writes
what they print between the guide's markers.

Usage: tools/guides.py [--check] [BUILD_DIR [BLOCK...]]   (BUILD_DIR default: build; the
BLOCKs named, default all)

Every block below is a list of commands, run in order by bash in one scratch folder that
holds `build` (a link to BUILD_DIR) and links to the checkout's top-level folders, so each
command runs exactly as the guide writes it, from the repository root. A command ending in
`&` runs in the background until its block ends. Output (stdout and stderr together) is
written between `<!-- guide:ID:begin -->` and `<!-- guide:ID:end -->` in the guide, with the
paths of the scratch folder and the times that change from run to run masked. README.md
shows the same commands with an excerpt of their output (the lines each step's `readme`
pattern selects),
between `<!-- guide:ID:readme:begin -->` and `<!-- guide:ID:readme:end -->`.

--check writes nothing and exits 1 when a transcript differs from the committed one, numbers
compared as numbers-in-general (a figure that moves with the machine's floating point or a
free-running clock is no drift; a changed line, message, column or command is).
"""
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

# A step: the command as the guide shows it; `readme`: a regex picking the output lines the
# README shows (None: the README shows no output for it); `keep`: a regex picking the output
# lines the guide shows (None: all of them); `wait`: a socket the next step needs.
# `lines`: at most this many of the README's lines; `rc`: the exit code the step must end with.
def step(cmd, readme=None, lines=4, keep=None, wait=None, rc=0):
    return {"cmd": cmd, "readme": readme, "lines": lines, "keep": keep, "wait": wait, "rc": rc}


SOCK = "$PWD/nicsim.sock"

BLOCKS = {
    # docs/guides/simulate.md
    "simulate-run": ("docs/guides/simulate.md", [
        step("build/sim/nicsim run sim/scenarios/default.yaml --baseline fifo --cycles 500000",
             readme=r"^(tenant|resnet50|link) ", lines=3),
    ]),
    "simulate-compare": ("docs/guides/simulate.md", [
        step("build/sim/nicsim run sim/scenarios/default.yaml --baseline all --cycles 500000 --backend model"),
    ]),
    "simulate-regress": ("docs/guides/simulate.md", [
        step("build/tests/verif/nicsched_regress --seeds 2", readme=r"^\d+ passed", lines=1),
    ]),
    # docs/guides/train.md
    "train-train": ("docs/guides/train.md", [
        step("build/agent/nicagent train --family sim/families/train.yaml --steps 2048 --out runs/first \\\n"
             "    --ppo-config agent/configs/ppo.yaml --env-config agent/configs/env.yaml --quiet \\\n"
             "    --validation-family sim/families/train.yaml --validation-count 2 --validation-every 2",
             readme=r"(NIC simulator|validation at|done)", lines=3),
    ]),
    "train-eval": ("docs/guides/train.md", [
        step("build/agent/nicagent eval --policy runs/first/best --family sim/families/test.yaml \\\n"
             "    --count 1 --seeds 1 --oracle-evaluations 4 --out runs/first/eval-test",
             readme=r"^\| (controller|fifo|progress|ppo|oracle) ", lines=5),
    ]),
    "train-serve": ("docs/guides/train.md", [
        step(f'build/sim/nicsim serve sim/scenarios/default.yaml --unix "{SOCK}" --lockstep &',
             wait="nicsim.sock"),
        step(f'build/agent/nicagent serve --policy runs/first/best --target "unix://{SOCK}" --step-cycles 2000 '
             "--max-decisions 3", readme=r"(decision 1 |stopped)", lines=2),
    ]),
    # docs/guides/operate.md
    "operate": ("docs/guides/operate.md", [
        step(f'build/sim/nicsim serve sim/scenarios/default.yaml --unix "{SOCK}" --lockstep &',
             wait="nicsim.sock"),
        step(f'export NICSCHED_TARGET="unix://{SOCK}"'),
        step("build/host/nicctl info", readme=r"^tenants "),
        step("build/host/nicctl load-policy --dry-run host/policies/ddp-priority.yaml"),
        step("build/host/nicctl load-policy host/policies/ddp-priority.yaml", readme=r"."),
        step("build/host/nicctl set 3 --priority 2 --weight 3000", readme=r"."),
        step("build/host/nicctl get-policy | grep -A 4 'id: 3'"),
        step("build/host/nicctl stats --step 250000", readme=r"^(tenant| +[0-1] )"),
    ]),
    # docs/guides/cluster.md
    "cluster-run": ("docs/guides/cluster.md", [
        step("build/sim/nicsim cluster cluster/scenarios/small.yaml"),
    ]),
    "cluster-compare": ("docs/guides/cluster.md", [
        step("build/sim/nicsim cluster cluster/scenarios/small.yaml --placement random --routing ecmp"),
        step("build/sim/nicsim cluster cluster/scenarios/small.yaml --placement random --routing ecmp "
             "--baseline progress+guard"),
    ]),
    "cluster-policy": ("docs/guides/cluster.md", [
        step("build/agent/nicagent cluster cluster/scenarios/small.yaml --placement random --routing ecmp "
             "--policy agent/policies/default"),
    ]),
    "cluster-json": ("docs/guides/cluster.md", [
        step("build/sim/nicsim cluster cluster/scenarios/small.yaml --placement random --json | "
             "python3 -c 'import json,sys; r=json.load(sys.stdin); "
             "[print(l[\"link\"], l[\"frames\"], l[\"drops\"], round(100*l[\"utilisation\"],1), l[\"jobs\"]) "
             "for l in r[\"links\"] if \"spine\" in l[\"link\"] and l[\"jobs\"] > 1]'"),
    ]),
    # docs/guides/bitstream.md
    "bitstream": ("docs/guides/bitstream.md", [
        step("make bitstream BOARD=u250", readme=r".", rc=2),
    ]),
}

# Output that changes from run to run with the same code: (pattern, replacement).
NUM = r"\d+(?:\.\d+)?"
MASKS = [
    (re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\] ", re.M), ""),  # spdlog's time stamp
    (re.compile(rf"\b{NUM} ?(steps/s|decisions/s)"), r"… \1"),
    (re.compile(rf"\bwall {NUM} s, CPU {NUM} s"), "wall … s, CPU … s"),
    (re.compile(rf"\b{NUM} us, CPU {NUM} us\)"), "… us, CPU … us)"),
    (re.compile(rf"(wall|thread CPU) p50 {NUM} us, p99 {NUM} us"), r"\1 p50 … us, p99 … us"),
    (re.compile(rf"\| {NUM} / {NUM} \| {NUM} / {NUM} \|$", re.M), "| … / … | … / … |"),  # eval's latency table
    (re.compile(rf"\(({NUM}) s\)"), "(… s)"),
    (re.compile(rf"\b{NUM} s wall so far"), "… s wall so far"),
    (re.compile(rf"\({NUM} s; "), "(… s; "),
    (re.compile(rf"\bin {NUM} s \({NUM} M cycles/s\)"), "in … s (… M cycles/s)"),
    (re.compile(r"Makefile:\d+"), "Makefile:N"),
    (re.compile(r"^\[nicagent\] \[info\] MPI: .*\n", re.M), ""),  # says whether this build has MPI
]


def mask(text, scratch):
    text = text.replace(str(scratch), "$PWD")
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    return text


def as_numbers(text):
    """The text with every number (and every masked figure) made one token."""
    return re.sub(r"[-+]?\d[\d,]*(\.\d+)?(e[-+]?\d+)?|…", "N", text)


def scratch_folder(build):
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="nicsched-guides-"))
    for entry in ROOT.iterdir():
        if entry.name not in ("build", "runs", ".git") and not entry.name.startswith("build-"):
            (scratch / entry.name).symlink_to(entry)
    (scratch / "build").symlink_to(build)
    return scratch


def without_vivado(env):
    """PATH without any folder that holds vivado: the bitstream guide is the machine without it."""
    dirs = [d for d in env.get("PATH", "").split(":") if d and not (pathlib.Path(d) / "vivado").exists()]
    return dict(env, PATH=":".join(dirs))


def run_block(block_id, steps, scratch):
    """Runs a block's steps; returns [(step, masked output lines)]."""
    env = without_vivado(os.environ)
    env.pop("NICSCHED_TARGET", None)
    # A guide's `make` is the user's top-level make: under `make test` the inherited
    # MAKELEVEL/MAKEFLAGS would turn its messages into make[1]'s.
    for name in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR"):
        env.pop(name, None)
    background, results = [], []
    exports = ""
    try:
        for s in steps:
            cmd = s["cmd"]
            if cmd.startswith("export "):
                exports += cmd + "\n"
                results.append((s, []))
                continue
            if cmd.endswith("&"):
                if s["wait"]:
                    (scratch / s["wait"]).unlink(missing_ok=True)
                log = open(scratch / f"{block_id}-background.log", "w")
                background.append(subprocess.Popen(["bash", "-c", exports + "exec " + cmd[:-1]], cwd=scratch,
                                                   env=env, stdout=log, stderr=subprocess.STDOUT,
                                                   start_new_session=True))
                if s["wait"]:
                    deadline = time.time() + 60
                    while not (scratch / s["wait"]).exists():
                        if time.time() > deadline or background[-1].poll() is not None:
                            raise SystemExit(f"guides: {block_id}: `{cmd}` did not make {s['wait']}:\n"
                                             + (scratch / f"{block_id}-background.log").read_text())
                        time.sleep(0.1)
                results.append((s, []))
                continue
            t0 = time.time()
            r = subprocess.run(["stdbuf", "-oL", "bash", "-c", exports + cmd], cwd=scratch, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            out = r.stdout
            print(f"guides: {block_id}: {time.time() - t0:.1f} s: {cmd}", file=sys.stderr)
            if r.returncode != s["rc"]:
                raise SystemExit(f"guides: {block_id}: `{cmd}` exited {r.returncode}, expected {s['rc']}:\n{out}")
            lines = mask(out, scratch).rstrip("\n").splitlines()
            if s["keep"]:
                lines = [l for l in lines if re.search(s["keep"], l)]
            results.append((s, lines))
    finally:
        for p in background:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=30)
    return results


def guide_text(results):
    out = ["```console"]
    for s, lines in results:
        out.append("$ " + s["cmd"])
        out.extend(lines)
    out.append("```")
    return "\n".join(out)


def readme_text(results):
    out = ["```console"]
    for s, lines in results:
        out.append("$ " + s["cmd"])
        if s["readme"]:
            out.extend([l for l in lines if re.search(s["readme"], l)][:s["lines"]])
    out.append("```")
    return "\n".join(out)


def replace_block(text, marker, body, file):
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    if text.count(begin) != 1 or text.count(end) != 1:
        raise SystemExit(f"guides: {file} needs exactly one {begin} and one {end}")
    i, j = text.index(begin) + len(begin), text.index(end)
    return text[:i] + "\n" + body + "\n" + text[j:]


def current_block(text, marker):
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    if begin not in text:
        return None
    return text[text.index(begin) + len(begin):text.index(end)].strip("\n")


def main(argv):
    check = "--check" in argv
    rest = [a for a in argv[1:] if a != "--check"]
    build = pathlib.Path(rest[0] if rest else "build")
    build = (build if build.is_absolute() else ROOT / build).resolve()
    chosen = rest[1:] or list(BLOCKS)
    for block_id in chosen:
        if block_id not in BLOCKS:
            raise SystemExit(f"guides: no block '{block_id}' (blocks: {', '.join(BLOCKS)})")
        for s in BLOCKS[block_id][1]:
            for prog in re.findall(r"\bbuild/(\S+)", s["cmd"]):
                if not os.access(build / prog, os.X_OK):
                    raise SystemExit(f"guides: {build / prog} not built "
                                     f"(cmake --build {build} --target {prog.split('/')[-1]})")
    scratch = scratch_folder(build)
    files = {}
    drift = []
    try:
        for block_id in chosen:
            file, steps = BLOCKS[block_id]
            results = run_block(block_id, steps, scratch)
            for path, marker, body in ((file, f"guide:{block_id}", guide_text(results)),
                                       ("README.md", f"guide:{block_id}:readme", readme_text(results))):
                text = files.setdefault(path, (ROOT / path).read_text())
                if path == "README.md" and current_block(text, marker) is None:
                    continue  # the README shows only some blocks
                if check:
                    have = current_block(text, marker)
                    if have is None or as_numbers(have) != as_numbers(body):
                        drift.append((path, marker, have or "", body))
                else:
                    files[path] = replace_block(text, marker, body, path)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if check:
        for path, marker, have, body in drift:
            import difflib
            print(f"guides: {path} {marker} differs from what its commands print now:")
            sys.stdout.writelines(difflib.unified_diff((have + "\n").splitlines(True), (body + "\n").splitlines(True),
                                                       "committed", "now"))
        if drift:
            print("guides: run tools/guides.py to rewrite the transcripts")
            return 1
        print(f"guides: {len(chosen)} transcripts match")
        return 0
    for path, text in files.items():
        (ROOT / path).write_text(text)
        print(f"guides: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
