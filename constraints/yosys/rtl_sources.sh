# Sourced by the Yosys scripts: the core's RTL source list, in the order rtl/CMakeLists.txt
# builds NICSCHED_RTL_SOURCES (packages first: the generated register package, then
# rtl/*_pkg.sv; then rtl/generated/*.sv and rtl/*.sv without packages; each glob sorted
# bytewise, like CMake's file(GLOB)). The board level (rtl/boards/) is not part of the core.

# nicsched_rtl_sources ROOT: prints one path per line; fails naming the missing file.
nicsched_rtl_sources() {
  local root=$1 f
  local regs_pkg="$root/rtl/generated/nicsched_regs_pkg.sv"
  if [[ ! -f $regs_pkg ]]; then
    echo "rtl_sources: $regs_pkg is missing (build the regmap_generate target first)" >&2
    return 1
  fi
  echo "$regs_pkg"
  (
    shopt -s nullglob
    export LC_ALL=C
    for f in "$root"/rtl/*_pkg.sv; do echo "$f"; done
    for f in "$root"/rtl/generated/*.sv; do [[ $f == *_pkg.sv ]] || echo "$f"; done
    for f in "$root"/rtl/*.sv; do [[ $f == *_pkg.sv ]] || echo "$f"; done
  )
}

# nicsched_board_sources ROOT: the board level, rtl/boards/*.sv: the shell and the MAC
# clock-domain crossings, then the top nicsched_board.sv last (the order the tools read
# them in changes Yosys' LUT mapping by a few LUTs; this one gives the figures of before).
nicsched_board_sources() {
  local root=$1 f
  (
    shopt -s nullglob
    export LC_ALL=C
    for f in "$root"/rtl/boards/*.sv; do
      [[ $(basename "$f") == nicsched_board.sv ]] || echo "$f"
    done
    echo "$root/rtl/boards/nicsched_board.sv"
  )
}

# nicsched_board_define BOARD: the define that selects BOARD in rtl/boards/nicsched_board.sv
# (NICSCHED_BOARD_U250 for u250); fails naming the known boards (those with a
# constraints/BOARD/BOARD.xdc) when BOARD is not one of them.
nicsched_board_define() {
  local board=$1 root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  if [[ ! -f $root/constraints/$board/$board.xdc ]]; then
    local known
    known=$(cd "$root/constraints" && ls -1 -- */*.xdc | sed 's|/.*||' | tr '\n' ' ')
    echo "unknown board '$board' (known: ${known% })" >&2
    return 1
  fi
  echo "NICSCHED_BOARD_${board^^}"
}
