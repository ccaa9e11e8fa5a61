# Timing exceptions for the clock-domain crossings of the board shell, sourced after
# synth_design (clocks of the IP exist by then).
#
# - core_clk (XDMA axi_aclk, 250 MHz) <-> mac_clk (CMAC gt_txusrclk2, 322.27 MHz): the
#   only paths are through nicsched_async_fifo (gray pointers into nicsched_sync chains,
#   LUTRAM data read once its pointer has crossed). Their delay is bounded to one period
#   of the destination clock, which keeps the gray pointers' bit skew below one period.
# - Reset bridges (nicsched_sync instances named *rst_sync): the asynchronous reset of
#   their flops is a false path; release is synchronous by construction.

set core_clk [get_clocks -of_objects [get_pins -hier -filter {NAME =~ *u_xdma/axi_aclk}]]
set mac_clk  [get_clocks -of_objects [get_pins -hier -filter {NAME =~ *u_cmac/gt_txusrclk2}]]
if {[llength $core_clk] != 1 || [llength $mac_clk] != 1} {
  error "cdc.tcl: expected one core clock and one MAC clock, found '$core_clk' and '$mac_clk'"
}
set_max_delay -datapath_only -from $core_clk -to $mac_clk [get_property PERIOD $mac_clk]
set_max_delay -datapath_only -from $mac_clk -to $core_clk [get_property PERIOD $core_clk]

set bridge_clr [get_pins -hier -filter {NAME =~ *rst_sync/chain_q_reg*/CLR}]
if {[llength $bridge_clr] == 0} {
  error "cdc.tcl: no reset-bridge flops found (nicsched_sync instances named *rst_sync)"
}
set_false_path -to $bridge_clr
