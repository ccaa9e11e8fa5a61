#!/usr/bin/env bash
# docs/results.md, "Families": every baseline, the committed PPO policy (agent/policies/default),
# the oracle and solo runs over the families test, comm-heavy, crypto-bound, background and
# arrivals, with `nicagent eval --family` on the model backend (whole-scenario evaluation).
#
# Usage: tools/results.sh [BUILD_DIR]
#   COUNT          scenarios drawn per family (the family's first seeds); default 20 for
#                  `test` (issue 15's goal is measured on >= 20 scenarios x 5 seeds of it), 10
#                  for the others
#   SEEDS          seeds per scenario; default 5 for `test`, 3 for the others
#   MIN_ITER (20)  each run until every training tenant finished this many iterations / rounds
#   ORACLE (10)    static configurations the oracle search judges per scenario
#   THREADS (2)    runs in parallel
#   FAMILIES       the families to (re)run; default: test comm-heavy crypto-bound background arrivals
# Writes docs/results/families/FAMILY/{results.md,runs.csv,eval.log}, the committed policy's
# learning curve (test/training.png: train.csv and validation.csv of agent/policies/default) and the timeline figure of
# the family's first scenario (timeline-NAME.png: per-tenant bandwidth and crypto-slot share
# of FIFO, the best baseline there and the policy), then puts the tables of
# every default family measured so far (in that order) between the results:begin /
# results:end markers of docs/results.md, so `FAMILIES=background tools/results.sh`
# refreshes one family's tables.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
nicagent="$build/agent/nicagent"
require_built results "$nicagent" "cmake --build $build --target nicagent"
min_iter=${MIN_ITER:-20}
oracle=${ORACLE:-10}
threads=${THREADS:-2}
all="test comm-heavy crypto-bound background arrivals"
families=${FAMILIES:-$all}
out="$root/docs/results/families"
mkdir -p "$out"
tables=$(mktemp)
trap 'rm -f "$tables"' EXIT
for f in $families; do
  dir="$out/$f"
  mkdir -p "$dir"
  # The test family's folder also gets the committed policy's learning curve (training.png).
  training=()
  if [[ $f == test ]]; then
    count=${COUNT:-20} seeds=${SEEDS:-5}
    training=(--training-log "$root/agent/policies/default/train.csv")
  else
    count=${COUNT:-10} seeds=${SEEDS:-3}
  fi
  echo "==> $f: nicagent eval --family sim/families/$f.yaml --count $count --seeds $seeds (log: $dir/eval.log)"
  start=$(date +%s)
  /usr/bin/time -f "time: %e s wall, %U s user, %S s system" \
    "$nicagent" --log-level info eval --family "$root/sim/families/$f.yaml" --count "$count" --seeds "$seeds" \
    --min-iterations "$min_iter" --oracle-evaluations "$oracle" --backend model --threads "$threads" \
    --policy "$root/agent/policies/default" "${training[@]}" --out "$dir" >/dev/null 2>"$dir/eval.log"
  tail -1 "$dir/eval.log"
  echo "    $(( $(date +%s) - start )) s"
done
for f in $all; do
  [[ -f $out/$f/results.md ]] || continue
  # Each family's header paragraph (run settings) stays with its tables.
  cat "$out/$f/results.md" >>"$tables"
  echo >>"$tables"
done
python3 - "$root/docs/results.md" "$tables" <<'PY'
import sys
doc, tables = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read()
begin, end = "<!-- results:begin -->", "<!-- results:end -->"
i, j = text.index(begin) + len(begin), text.index(end)
open(doc, "w").write(text[:i] + "\n" + tables.rstrip() + "\n" + text[j:])
PY
echo "results: docs/results.md updated"
