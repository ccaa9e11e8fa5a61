# Alveo U250 (xcu250-figd2104-2L-e): pins, clocks and configuration for nicsched_board
# (rtl/boards/nicsched_board.sv) built with NICSCHED_BOARD_U250.
# Values follow the U250 master XDC (Xilinx Alveo U250 board files / UG1289). Lines marked
# CHECK are worth comparing with the master XDC of your board revision before a first build.

# Configuration: SPI x4 flash, as shipped.
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property CFGBVS GND                                [current_design]
set_property CONFIG_MODE SPIx4                         [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4           [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 85.0          [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN disable [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN Pullup         [current_design]
set_property BITSTREAM.CONFIG.CONFIGFALLBACK Enable    [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]

# 300 MHz system clock (DDR4 C0 reference, bank 42), divided to 100 MHz by the MMCM.
# CHECK: IOSTANDARD (LVDS here; some board-file versions use DIFF_SSTL12 for this bank).
set_property -dict {PACKAGE_PIN AY37 IOSTANDARD LVDS} [get_ports sysclk_p]
set_property -dict {PACKAGE_PIN AY38 IOSTANDARD LVDS} [get_ports sysclk_n]
create_clock -period 3.333 -name sysclk_300 [get_ports sysclk_p]

# PCIe x16: 100 MHz reference on MGTREFCLK0_226, PERST# on bank 64.
# The lanes (GTY quads 224-227, GTYE4_CHANNEL_X1Y16..X1Y31) are placed by the XDMA IP
# (pcie_blk_locn / select_quad in constraints/vivado/boards.tcl); their pins follow.
set_property PACKAGE_PIN AM11 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AM10 [get_ports pcie_refclk_n]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN BD21 IOSTANDARD LVCMOS12 PULLUP true} [get_ports pcie_perst_n]
set_false_path -from [get_ports pcie_perst_n]

# QSFP28 cage 0: 156.25 MHz reference from the SI570 on MGTREFCLK0_231 (the CMAC IP
# constrains its period); lanes on GTY quad 231 (X1Y44..X1Y47) placed by the CMAC IP.
set_property PACKAGE_PIN M11 [get_ports qsfp_refclk_p]
set_property PACKAGE_PIN M10 [get_ports qsfp_refclk_n]
set_property -dict {PACKAGE_PIN BE16 IOSTANDARD LVCMOS12} [get_ports qsfp_modsell]
set_property -dict {PACKAGE_PIN BE17 IOSTANDARD LVCMOS12} [get_ports qsfp_resetl]
set_property -dict {PACKAGE_PIN BD18 IOSTANDARD LVCMOS12} [get_ports qsfp_lpmode]
set_false_path -to [get_ports {qsfp_modsell qsfp_resetl qsfp_lpmode}]

# User LEDs.
set_property -dict {PACKAGE_PIN BC21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN BB21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_false_path -to [get_ports {led[*]}]
