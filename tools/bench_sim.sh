#!/usr/bin/env bash
# Simulation-speed benchmark of the Verilated nicsched_top; writes its table into
# docs/simulation.md (between the bench_sim markers). Usage: tools/bench_sim.sh [BUILD_DIR]
#   1. cycles/s of the 8-tenant top under the default scenario (workloads, host model and
#      metrics included), one thread
#   2. the same for generated 4/8/16/64-tenant scenarios (~80 % link load)
#   3. wall time of `nicsim run default.yaml` (solo baselines computed, then cached)
#   4. the same RTL and stimulus under Icarus Verilog (Yosys writes plain Verilog) vs
#      Verilator: cycles/s and the ratio
#   5. 1-3 again on the model backend (nicsim --backend model: the reference model
#      behind the same register map), for the speed-up over the Verilated top
#   6. control steps/s on both backends (step, snapshot, policy write: the agent's loop)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$(build_dir "${1:-}")
CYCLES=${CYCLES:-1000000}
MODEL_CYCLES=${MODEL_CYCLES:-10000000}
SCALE_CYCLES=${SCALE_CYCLES:-300000}
ICARUS_CYCLES=${ICARUS_CYCLES:-5000}
VERILATOR_REPLAY_CYCLES=${VERILATOR_REPLAY_CYCLES:-1000000}

build_targets "$build" bench_sim nicsim
bench="$build/sim/bench_sim"
nicsim="$build/sim/nicsim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
# One table row per line of `bench_sim scaling` on stdin; $1 names the simulator, %s = tenants.
scaling_rows() {
  local line
  while read -r line; do
    # shellcheck disable=SC2059
    printf "| $1, generated DDP scenario (~80 %% link load) | %s | %s | %.2f M |\n" \
      "$(field tenants <<<"$line")" "$(field cycles <<<"$line")" "$(field seconds <<<"$line")" \
      "$(calc "$(field cycles_per_second <<<"$line") / 1000000")"
  done
}

echo "bench_sim: default scenario, $CYCLES cycles"
default_line=$("$bench" scenario "$root/sim/scenarios/default.yaml" --cycles "$CYCLES")
default_rate=$(field cycles_per_second <<<"$default_line")
model_line=$("$bench" scenario "$root/sim/scenarios/default.yaml" --cycles "$MODEL_CYCLES" --backend model)
model_rate=$(field cycles_per_second <<<"$model_line")

echo "bench_sim: tenant scaling, $SCALE_CYCLES cycles each"
scaling=$("$bench" scaling --cycles "$SCALE_CYCLES")
model_scaling=$("$bench" scaling --cycles "$((SCALE_CYCLES * 10))" --backend model)

echo "bench_sim: control steps (step 2000 cycles, snapshot, policy write)"
ctl_rtl=$("$bench" control "$root/sim/scenarios/default.yaml" --steps 200 --backend rtl)
ctl_model=$("$bench" control "$root/sim/scenarios/default.yaml" --steps 2000 --backend model)

echo "bench_sim: default scenario wall time"
cache="$work/cache"
# `nicsim run` of the default scenario, timed: "cpu_seconds U wall_seconds E" (extra args: the backend)
timed_run() {
  # shellcheck disable=SC2069  # time's report on stderr is the result; nicsim's stdout is dropped
  /usr/bin/time -f "cpu_seconds %U wall_seconds %e" "$nicsim" run "$root/sim/scenarios/default.yaml" --baseline fair \
    --cache-dir "$cache" "$@" 2>&1 >/dev/null
}
cold=$(timed_run); warm=$(timed_run)
wall_cold=$(field wall_seconds <<<"$cold"); cpu_cold=$(field cpu_seconds <<<"$cold")
wall_warm=$(field wall_seconds <<<"$warm"); cpu_warm=$(field cpu_seconds <<<"$warm")
mcold=$(timed_run --backend model); mwarm=$(timed_run --backend model)
mwall_cold=$(field wall_seconds <<<"$mcold"); mcpu_cold=$(field cpu_seconds <<<"$mcold")
mwall_warm=$(field wall_seconds <<<"$mwarm"); mcpu_warm=$(field cpu_seconds <<<"$mwarm")

echo "bench_sim: Icarus comparison (Yosys -> plain Verilog)"
mapfile -t srcs < <(cd "$root" && ls rtl/generated/nicsched_regs_pkg.sv rtl/*_pkg.sv; ls rtl/generated/*.sv rtl/*.sv | grep -v '_pkg\.sv$')
(cd "$root" && yosys -q -p "read_verilog -sv ${srcs[*]}; hierarchy -top nicsched_top; proc; opt_clean; write_verilog -noattr $work/nicsched_top_plain.v") >"$work/yosys.log" 2>&1 \
  || { echo "bench_sim: yosys failed, see below" >&2; tail -20 "$work/yosys.log" >&2; exit 1; }
"$bench" emit "$work" --scenario "$root/sim/scenarios/default.yaml"
iverilog -g2005 -I "$work" -o "$work/icarus.vvp" "$root/tools/bench_sim_tb.v" "$work/nicsched_top_plain.v"
icarus_out=$(cd "$work" && /usr/bin/time -f "cpu_seconds %U" vvp -n icarus.vvp +cycles="$ICARUS_CYCLES" 2>&1)
icarus_secs=$(field cpu_seconds <<<"$icarus_out")
icarus_rate=$(calc "$ICARUS_CYCLES / $icarus_secs")
replay_line=$("$bench" replay "$work" --scenario "$root/sim/scenarios/default.yaml" --cycles "$VERILATOR_REPLAY_CYCLES" 2>/dev/null)
verilator_rate=$(field cycles_per_second <<<"$replay_line")
model_replay_line=$("$bench" replay "$work" --scenario "$root/sim/scenarios/default.yaml" --cycles "$MODEL_CYCLES" --backend model 2>/dev/null)
model_replay_rate=$(field cycles_per_second <<<"$model_replay_line")
ratio=$(calc "$verilator_rate / $icarus_rate")
icarus_frames=$(sed -n 's/.*frames_out \([0-9]*\).*/\1/p' <<<"$icarus_out")

cpu=$(cpu_model)
table=$(
  echo "Measured $(date -u +%Y-%m-%d) on $cpu (one thread), Verilator $(verilator --version | cut -d' ' -f2), Icarus $(iverilog -V 2>&1 | head -1 | cut -d' ' -f4), by \`tools/bench_sim.sh $1\`."
  echo
  echo "Speeds are simulated cycles per CPU second of the simulating process (user time; the build machine is shared, so wall time would count other jobs); load average at the time: $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores."
  echo
  echo "| what | simulated cycles | CPU s | cycles/s |"
  echo "| --- | ---: | ---: | ---: |"
  printf '| 8-tenant top, default scenario (workloads + host model + metrics) | %s | %s | **%.2f M** |\n' \
    "$(field cycles <<<"$default_line")" "$(field seconds <<<"$default_line")" "$(calc "$default_rate / 1000000")"
  scaling_rows '%s-tenant top' <<<"$scaling"
  printf '| Verilator, 8-tenant top, replayed stimulus (TX frames back to back + register writes) | %s | %s | %.2f M |\n' \
    "$(field cycles <<<"$replay_line")" "$(field seconds <<<"$replay_line")" "$(calc "$verilator_rate / 1000000")"
  printf '| Icarus Verilog, the same RTL (Yosys plain Verilog) and stimulus | %s | %.2f | %.0f |\n' \
    "$ICARUS_CYCLES" "$icarus_secs" "$icarus_rate"
  printf '| **model backend**, 8 tenants, default scenario (workloads + host model + metrics) | %s | %s | **%.2f M** (%.1fx the top) |\n' \
    "$(field cycles <<<"$model_line")" "$(field seconds <<<"$model_line")" "$(calc "$model_rate / 1000000")" \
    "$(calc "$model_rate / $default_rate")"
  scaling_rows 'model backend, %s tenants' <<<"$model_scaling"
  printf '| model backend, 8 tenants, replayed stimulus (as the Verilator replay row) | %s | %s | %.2f M (%.1fx) |\n' \
    "$(field cycles <<<"$model_replay_line")" "$(field seconds <<<"$model_replay_line")" \
    "$(calc "$model_replay_rate / 1000000")" "$(calc "$model_replay_rate / $verilator_rate")"
  echo
  printf 'Verilator / Icarus on the same RTL and stimulus: **%.0fx** (Icarus sent %s frames in its %s cycles).\n' "$ratio" "$icarus_frames" "$ICARUS_CYCLES"
  echo
  printf 'Default scenario, `nicsim run sim/scenarios/default.yaml --baseline fair` (2.5 M simulated cycles): wall %s s (CPU %s s) with the 7 solo baselines computed, wall %s s (CPU %s s) with them cached.\n' \
    "$wall_cold" "$cpu_cold" "$wall_warm" "$cpu_warm"
  echo
  printf 'The same with `--backend model`: wall %s s (CPU %s s) with its solo baselines computed, wall %s s (CPU %s s) with them cached.\n' \
    "$mwall_cold" "$mcpu_cold" "$mwall_warm" "$mcpu_warm"
  echo
  printf 'Control steps as the agent makes them (`bench_sim control`: step 2000 cycles, read a telemetry snapshot, write a policy with COMMIT and read-back, through nicsched::host), per CPU second: %s on the Verilated top, %s on the model backend.\n' \
    "$(field steps_per_second <<<"$ctl_rtl")" "$(field steps_per_second <<<"$ctl_model")"
)
echo "$table"
doc="$root/docs/simulation.md"
replace_block "$doc" "<!-- bench_sim:begin -->" "<!-- bench_sim:end -->" "$table"
echo "bench_sim: wrote the table into docs/simulation.md"
