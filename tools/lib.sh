# Sourced by the tools/*.sh scripts (after `set -euo pipefail`): root is this checkout.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# build_dir [DIR]: the build directory, DIR (default build) made absolute against root.
build_dir() {
  local dir=${1:-build}
  [[ $dir = /* ]] || dir="$root/$dir"
  echo "$dir"
}

# require_built SCRIPT PROGRAM HINT: stops with "SCRIPT: PROGRAM not built (HINT)" unless
# PROGRAM is an executable file.
require_built() {
  if [[ ! -x $2 ]]; then
    echo "$1: $2 not built ($3)" >&2
    exit 1
  fi
}

# replace_block DOC BEGIN END TEXT: puts TEXT (a line before and after it) between the marker
# lines BEGIN and END of DOC, the generated block a benchmark or report owns; stops naming
# DOC and the marker when either is missing.
replace_block() {
  python3 - "$@" <<'PY'
import sys
doc, begin, end, block = sys.argv[1:]
text = open(doc).read()
for m in (begin, end):
    if m not in text:
        sys.exit(f"replace_block: {doc} has no {m} marker")
i, j = text.index(begin) + len(begin), text.index(end)
open(doc, "w").write(text[:i] + "\n" + block.rstrip("\n") + "\n" + text[j:])
PY
}

# measured_code [PATHSPEC...]: the code that measured a figure, for a table's "code" column:
# HEAD's short hash (7), with "+changes" when tracked files under PATHSPEC (default: all but
# docs/, which the measuring scripts write) differ from it; "unknown" outside a git checkout.
measured_code() {
  local code
  code=$(git -C "$root" rev-parse --short=7 HEAD 2>/dev/null) || { echo unknown; return; }
  (($#)) || set -- . ':!docs'
  [[ -z $(git -C "$root" status --porcelain --untracked-files=no -- "$@") ]] || code="$code+changes"
  echo "$code"
}

# build_targets BUILD TARGET...: builds the TARGETs in BUILD (output kept back), saying so.
build_targets() {
  local build=$1
  shift
  echo "$(basename "$0" .sh): building $* in $build"
  cmake --build "$build" --target "$@" >/dev/null
}

# field KEY: from "key value key value ..." lines on stdin (the benches' output), the number
# after the word KEY (a whole word: `seconds` does not match `cpu_seconds`).
field() { sed -n "s/.*\b$1 \([0-9.]*\).*/\1/p"; }

# cpu_model: the processor's name as /proc/cpuinfo gives it, for "Measured on ..." lines.
cpu_model() { sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1; }
