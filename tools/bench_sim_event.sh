#!/usr/bin/env bash
# Event-driven against per-cycle stepping of the model backend; writes its table into
# docs/simulation.md (between the bench_sim_event markers). Usage:
# tools/bench_sim_event.sh [BUILD_DIR]
#   for the default scenario and one draw of every family (`nicsim gen`, the family's first
#   seed): simulated cycles per CPU second of `bench_sim scenario FILE --backend model`
#   with `--stepping cycle` (the per-cycle model, what the backend ran before) and
#   `--stepping event`, REPEATS runs of each, interleaved, and the median of each.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
CYCLES=${CYCLES:-5000000}
REPEATS=${REPEATS:-3}

build_targets "$build" bench_sim nicsim
bench="$build/sim/bench_sim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

files=("$root/sim/scenarios/default.yaml")
for fam in "$root"/sim/families/*.yaml; do
  seed=$(sed -n 's/^seeds: {first: \([0-9]*\),.*/\1/p' "$fam")
  [[ -n $seed ]] || { echo "bench_sim_event: $fam: no 'seeds: {first: N, ...}' line" >&2; exit 1; }
  "$build/sim/nicsim" gen --family "$fam" --seed "$seed" --count 1 --out "$work" >/dev/null
  files+=("$work/$(basename "$fam" .yaml)-$seed.yaml")
done

rows=""
code=$(measured_code)
for f in "${files[@]}"; do
  echo "bench_sim_event: $(basename "$f"), $REPEATS x $CYCLES cycles per stepping"
  cyc=() evt=()
  for _ in $(seq "$REPEATS"); do
    cyc+=("$("$bench" scenario "$f" --backend model --stepping cycle --cycles "$CYCLES" | field cycles_per_second)")
    evt+=("$("$bench" scenario "$f" --backend model --stepping event --cycles "$CYCLES" | field cycles_per_second)")
  done
  c=$(printf '%s\n' "${cyc[@]}" | median)
  e=$(printf '%s\n' "${evt[@]}" | median)
  name=${f#"$root/"}
  [[ $f == "$work"/* ]] && name="draw $(basename "$f" .yaml) (nicsim gen)"
  rows+=$(awk -v k="$code" -v n="$name" -v c="$c" -v e="$e" -v cs="$(IFS=,; echo "${cyc[*]}")" -v es="$(IFS=,; echo "${evt[*]}")" \
    'BEGIN { printf "| %s | %s | %.2f M | %.2f M | **%.2fx** | %s | %s |\n", k, n, c / 1e6, e / 1e6, e / c, cs, es }')$'\n'
done

cpu=$(cpu_model)
table=$(
  echo "Measured $(date -u +%Y-%m-%d) on $cpu (one thread), by \`tools/bench_sim_event.sh ${1:-}\`: $CYCLES simulated cycles per run under the \`fair\` baseline, $REPEATS runs per stepping, interleaved; simulated cycles per CPU second of the process (user time), median of the runs. Load average at the end: $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores shared with other jobs, so single runs vary by tens of percent (all runs listed)."
  echo
  echo "| code | scenario | per-cycle model | event-driven | speed-up | per-cycle runs, cycles/s | event-driven runs, cycles/s |"
  echo "| --- | --- | ---: | ---: | ---: | --- | --- |"
  printf '%s' "$rows"
)
echo "$table"
replace_block "$root/docs/simulation.md" "<!-- bench_sim_event:begin -->" "<!-- bench_sim_event:end -->" "$table"
echo "bench_sim_event: wrote the table into docs/simulation.md"
