#!/usr/bin/env bash
# RTL figures of nicsched_top (throughput of 64-byte frames, idle latency with and without
# crypto), measured on the Verilated model by the bench_rtl target, written into
# docs/rtl.md between the bench_rtl markers.
# Usage: tools/bench_rtl.sh [BUILD_DIR]   (default: build)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=$(build_dir "${1:-}")
doc="$root/docs/rtl.md"

build_targets "$build" bench_rtl
bin="$build/tests/rtl_top/bench_rtl"
table="$("$bin")"
stamp="Measured $(date -u +%Y-%m-%d) with \`tools/bench_rtl.sh\` (Verilator $(verilator --version | awk '{print $2}'), nicsched_top NumTenants=8, DataWidth=512, CryptoSlots=4, clock cycles of clk_i)."

grep -q '<!-- bench_rtl:begin -->' "$doc" || { echo "bench_rtl.sh: $doc has no <!-- bench_rtl:begin --> marker" >&2; exit 1; }
tmp="$(mktemp)"
awk -v table="$table" -v stamp="$stamp" '
  /<!-- bench_rtl:begin -->/ { print; print stamp; print ""; print table; skip = 1; next }
  /<!-- bench_rtl:end -->/   { skip = 0 }
  !skip { print }
' "$doc" > "$tmp"
mv "$tmp" "$doc"
echo "$table"
