// nicsched_shell: the board-independent FPGA shell around nicsched_top.
//
//   host --PCIe Gen3 x16--> XDMA (xdma_0) --AXI4-Lite BAR0----------------> core s_axil (CSR)
//                                         --H2C AXI-Stream (512b, 250 MHz)-> core s_axis_tx (source 0)
//                                         <-C2H AXI-Stream------------------ core m_axis_rx
//   core m_axis_tx -> nicsched_mac_tx_cdc (250 -> 322 MHz) -> CMAC TX (cmac_usplus_0) -> QSFP28
//   QSFP28 -> CMAC RX -> nicsched_mac_rx_cdc (322 -> 250 MHz) -> core s_axis_rx
//
// Clocks: the core runs on XDMA's axi_aclk (250 MHz for a 512-bit Gen3 x16 link), the MAC
// side on the CMAC's gt_txusrclk2 (322.265625 MHz; the RX side uses it too, rx_clk), the
// CMAC's init/DRP clock is the free-running init_clk_i from the board top.
// Resets: the core leaves reset with XDMA's axi_aresetn (PCIe PERST# and link training);
// the CMAC with init_rst_i; each MAC/core CDC FIFO pair is reset from one source (either
// side in reset), bridged into each clock with nicsched_sync.
// CMAC bring-up (PG203): RX enabled at once; TX sends remote-fault indication until RX
// is aligned, then TX is enabled.
`default_nettype none

module nicsched_shell #(
  parameter int NumTenants    = 8,      // tenants (nicsched_top)
  parameter int NumClsEntries = 16,     // classifier entries (nicsched_top)
  parameter int CryptoSlots   = 4,      // crypto slots (nicsched_top)
  parameter int BufferBytes   = 262144, // packet buffer per direction (nicsched_top)
  parameter int MaxFrameBytes = 9600,   // longest frame through the MAC CDC (CMAC RX_MAX_PACKET_LEN)
  parameter bit RsFec         = 1'b1    // enable RS-FEC (100GBASE-SR4/CR4 links need it)
) (
  // PCIe edge connector
  input  wire logic        pcie_refclk_p,  // 100 MHz reference clock from the slot
  input  wire logic        pcie_refclk_n,
  input  wire logic        pcie_perst_ni,  // PERST#
  output logic      [15:0] pcie_tx_p,
  output logic      [15:0] pcie_tx_n,
  input  wire logic [15:0] pcie_rx_p,
  input  wire logic [15:0] pcie_rx_n,
  // QSFP28 cage
  input  wire logic        qsfp_refclk_p,  // 156.25 MHz GT reference clock
  input  wire logic        qsfp_refclk_n,
  output logic      [3:0]  qsfp_tx_p,
  output logic      [3:0]  qsfp_tx_n,
  input  wire logic [3:0]  qsfp_rx_p,
  input  wire logic [3:0]  qsfp_rx_n,
  // free-running clock for the CMAC's init/DRP logic (100 MHz) and its reset
  input  wire logic        init_clk_i,
  input  wire logic        init_rst_i,     // active high, e.g. "clock generator not locked"
  // status (for LEDs)
  output logic             pcie_link_up_o,
  output logic             mac_aligned_o
);

  localparam int DataWidth = 512;
  localparam int KeepWidth = DataWidth / 8;
  localparam int CdcDepthTx = 256; // >= MaxFrameBytes / 64 beats, power of two
  localparam int CdcDepthRx = 512; // >= 2 * MaxFrameBytes / 64 beats, power of two

  // ------------------------------------------------------------------ PCIe / XDMA
  logic pcie_refclk_gt, pcie_refclk_div2;
  logic core_clk, xdma_aresetn, core_rst_n;

  IBUFDS_GTE4 #(
    .REFCLK_EN_TX_PATH  (1'b0),
    .REFCLK_HROW_CK_SEL (2'b00),
    .REFCLK_ICNTL_RX    (2'b00)
  ) u_pcie_refclk_buf (
    .I     (pcie_refclk_p),
    .IB    (pcie_refclk_n),
    .CEB   (1'b0),
    .O     (pcie_refclk_gt),
    .ODIV2 (pcie_refclk_div2)
  );

  logic [31:0]           axil_awaddr, axil_wdata, axil_araddr, axil_rdata;
  logic [2:0]            axil_awprot, axil_arprot;
  logic [3:0]            axil_wstrb;
  logic [1:0]            axil_bresp, axil_rresp;
  logic                  axil_awvalid, axil_awready, axil_wvalid, axil_wready;
  logic                  axil_bvalid, axil_bready, axil_arvalid, axil_arready;
  logic                  axil_rvalid, axil_rready;
  logic [DataWidth-1:0]  h2c_tdata, c2h_tdata;
  logic [KeepWidth-1:0]  h2c_tkeep, c2h_tkeep;
  logic                  h2c_tvalid, h2c_tready, h2c_tlast;
  logic                  c2h_tvalid, c2h_tready, c2h_tlast;

  /* verilator lint_off PINCONNECTEMPTY */
  xdma_0 u_xdma (
    .sys_clk             (pcie_refclk_div2),
    .sys_clk_gt          (pcie_refclk_gt),
    .sys_rst_n           (pcie_perst_ni),
    .user_lnk_up         (pcie_link_up_o),
    .pci_exp_txp         (pcie_tx_p),
    .pci_exp_txn         (pcie_tx_n),
    .pci_exp_rxp         (pcie_rx_p),
    .pci_exp_rxn         (pcie_rx_n),
    .axi_aclk            (core_clk),
    .axi_aresetn         (xdma_aresetn),
    .usr_irq_req         (1'b0),
    .usr_irq_ack         (),
    .msi_enable          (),
    .msi_vector_width    (),
    .m_axil_awaddr       (axil_awaddr),
    .m_axil_awprot       (axil_awprot),
    .m_axil_awvalid      (axil_awvalid),
    .m_axil_awready      (axil_awready),
    .m_axil_wdata        (axil_wdata),
    .m_axil_wstrb        (axil_wstrb),
    .m_axil_wvalid       (axil_wvalid),
    .m_axil_wready       (axil_wready),
    .m_axil_bvalid       (axil_bvalid),
    .m_axil_bresp        (axil_bresp),
    .m_axil_bready       (axil_bready),
    .m_axil_araddr       (axil_araddr),
    .m_axil_arprot       (axil_arprot),
    .m_axil_arvalid      (axil_arvalid),
    .m_axil_arready      (axil_arready),
    .m_axil_rdata        (axil_rdata),
    .m_axil_rresp        (axil_rresp),
    .m_axil_rvalid       (axil_rvalid),
    .m_axil_rready       (axil_rready),
    .s_axis_c2h_tdata_0  (c2h_tdata),
    .s_axis_c2h_tlast_0  (c2h_tlast),
    .s_axis_c2h_tvalid_0 (c2h_tvalid),
    .s_axis_c2h_tready_0 (c2h_tready),
    .s_axis_c2h_tkeep_0  (c2h_tkeep),
    .m_axis_h2c_tdata_0  (h2c_tdata),
    .m_axis_h2c_tlast_0  (h2c_tlast),
    .m_axis_h2c_tvalid_0 (h2c_tvalid),
    .m_axis_h2c_tready_0 (h2c_tready),
    .m_axis_h2c_tkeep_0  (h2c_tkeep)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  nicsched_sync #(.Width(1), .Stages(2)) u_core_rst_sync (
    .clk_i  (core_clk),
    .rst_ni (xdma_aresetn),
    .d_i    (1'b1),
    .q_o    (core_rst_n)
  );

  // ------------------------------------------------------------------------ CMAC
  logic                 mac_clk, mac_usr_tx_reset, mac_usr_rx_reset, mac_stat_aligned;
  logic                 mac_tx_tvalid, mac_tx_tready, mac_tx_tlast, mac_tx_tuser;
  logic [DataWidth-1:0] mac_tx_tdata, mac_rx_tdata;
  logic [KeepWidth-1:0] mac_tx_tkeep, mac_rx_tkeep;
  logic                 mac_rx_tvalid, mac_rx_tlast;
  logic                 aligned_q, aligned_d;
  logic                 mac_ctl_rst_n;

  /* verilator lint_off PINCONNECTEMPTY */
  cmac_usplus_0 u_cmac (
    .gt_rxp_in                            (qsfp_rx_p),
    .gt_rxn_in                            (qsfp_rx_n),
    .gt_txp_out                           (qsfp_tx_p),
    .gt_txn_out                           (qsfp_tx_n),
    .gt_ref_clk_p                         (qsfp_refclk_p),
    .gt_ref_clk_n                         (qsfp_refclk_n),
    .gt_txusrclk2                         (mac_clk),
    .gt_loopback_in                       (12'd0),
    .gt_powergoodout                      (),
    .gtwiz_reset_tx_datapath              (1'b0),
    .gtwiz_reset_rx_datapath              (1'b0),
    .sys_reset                            (init_rst_i),
    .init_clk                             (init_clk_i),
    .ctl_tx_rsfec_enable                  (RsFec),
    .ctl_rx_rsfec_enable                  (RsFec),
    .ctl_rsfec_ieee_error_indication_mode (1'b0),
    .ctl_rx_rsfec_enable_correction       (RsFec),
    .ctl_rx_rsfec_enable_indication       (RsFec),
    .rx_clk                               (mac_clk),
    .core_rx_reset                        (1'b0),
    .ctl_rx_enable                        (1'b1),
    .ctl_rx_force_resync                  (1'b0),
    .ctl_rx_test_pattern                  (1'b0),
    .usr_rx_reset                         (mac_usr_rx_reset),
    .stat_rx_aligned                      (mac_stat_aligned),
    .rx_axis_tvalid                       (mac_rx_tvalid),
    .rx_axis_tdata                        (mac_rx_tdata),
    .rx_axis_tlast                        (mac_rx_tlast),
    .rx_axis_tkeep                        (mac_rx_tkeep),
    .rx_axis_tuser                        (),
    .core_tx_reset                        (1'b0),
    .ctl_tx_enable                        (aligned_q),
    .ctl_tx_send_idle                     (1'b0),
    .ctl_tx_send_rfi                      (!aligned_q),
    .ctl_tx_send_lfi                      (1'b0),
    .ctl_tx_test_pattern                  (1'b0),
    .usr_tx_reset                         (mac_usr_tx_reset),
    .tx_axis_tvalid                       (mac_tx_tvalid),
    .tx_axis_tready                       (mac_tx_tready),
    .tx_axis_tdata                        (mac_tx_tdata),
    .tx_axis_tlast                        (mac_tx_tlast),
    .tx_axis_tkeep                        (mac_tx_tkeep),
    .tx_axis_tuser                        (mac_tx_tuser),
    .tx_preamblein                        (56'd0),
    .tx_ovfout                            (),
    .tx_unfout                            (),
    .core_drp_reset                       (1'b0),
    .drp_clk                              (init_clk_i),
    .drp_addr                             (10'd0),
    .drp_di                               (16'd0),
    .drp_en                               (1'b0),
    .drp_we                               (1'b0),
    .drp_do                               (),
    .drp_rdy                              ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // TX enable follows RX alignment (stat_rx_aligned is in rx_clk = mac_clk).
  nicsched_sync #(.Width(1), .Stages(2)) u_mac_ctl_rst_sync (
    .clk_i  (mac_clk),
    .rst_ni (!mac_usr_rx_reset),
    .d_i    (1'b1),
    .q_o    (mac_ctl_rst_n)
  );

  always_comb begin
    aligned_d     = mac_stat_aligned;
    mac_aligned_o = aligned_q;
  end

  always_ff @(posedge mac_clk or negedge mac_ctl_rst_n) begin
    if (!mac_ctl_rst_n) begin
      aligned_q <= 1'b0;
    end else begin
      aligned_q <= aligned_d;
    end
  end

  // -------------------------------------------------------- MAC <-> core crossing
  // One asynchronous reset source for both sides of both CDC FIFOs.
  logic cdc_arst_n, cdc_core_rst_n, cdc_mac_rst_n;
  assign cdc_arst_n = xdma_aresetn && !mac_usr_tx_reset && !mac_usr_rx_reset;

  nicsched_sync #(.Width(1), .Stages(2)) u_cdc_core_rst_sync (
    .clk_i  (core_clk),
    .rst_ni (cdc_arst_n),
    .d_i    (1'b1),
    .q_o    (cdc_core_rst_n)
  );

  nicsched_sync #(.Width(1), .Stages(2)) u_cdc_mac_rst_sync (
    .clk_i  (mac_clk),
    .rst_ni (cdc_arst_n),
    .d_i    (1'b1),
    .q_o    (cdc_mac_rst_n)
  );

  logic [DataWidth-1:0] core_tx_tdata, core_rx_tdata;
  logic [KeepWidth-1:0] core_tx_tkeep, core_rx_tkeep;
  logic                 core_tx_tvalid, core_tx_tready, core_tx_tlast;
  logic                 core_rx_tvalid, core_rx_tready, core_rx_tlast;

  /* verilator lint_off PINCONNECTEMPTY */
  nicsched_mac_tx_cdc #(
    .DataWidth     (DataWidth),
    .MaxFrameBytes (MaxFrameBytes),
    .Depth         (CdcDepthTx)
  ) u_tx_cdc (
    .core_clk_i    (core_clk),
    .core_rst_ni   (cdc_core_rst_n),
    .s_axis_tdata  (core_tx_tdata),
    .s_axis_tkeep  (core_tx_tkeep),
    .s_axis_tvalid (core_tx_tvalid),
    .s_axis_tready (core_tx_tready),
    .s_axis_tlast  (core_tx_tlast),
    .mac_clk_i     (mac_clk),
    .mac_rst_ni    (cdc_mac_rst_n),
    .m_axis_tdata  (mac_tx_tdata),
    .m_axis_tkeep  (mac_tx_tkeep),
    .m_axis_tvalid (mac_tx_tvalid),
    .m_axis_tready (mac_tx_tready),
    .m_axis_tlast  (mac_tx_tlast),
    .m_axis_tuser  (mac_tx_tuser),
    .truncated_o   ()
  );

  nicsched_mac_rx_cdc #(
    .DataWidth     (DataWidth),
    .MaxFrameBytes (MaxFrameBytes),
    .Depth         (CdcDepthRx)
  ) u_rx_cdc (
    .mac_clk_i     (mac_clk),
    .mac_rst_ni    (cdc_mac_rst_n),
    .s_axis_tdata  (mac_rx_tdata),
    .s_axis_tkeep  (mac_rx_tkeep),
    .s_axis_tvalid (mac_rx_tvalid),
    .s_axis_tlast  (mac_rx_tlast),
    .dropped_o     (),
    .truncated_o   (),
    .core_clk_i    (core_clk),
    .core_rst_ni   (cdc_core_rst_n),
    .m_axis_tdata  (core_rx_tdata),
    .m_axis_tkeep  (core_rx_tkeep),
    .m_axis_tvalid (core_rx_tvalid),
    .m_axis_tready (core_rx_tready),
    .m_axis_tlast  (core_rx_tlast)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ------------------------------------------------------------------------ core
  localparam logic [nicsched_pkg::SOURCE_W-1:0] H2C_SOURCE = '0;  // SRC_BIND[0]: the H2C channel
  /* verilator lint_off PINCONNECTEMPTY */
  nicsched_top #(
    .NumTenants    (NumTenants),
    .NumClsEntries (NumClsEntries),
    .DataWidth     (DataWidth),
    .CryptoSlots   (CryptoSlots),
    .BufferBytes   (BufferBytes)
  ) u_core (
    .clk_i            (core_clk),
    .rst_ni           (core_rst_n),
    // host -> NIC
    .s_axis_tx_tdata  (h2c_tdata),
    .s_axis_tx_tkeep  (h2c_tkeep),
    .s_axis_tx_tvalid (h2c_tvalid),
    .s_axis_tx_tready (h2c_tready),
    .s_axis_tx_tlast  (h2c_tlast),
    // The one H2C channel is source 0 (H2C_SOURCE). Any process that opens the channel
    // writes whole frames into it, so nothing trusted tells tenants apart here: binding
    // source 0 binds every frame to one tenant. A trusted per-frame tag needs a kernel
    // driver that owns the channel and writes the source into a sideband word, or a
    // multi-queue DMA engine whose queue number becomes the source (docs/trust.md).
    .s_axis_tx_tuser  (H2C_SOURCE),
    // NIC -> MAC (the tenant/crypto tuser has no use past the core)
    .m_axis_tx_tdata  (core_tx_tdata),
    .m_axis_tx_tkeep  (core_tx_tkeep),
    .m_axis_tx_tvalid (core_tx_tvalid),
    .m_axis_tx_tready (core_tx_tready),
    .m_axis_tx_tlast  (core_tx_tlast),
    .m_axis_tx_tuser  (),
    // MAC -> NIC
    .s_axis_rx_tdata  (core_rx_tdata),
    .s_axis_rx_tkeep  (core_rx_tkeep),
    .s_axis_rx_tvalid (core_rx_tvalid),
    .s_axis_rx_tready (core_rx_tready),
    .s_axis_rx_tlast  (core_rx_tlast),
    // NIC -> host
    .m_axis_rx_tdata  (c2h_tdata),
    .m_axis_rx_tkeep  (c2h_tkeep),
    .m_axis_rx_tvalid (c2h_tvalid),
    .m_axis_rx_tready (c2h_tready),
    .m_axis_rx_tlast  (c2h_tlast),
    .m_axis_rx_tuser  (),
    // registers: XDMA BAR0, 64 KiB
    .s_axil_awaddr    (axil_awaddr[15:0]),
    .s_axil_awprot    (axil_awprot),
    .s_axil_awvalid   (axil_awvalid),
    .s_axil_awready   (axil_awready),
    .s_axil_wdata     (axil_wdata),
    .s_axil_wstrb     (axil_wstrb),
    .s_axil_wvalid    (axil_wvalid),
    .s_axil_wready    (axil_wready),
    .s_axil_bresp     (axil_bresp),
    .s_axil_bvalid    (axil_bvalid),
    .s_axil_bready    (axil_bready),
    .s_axil_araddr    (axil_araddr[15:0]),
    .s_axil_arprot    (axil_arprot),
    .s_axil_arvalid   (axil_arvalid),
    .s_axil_arready   (axil_arready),
    .s_axil_rdata     (axil_rdata),
    .s_axil_rresp     (axil_rresp),
    .s_axil_rvalid    (axil_rvalid),
    .s_axil_rready    (axil_rready)
  );
  /* verilator lint_on PINCONNECTEMPTY */

endmodule

`default_nettype wire
