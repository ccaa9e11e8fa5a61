# Alveo U280 (xcu280-fsvh2892-2L-e): pins, clocks and configuration for nicsched_board
# (rtl/boards/nicsched_board.sv) built with NICSCHED_BOARD_U280.
# Values follow the U280 master XDC (Xilinx Alveo U280 board files / UG1314). Lines
# marked CHECK are worth comparing with the master XDC of your board revision.

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

# 100 MHz system clock (SYSCLK2), used directly as the CMAC init/DRP clock. CHECK: the
# board has several 100 MHz inputs; this is the one on bank 75.
set_property -dict {PACKAGE_PIN G31 IOSTANDARD LVDS} [get_ports sysclk_p]
set_property -dict {PACKAGE_PIN F31 IOSTANDARD LVDS} [get_ports sysclk_n]
create_clock -period 10.000 -name sysclk_100 [get_ports sysclk_p]

# PCIe x16: 100 MHz reference on MGTREFCLK0_225 (the x16 / upper-x8 reference), PERST#
# on bank 67. Lanes on GTY quads 224-227 (X1Y0..X1Y15) placed by the XDMA IP.
set_property PACKAGE_PIN AR15 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AR14 [get_ports pcie_refclk_n]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN BH26 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_perst_n]
set_false_path -from [get_ports pcie_perst_n]

# QSFP28 cage 0: 156.25 MHz reference from the SI570 on MGTREFCLK0_134 (the CMAC IP
# constrains its period); lanes on GTY quad 134 (X0Y40..X0Y43) placed by the CMAC IP.
# The cage's control pins belong to the card management controller.
set_property PACKAGE_PIN T42 [get_ports qsfp_refclk_p]
set_property PACKAGE_PIN T43 [get_ports qsfp_refclk_n]

# HBM catastrophic-temperature flag: driven low by the design (bank 75).
set_property -dict {PACKAGE_PIN D32 IOSTANDARD LVCMOS18 PULLDOWN true} [get_ports hbm_cattrip]
set_false_path -to [get_ports hbm_cattrip]
