#!/usr/bin/env bash
# bench_host.sh [BUILD_DIR]: register-bus figures (reads/s, snapshot and policy-commit time,
# 8 and 64 tenants, every transport that runs here) into docs/nicctl.md, between the
# bench_host markers. Needs BUILD_DIR/host/bench_host; uses BUILD_DIR/sim/nicsim too when
# it has been built (the Verilated NIC behind nicsim serve, 8 tenants; NICSIM=path overrides).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$BUILD_DIR/host/bench_host
NICSIM=${NICSIM:-$BUILD_DIR/sim/nicsim}
SECONDS_PER=${BENCH_SECONDS:-1}
DOC=$ROOT/docs/nicctl.md
[ -x "$BENCH" ] || { echo "bench_host.sh: $BENCH not built (cmake --build $BUILD_DIR --target bench_host)" >&2; exit 1; }

rows=$(mktemp)
trap 'rm -f "$rows"; [ -n "${SIM_PID:-}" ] && kill "$SIM_PID" 2>/dev/null || true' EXIT
"$BENCH" --seconds "$SECONDS_PER" >>"$rows"

if [ -x "$NICSIM" ]; then
  sock=/tmp/bench-host-nicsim-$$.sock
  fifo=$(mktemp -u); mkfifo "$fifo"
  "$NICSIM" serve "$ROOT/sim/scenarios/default.yaml" --listen 127.0.0.1:0 --unix "$sock" --lockstep >"$fifo" 2>/dev/null &
  SIM_PID=$!
  read -r -t 120 line <"$fifo" || { echo "bench_host.sh: nicsim serve did not start" >&2; exit 1; }
  rm -f "$fifo"
  port=$(sed -n 's/.*tcp 127\.0\.0\.1:\([0-9]*\).*/\1/p' <<<"$line")
  "$BENCH" --seconds "$SECONDS_PER" --target "sim://127.0.0.1:$port" --label "sim:// TCP loopback (nicsim serve, Verilated NIC, lock-step)" >>"$rows"
  "$BENCH" --seconds "$SECONDS_PER" --target "unix://$sock" --label "unix:// (nicsim serve, Verilated NIC, lock-step)" >>"$rows"
else
  echo "bench_host.sh: $NICSIM not built; skipping the Verilated NIC rows" >&2
fi

table=$(mktemp)
{
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)) by \`tools/bench_host.sh $BUILD_DIR\`"
  echo "(${SECONDS_PER} s per figure; the machine was shared with other builds, so treat them as indicative)."
  echo
  echo "| transport | tenants | register reads/s | snapshot (ms) | policy commit (ms) |"
  echo "| --- | --- | --- | --- | --- |"
  cat "$rows"
} >"$table"
replace_block "$DOC" "<!-- bench_host:begin -->" "<!-- bench_host:end -->" "$(cat "$table")"
rm -f "$table"
echo "bench_host.sh: figures written to $DOC"
