# Creates the Xilinx IP of the board shell from Tcl (no binary IP in the repository):
#   xdma_0        PCIe Gen3 x16 DMA, AXI-Stream (one H2C + one C2H channel, 512-bit at
#                 250 MHz), AXI4-Lite master on BAR0 (64 KiB) to the CSR block
#   cmac_usplus_0 100G Ethernet MAC+PCS, CAUI-4 (4x25G), 512-bit AXI-Stream at
#                 322.265625 MHz, RS-FEC, no pause flow control
# Port names must match rtl/boards/nicsched_shell.sv and constraints/yosys/ip_blackboxes.v.
#
# nicsched_create_ip BOARD_SETTINGS IP_DIR MAX_FRAME_BYTES: creates, generates and
# synthesises (out of context) both cores; returns their .xci files.

proc nicsched_create_ip {settings ip_dir max_frame} {
  file mkdir $ip_dir
  set use_board 0
  if {[llength [get_board_parts -quiet [dict get $settings board_part]]] > 0} {
    set bp [lindex [lsort [get_board_parts [dict get $settings board_part]]] end]
    set_property board_part $bp [current_project]
    set use_board 1
    puts "nicsched: using board part $bp for the PCIe pin assignment"
  }

  # --- XDMA
  create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_0 -dir $ip_dir
  set xdma [get_ips xdma_0]
  set_property -dict [list \
    CONFIG.mode_selection            {Advanced} \
    CONFIG.pl_link_cap_max_link_width {X16} \
    CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
    CONFIG.axi_data_width            {512_bit} \
    CONFIG.axisten_freq              {250} \
    CONFIG.ref_clk_freq              {100_MHz} \
    CONFIG.xdma_axi_intf_mm          {AXI_Stream} \
    CONFIG.xdma_rnum_chnl            {1} \
    CONFIG.xdma_wnum_chnl            {1} \
    CONFIG.axilite_master_en         {true} \
    CONFIG.axilite_master_scale      {Kilobytes} \
    CONFIG.axilite_master_size       {64} \
    CONFIG.pf0_class_code_base       {02} \
    CONFIG.pf0_class_code_sub        {00} \
    CONFIG.pf0_class_code_interface  {00} \
    CONFIG.pf0_msi_enabled           {false} \
    CONFIG.xdma_num_usr_irq          {1} \
  ] $xdma
  if {$use_board} {
    set_property -dict [list \
      CONFIG.PCIE_BOARD_INTERFACE      {pci_express_x16} \
      CONFIG.SYS_RST_N_BOARD_INTERFACE {pcie_perstn} \
    ] $xdma
  } else {
    set_property -dict [list \
      CONFIG.pcie_blk_locn [dict get $settings pcie_locn] \
      CONFIG.select_quad   [dict get $settings pcie_quad] \
    ] $xdma
  }

  # --- CMAC
  set gts [dict get $settings cmac_gts]
  create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name cmac_usplus_0 -dir $ip_dir
  set cmac [get_ips cmac_usplus_0]
  set_property -dict [list \
    CONFIG.CMAC_CAUI4_MODE             {1} \
    CONFIG.NUM_LANES                   {4x25} \
    CONFIG.GT_REF_CLK_FREQ             {156.25} \
    CONFIG.GT_DRP_CLK                  [dict get $settings drp_clk_mhz] \
    CONFIG.USER_INTERFACE              {AXIS} \
    CONFIG.ENABLE_AXI_INTERFACE        {0} \
    CONFIG.INCLUDE_STATISTICS_COUNTERS {0} \
    CONFIG.TX_FLOW_CONTROL             {0} \
    CONFIG.RX_FLOW_CONTROL             {0} \
    CONFIG.INCLUDE_RS_FEC              {1} \
    CONFIG.ENABLE_PIPELINE_REG         {1} \
    CONFIG.RX_MAX_PACKET_LEN           $max_frame \
    CONFIG.CMAC_CORE_SELECT            [dict get $settings cmac_core] \
    CONFIG.GT_GROUP_SELECT             "[lindex $gts 0]~[lindex $gts 3]" \
    CONFIG.LANE1_GT_LOC                [lindex $gts 0] \
    CONFIG.LANE2_GT_LOC                [lindex $gts 1] \
    CONFIG.LANE3_GT_LOC                [lindex $gts 2] \
    CONFIG.LANE4_GT_LOC                [lindex $gts 3] \
  ] $cmac

  set xcis [list [get_files xdma_0.xci] [get_files cmac_usplus_0.xci]]
  generate_target {synthesis implementation} $xcis
  foreach xci $xcis {
    synth_ip [get_files $xci]
  }
  return $xcis
}
