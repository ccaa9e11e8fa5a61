#!/usr/bin/env bash
# make run: the default scenario (sim/scenarios/default.yaml) under each built-in static
# baseline (fifo, fair, sp), printed as one metrics table. Usage: tools/run.sh [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
nicsim="$build/sim/nicsim"
require_built run "$nicsim" "make run builds it"
echo "==> nicsim run sim/scenarios/default.yaml --baseline all"
"$nicsim" run "$root/sim/scenarios/default.yaml" --baseline all

# Agent (agent/, docs/agent.md): every baseline and the committed PPO policy on the
# default scenario through the same control loop, on the Verilated NIC as above (eval's
# default is the reference model; first 2M cycles, one seed; no oracle search, which would
# take 23 more runs on the Verilated NIC).
nicagent="$build/agent/nicagent"
policy="$root/agent/policies/default"
if [[ -x $nicagent && -f $policy/policy.pt ]]; then
  echo "==> nicagent eval --policy agent/policies/default --scenarios sim/scenarios/default.yaml"
  "$nicagent" --log-level warn eval --policy "$policy" --scenarios "$root/sim/scenarios/default.yaml" \
    --backend rtl --seeds 1 --cycles 2000000 --oracle-evaluations 0 --out "$build/eval-default" --no-plots
fi
