#!/usr/bin/env bash
# make bench: every part's benchmark, each writing its table into docs/ (the file named
# beside it). Usage: tools/bench.sh [BUILD_DIR]. One part: BENCH=sim tools/bench.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
# part  script                  results in
benches=(
  "rtl   tools/bench_rtl.sh   docs/rtl.md"
  "sim   tools/bench_sim.sh   docs/simulation.md"
  "fork  tools/bench_sim_fork.sh docs/simulation.md"
  "event tools/bench_sim_event.sh docs/simulation.md"
  "search tools/bench_sim_search.sh docs/simulation.md"
  "cluster tools/bench_cluster.sh docs/cluster.md"
  "host  tools/bench_host.sh  docs/nicctl.md"
  "agent tools/bench_agent.sh docs/agent.md"
)
for row in "${benches[@]}"; do
  read -r part script doc <<<"$row"
  [[ -z ${BENCH:-} || ${BENCH} == "$part" ]] || continue
  echo "==> bench $part: $script -> $doc"
  bash "$root/$script" "$build"
done
