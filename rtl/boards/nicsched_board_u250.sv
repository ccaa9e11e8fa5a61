// nicsched_board_u250: top level for the Xilinx Alveo U250 (xcu250-figd2104-2L-e).
// PCIe Gen3 x16 (XDMA), QSFP28 port 0 at 100G (CMAC CMACE4_X0Y8, GTY quad 231), the
// 300 MHz system clock divided to the CMAC's 100 MHz init clock. Pins: constraints/u250/.
`default_nettype none

module nicsched_board_u250 #(
  parameter int NumTenants = 8 // tenants the scheduler is built for (1..64)
) (
  // 300 MHz system clock (bank 42, DDR4 C0 reference)
  input  wire logic        sysclk_300_p,
  input  wire logic        sysclk_300_n,
  // PCIe edge connector
  input  wire logic        pcie_refclk_p,
  input  wire logic        pcie_refclk_n,
  input  wire logic        pcie_perst_n,
  output logic      [15:0] pcie_tx_p,
  output logic      [15:0] pcie_tx_n,
  input  wire logic [15:0] pcie_rx_p,
  input  wire logic [15:0] pcie_rx_n,
  // QSFP28 cage 0
  input  wire logic        qsfp0_refclk_p,
  input  wire logic        qsfp0_refclk_n,
  output logic      [3:0]  qsfp0_tx_p,
  output logic      [3:0]  qsfp0_tx_n,
  input  wire logic [3:0]  qsfp0_rx_p,
  input  wire logic [3:0]  qsfp0_rx_n,
  output logic             qsfp0_modsell,
  output logic             qsfp0_resetl,
  output logic             qsfp0_lpmode,
  // status LEDs: [0] PCIe link up, [1] 100G link aligned, [2] init clock running
  output logic      [2:0]  led
);

  logic sysclk_300, mmcm_fb, init_clk_unbuf, init_clk, mmcm_locked, init_rst_n;

  IBUFDS u_sysclk_buf (.I(sysclk_300_p), .IB(sysclk_300_n), .O(sysclk_300));

  // 300 MHz x 4 = 1200 MHz VCO, / 12 = 100 MHz.
  MMCME4_BASE #(
    .CLKIN1_PERIOD    (3.333),
    .DIVCLK_DIVIDE    (1),
    .CLKFBOUT_MULT_F  (4.0),
    .CLKOUT0_DIVIDE_F (12.0)
  ) u_mmcm (
    .CLKIN1   (sysclk_300),
    .CLKFBIN  (mmcm_fb),
    .CLKFBOUT (mmcm_fb),
    .CLKOUT0  (init_clk_unbuf),
    .LOCKED   (mmcm_locked),
    .PWRDWN   (1'b0),
    .RST      (1'b0)
  );

  BUFG u_init_clk_buf (.I(init_clk_unbuf), .O(init_clk));

  nicsched_sync #(.Width(1), .Stages(2)) u_init_rst_sync (
    .clk_i  (init_clk),
    .rst_ni (mmcm_locked),
    .d_i    (1'b1),
    .q_o    (init_rst_n)
  );

  // Module out of reset, high-power mode, selected.
  assign qsfp0_modsell = 1'b0;
  assign qsfp0_resetl  = 1'b1;
  assign qsfp0_lpmode  = 1'b0;
  assign led[2]        = init_rst_n;

  nicsched_shell #(.NumTenants(NumTenants)) u_shell (
    .pcie_refclk_p  (pcie_refclk_p),
    .pcie_refclk_n  (pcie_refclk_n),
    .pcie_perst_ni  (pcie_perst_n),
    .pcie_tx_p      (pcie_tx_p),
    .pcie_tx_n      (pcie_tx_n),
    .pcie_rx_p      (pcie_rx_p),
    .pcie_rx_n      (pcie_rx_n),
    .qsfp_refclk_p  (qsfp0_refclk_p),
    .qsfp_refclk_n  (qsfp0_refclk_n),
    .qsfp_tx_p      (qsfp0_tx_p),
    .qsfp_tx_n      (qsfp0_tx_n),
    .qsfp_rx_p      (qsfp0_rx_p),
    .qsfp_rx_n      (qsfp0_rx_n),
    .init_clk_i     (init_clk),
    .init_rst_i     (!init_rst_n),
    .pcie_link_up_o (led[0]),
    .mac_aligned_o  (led[1])
  );

endmodule

`default_nettype wire
