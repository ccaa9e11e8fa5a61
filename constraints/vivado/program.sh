#!/usr/bin/env bash
# Programs a board over JTAG (make program BOARD=...): Vivado's hardware manager when
# Vivado is on the PATH, otherwise openFPGALoader.
# usage: program.sh BOARD [BITFILE]
#   BITFILE defaults to build-vivado/BOARD/nicsched_BOARD.bit (from make bitstream)
# Environment: HW_SERVER (Vivado hw_server URL, default localhost:3121),
#              OFL_CABLE (openFPGALoader cable, default ft2232; see openFPGALoader --list-cables)
# The bitstream is volatile: a power cycle reloads the flash image. After programming a
# card in a running host, re-enumerate it (docs/fpga.md, "Bring-up").
# Exit codes: 0 programmed; 1 programming failed; 2 bad usage; 3 no programming tool.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

board=${1:-}
case $board in
  u250) part=xcu250 ;;
  vcu118) part=xcvu9p ;;
  u280) part=xcu280 ;;
  "") echo "program.sh: no board given: make program BOARD=<u250|vcu118|u280>" >&2; exit 2 ;;
  *) echo "program.sh: unknown board '$board' (known: u250 vcu118 u280)" >&2; exit 2 ;;
esac
bit=${2:-$root/build-vivado/$board/nicsched_$board.bit}
if [[ ! -f $bit ]]; then
  echo "program.sh: no bitstream at $bit (run make bitstream BOARD=$board first)" >&2
  exit 2
fi

if command -v vivado >/dev/null 2>&1; then
  vivado -mode batch -nojournal -nolog -source "$here/program.tcl" \
    -tclargs "$bit" "$part" "${HW_SERVER:-localhost:3121}" || exit 1
elif command -v openFPGALoader >/dev/null 2>&1; then
  openFPGALoader -c "${OFL_CABLE:-ft2232}" --fpga-part "$part" "$bit" || exit 1
else
  echo "program.sh: neither Vivado nor openFPGALoader is on the PATH: install one (apt install openfpgaloader, or Vivado Lab Edition) to program the $board" >&2
  exit 3
fi
echo "program.sh: $board programmed with $bit"
