# Per-board settings of the Vivado flow: device, board files, and where the PCIe and 100G
# hard blocks sit. Sourced by build.tcl; `nicsched_board BOARD` returns a dict.
#
# pcie_blk_locn / select_quad place the XDMA's PCIe block and its first GT quad; the CMAC
# core and GT group follow the QSFP cage wired to the board's reference clock. When the
# board files are installed (board_part), ip.tcl uses the board interfaces instead of
# the explicit locations. CHECK against the board's XDMA/CMAC example designs when
# porting to another revision.

proc nicsched_board {board} {
  set fields {part board_part pcie_locn pcie_quad cmac_core cmac_gts drp_clk_mhz}
  set boards {
    u250   {xcu250-figd2104-2L-e xilinx.com:au250:part0:*  X0Y1        GTY_Quad_227
            CMACE4_X0Y8 {X1Y44 X1Y45 X1Y46 X1Y47} 100.00}
    vcu118 {xcvu9p-flga2104-2L-e xilinx.com:vcu118:part0:* X1Y2        GTY_Quad_227
            CMACE4_X0Y7 {X1Y48 X1Y49 X1Y50 X1Y51} 125.00}
    u280   {xcu280-fsvh2892-2L-e xilinx.com:au280:part0:*  PCIE4C_X1Y0 GTY_Quad_227
            CMACE4_X0Y6 {X0Y40 X0Y41 X0Y42 X0Y43} 100.00}
  }
  if {![dict exists $boards $board]} {
    error "unknown board '$board' (known: [join [dict keys $boards] {, }])"
  }
  set row [dict get $boards $board]
  if {[llength $row] != [llength $fields]} {
    error "boards.tcl: board '$board' has [llength $row] values for [llength $fields] fields ($fields)"
  }
  set settings [dict create]
  foreach field $fields value $row {
    dict set settings $field $value
  }
  return $settings
}
