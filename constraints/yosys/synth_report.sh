#!/usr/bin/env bash
# make synth: Yosys synth_xilinx -family xcup of the core at 8, 16 and 64 tenants; writes
# the resource table (LUT, LUTRAM, FF, BRAM36, URAM, DSP, the `sta` cell-delay estimate,
# and the fraction of an Alveo U250 each uses) into docs/fpga.md between the
# synth-table markers; and prints, per tenant count, the slowest flop groups by the
# cell-delay model of constraints/yosys/logic_depth.py (estimate and logic levels; every
# group in levels.txt of the work directory).
# usage: synth_report.sh [TENANTS...]   (default: 8 16 64)
# Environment: SYNTH_WORK (work directory, default build/synth)
#              SYNTH_REUSE=1: reuse a tenant count's summary already in SYNTH_WORK
#              (rewrites the table without synthesising again)
#              SYNTH_GROUPS: how many of the slowest flop groups to print (default 10)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
doc="$root/docs/fpga.md"
work=${SYNTH_WORK:-$root/build/synth}
tenant_list=("$@")
[[ ${#tenant_list[@]} -gt 0 ]] || tenant_list=(8 16 64)

begin_marker="<!-- synth-table:begin (written by constraints/yosys/synth_report.sh) -->"
end_marker="<!-- synth-table:end -->"
if ! grep -qF "$begin_marker" "$doc" || ! grep -qF "$end_marker" "$doc"; then
  echo "synth_report.sh: $doc lacks the synth-table markers" >&2
  exit 2
fi

# Alveo U250 (xcu250): 1,728k LUTs, 3,456k FFs, 2,688 BRAM36, 1,280 URAM, 12,288 DSP.
u250_lut=1728000 u250_ff=3456000 u250_bram=2688 u250_uram=1280 u250_dsp=12288

table=$(mktemp)
trap 'rm -f "$table"' EXIT
{
  echo "| tenants | LUT (logic) | LUTRAM (as LUTs) | FF | BRAM36 | URAM | DSP | sta estimate | U250 LUT | U250 FF | U250 BRAM | U250 URAM | U250 DSP | Yosys wall time |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$table"

for n in "${tenant_list[@]}"; do
  echo "synth_report.sh: nicsched_top, NumTenants=$n ..."
  dir="$work/tenants_$n"
  if [[ ${SYNTH_REUSE:-0} == 1 && -f $dir/summary.txt ]]; then
    echo "synth_report.sh: reusing $dir/summary.txt"
  else
    bash "$here/synth.sh" --top nicsched_top --param "NumTenants=$n" --workdir "$dir" --netlist
  fi
  if [[ -f $dir/netlist.json ]]; then
    python3 "$here/logic_depth.py" "$dir/netlist.json" > "$dir/levels.txt"
    echo "synth_report.sh: NumTenants=$n, slowest flop groups by the cell-delay model (all in $dir/levels.txt):"
    head -n "${SYNTH_GROUPS:-10}" "$dir/levels.txt" | sed 's/^/  /'
  else
    echo "synth_report.sh: NumTenants=$n: no netlist.json in $dir (a reused run from before --netlist); no logic-depth figures"
  fi
  # shellcheck disable=SC1090
  source <(sed 's/^/s_/' "$dir/summary.txt")
  awk -v n="$n" -v lut="$s_lut" -v lutram="$s_lutram" -v ff="$s_ff" -v bram="$s_bram36" \
      -v uram="$s_uram" -v dsp="$s_dsp" -v sta="$s_sta_ps" -v sec="$s_seconds" \
      -v ul="$u250_lut" -v uf="$u250_ff" -v ub="$u250_bram" -v uu="$u250_uram" -v ud="$u250_dsp" 'BEGIN {
    sta_txt = (sta ~ /^[0-9]+$/) ? sprintf("%.2f ns (%.0f MHz)", sta / 1000, 1e6 / sta) : "n/a"
    printf "| %d | %d | %d | %d | %g | %d | %d | %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %d s |\n",
           n, lut, lutram, ff, bram, uram, dsp, sta_txt,
           100 * (lut + lutram) / ul, 100 * ff / uf, 100 * bram / ub, 100 * uram / uu, 100 * dsp / ud, sec
  }' >> "$table"
done

stamp="Measured $(date -u +%Y-%m-%d) with $(yosys -V | head -1), \`make synth\` (constraints/yosys/synth_report.sh ${tenant_list[*]})."
python3 - "$doc" "$begin_marker" "$end_marker" "$table" "$stamp" <<'EOF'
import sys
doc, begin, end, table_file, stamp = sys.argv[1:]
text = open(doc).read()
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
table = open(table_file).read()
open(doc, "w").write(f"{head}{begin}\n{stamp}\n\n{table}{end}{tail}")
EOF
echo "synth_report.sh: table written to $doc"
