// nicsched_board_u280: top level for the Xilinx Alveo U280 (xcu280-fsvh2892-2L-e).
// PCIe Gen3 x16 (XDMA), QSFP28 port 0 at 100G (CMAC CMACE4_X0Y6, GTY quad 134), the
// 100 MHz system clock used directly as the CMAC's init clock. The QSFP control pins
// belong to the card's management controller (CMS), not to the FPGA. Pins: constraints/u280/.
`default_nettype none

module nicsched_board_u280 #(
  parameter int NumTenants = 8 // tenants the scheduler is built for (1..64)
) (
  // 100 MHz system clock
  input  wire logic        sysclk_100_p,
  input  wire logic        sysclk_100_n,
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
  // HBM over-temperature output: must be driven low, or the card's controller powers down
  output logic             hbm_cattrip
);

  logic sysclk_100, init_clk, init_rst_n;

  IBUFDS u_sysclk_buf (.I(sysclk_100_p), .IB(sysclk_100_n), .O(sysclk_100));
  BUFG u_init_clk_buf (.I(sysclk_100), .O(init_clk));

  // Power-on reset of the init domain: released two clocks after configuration.
  nicsched_sync #(.Width(1), .Stages(2)) u_init_rst_sync (
    .clk_i  (init_clk),
    .rst_ni (1'b1),
    .d_i    (1'b1),
    .q_o    (init_rst_n)
  );

  assign hbm_cattrip = 1'b0;

  // No user LEDs on the U280: the link states are left unconnected.
  /* verilator lint_off PINCONNECTEMPTY */
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
    .pcie_link_up_o (),
    .mac_aligned_o  ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

endmodule

`default_nettype wire
