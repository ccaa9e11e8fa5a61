#!/usr/bin/env bash
# Agent benchmark: NicEnv steps/s (single and vectorised), policy decision latency (wall and
# thread CPU), PPO update time (mlp and set networks), and training throughput of
# `nicagent train` with 1 and 2 MPI ranks; the table is printed and written into docs/agent.md
# between the bench_agent markers ("Figures").
# Usage: tools/bench_agent.sh [BUILD_DIR]   (default: build)
# (BACKEND=model for the reference-model backend; STEPS, ENVS, POLICY; TRAIN_STEPS for the
# training rows, which need mpirun and a build with MPI for the 2-rank row)
set -euo pipefail
shopt -s inherit_errexit  # a failing bench inside $(...) stops the script
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=$(build_dir "${1:-}")
doc="$root/docs/agent.md"
begin='<!-- bench_agent -->' end='<!-- /bench_agent -->'
grep -qF "$begin" "$doc" && grep -qF "$end" "$doc" \
  || { echo "bench_agent.sh: $doc has no $begin ... $end block" >&2; exit 1; }
cd "$root"
build_targets "$build" bench_agent nicagent
POLICY="${POLICY:-agent/policies/default}"
BACKEND="${BACKEND:-rtl}"
ENVS="${ENVS:-2}"
ARGS=(--scenario sim/scenarios/default.yaml --steps "${STEPS:-400}" --envs "$ENVS" --backend "$BACKEND")
[ -f "$POLICY/policy.pt" ] && ARGS+=(--policy "$POLICY")

# Training throughput: env steps/s over all ranks (train.csv steps_per_second, mean of the
# updates after the first), ENVS envs per rank, 128 steps per env per update.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
train_row() {  # ranks
  local ranks=$1 out="$tmp/r$1" launch=()
  [ "$ranks" -gt 1 ] && launch=(mpirun --allow-run-as-root --oversubscribe -np "$ranks")
  "${launch[@]}" "$build/agent/nicagent" --log-level warn train --backend "$BACKEND" \
    --scenario sim/scenarios/default.yaml --cycles 1000000 --envs "$ENVS" \
    --steps "${TRAIN_STEPS:-$((ranks * ENVS * 128 * 4))}" --out "$out" --quiet
  awk -F, -v r="$ranks" -v e="$ENVS" -v b="$BACKEND" 'NR > 2 { s += $15; n++ }
    END { printf "| nicagent train, %s backend, %d rank(s) x %d envs: env steps/s | %.0f | mean of %d updates after the first |\n", b, r, e, s / n, n }' \
    "$out/train.csv"
}
table=$(
  "$build/agent/bench_agent" "${ARGS[@]}"
  train_row 1
  if command -v mpirun >/dev/null && grep -q "NICSCHED_HAVE_MPI:INTERNAL=ON" "$build/CMakeCache.txt"; then
    train_row 2
  else
    echo "| nicagent train, 2 ranks | not run | needs mpirun and a build with MPI (openmpi-bin libopenmpi-dev) |"
  fi
)
cpu=$(cpu_model)
stamp="Measured $(date -u +%Y-%m-%d) on $cpu ($(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) at the start) with \`tools/bench_agent.sh\` (${BACKEND} backend, default scenario, $ENVS envs, policy $POLICY)."
echo "$stamp"
echo
echo "$table"
replace_block "$doc" "$begin" "$end" "$stamp

$table"
echo "bench_agent: wrote the table into docs/agent.md"
