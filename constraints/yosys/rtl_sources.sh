# Sourced by the Yosys scripts: the core's RTL source list, in the order rtl/CMakeLists.txt
# builds NICSCHED_RTL_SOURCES (packages first: the generated register package, then
# rtl/*_pkg.sv; then rtl/generated/*.sv and rtl/*.sv without packages; each glob sorted
# bytewise, like CMake's file(GLOB)). Board tops (rtl/boards/) are not part of the core.

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

# nicsched_board_sources ROOT: the board-level modules shared by every board top
# (rtl/boards/*.sv except the per-board tops nicsched_board_<board>.sv).
nicsched_board_sources() {
  local root=$1 f
  (
    shopt -s nullglob
    export LC_ALL=C
    for f in "$root"/rtl/boards/*.sv; do
      [[ $(basename "$f") == nicsched_board_*.sv ]] || echo "$f"
    done
  )
}
