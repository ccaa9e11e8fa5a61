#!/usr/bin/env bash
# The figures that say whether the simulation is fast enough to search with; writes its
# table into docs/simulation.md (between the bench_sim_search markers). Usage:
# tools/bench_sim_search.sh [BUILD_DIR]
#   eval:  wall seconds of `nicagent eval --backend model --family sim/families/test.yaml
#          --count 20 --seeds 5 --oracle-evaluations 0` (every baseline, one run per core,
#          empty solo cache); EVAL=0 skips it.
#   train: `nicagent train --backend model --family sim/families/train.yaml` with POLICY's
#          ppo.yaml and env.yaml unchanged, UPDATES updates (default 6); from its train.csv,
#          over the updates after the first: environment steps/s of the rollout (the envs
#          stepped by env_threads threads, the policy acting between steps), PPO training
#          steps/s (rollout and update) and the update's share of the time.
#   profile: where the CPU goes (`perf record`, user time, flat by symbol, the top rows) in
#          that training run, and in `nicsim run FILE --backend model --baseline fair`
#          (event-driven stepping, its solo runs included, empty cache) on the default
#          scenario and on the test family's first draw; skipped when perf cannot record.
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
POLICY=${POLICY:-agent/policies/default}
UPDATES=${UPDATES:-6}
EVAL=${EVAL:-1}
TOP=${TOP:-12}

build_targets "$build" nicagent nicsim
agent="$build/agent/nicagent"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
code=$(measured_code)
rows=""
row() { rows+="| $code | $1 | $2 | $3 |"$'\n'; }

if [[ $EVAL == 1 ]]; then
  echo "bench_sim_search: nicagent eval, test family, 20 draws x 5 seeds, every baseline"
  t0=$(date +%s.%N)
  XDG_CACHE_HOME="$work/cache" "$agent" --log-level warn eval --backend model --family sim/families/test.yaml \
    --count 20 --seeds 5 --oracle-evaluations 0 --out "$work/eval" >/dev/null
  t1=$(date +%s.%N)
  row "\`nicagent eval --backend model --family sim/families/test.yaml --count 20 --seeds 5 --oracle-evaluations 0\`, every baseline, $(nproc) runs in parallel, empty solo cache" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f s wall", b - a }')" "goal at most 300 s"
fi

ppo="$POLICY/ppo.yaml" env="$POLICY/env.yaml"
batch=$(awk '/^num_envs:/ { e = $2 } /^num_steps:/ { s = $2 } END { print e * s }' "$ppo")
# a short training run with the policy's configs (then --out DIR)
train=("$agent" --log-level warn train --backend model --family sim/families/train.yaml
  --ppo-config "$ppo" --env-config "$env" --steps $((batch * UPDATES)) --quiet)
echo "bench_sim_search: nicagent train, $UPDATES updates of $batch steps, $POLICY's ppo.yaml and env.yaml"
"${train[@]}" --out "$work/train"
read -r env_sps ppo_sps share n < <(awk -F, -v b="$batch" 'NR > 2 { r += $16; u += $17; n++ }
  END { printf "%.0f %.0f %.1f %d\n", b * n / r, b * n / (r + u), 100 * u / (r + u), n }' "$work/train/train.csv")
threads=$(awk '/^num_envs:/ { e = $2 } /^env_threads:/ { t = $2 } END { printf "%d envs in %d threads", e, t }' "$ppo")
row "environment steps/s in training's rollout ($threads, the policy acting between steps; $POLICY's env.yaml, train family)" \
  "$env_sps" "goal at least 20,000; mean of $n updates after the first"
row "PPO training steps/s (rollout and update; $POLICY's ppo.yaml and env.yaml)" "$ppo_sps" \
  "the update takes $share % of the time"

profiles=""
profile() {  # TITLE COMMAND...: the top TOP symbols of COMMAND's user time
  local title=$1; shift
  perf record -q -e cpu-clock:u -o "$work/perf.data" -- "$@" >/dev/null 2>&1 || return 0
  profiles+=$'\n'"$title:"$'\n\n'"| self % | symbol |"$'\n'"| ---: | --- |"$'\n'
  profiles+=$(perf report -i "$work/perf.data" --stdio --no-children --sort symbol 2>/dev/null \
    | awk -v top="$TOP" '/^ +[0-9.]+%/ && n < top { p = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/ *( - -)? *$/, ""); gsub(/\|/, "\\|");
        if (length($0) > 110) $0 = substr($0, 1, 107) "..."; printf "| %s | `%s` |\n", p, $0; n++ }')$'\n'
}
if perf record -q -e cpu-clock:u -o "$work/probe.data" -- true >/dev/null 2>&1; then
  echo "bench_sim_search: profiles"
  profile "\`nicagent train\` as above (all threads)" "${train[@]}" --out "$work/train-perf"
  seed=$(sed -n 's/^seeds: {first: \([0-9]*\),.*/\1/p' sim/families/test.yaml)
  "$build/sim/nicsim" gen --family sim/families/test.yaml --seed "$seed" --count 1 --out "$work" >/dev/null
  for f in sim/scenarios/default.yaml "$work/test-$seed.yaml"; do
    name=$f; [[ $f == "$work"/* ]] && name="draw test-$seed (nicsim gen)"
    profile "\`nicsim run $name --backend model --baseline fair\` (solo runs included)" \
      "$build/sim/nicsim" run "$f" --backend model --baseline fair --cache-dir "$work/cache-$(basename "$f" .yaml)"
  done
fi

cpu=$(cpu_model)
table=$(
  echo "Measured $(date -u +%Y-%m-%d) on $cpu, $(nproc) cores shared with other jobs (load average $(cut -d' ' -f1 /proc/loadavg) at the end), by \`tools/bench_sim_search.sh ${1:-}\`; one run each, so a figure varies by the load (tens of percent)."
  echo
  echo "| code | what | measured | |"
  echo "| --- | --- | ---: | --- |"
  printf '%s' "$rows"
  printf '%s' "$profiles"
)
echo "$table"
replace_block "$root/docs/simulation.md" "<!-- bench_sim_search:begin -->" "<!-- bench_sim_search:end -->" "$table"
echo "bench_sim_search: wrote the table into docs/simulation.md"
