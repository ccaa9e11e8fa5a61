#!/usr/bin/env bash
# make synth: Yosys synth_xilinx -family xcup of the core at 8, 16 and 64 tenants; writes
# the one timing and resource table (LUT, LUTRAM, FF, BRAM36, the slowest flop group by the
# cell-delay model of logic_depth.py with its levels and how many groups exceed 4.0 ns,
# Yosys `sta` as a lower bound, the share of an Alveo U250's LUTs, synthesis time, peak
# memory, the code synthesised) into docs/fpga.md between the synth-table markers; and
# prints, per tenant count, the slowest flop groups by that model (every group in
# levels.txt of the work directory).
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

# Alveo U250 (xcu250): 1,728k LUTs.
u250_lut=1728000

table=$(mktemp)
trap 'rm -f "$table"' EXIT
{
  echo "| tenants | LUT (logic) | LUTRAM (as LUTs) | FF | BRAM36 | est. worst path (cell-delay model) | its logic levels (LUT, CARRY4, MUXF) | flop groups over 4.0 ns | Yosys sta (a lower bound) | U250 LUT | synth time | peak memory | code synthesised |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
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
  s_peak_mib="" s_code=""
  source <(sed 's/^/s_/' "$dir/summary.txt")
  # The slowest flop group by the model: levels.txt's first line, "NS ns L levels (...) GROUP".
  worst="n/a" path_levels="n/a" over="n/a"
  if [[ -f $dir/levels.txt ]]; then
    read -r worst path_levels over < <(awk '
      /^#/ { next }
      $2 == "ns" && $4 == "levels" {
        if (!seen) { cells = $5 " " $6 " " $7 " " $8 " " $9 " " $10; gsub(/[(),]/, "", cells); split(cells, c, " ")
                     w = sprintf("%.2f_ns", $1); l = sprintf("%d_(%s,_%s,_%s)", $3, c[1], c[3], c[5]); seen = 1 }
        n += ($1 > 4.0); total++; next }
      # levels.txt of logic_depth.py before its delay model: "LEVELS GROUP", levels only
      $1 ~ /^[0-9]+$/ && NF == 2 && !old { old = $1 }
      END { if (seen) printf "%s %s %d_of_%d\n", w, l, n, total
            else if (old) printf "n/a %d_(levels_only) n/a\n", old
            else print "n/a n/a n/a" }' "$dir/levels.txt")
  fi
  awk -v n="$n" -v lut="$s_lut" -v lutram="$s_lutram" -v ff="$s_ff" -v bram="$s_bram36" \
      -v sta="$s_sta_ps" -v sec="$s_seconds" -v ul="$u250_lut" \
      -v worst="${worst//_/ }" -v lv="${path_levels//_/ }" -v over="${over//_/ }" \
      -v peak="${s_peak_mib:-}" -v code="${s_code:-}" 'BEGIN {
    sta_txt = (sta ~ /^[0-9]+$/) ? sprintf("%.2f ns", sta / 1000) : "n/a"
    peak_txt = (peak ~ /^[0-9]+$/) ? sprintf("%.1f GB", peak / 1024) : "n/a"
    printf "| %d | %d | %d | %d | %g | %s | %s | %s | %s | %.2f%% | %d s | %s | %s |\n",
           n, lut, lutram, ff, bram, worst, lv, over, sta_txt, 100 * (lut + lutram) / ul, sec, peak_txt,
           code == "" ? "n/a" : code
  }' >> "$table"
done

stamp="Written $(date -u +%Y-%m-%d) by \`make synth\` (constraints/yosys/synth_report.sh ${tenant_list[*]}${SYNTH_REUSE:+, SYNTH_REUSE=1: rows from earlier runs}) with $(yosys -V | head -1); each row names the code it synthesised. n/a: not recorded by that run."
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
