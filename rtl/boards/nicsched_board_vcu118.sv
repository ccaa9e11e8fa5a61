// nicsched_board_vcu118: top level for the Xilinx VCU118 (xcvu9p-flga2104-2L-e).
// PCIe Gen3 x16 (XDMA), QSFP28 port 1 at 100G (CMAC CMACE4_X0Y7, GTY quad 231), the
// 125 MHz system clock used directly as the CMAC's init clock. Pins: constraints/vcu118/.
`default_nettype none

module nicsched_board_vcu118 #(
  parameter int NumTenants = 8 // tenants the scheduler is built for (1..64)
) (
  // 125 MHz system clock
  input  wire logic        sysclk_125_p,
  input  wire logic        sysclk_125_n,
  // PCIe edge connector
  input  wire logic        pcie_refclk_p,
  input  wire logic        pcie_refclk_n,
  input  wire logic        pcie_perst_n,
  output logic      [15:0] pcie_tx_p,
  output logic      [15:0] pcie_tx_n,
  input  wire logic [15:0] pcie_rx_p,
  input  wire logic [15:0] pcie_rx_n,
  // QSFP28 cage 1
  input  wire logic        qsfp1_refclk_p,
  input  wire logic        qsfp1_refclk_n,
  output logic      [3:0]  qsfp1_tx_p,
  output logic      [3:0]  qsfp1_tx_n,
  input  wire logic [3:0]  qsfp1_rx_p,
  input  wire logic [3:0]  qsfp1_rx_n,
  output logic             qsfp1_modsell,
  output logic             qsfp1_resetl,
  output logic             qsfp1_lpmode,
  // status LEDs: [0] PCIe link up, [1] 100G link aligned, [2] init clock running
  output logic      [2:0]  led
);

  logic sysclk_125, init_clk, init_rst_n;

  IBUFDS u_sysclk_buf (.I(sysclk_125_p), .IB(sysclk_125_n), .O(sysclk_125));
  BUFG u_init_clk_buf (.I(sysclk_125), .O(init_clk));

  // Power-on reset of the init domain: released two clocks after configuration.
  nicsched_sync #(.Width(1), .Stages(2)) u_init_rst_sync (
    .clk_i  (init_clk),
    .rst_ni (1'b1),
    .d_i    (1'b1),
    .q_o    (init_rst_n)
  );

  assign qsfp1_modsell = 1'b0;
  assign qsfp1_resetl  = 1'b1;
  assign qsfp1_lpmode  = 1'b0;
  assign led[2]        = init_rst_n;

  nicsched_shell #(.NumTenants(NumTenants)) u_shell (
    .pcie_refclk_p  (pcie_refclk_p),
    .pcie_refclk_n  (pcie_refclk_n),
    .pcie_perst_ni  (pcie_perst_n),
    .pcie_tx_p      (pcie_tx_p),
    .pcie_tx_n      (pcie_tx_n),
    .pcie_rx_p      (pcie_rx_p),
    .pcie_rx_n      (pcie_rx_n),
    .qsfp_refclk_p  (qsfp1_refclk_p),
    .qsfp_refclk_n  (qsfp1_refclk_n),
    .qsfp_tx_p      (qsfp1_tx_p),
    .qsfp_tx_n      (qsfp1_tx_n),
    .qsfp_rx_p      (qsfp1_rx_p),
    .qsfp_rx_n      (qsfp1_rx_n),
    .init_clk_i     (init_clk),
    .init_rst_i     (!init_rst_n),
    .pcie_link_up_o (led[0]),
    .mac_aligned_o  (led[1])
  );

endmodule

`default_nettype wire
