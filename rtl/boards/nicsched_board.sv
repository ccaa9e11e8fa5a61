// nicsched_board: top level of every supported board, instantiating nicsched_shell.
// The board is chosen at compile time by one define (synth.sh --board BOARD and
// constraints/vivado/build.tcl set it): it selects the board's pin set and its clocking.
//   NICSCHED_BOARD_U250    Alveo U250 (xcu250-figd2104-2L-e), QSFP28 cage 0 (CMACE4_X0Y8,
//                          GTY quad 231); 300 MHz system clock divided by an MMCM to the
//                          CMAC's 100 MHz init clock; QSFP control pins, three LEDs.
//   NICSCHED_BOARD_VCU118  Xilinx VCU118 (xcvu9p-flga2104-2L-e), QSFP28 cage 1 (CMACE4_X0Y7,
//                          GTY quad 231); 125 MHz system clock used directly as the init
//                          clock; QSFP control pins, three LEDs.
//   NICSCHED_BOARD_U280    Alveo U280 (xcu280-fsvh2892-2L-e), QSFP28 cage 0 (CMACE4_X0Y6,
//                          GTY quad 134); 100 MHz system clock used directly as the init
//                          clock. The QSFP control pins belong to the card's management
//                          controller (CMS) and there are no user LEDs; the HBM
//                          over-temperature output must be driven low instead.
// Every board: PCIe Gen3 x16 (XDMA) and one QSFP28 port at 100G. Pins: constraints/BOARD/.
`default_nettype none

module nicsched_board #(
  parameter int NumTenants = 8 // tenants the scheduler is built for (1..64)
) (
  // differential system clock (frequency per board, see above)
  input  wire logic        sysclk_p,
  input  wire logic        sysclk_n,
  // PCIe edge connector
  input  wire logic        pcie_refclk_p,
  input  wire logic        pcie_refclk_n,
  input  wire logic        pcie_perst_n,
  output logic      [15:0] pcie_tx_p,
  output logic      [15:0] pcie_tx_n,
  input  wire logic [15:0] pcie_rx_p,
  input  wire logic [15:0] pcie_rx_n,
  // the QSFP28 cage the CMAC is wired to
  input  wire logic        qsfp_refclk_p,
  input  wire logic        qsfp_refclk_n,
  output logic      [3:0]  qsfp_tx_p,
  output logic      [3:0]  qsfp_tx_n,
  input  wire logic [3:0]  qsfp_rx_p,
  input  wire logic [3:0]  qsfp_rx_n,
`ifdef NICSCHED_BOARD_U280
  // HBM over-temperature output: must be driven low, or the card's controller powers down
  output logic             hbm_cattrip
`else
  // QSFP28 module control
  output logic             qsfp_modsell,
  output logic             qsfp_resetl,
  output logic             qsfp_lpmode,
  // status LEDs: [0] PCIe link up, [1] 100G link aligned, [2] init clock running
  output logic      [2:0]  led
`endif
);

`ifdef NICSCHED_BOARD_U250
  localparam int SysclkMhz = 300;
`elsif NICSCHED_BOARD_VCU118
  localparam int SysclkMhz = 125;
`elsif NICSCHED_BOARD_U280
  localparam int SysclkMhz = 100;
`else
  localparam int SysclkMhz = 0;
  if (1) begin : g_no_board
    $error("nicsched_board: no board selected: define one of NICSCHED_BOARD_U250, _VCU118, _U280");
  end
`endif

  logic sysclk, init_clk, init_locked, init_rst_n;
  // Link states for the LEDs; the U280 has none, there they go nowhere.
  /* verilator lint_off UNUSEDSIGNAL */
  logic pcie_link_up, mac_aligned;
  /* verilator lint_on UNUSEDSIGNAL */

  IBUFDS u_sysclk_buf (.I(sysclk_p), .IB(sysclk_n), .O(sysclk));

  if (SysclkMhz == 300) begin : g_init_clk_mmcm
    logic mmcm_fb, init_clk_unbuf;

    // 300 MHz x 4 = 1200 MHz VCO, / 12 = 100 MHz.
    MMCME4_BASE #(
      .CLKIN1_PERIOD    (3.333),
      .DIVCLK_DIVIDE    (1),
      .CLKFBOUT_MULT_F  (4.0),
      .CLKOUT0_DIVIDE_F (12.0)
    ) u_mmcm (
      .CLKIN1   (sysclk),
      .CLKFBIN  (mmcm_fb),
      .CLKFBOUT (mmcm_fb),
      .CLKOUT0  (init_clk_unbuf),
      .LOCKED   (init_locked),
      .PWRDWN   (1'b0),
      .RST      (1'b0)
    );

    BUFG u_init_clk_buf (.I(init_clk_unbuf), .O(init_clk));
  end else begin : g_init_clk_direct
    // 100 or 125 MHz: fit for the CMAC's init/DRP clock as it is.
    BUFG u_init_clk_buf (.I(sysclk), .O(init_clk));
    assign init_locked = 1'b1;
  end

  // Reset of the init domain: released two clocks after the clock runs (MMCM locked, or
  // configuration done where there is no MMCM).
  nicsched_sync #(.Width(1), .Stages(2)) u_init_rst_sync (
    .clk_i  (init_clk),
    .rst_ni (init_locked),
    .d_i    (1'b1),
    .q_o    (init_rst_n)
  );

`ifdef NICSCHED_BOARD_U280
  assign hbm_cattrip = 1'b0;
`else
  // Module out of reset, high-power mode, selected.
  assign qsfp_modsell = 1'b0;
  assign qsfp_resetl  = 1'b1;
  assign qsfp_lpmode  = 1'b0;
  assign led          = {init_rst_n, mac_aligned, pcie_link_up};
`endif

  nicsched_shell #(.NumTenants(NumTenants)) u_shell (
    .pcie_refclk_p  (pcie_refclk_p),
    .pcie_refclk_n  (pcie_refclk_n),
    .pcie_perst_ni  (pcie_perst_n),
    .pcie_tx_p      (pcie_tx_p),
    .pcie_tx_n      (pcie_tx_n),
    .pcie_rx_p      (pcie_rx_p),
    .pcie_rx_n      (pcie_rx_n),
    .qsfp_refclk_p  (qsfp_refclk_p),
    .qsfp_refclk_n  (qsfp_refclk_n),
    .qsfp_tx_p      (qsfp_tx_p),
    .qsfp_tx_n      (qsfp_tx_n),
    .qsfp_rx_p      (qsfp_rx_p),
    .qsfp_rx_n      (qsfp_rx_n),
    .init_clk_i     (init_clk),
    .init_rst_i     (!init_rst_n),
    .pcie_link_up_o (pcie_link_up),
    .mac_aligned_o  (mac_aligned)
  );

endmodule

`default_nettype wire
