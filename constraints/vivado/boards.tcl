# Per-board settings of the Vivado flow: device, board files, and where the PCIe and 100G
# hard blocks sit. Sourced by build.tcl; `nicsched_board BOARD` returns a dict.
#
# pcie_blk_locn / select_quad place the XDMA's PCIe block and its first GT quad; the CMAC
# core and GT group follow the QSFP cage wired to the board's reference clock. When the
# board files are installed (board_part), ip.tcl uses the board interfaces instead of
# the explicit locations. CHECK against the board's XDMA/CMAC example designs when
# porting to another revision.

proc nicsched_board {board} {
  set boards [dict create \
    u250 [dict create \
      part         xcu250-figd2104-2L-e \
      board_part   xilinx.com:au250:part0:* \
      pcie_locn    X0Y1 \
      pcie_quad    GTY_Quad_227 \
      cmac_core    CMACE4_X0Y8 \
      cmac_gts     {X1Y44 X1Y45 X1Y46 X1Y47} \
      drp_clk_mhz  100.00] \
    vcu118 [dict create \
      part         xcvu9p-flga2104-2L-e \
      board_part   xilinx.com:vcu118:part0:* \
      pcie_locn    X1Y2 \
      pcie_quad    GTY_Quad_227 \
      cmac_core    CMACE4_X0Y7 \
      cmac_gts     {X1Y48 X1Y49 X1Y50 X1Y51} \
      drp_clk_mhz  125.00] \
    u280 [dict create \
      part         xcu280-fsvh2892-2L-e \
      board_part   xilinx.com:au280:part0:* \
      pcie_locn    PCIE4C_X1Y0 \
      pcie_quad    GTY_Quad_227 \
      cmac_core    CMACE4_X0Y6 \
      cmac_gts     {X0Y40 X0Y41 X0Y42 X0Y43} \
      drp_clk_mhz  100.00] \
  ]
  if {![dict exists $boards $board]} {
    error "unknown board '$board' (known: [join [dict keys $boards] {, }])"
  }
  return [dict get $boards $board]
}
