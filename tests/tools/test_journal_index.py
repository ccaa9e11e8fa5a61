#!/usr/bin/env python3
"""tools.journal_index.*: docs/journal/README.md is what the pages give, and bad pages are named.

Usage: test_journal_index.py CHECK --tool tools/journal_index.py --root REPO
  committed_index_up_to_date  --check on the repository passes
  bad_pages_named             a page whose title or name breaks the rule is named, exit 1
  stale_index_detected        a page added after the index was written fails --check; a rewrite fixes it
"""
import argparse
import os
import subprocess
import sys
import tempfile


def run(tool, root, *extra):
    return subprocess.run([sys.executable, tool, "--root", root, *extra], capture_output=True, text=True)


def journal(tmp, pages):
    d = os.path.join(tmp, "docs", "journal")
    os.makedirs(d)
    for name, first in pages.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(first + "\n\nbody\n")
    return d


def expect(cond, what):
    if not cond:
        print(f"FAILED: {what}")
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("--tool", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    if a.check == "committed_index_up_to_date":
        r = run(a.tool, a.root, "--check")
        expect(r.returncode == 0, f"--check on the repository: {r.stderr.strip()}")
    elif a.check == "bad_pages_named":
        for name, first, says in [
            ("2026-01-02-x.md", "# 2026-01-03: wrong date", "2026-01-02-x.md:1: the title's date 2026-01-03"),
            ("2026-01-02-y.md", "# No date here", "2026-01-02-y.md:1: expected the title line"),
            ("notes.md", "# 2026-01-02: fine", "notes.md: expected a name YYYY-MM-DD"),
        ]:
            with tempfile.TemporaryDirectory() as tmp:
                journal(tmp, {"2026-01-01-good.md": "# 2026-01-01: Good", name: first})
                r = run(a.tool, tmp)
                expect(r.returncode == 1, f"{name}: exit {r.returncode}, expected 1")
                expect(says in r.stderr, f"{name}: {r.stderr!r} does not say {says!r}")
                expect(not os.path.exists(os.path.join(tmp, "docs", "journal", "README.md")), f"{name}: index written")
    elif a.check == "stale_index_detected":
        with tempfile.TemporaryDirectory() as tmp:
            d = journal(tmp, {"2026-01-01-a.md": "# 2026-01-01: First", "2026-01-03-b.md": "# 2026-01-03: Second"})
            expect(run(a.tool, tmp).returncode == 0, "writing the index")
            text = open(os.path.join(d, "README.md")).read()
            expect(text.index("2026-01-03-b.md") < text.index("2026-01-01-a.md"), "newest first")
            expect(run(a.tool, tmp, "--check").returncode == 0, "--check right after writing")
            with open(os.path.join(d, "2026-01-02-c.md"), "w") as f:
                f.write("# 2026-01-02: Third\n")
            r = run(a.tool, tmp, "--check")
            expect(r.returncode == 1 and "README.md" in r.stderr, f"a new page not in the index: {r.stderr!r}")
            expect(run(a.tool, tmp).returncode == 0 and run(a.tool, tmp, "--check").returncode == 0, "rewrite")
    else:
        print(f"unknown check {a.check}")
        return 2
    print(f"{a.check}: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
