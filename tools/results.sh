#!/usr/bin/env bash
# docs/results.md and docs/results/families/: every baseline, the committed PPO policy
# (agent/policies/default), the oracle and solo runs over the scenario families, with
# `nicagent eval --family` on the model backend (whole-scenario evaluation). Two steps:
#   1. evaluation: per family, nicagent eval writes docs/results/families/FAMILY/{results.md,
#      runs.csv,tenants.csv,eval.log} (results.md: per-scenario tables, decision latency; the
#      timeline figure of the family's first scenario, per-tenant bandwidth and crypto-slot
#      share of FIFO, the best baseline there and the policy; for `test`, the committed
#      policy's learning curve training.png), and this script adds measured.txt: the commit,
#      date, settings and wall time of the evaluation;
#   2. render: tools/results_render.py builds the whole of docs/results.md from the committed
#      runs.csv and measured.txt files alone (no simulation).
#
# Usage: tools/results.sh [BUILD_DIR]   (default: build)
#   RENDER_ONLY=1  skip step 1: re-render docs/results.md from the committed runs (a second;
#                  needs no build)
#   FAMILIES       the families to (re)evaluate; default: every family of the page
#                  (`tools/results_render.py --families`); the page shows every family that
#                  has a runs.csv, so `FAMILIES=background tools/results.sh` refreshes one
#   COUNT          scenarios drawn per family (the family's first seeds); default 20 for
#                  `test`, 10 for the others
#   SEEDS          seeds per scenario; default 5 for `test`, 3 for the others
#   MIN_ITER (20)  each run until every training tenant finished this many iterations / rounds
#   ORACLE (10)    static configurations the oracle search judges per scenario
#   THREADS (2)    runs in parallel
#   LOOKAHEAD (1)  the lookahead oracle's row (nicagent eval --lookahead --lookahead-per-run
#                  LOOKAHEAD_PER_RUN, H = 2 k, continuation to the end); 0: without it (its
#                  copies are most of step 1's cost)
#   LOOKAHEAD_PER_RUN (8)  the lookahead's decisions per run after the first
# Step 1 takes about 90 minutes on 2 cores (about 45 with LOOKAHEAD=0).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
render="$root/tools/results_render.py"
out="$root/docs/results/families"

if [[ ${RENDER_ONLY:-0} != 1 ]]; then
  build=$(build_dir "${1:-}")
  nicagent="$build/agent/nicagent"
  require_built results "$nicagent" "cmake --build $build --target nicagent"
  min_iter=${MIN_ITER:-20}
  oracle=${ORACLE:-10}
  threads=${THREADS:-2}
  lookahead=()
  [[ ${LOOKAHEAD:-1} != 1 ]] || lookahead=(--lookahead --lookahead-per-run "${LOOKAHEAD_PER_RUN:-8}")
  policy=agent/policies/default
  commit=$(measured_code)
  for f in ${FAMILIES:-$(python3 "$render" --families)}; do
    dir="$out/$f"
    mkdir -p "$dir"
    # The test family's folder also gets the committed policy's learning curve (training.png).
    training=()
    if [[ $f == test ]]; then
      count=${COUNT:-20} seeds=${SEEDS:-5}
      training=(--training-log "$root/$policy/train.csv")
    else
      count=${COUNT:-10} seeds=${SEEDS:-3}
    fi
    echo "==> $f: nicagent eval --family sim/families/$f.yaml --count $count --seeds $seeds (log: $dir/eval.log)"
    start=$(date +%s)
    /usr/bin/time -f "time: %e s wall, %U s user, %S s system" \
      "$nicagent" --log-level info eval --family "$root/sim/families/$f.yaml" --count "$count" --seeds "$seeds" \
      --min-iterations "$min_iter" --oracle-evaluations "$oracle" --backend model --threads "$threads" \
      --policy "$root/$policy" "${training[@]}" "${lookahead[@]}" --out "$dir" >/dev/null 2>"$dir/eval.log"
    tail -1 "$dir/eval.log"
    wall=$(( $(date +%s) - start ))
    echo "    $wall s"
    cat >"$dir/measured.txt" <<TXT
# How runs.csv here was measured: written by tools/results.sh, read by tools/results_render.py.
commit: $commit
date: $(date -u +%Y-%m-%d)
backend: model
count: $count
seeds: $seeds
min_iterations: $min_iter
oracle_evaluations: $oracle
threads: $threads
lookahead: ${lookahead[*]:-none}
policy: $policy
wall_s: $wall
TXT
  done
fi
python3 "$render"
echo "results: docs/results.md rendered from docs/results/families/*/runs.csv"
