# VCU118 (xcvu9p-flga2104-2L-e): pins, clocks and configuration for nicsched_board
# (rtl/boards/nicsched_board.sv) built with NICSCHED_BOARD_VCU118.
# Values follow the VCU118 master XDC (UG1224). Lines marked CHECK are worth comparing
# with the master XDC of your board revision before a first build.

# Configuration: SPI x8 (dual QSPI) flash, as shipped.
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property CFGBVS GND                                [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 8           [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN {DIV-1} [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]

# 125 MHz system clock, used directly as the CMAC init/DRP clock.
set_property -dict {PACKAGE_PIN AY24 IOSTANDARD LVDS} [get_ports sysclk_p]
set_property -dict {PACKAGE_PIN AY23 IOSTANDARD LVDS} [get_ports sysclk_n]
create_clock -period 8.000 -name sysclk_125 [get_ports sysclk_p]

# PCIe x16: 100 MHz reference on MGTREFCLK0_225, PERST# on bank 65.
# The lanes (GTY quads 224-227, GTYE4_CHANNEL_X1Y20..X1Y35) are placed by the XDMA IP.
set_property PACKAGE_PIN AL9 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AL8 [get_ports pcie_refclk_n]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN AM17 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_perst_n]
set_false_path -from [get_ports pcie_perst_n]

# QSFP28 cage 1: 156.25 MHz reference on MGTREFCLK0_231 (the CMAC IP constrains its
# period); lanes on GTY quad 231 (X1Y48..X1Y51) placed by the CMAC IP.
# CHECK: the reference comes from a programmable clock (U38); 156.25 MHz is its power-up value.
set_property PACKAGE_PIN W9 [get_ports qsfp_refclk_p]
set_property PACKAGE_PIN W8 [get_ports qsfp_refclk_n]
set_property -dict {PACKAGE_PIN AM21 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp_modsell]
set_property -dict {PACKAGE_PIN BA22 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp_resetl]
set_property -dict {PACKAGE_PIN AN21 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp_lpmode]
set_false_path -to [get_ports {qsfp_modsell qsfp_resetl qsfp_lpmode}]

# User LEDs (GPIO_LED_0..2).
set_property -dict {PACKAGE_PIN AT32 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN AV34 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN AY30 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_false_path -to [get_ports {led[*]}]
