#!/usr/bin/env bash
# Fork-cost benchmark of a running simulation (ControlledRun::fork and Simulation::fork on
# the model backend) at 8 and 16 tenants; writes its table into docs/simulation.md
# (between the bench_sim_fork markers). Usage: tools/bench_sim_fork.sh [BUILD_DIR]
#   per scenario: a run under progress+guard, forked at FORKS decisions spread over it,
#   REPEATS forks of each state: CPU time and heap bytes per fork, and per control interval
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
CYCLES=${CYCLES:-1000000}
FORKS=${FORKS:-20}
REPEATS=${REPEATS:-5}

build_targets "$build" bench_sim_fork
bench="$build/agent/bench_sim_fork"
require_built bench_sim_fork "$bench" "cmake --build $build --target bench_sim_fork"

commit=$(measured_code)
rows=""
for scenario in default sixteen_tenants; do
  echo "bench_sim_fork: $scenario, $CYCLES cycles, $FORKS fork points x $REPEATS"
  line=$("$bench" "$root/sim/scenarios/$scenario.yaml" --cycles "$CYCLES" --forks "$FORKS" --repeats "$REPEATS")
  rows+=$(printf '| %s | %s | %s (%s) | %s +- %s (max %s) | %.0f (max %.0f) | %s +- %s | %.0f | %s |' \
    "$commit" "sim/scenarios/$scenario.yaml" "$(field tenants <<<"$line")" "$(field scenario_tenants <<<"$line")" \
    "$(field fork_us <<<"$line")" "$(field fork_us_ci <<<"$line")" "$(field fork_us_max <<<"$line")" \
    "$(awk "BEGIN { print $(field fork_bytes <<<"$line") / 1024 }")" \
    "$(awk "BEGIN { print $(field fork_bytes_max <<<"$line") / 1024 }")" \
    "$(field sim_fork_us <<<"$line")" "$(field sim_fork_us_ci <<<"$line")" \
    "$(awk "BEGIN { print $(field sim_fork_bytes <<<"$line") / 1024 }")" "$(field interval_us <<<"$line")")
  rows+=$'\n'
done

cpu=$(cpu_model)
table=$(
  echo "Measured $(date -u +%Y-%m-%d) on $cpu (one thread), by \`tools/bench_sim_fork.sh $1\`: each scenario on the model backend under \`progress+guard\` (control interval 2000 cycles, $CYCLES cycles), forked at $FORKS decisions spread evenly over the run, $REPEATS forks of each state. CPU microseconds of the forking thread (mean +- 95 % interval over the forks, and the largest); KiB: heap the copy holds (glibc bytes in use after the fork minus before, mean and largest). Load average at the time: $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores."
  echo
  echo "| code | scenario | NIC tenants (scenario's) | ControlledRun::fork, us | its KiB | Simulation::fork, us | its KiB | one control interval, us |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  printf '%s' "$rows"
)
echo "$table"
doc="$root/docs/simulation.md"
replace_block "$doc" "<!-- bench_sim_fork:begin -->" "<!-- bench_sim_fork:end -->" "$table"
echo "bench_sim_fork: wrote the table into docs/simulation.md"
