#!/usr/bin/env bash
# Yosys synth_xilinx -family xcup of the nicsched core (or a board top with the vendor IP
# as black boxes), failing on any error, on an inferred latch, and on `check` problems.
# Writes the Yosys log, the `stat` report and a summary (key=value: lut, lutram, ff,
# bram36, uram, dsp, sta_ps, seconds, peak_mib: Yosys's peak resident memory, code: the
# commit synthesised, with '+changes' when the work tree differs) into the work directory.
#
# usage: synth.sh [--top MODULE] [--param NAME=VALUE]... [--board BOARD] [--sources FILE...]
#                 [--workdir DIR] [--netlist] [--quiet]
#   --top       top module (default nicsched_top)
#   --param     top-level parameter override, repeatable (e.g. NumTenants=16)
#   --board     also read rtl/boards/ with NICSCHED_BOARD_<BOARD> defined (the board's pins
#               and clocking in nicsched_board), the Xilinx IP (XDMA, CMAC) black-boxed
#               from constraints/yosys/ip_blackboxes.v; the top becomes nicsched_board
#               unless --top is given
#   --core-blackbox  with --board: read nicsched_top as a black box (its ports from
#               rtl/nicsched_top.sv), to check the board glue without synthesising the core
#   --sources   synthesise exactly these files instead of the core (for tests of this script)
#   --workdir   where the log, reports and summary go (default: a temporary directory)
#   --netlist   also write the mapped netlist as netlist.json there (for logic_depth.py)
#   --quiet     print only the summary line
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=rtl_sources.sh
source "$here/rtl_sources.sh"

top=""
board=""
board_define=""
params=()
sources=()
workdir=""
quiet=0
core_blackbox=0
netlist=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --top) top=$2; shift 2 ;;
    --param) params+=("$2"); shift 2 ;;
    --board) board=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    --netlist) netlist=1; shift ;;
    --core-blackbox) core_blackbox=1; shift ;;
    --sources)
      shift
      while [[ $# -gt 0 && $1 != --* ]]; do sources+=("$1"); shift; done ;;
    *) echo "synth.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done

if ! command -v yosys >/dev/null 2>&1; then
  echo "synth.sh: yosys is not on the PATH (make deps installs it)" >&2
  exit 2
fi

if [[ ${#sources[@]} -eq 0 ]]; then
  mapfile -t sources < <(nicsched_rtl_sources "$root")
  if [[ -n $board ]]; then
    board_define=$(nicsched_board_define "$board" 2>&1) || { echo "synth.sh: $board_define" >&2; exit 2; }
    if [[ $core_blackbox -eq 1 ]]; then
      # Keep the packages (port types) and the CDC blocks the shell uses; drop the rest.
      mapfile -t sources < <(printf '%s\n' "${sources[@]}" | grep -E '_pkg\.sv$|/nicsched_(sync|async_fifo)\.sv$')
    fi
    mapfile -t -O "${#sources[@]}" sources < <(nicsched_board_sources "$root")
    [[ -n $top ]] || top="nicsched_board"
  fi
fi
[[ -n $top ]] || top="nicsched_top"

if [[ -z $workdir ]]; then
  workdir=$(mktemp -d)
fi
mkdir -p "$workdir"
log="$workdir/yosys.log"
stat_file="$workdir/stat.txt"
sta_file="$workdir/sta.txt"
summary="$workdir/summary.txt"

chparams=""
for p in "${params[@]}"; do
  if [[ $p != *=* ]]; then
    echo "synth.sh: --param '$p' is not NAME=VALUE" >&2
    exit 2
  fi
  chparams+=" -set ${p%%=*} ${p#*=}"
done

blackboxes=""
if [[ -n $board ]]; then
  blackboxes="read_verilog -lib $here/ip_blackboxes.v"
  if [[ $core_blackbox -eq 1 ]]; then
    blackboxes+="; read_verilog -sv -lib $root/rtl/nicsched_top.sv"
  fi
fi

# The core is not the chip's top level: no I/O buffers, no global clock buffers.
script="$workdir/synth.ys"
{
  echo "read_verilog -sv -DSYNTHESIS${board_define:+ -D$board_define} -I$root ${sources[*]}"
  [[ -z $blackboxes ]] || echo "$blackboxes"
  [[ -z $chparams ]] || echo "chparam$chparams $top"
  echo "synth_xilinx -family xcup -top $top -flatten -noiopad -noclkbuf"
  echo "select -assert-none t:LDCE t:LDPE t:\$dlatch t:\$adlatch t:\$_DLATCH_*"
  echo "check -assert"
  # before sta, which adds the cell library's timing models to the design
  [[ $netlist -eq 0 ]] || echo "write_json $workdir/netlist.json"
  echo "tee -q -o $stat_file stat -tech xilinx"
  echo "tee -q -o $sta_file sta"
} > "$script"

start=$(date +%s)
if ! /usr/bin/time -f "%M" -o "$workdir/peak_kib" yosys -l "$log" -q -s "$script" > /dev/null 2>&1; then
  echo "synth.sh: Yosys failed for top $top${params:+ (${params[*]})}; last lines of $log:" >&2
  grep -E "ERROR|Error|Latch inferred|Assertion failed|found and reported" "$log" | tail -20 >&2 || tail -20 "$log" >&2
  exit 1
fi
seconds=$(( $(date +%s) - start ))

# proc_dlatch names every latch it infers; there must be none, even one later optimised away.
if grep -q "Latch inferred" "$log"; then
  echo "synth.sh: inferred latch(es) in $top:" >&2
  grep "Latch inferred" "$log" >&2
  exit 1
fi

# Cell counts from `stat` (flattened: one module). LUTRAM and SRL primitives are counted
# in LUTs they occupy (UltraScale+ CLB: RAM64M8 = 8 LUTs, RAM32M16 = 8, ...).
peak_mib=$(( $(tail -n 1 "$workdir/peak_kib") / 1024 ))
# shellcheck source=../../tools/lib.sh
source "$root/tools/lib.sh"
code=$(measured_code rtl constraints)
awk -v sta_file="$sta_file" -v seconds="$seconds" -v peak="$peak_mib" -v code="$code" '
  $1 ~ /^LUT[1-6]$/                 { lut += $2 }
  $1 == "RAM32M16" || $1 == "RAM64M8" || $1 == "RAM256X1D" { lutram += 8 * $2 }
  $1 == "RAM32M" || $1 == "RAM64M" || $1 == "RAM128X1D" || $1 == "RAM256X1S" { lutram += 4 * $2 }
  $1 == "RAM32X1D" || $1 == "RAM64X1D" || $1 == "RAM128X1S" { lutram += 2 * $2 }
  $1 == "RAM32X1S" || $1 == "RAM64X1S" || $1 == "SRL16E" || $1 == "SRLC32E" { lutram += $2 }
  $1 ~ /^FD[RSCP]E$/                { ff += $2 }
  $1 == "RAMB36E2"                  { bram += $2 }
  $1 == "RAMB18E2"                  { bram += $2 / 2 }
  $1 == "URAM288"                   { uram += $2 }
  $1 == "DSP48E2"                   { dsp += $2 }
  END {
    sta = "n/a"
    while ((getline line < sta_file) > 0) {
      if (match(line, /Latest arrival time in .* is [0-9]+/)) {
        n = split(substr(line, RSTART, RLENGTH), w, " "); sta = w[n]
      }
    }
    printf "lut=%d\nlutram=%d\nff=%d\nbram36=%g\nuram=%d\ndsp=%d\nsta_ps=%s\nseconds=%d\npeak_mib=%d\ncode=%s\n",
           lut, lutram, ff, bram, uram, dsp, sta, seconds, peak, code
  }' "$stat_file" > "$summary"

if [[ $quiet -eq 0 ]]; then
  echo "synth.sh: $top${params:+ (${params[*]})} synthesised for xcup in ${seconds}s, no latches; reports in $workdir"
fi
tr '\n' ' ' < "$summary"
echo
