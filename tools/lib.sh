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
