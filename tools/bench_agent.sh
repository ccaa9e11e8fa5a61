#!/usr/bin/env bash
# Agent benchmark (docs/results.md, "Agent figures"): NicEnv steps/s (single and
# vectorised), policy decision latency (wall and thread CPU), PPO update time (mlp and set
# networks), and training throughput of `nicagent train` with 1 and 2 MPI ranks.
# Usage: tools/bench_agent.sh [BUILD_DIR]
# (BACKEND=model for the reference-model backend; STEPS, ENVS, POLICY; TRAIN_STEPS for the
# training rows, which need mpirun and a build with MPI for the 2-rank row)
set -euo pipefail
BUILD_DIR="${1:-build}"
cmake --build "$BUILD_DIR" --target bench_agent nicagent >/dev/null
POLICY="${POLICY:-agent/policies/default}"
BACKEND="${BACKEND:-rtl}"
ARGS=(--scenario sim/scenarios/default.yaml --steps "${STEPS:-400}" --envs "${ENVS:-2}" --backend "$BACKEND")
[ -f "$POLICY/policy.pt" ] && ARGS+=(--policy "$POLICY")
echo "bench_agent on $(nproc) cores, $(date -u +%Y-%m-%d)"
"$BUILD_DIR/agent/bench_agent" "${ARGS[@]}"

# Training throughput: env steps/s over all ranks (train.csv steps_per_second, mean of the
# updates after the first), ENVS envs per rank, 128 steps per env per update.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
train_row() {  # ranks
  local ranks=$1 out="$tmp/r$1" launch=()
  [ "$ranks" -gt 1 ] && launch=(mpirun --allow-run-as-root --oversubscribe -np "$ranks")
  "${launch[@]}" "$BUILD_DIR/agent/nicagent" --log-level warn train --backend "$BACKEND" \
    --scenario sim/scenarios/default.yaml --cycles 1000000 --envs "${ENVS:-2}" \
    --steps "${TRAIN_STEPS:-$((ranks * ${ENVS:-2} * 128 * 4))}" --out "$out" --quiet
  awk -F, -v r="$ranks" -v e="${ENVS:-2}" -v b="$BACKEND" 'NR > 2 { s += $15; n++ }
    END { printf "| nicagent train, %s backend, %d rank(s) x %d envs: env steps/s | %.0f | mean of %d updates after the first |\n", b, r, e, s / n, n }' \
    "$out/train.csv"
}
train_row 1
if command -v mpirun >/dev/null && grep -q "NICSCHED_HAVE_MPI:INTERNAL=ON" "$BUILD_DIR/CMakeCache.txt"; then
  train_row 2
else
  echo "| nicagent train, 2 ranks | not run | needs mpirun and a build with MPI (openmpi-bin libopenmpi-dev) |"
fi
