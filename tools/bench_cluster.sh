#!/usr/bin/env bash
# Cost of a cluster run (nicsim cluster, docs/cluster.md) at 8 and 32 servers; writes its
# table into docs/cluster.md (between the bench_cluster markers).
# Usage: tools/bench_cluster.sh [BUILD_DIR]; REPEATS runs of each (default 3), the median kept.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
REPEATS=${REPEATS:-3}

build_targets "$build" nicsim
nicsim="$build/sim/nicsim"
require_built bench_cluster "$nicsim" "cmake --build $build --target nicsim"

commit=$(measured_code)
rows=""
for scenario in small medium; do
  file="$root/cluster/scenarios/$scenario.yaml"
  for placement in vclos random; do
    runs=()
    for ((i = 0; i < REPEATS; i++)); do
      # user CPU seconds of the one process (the machine is shared: wall time counts others)
      runs+=("$( { /usr/bin/time -f '%U' "$nicsim" cluster "$file" --placement "$placement" --json >/tmp/bench_cluster.$$.json; } 2>&1 | tail -1)")
    done
    cpu=$(printf '%s\n' "${runs[@]}" | sort -g | sed -n "$(((REPEATS + 1) / 2))p")
    read -r servers cycles clock scale <<<"$(python3 - /tmp/bench_cluster.$$.json "$file" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
clock = scale = None
for line in open(sys.argv[2]):
    k, _, v = line.partition(":")
    if k == "clock_mhz": clock = float(v)
    if k == "scale": scale = float(v)
print(len(r["hosts"]), r["simulated_cycles"], clock, scale)
PY
)"
    echo "bench_cluster: $scenario ($servers servers simulated), placement $placement: $cpu CPU s (runs: ${runs[*]})"
    rows+=$(awk -v c="$commit" -v s="cluster/scenarios/$scenario.yaml" -v p="$placement" -v n="$servers" -v cy="$cycles" \
                -v ck="$clock" -v sc="$scale" -v cpu="$cpu" -v runs="$(IFS=,; echo "${runs[*]}")" 'BEGIN {
      sim_s = cy / (ck * 1e6)
      printf "| %s | %s | %s | %d | %.3f | %.2f | %.4f | %.2f | %.1f | %s |", c, s, p, n, sim_s * 1e3, cpu, sim_s / cpu, sim_s * sc / cpu, cpu / n * 1e3 / (sim_s * 1e3), runs
    }')
    rows+=$'\n'
  done
done
rm -f /tmp/bench_cluster.$$.json

table=$(
  echo "Measured $(date -u +%Y-%m-%d) on $(cpu_model) (one thread), by \`tools/bench_cluster.sh $*\`: \`nicsim cluster FILE --placement P\` under fifo, every server's NIC on the model backend; user CPU seconds of the process, the median of $REPEATS runs (all listed). Load average at the end: $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores."
  echo
  echo "| code | scenario | placement | servers simulated | simulated ms | CPU s | simulated s per CPU s | real-job s per CPU s (scale undone) | CPU ms per server per simulated ms | runs, CPU s |"
  echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  printf '%s' "$rows"
)
echo "$table"
replace_block "$root/docs/cluster.md" "<!-- bench_cluster:begin -->" "<!-- bench_cluster:end -->" "$table"
echo "bench_cluster: wrote the table into docs/cluster.md"
