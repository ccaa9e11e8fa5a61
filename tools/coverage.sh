#!/usr/bin/env bash
# coverage.sh: line and toggle coverage of the RTL under the constrained-random regression.
# Builds nicsched_regress with Verilator --coverage (NICSCHED_REGRESS_COVERAGE=ON) in its own
# build directory, runs SEEDS seeds, merges the counts and writes a per-module summary
# (points hit / points, per kind) plus the uncovered lines into docs/verification.md,
# between the "coverage:begin" and "coverage:end" markers.
# Usage: tools/coverage.sh [SEEDS]        (default 20)
# Environment: COVERAGE_BUILD (default build-coverage), JOBS (default 2),
#              REGRESS_ARGS (extra nicsched_regress options, e.g. "--max-cycles 30000").
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seeds="${1:-20}"
build="${COVERAGE_BUILD:-$root/build-coverage}"
jobs="${JOBS:-2}"
out="$build/coverage"
doc="$root/docs/verification.md"

[[ "$seeds" =~ ^[0-9]+$ && "$seeds" -gt 0 ]] || { echo "coverage.sh: SEEDS must be a positive integer, got '$seeds'" >&2; exit 2; }
command -v verilator_coverage >/dev/null || { echo "coverage.sh: verilator_coverage not found (make deps)" >&2; exit 2; }
[[ -f "$doc" ]] || { echo "coverage.sh: $doc not found" >&2; exit 2; }
grep -q "coverage:begin" "$doc" && grep -q "coverage:end" "$doc" || {
  echo "coverage.sh: $doc lacks the <!-- coverage:begin --> / <!-- coverage:end --> markers" >&2; exit 2; }

echo "==> coverage: configuring $build (NICSCHED_REGRESS_COVERAGE=ON)"
cmake -S "$root" -B "$build" -G Ninja -DNICSCHED_REGRESS_COVERAGE=ON >/dev/null
echo "==> coverage: building nicsched_regress"
cmake --build "$build" --target nicsched_regress -j "$jobs"
rm -rf "$out"
mkdir -p "$out/seeds"
echo "==> coverage: running $seeds seeds"
set +e
# shellcheck disable=SC2086
"$build/tests/verif/nicsched_regress" --seeds "$seeds" --quiet --coverage-dir "$out/seeds" \
  --out "$out/waves" ${REGRESS_ARGS:-} | tee "$out/regress.log"
regress_rc=${PIPESTATUS[0]}
set -e
verilator_coverage --write "$out/merged.dat" "$out"/seeds/*.dat
verilator_coverage --annotate "$out/annotated" --annotate-min 1 "$out/merged.dat" >/dev/null
summary_line="$(tail -n 1 "$out/regress.log")"
cmd="tools/coverage.sh $seeds${REGRESS_ARGS:+ (REGRESS_ARGS=$REGRESS_ARGS)}"

python3 - "$out/merged.dat" "$doc" "$cmd" "$summary_line" "$root" <<'PY'
import collections, re, sys
dat, doc, cmd, summary, root = sys.argv[1:6]
points = collections.defaultdict(lambda: [0, 0])      # (module, kind) -> [hit, total]
uncovered = collections.defaultdict(set)               # module -> {(file, line)}
for raw in open(dat, encoding="latin-1"):
    if not raw.startswith("C '"):
        continue
    body, count = raw.rstrip("\n").rsplit(" ", 1)
    body = body[3:-1]
    fields = {}
    for part in body.split("\x01")[1:]:
        k, _, v = part.partition("\x02")
        fields[k] = v
    page = fields.get("page", "")
    kind, _, module = page.partition("/")
    kind = kind.replace("v_", "")
    if not module:
        continue
    hit = int(count) > 0
    p = points[(module, kind)]
    p[0] += hit
    p[1] += 1
    if not hit and kind in ("line", "branch"):
        f = fields.get("f", "?").replace(root + "/", "")
        uncovered[module].add((f, int(fields.get("l", "0"))))
kinds = sorted({k for (_, k) in points})
modules = sorted({m for (m, _) in points})
lines = [f"Command: `{cmd}`; regression result: `{summary}`.", "",
         "| module | " + " | ".join(kinds) + " |", "| --- |" + " --- |" * len(kinds)]
for m in modules:
    cells = []
    for k in kinds:
        hit, tot = points.get((m, k), [0, 0])
        cells.append(f"{100.0 * hit / tot:.1f}% ({hit}/{tot})" if tot else "-")
    lines.append(f"| `{m}` | " + " | ".join(cells) + " |")
lines += ["", "Uncovered line/branch points (file:line), per module:", ""]
for m in modules:
    u = sorted(uncovered.get(m, ()))
    if not u:
        lines.append(f"- `{m}`: none")
        continue
    shown = ", ".join(f"{f.split('/')[-1]}:{l}" for f, l in u[:40])
    more = f" (+{len(u) - 40} more)" if len(u) > 40 else ""
    lines.append(f"- `{m}` ({len(u)}): {shown}{more}")
text = open(doc).read()
new = re.sub(r"(<!-- coverage:begin -->\n).*?(<!-- coverage:end -->)",
             lambda mo: mo.group(1) + "\n".join(lines) + "\n" + mo.group(2), text, flags=re.S)
open(doc, "w").write(new)
print("\n".join(lines[:len(modules) + 4]))
PY
echo "==> coverage: summary written to docs/verification.md; annotated sources in $out/annotated"
exit "$regress_rc"
