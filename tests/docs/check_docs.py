#!/usr/bin/env python3
"""Checks that keep the user documentation true to the code (CTest docs.*).

  exit_codes ROOT NICSIM NICAGENT NICCTL
      docs/reference/exit-codes.md lists exactly the codes the programs declare (enum Exit
      in each commands.hpp) and the board scripts declare (their "Exit codes:" comment,
      which must cover every `exit N` in them); each program given an unknown option exits
      with its kUsage code.
  make_help ROOT
      every .PHONY target of the Makefile appears in `make help` as "make TARGET", and
      every target help names is a .PHONY target.
  readme ROOT
      README.md starts with the `make run` / `make test` block and stays short.
  wording ROOT
      README.md and docs/**/*.md speak to users: no line speaks of sessions, issues,
      engineers, helpers, handles (h12) or git branches, and a commit hash appears only in a
      table row. Prints every offending line as FILE:LINE: what: text.
"""
import pathlib
import re
import subprocess
import sys

# ---------------------------------------------------------------- exit codes

ENUMS = {
    "nicsim": "sim/src/nicsim/commands.hpp",
    "nicagent": "agent/src/nicagent/commands.hpp",
    "nicctl": "host/src/nicctl/commands.hpp",
}
SCRIPTS = ["constraints/vivado/build.sh", "constraints/vivado/program.sh"]
DOC_EXIT = "docs/reference/exit-codes.md"


def declared_enum(path):
    """{code: constant} of the `enum Exit : int { ... };` in a header."""
    text = path.read_text()
    m = re.search(r"enum Exit : int \{(.*?)\};", text, re.S)
    if not m:
        raise SystemExit(f"{path}: no `enum Exit : int {{...}}`")
    body = re.sub(r"//[^\n]*", "", m.group(1))
    codes = {}
    for name, value in re.findall(r"(k\w+)\s*=\s*(\d+)", body):
        codes[int(value)] = name
    return codes


def declared_script(path):
    """The codes of a script's "# Exit codes: 0 ...; 1 ...;" header, checked against its `exit N`s."""
    lines = path.read_text().splitlines()
    header = ""
    for i, line in enumerate(lines):
        if "Exit codes:" in line:
            header = line.split("Exit codes:", 1)[1]
            for more in lines[i + 1:]:  # the comment goes on to the first line that is not one
                if not more.startswith("#"):
                    break
                header += " " + more.lstrip("# ")
            break
    codes = {int(c) for c in re.findall(r"(?:^|;)\s*(\d+)\s", header)}
    if not codes:
        raise SystemExit(f"{path}: no '# Exit codes: N meaning; ...' header")
    used = {int(c) for c in re.findall(r"\bexit (\d+)", "\n".join(l for l in lines if not l.startswith("#")))}
    if not used <= codes:
        raise SystemExit(f"{path}: exits with {sorted(used - codes)}, not in its Exit codes header {sorted(codes)}")
    return codes


def documented(root):
    """{program: {code: constant or None}} from the table of docs/reference/exit-codes.md."""
    table = {}
    for n, line in enumerate((root / DOC_EXIT).read_text().splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 4 or not re.match(r"\d", cells[1]):
            continue
        program, code, constant = cells[0], int(re.match(r"\d+", cells[1]).group()), cells[2].strip("`")
        if code in table.setdefault(program, {}):
            raise SystemExit(f"{DOC_EXIT}:{n}: {program} code {code} listed twice")
        table[program][code] = None if constant in ("—", "-", "") else constant
    return table


def check_exit_codes(root, binaries):
    errors = []
    doc = documented(root)
    want = {p: declared_enum(root / h) for p, h in ENUMS.items()}
    want.update({s: dict.fromkeys(declared_script(root / s)) for s in SCRIPTS})
    for program in sorted(set(want) | set(doc)):
        if program not in want:
            errors.append(f"{DOC_EXIT}: {program} is not a program or script this check knows")
            continue
        have = doc.get(program, {})
        for code, name in sorted(want[program].items()):
            if code not in have:
                errors.append(f"{DOC_EXIT}: {program} code {code} ({name or 'declared'}) missing")
            elif have[code] != name:
                errors.append(f"{DOC_EXIT}: {program} code {code} is `{have[code]}` in the doc, `{name}` in the code")
        for code in sorted(set(have) - set(want[program])):
            errors.append(f"{DOC_EXIT}: {program} code {code} is not declared by {ENUMS.get(program, program)}")
    for program, binary in zip(ENUMS, binaries):
        usage = {v: k for k, v in want[program].items()}["kUsage"]
        r = subprocess.run([binary, "--no-such-option"], capture_output=True, text=True)
        if r.returncode != usage:
            errors.append(f"{program} --no-such-option exited {r.returncode}, kUsage is {usage}")
    return errors


# ---------------------------------------------------------------- make help

def check_make_help(root):
    text = (root / "Makefile").read_text().replace("\\\n", " ")
    phony = set()
    for line in text.splitlines():
        if line.startswith(".PHONY:"):
            phony.update(line.split(":", 1)[1].split())
    out = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(root), "help"],
                         capture_output=True, text=True, check=True).stdout
    helped = set(re.findall(r"^make (\w+)", out, re.M))
    errors = [f"Makefile: .PHONY target '{t}' is not in make help" for t in sorted(phony - helped)]
    errors += [f"Makefile: make help names '{t}', which is not a .PHONY target" for t in sorted(helped - phony)]
    return errors


# ---------------------------------------------------------------- README

def check_readme(root):
    """README.md starts (after its title) with the two commands: make run, then make test."""
    lines = (root / "README.md").read_text().splitlines()
    body = [l for l in lines[1:] if l.strip()]
    block = body[1:3] if body and body[0].startswith("```") else []
    if len(body) < 4 or body[3] != "```" or [l.split()[:2] for l in block] != [["make", "run"], ["make", "test"]]:
        return ["README.md: the first thing after the title must be a code block of `make run` and `make test`"]
    if len(lines) > 130:
        return [f"README.md: {len(lines)} lines; the details belong in docs/guides/"]
    return []


# ---------------------------------------------------------------- wording

# What a user's page does not speak of. Each (what, pattern); case-insensitive except the handle.
WORDS = [
    ("session", re.compile(r"\bsessions?[\s-]*\d+", re.I)),
    ("issue", re.compile(r"\bissues?[\s-]*#?\d+", re.I)),
    ("handle", re.compile(r"\bh\d{1,2}\b")),
    ("lead", re.compile(r"\bthe lead's\b", re.I)),
    ("engineer", re.compile(r"\bengineers?\b", re.I)),
    ("helper", re.compile(r"\b(?:other|beside|two|three|\d+)\s+helpers\b|\bhelpers'", re.I)),
    ("git branch", re.compile(
        r"\b(?:the|this|that|on|a|our|my|your|each|other|own|feature|git|separate)\s+branch(?:es|'s)?\b"
        r"(?!\s+(?:points?|coverage|in\b|of\b))"
        r"|\bbranch(?:es)?\s+(?:`|h\d|main\b|named\b)"
        r"|\bmerged?\s+into\s+main\b|\bworktrees?\b", re.I)),
]
# A commit hash: 7-40 hex digits with at least one digit and one letter.
HASH = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
# Hashes that are not this repository's commits: the tool versions a generated line names.
HASH_ALLOWED = [re.compile(r"Yosys [\d.]+ \(git sha1 [0-9a-f]+\)")]


def check_wording(root):
    errors = []
    files = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    for path in files:
        rel = path.relative_to(root)
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for what, pattern in WORDS:
                m = pattern.search(line)
                if m:
                    errors.append(f"{rel}:{n}: {what} ('{m.group(0)}'): {line.strip()[:160]}")
            if line.lstrip().startswith("|"):
                continue
            stripped = line
            for allowed in HASH_ALLOWED:
                stripped = allowed.sub("", stripped)
            m = HASH.search(stripped)
            if m:
                errors.append(f"{rel}:{n}: commit hash outside a table row ('{m.group(0)}'): {line.strip()[:160]}")
    return errors


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    check, root = argv[1], pathlib.Path(argv[2]).resolve()
    if check == "exit_codes":
        errors = check_exit_codes(root, argv[3:6])
    elif check == "make_help":
        errors = check_make_help(root)
    elif check == "readme":
        errors = check_readme(root)
    elif check == "wording":
        errors = check_wording(root)
    else:
        raise SystemExit(f"unknown check '{check}' (exit_codes, make_help, readme, wording)")
    for e in errors:
        print(e)
    print(f"docs.{check}: {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
