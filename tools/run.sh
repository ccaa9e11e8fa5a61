#!/usr/bin/env bash
# make run: the default scenario (sim/scenarios/default.yaml) under each built-in static
# baseline (fifo, fair, sp), printed as one metrics table. Usage: tools/run.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build="$root/$build"
nicsim="$build/sim/nicsim"
if [[ ! -x $nicsim ]]; then
  echo "run: $nicsim not built (make build)" >&2
  exit 1
fi
echo "==> nicsim run sim/scenarios/default.yaml --baseline all"
"$nicsim" run "$root/sim/scenarios/default.yaml" --baseline all
