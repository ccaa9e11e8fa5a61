#!/usr/bin/env bash
# Agent benchmark (docs/results.md, "Agent figures"): NicEnv steps/s (single and
# vectorised), policy inference latency, PPO update time. Usage: tools/bench_agent.sh [BUILD_DIR]
# (BACKEND=model for the reference-model backend; STEPS, ENVS, POLICY)
set -euo pipefail
BUILD_DIR="${1:-build}"
cmake --build "$BUILD_DIR" --target bench_agent >/dev/null
POLICY="${POLICY:-agent/policies/default}"
ARGS=(--scenario sim/scenarios/default.yaml --steps "${STEPS:-400}" --envs "${ENVS:-2}" --backend "${BACKEND:-rtl}")
[ -f "$POLICY/policy.pt" ] && ARGS+=(--policy "$POLICY")
echo "bench_agent on $(nproc) cores, $(date -u +%Y-%m-%d)"
"$BUILD_DIR/agent/bench_agent" "${ARGS[@]}"
