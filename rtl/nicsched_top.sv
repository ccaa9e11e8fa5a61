// nicsched_top: the scheduler core: ingress, queues, arbiters, shaper, crypto slots,
// egress, telemetry and the CSR block (ports per docs/architecture.md "nicsched_top").
//
// TX (host -> MAC): ingress (parse, classify) -> per-(tenant, class) queues in the TX
//   shared buffer -> egress arbiter (CTRL.ARB_MODE: FIFO / SP / DWRR / SP+DWRR, tenants
//   gated by the token-bucket shaper; control heads with tokens in their tenant's control
//   bucket above every level while CTRL.CONTROL_LEVEL) -> crypto slot (frames classified
//   ENCRYPT) -> m_axis_tx.
// RX (MAC -> host): ingress -> per-(tenant, class) queues in the RX shared buffer ->
//   crypto slot arbiter (DWRR across tenants by T_WEIGHT, control before bulk) -> crypto
//   slot (frames classified DECRYPT) -> m_axis_rx.
// The crypto slot pool (CryptoSlots, quotas per tenant) is shared by both directions.
// All configuration comes from the CSR block's active copies (applied by COMMIT);
// telemetry counters feed its snapshot inputs. See docs/rtl.md for the
// micro-architecture, timing and figures.
`default_nettype none

module nicsched_top #(
  parameter int NumTenants    = 8,      // tenants; 2..64
  parameter int NumClsEntries = 16,     // classifier entries; 1..64
  parameter int DataWidth     = 512,    // AXI4-Stream data bits; 64..512, power of two
  parameter int CryptoSlots   = 4,      // crypto engine slots shared by TX and RX
  parameter int BufferBytes   = 262144, // shared packet buffer per direction
  parameter int NumSources    = 8       // TX sources with a binding (SOURCE block); 1..64
) (
  input  wire logic                       clk_i,
  input  wire logic                       rst_ni,
  // host -> NIC (TX, before scheduling)
  input  wire logic [DataWidth-1:0]       s_axis_tx_tdata,
  input  wire logic [DataWidth/8-1:0]     s_axis_tx_tkeep,
  input  wire logic                       s_axis_tx_tvalid,
  output logic                            s_axis_tx_tready,
  input  wire logic                       s_axis_tx_tlast,
  input  wire logic [nicsched_pkg::SOURCE_W-1:0] s_axis_tx_tuser,  // source (host queue / VF), set by the trusted host side; read on tlast
  // NIC -> MAC (TX, scheduled, encrypted where classified so)
  output logic [DataWidth-1:0]            m_axis_tx_tdata,
  output logic [DataWidth/8-1:0]          m_axis_tx_tkeep,
  output logic                            m_axis_tx_tvalid,
  input  wire logic                       m_axis_tx_tready,
  output logic                            m_axis_tx_tlast,
  output nicsched_pkg::egress_user_t      m_axis_tx_tuser,
  // MAC -> NIC (RX)
  input  wire logic [DataWidth-1:0]       s_axis_rx_tdata,
  input  wire logic [DataWidth/8-1:0]     s_axis_rx_tkeep,
  input  wire logic                       s_axis_rx_tvalid,
  output logic                            s_axis_rx_tready,
  input  wire logic                       s_axis_rx_tlast,
  // NIC -> host (RX, decrypted where classified so)
  output logic [DataWidth-1:0]            m_axis_rx_tdata,
  output logic [DataWidth/8-1:0]          m_axis_rx_tkeep,
  output logic                            m_axis_rx_tvalid,
  input  wire logic                       m_axis_rx_tready,
  output logic                            m_axis_rx_tlast,
  output nicsched_pkg::egress_user_t      m_axis_rx_tuser,
  // AXI4-Lite register interface
  input  wire logic [15:0]                s_axil_awaddr,
  input  wire logic [2:0]                 s_axil_awprot,
  input  wire logic                       s_axil_awvalid,
  output logic                            s_axil_awready,
  input  wire logic [31:0]                s_axil_wdata,
  input  wire logic [3:0]                 s_axil_wstrb,
  input  wire logic                       s_axil_wvalid,
  output logic                            s_axil_wready,
  output logic [1:0]                      s_axil_bresp,
  output logic                            s_axil_bvalid,
  input  wire logic                       s_axil_bready,
  input  wire logic [15:0]                s_axil_araddr,
  input  wire logic [2:0]                 s_axil_arprot,
  input  wire logic                       s_axil_arvalid,
  output logic                            s_axil_arready,
  output logic [31:0]                     s_axil_rdata,
  output logic [1:0]                      s_axil_rresp,
  output logic                            s_axil_rvalid,
  input  wire logic                       s_axil_rready
);
  localparam int NumQueues = NumTenants * 2;
  localparam int QueueW    = $clog2(NumQueues);
  localparam int TenantW   = $clog2(NumTenants);
  localparam int DataBytes = DataWidth / 8;
  localparam int CountW    = $clog2(DataBytes + 1);  // bits of a beat's byte count
  localparam int CellW     = $clog2(BufferBytes / DataBytes);
  localparam int LenW      = 16;
  localparam int TsW       = 32;
  localparam int TagW      = CellW + LenW + QueueW + TsW;
  localparam int BusyW     = $clog2(CryptoSlots + 1);
  // capabilities
  localparam logic [31:0] TENANTS32   = NumTenants;
  localparam logic [31:0] SLOTS32     = CryptoSlots;
  localparam logic [31:0] ENTRIES32   = NumClsEntries;
  localparam logic [31:0] DBYTES32    = DataBytes;
  localparam logic [31:0] BUFKIB32    = BufferBytes / 1024;
  localparam logic [31:0] SOURCES32   = NumSources;
  localparam logic [31:0] PRIO32      = nicsched_pkg::PRIO_LEVELS;
  localparam logic [31:0] CLASSES32   = nicsched_pkg::NUM_CLASSES;

  if (NumTenants < 2 || NumTenants > 64) begin : gen_bad_tenants
    $error("nicsched_top %m: NumTenants must be in 2..64");
  end
  if (NumClsEntries < 1 || NumClsEntries > 64) begin : gen_bad_entries
    $error("nicsched_top %m: NumClsEntries must be in 1..64");
  end
  if (CryptoSlots < 1 || CryptoSlots > 64) begin : gen_bad_slots
    $error("nicsched_top %m: CryptoSlots must be in 1..64");
  end
  if (NumSources < 1 || NumSources > 64) begin : gen_bad_sources
    $error("nicsched_top %m: NumSources must be in 1..64");
  end
  if (BufferBytes < 16 * DataBytes || BufferBytes / 1024 > 65535) begin : gen_bad_buffer
    $error("nicsched_top %m: BufferBytes must hold 16 cells and be under 64 MiB");
  end

  // ------------------------------------------------------------------ CSR
  // every register field's width from the generated package (rtl/regmap/nicsched.yaml)
  logic                       cfg_enable, cfg_bad_to_default, cfg_ctrl_level;
  logic [nicsched_regs_pkg::CTRL_ARB_MODE_WIDTH-1:0] cfg_mode;
  logic                       commit_go, commit_we, snapshot_go, snapshot_we;
  logic                       clear_go, clear_we;
  logic [nicsched_regs_pkg::SCRATCH_VALUE_WIDTH-1:0]     scratch;
  logic [nicsched_regs_pkg::CONFIG_GEN_COUNT_WIDTH-1:0]  config_gen_q;
  logic                       st_tx_full, st_rx_full;
  logic [nicsched_regs_pkg::CRYPTO_ENGINE_BYTES_PER_CYCLE_WIDTH-1:0] eng_bpc;
  logic [nicsched_regs_pkg::CRYPTO_ENGINE_LATENCY_WIDTH-1:0]         eng_lat;
  logic [nicsched_regs_pkg::DEFAULT_ACTION_TENANT_WIDTH-1:0]         def_tenant;
  logic                       def_class;
  logic [nicsched_regs_pkg::DEFAULT_ACTION_CRYPTO_OP_WIDTH-1:0]      def_op;
  logic                       tx_id_mode;
  logic [NumSources-1:0]      src_bound, src_drop;
  logic [NumSources*nicsched_regs_pkg::SRC_BIND_TENANT_WIDTH-1:0]    src_tenant;
  logic [NumSources*nicsched_regs_pkg::SRC_SPOOF_COUNT_WIDTH-1:0]    src_spoof;
  logic [NumTenants-1:0]      t_enable, t_rate_en;
  logic [NumTenants*nicsched_regs_pkg::T_CTRL_PRIORITY_WIDTH-1:0]    t_prio;
  logic [NumTenants*nicsched_regs_pkg::T_CTRL_CRYPTO_QUOTA_WIDTH-1:0] t_quota;
  logic [NumTenants*nicsched_regs_pkg::T_WEIGHT_QUANTUM_WIDTH-1:0]   t_quantum;
  logic [NumTenants*nicsched_regs_pkg::T_RATE_BYTES_PER_KCYCLE_WIDTH-1:0]      t_rate;
  logic [NumTenants*nicsched_regs_pkg::T_BURST_BYTES_WIDTH-1:0]                t_burst;
  logic [NumTenants*nicsched_regs_pkg::T_QLIMIT_CTRL_BYTES_WIDTH-1:0]          t_qlim_ctrl;
  logic [NumTenants*nicsched_regs_pkg::T_QLIMIT_BULK_BYTES_WIDTH-1:0]          t_qlim_bulk;
  logic [NumTenants*nicsched_regs_pkg::T_CTRL_RATE_BYTES_PER_KCYCLE_WIDTH-1:0] t_ctrl_rate;
  logic [NumTenants*nicsched_regs_pkg::T_CTRL_BURST_BYTES_WIDTH-1:0]           t_ctrl_burst;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_VLAN_VALUE_WIDTH-1:0]  cls_vlan_value;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_VLAN_MASK_WIDTH-1:0]   cls_vlan_mask;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_DSCP_PROTO_DSCP_WIDTH-1:0]       cls_dscp;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_DSCP_PROTO_DSCP_MASK_WIDTH-1:0]  cls_dscp_mask;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_ACTION_TENANT_WIDTH-1:0]         cls_tenant;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_DSCP_PROTO_PROTO_WIDTH-1:0]      cls_proto;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_DSCP_PROTO_PROTO_MASK_WIDTH-1:0] cls_proto_mask;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_PORT_VALUE_WIDTH-1:0]  cls_port;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_PORT_MASK_WIDTH-1:0]   cls_port_mask;
  logic [NumClsEntries-1:0]    cls_valid, cls_class;
  logic [NumClsEntries*nicsched_regs_pkg::CLS_ACTION_CRYPTO_OP_WIDTH-1:0]      cls_op;

  // telemetry outputs
  logic [nicsched_regs_pkg::CYCLE_COUNT_WIDTH-1:0]       cycle;
  logic [nicsched_regs_pkg::CRYPTO_BUSY_SLOTS_WIDTH-1:0] crypto_busy;
  logic [2*nicsched_regs_pkg::PRS_FRAMES_COUNT_WIDTH-1:0]        prs_frames;
  logic [2*nicsched_regs_pkg::PRS_RUNT_COUNT_WIDTH-1:0]          prs_runt;
  logic [2*nicsched_regs_pkg::PRS_TRUNCATED_COUNT_WIDTH-1:0]     prs_trunc;
  logic [2*nicsched_regs_pkg::PRS_BAD_IHL_COUNT_WIDTH-1:0]       prs_ihl;
  logic [2*nicsched_regs_pkg::PRS_UNKNOWN_ETYPE_COUNT_WIDTH-1:0] prs_etype;
  logic [2*nicsched_regs_pkg::PRS_BUF_DROP_COUNT_WIDTH-1:0]      prs_buf;
  logic [NumTenants*nicsched_regs_pkg::CR_TX_BUSY_COUNT_WIDTH-1:0] cr_tx_busy;
  logic [NumTenants*nicsched_regs_pkg::CR_TX_WAIT_COUNT_WIDTH-1:0] cr_tx_wait;
  logic [NumTenants*nicsched_regs_pkg::CR_RX_BUSY_COUNT_WIDTH-1:0] cr_rx_busy;
  logic [NumTenants*nicsched_regs_pkg::CR_RX_WAIT_COUNT_WIDTH-1:0] cr_rx_wait;
  logic [NumTenants*nicsched_regs_pkg::CR_SLOTS_HELD_COUNT_WIDTH-1:0] cr_held_cnt;
  logic [NumQueues*nicsched_regs_pkg::Q_DEPTH_BYTES_WIDTH-1:0]     q_depth;
  logic [NumQueues*nicsched_regs_pkg::Q_DEPTH_HWM_BYTES_WIDTH-1:0] q_depth_hwm;
  logic [NumQueues*nicsched_regs_pkg::Q_DEPTH_PKTS_COUNT_WIDTH-1:0] q_depth_pkts;
  // counters in RAM: the snapshot of the element the CSR reads (docs/rtl.md "Telemetry")
  localparam int QSnapIdxW = $clog2(nicsched_regs_pkg::NUM_QUEUES_MAX);
  localparam int TSnapIdxW = $clog2(nicsched_regs_pkg::NUM_TENANTS_MAX);
  logic                       snapshot_fire;
  logic                       snap_load;
  logic [QSnapIdxW-1:0]       q_snap_idx;
  logic [TSnapIdxW-1:0]       t_snap_idx;
  logic [nicsched_regs_pkg::CR_TX_BYTES_COUNT_WIDTH-1:0] cr_tx_bytes;
  logic [nicsched_regs_pkg::CR_TX_PKTS_COUNT_WIDTH-1:0]  cr_tx_pkts;
  logic [nicsched_regs_pkg::CR_RX_BYTES_COUNT_WIDTH-1:0] cr_rx_bytes;
  logic [nicsched_regs_pkg::CR_RX_PKTS_COUNT_WIDTH-1:0]  cr_rx_pkts;
  logic [nicsched_regs_pkg::Q_ENQ_PKTS_COUNT_WIDTH-1:0]  q_enq_pkts;
  logic [nicsched_regs_pkg::Q_ENQ_BYTES_COUNT_WIDTH-1:0] q_enq_bytes;
  logic [nicsched_regs_pkg::Q_TX_PKTS_COUNT_WIDTH-1:0]   q_tx_pkts;
  logic [nicsched_regs_pkg::Q_TX_BYTES_COUNT_WIDTH-1:0]  q_tx_bytes;
  logic [nicsched_regs_pkg::Q_DROP_PKTS_COUNT_WIDTH-1:0] q_drop_pkts;
  logic [nicsched_regs_pkg::Q_DROP_BYTES_COUNT_WIDTH-1:0] q_drop_bytes;
  logic [nicsched_regs_pkg::Q_LAT_SUM_COUNT_WIDTH-1:0]   q_lat_sum;
  logic [nicsched_regs_pkg::Q_LAT_COUNT_COUNT_WIDTH-1:0] q_lat_count;
  logic [nicsched_regs_pkg::Q_LAT_MAX_CYCLES_WIDTH-1:0]  q_lat_max;

  // datapath events
  logic [1:0]                 path_buf_drop;

  nicsched_csr #(
    .NumTenants   (NumTenants),
    .NumClsEntries(NumClsEntries),
    .NumSources   (NumSources)
  ) u_csr (
    .clk_i,
    .rst_ni,
    .s_axil_awaddr,
    .s_axil_awprot,
    .s_axil_awvalid,
    .s_axil_awready,
    .s_axil_wdata,
    .s_axil_wstrb,
    .s_axil_wvalid,
    .s_axil_wready,
    .s_axil_bresp,
    .s_axil_bvalid,
    .s_axil_bready,
    .s_axil_araddr,
    .s_axil_arprot,
    .s_axil_arvalid,
    .s_axil_arready,
    .s_axil_rdata,
    .s_axil_rresp,
    .s_axil_rvalid,
    .s_axil_rready,
    .caps0_tenants_i              (TENANTS32[7:0]),
    .caps0_classes_i              (CLASSES32[3:0]),
    .caps0_prio_levels_i          (PRIO32[3:0]),
    .caps0_crypto_slots_i         (SLOTS32[7:0]),
    .caps0_cls_entries_i          (ENTRIES32[7:0]),
    .caps1_data_bytes_i           (DBYTES32[7:0]),
    .caps1_buffer_kib_i           (BUFKIB32[15:0]),
    .caps1_sources_i              (SOURCES32[7:0]),
    .ctrl_enable_o                (cfg_enable),
    .ctrl_arb_mode_o              (cfg_mode),
    .ctrl_bad_to_default_o        (cfg_bad_to_default),
    .ctrl_control_level_o         (cfg_ctrl_level),
    .commit_go_o                  (commit_go),
    .commit_go_we_o               (commit_we),
    .snapshot_go_o                (snapshot_go),
    .snapshot_go_we_o             (snapshot_we),
    .counter_clear_go_o           (clear_go),
    .counter_clear_go_we_o        (clear_we),
    .config_gen_count_i           (config_gen_q),
    .scratch_value_o              (scratch),
    .status_tx_buf_full_set_i     (path_buf_drop[0]),
    .status_tx_buf_full_o         (st_tx_full),
    .status_rx_buf_full_set_i     (path_buf_drop[1]),
    .status_rx_buf_full_o         (st_rx_full),
    .cycle_count_i                (cycle),
    .crypto_engine_bytes_per_cycle_o(eng_bpc),
    .crypto_engine_latency_o      (eng_lat),
    .default_action_tenant_o      (def_tenant),
    .default_action_class_o       (def_class),
    .default_action_crypto_op_o   (def_op),
    .tx_identity_tx_id_mode_o    (tx_id_mode),
    .src_bind_bound_o             (src_bound),
    .src_bind_tenant_o            (src_tenant),
    .src_bind_drop_spoof_o        (src_drop),
    .src_spoof_count_i            (src_spoof),
    .crypto_busy_slots_i          (crypto_busy),
    .prs_frames_count_i           (prs_frames),
    .prs_runt_count_i             (prs_runt),
    .prs_truncated_count_i        (prs_trunc),
    .prs_bad_ihl_count_i          (prs_ihl),
    .prs_unknown_etype_count_i    (prs_etype),
    .prs_buf_drop_count_i         (prs_buf),
    .t_ctrl_enable_o              (t_enable),
    .t_ctrl_priority_o            (t_prio),
    .t_ctrl_crypto_quota_o        (t_quota),
    .t_ctrl_rate_en_o             (t_rate_en),
    .t_weight_quantum_o           (t_quantum),
    .t_rate_bytes_per_kcycle_o    (t_rate),
    .t_burst_bytes_o              (t_burst),
    .t_qlimit_ctrl_bytes_o        (t_qlim_ctrl),
    .t_qlimit_bulk_bytes_o        (t_qlim_bulk),
    .t_ctrl_rate_bytes_per_kcycle_o(t_ctrl_rate),
    .t_ctrl_burst_bytes_o         (t_ctrl_burst),
    .cls_vlan_value_o             (cls_vlan_value),
    .cls_vlan_mask_o              (cls_vlan_mask),
    .cls_dscp_proto_dscp_o        (cls_dscp),
    .cls_dscp_proto_dscp_mask_o   (cls_dscp_mask),
    .cls_dscp_proto_proto_o       (cls_proto),
    .cls_dscp_proto_proto_mask_o  (cls_proto_mask),
    .cls_port_value_o             (cls_port),
    .cls_port_mask_o              (cls_port_mask),
    .cls_action_valid_o           (cls_valid),
    .cls_action_tenant_o          (cls_tenant),
    .cls_action_class_o           (cls_class),
    .cls_action_crypto_op_o       (cls_op),
    .cr_tx_busy_count_i           (cr_tx_busy),
    .cr_tx_wait_count_i           (cr_tx_wait),
    .cr_tx_bytes_count_i          (cr_tx_bytes),
    .cr_tx_pkts_count_i           (cr_tx_pkts),
    .cr_rx_busy_count_i           (cr_rx_busy),
    .cr_rx_wait_count_i           (cr_rx_wait),
    .cr_rx_bytes_count_i          (cr_rx_bytes),
    .cr_rx_pkts_count_i           (cr_rx_pkts),
    .cr_slots_held_count_i        (cr_held_cnt),
    .q_enq_pkts_count_i           (q_enq_pkts),
    .q_enq_bytes_count_i          (q_enq_bytes),
    .q_tx_pkts_count_i            (q_tx_pkts),
    .q_tx_bytes_count_i           (q_tx_bytes),
    .q_drop_pkts_count_i          (q_drop_pkts),
    .q_drop_bytes_count_i         (q_drop_bytes),
    .q_lat_sum_count_i            (q_lat_sum),
    .q_lat_count_count_i          (q_lat_count),
    .q_lat_max_cycles_i           (q_lat_max),
    .q_depth_bytes_i              (q_depth),
    .q_depth_hwm_bytes_i          (q_depth_hwm),
    .q_depth_pkts_count_i         (q_depth_pkts),
    .snapshot_o                   (snapshot_fire),
    .snap_load_o                  (snap_load),
    .crypto_stats_snap_idx_o      (t_snap_idx),
    .queue_stats_snap_idx_o       (q_snap_idx)
  );

  // CONFIG_GEN: commits applied since reset
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      config_gen_q <= '0;
    end else if (commit_we && commit_go) begin
      config_gen_q <= config_gen_q + 32'd1;
    end
  end

  // per-queue limits: queue q = tenant*2 + class
  localparam int LimitW = nicsched_regs_pkg::T_QLIMIT_CTRL_BYTES_WIDTH;
  logic [NumQueues*LimitW-1:0] qlimit;
  always_comb begin
    for (int t = 0; t < NumTenants; t++) begin
      qlimit[(2*t)*LimitW +: LimitW]   = t_qlim_ctrl[t*LimitW +: LimitW];
      qlimit[(2*t+1)*LimitW +: LimitW] = t_qlim_bulk[t*LimitW +: LimitW];
    end
  end

  // ------------------------------------------------------------------ ingress
  localparam int MetaW = nicsched_pkg::INGRESS_META_W;
  localparam int UserW = nicsched_pkg::EGRESS_USER_W;
  // [d]: 0 TX, 1 RX, flattened
  logic [2*DataWidth-1:0]      in_tdata;
  logic [2*DataBytes-1:0]      in_tkeep;
  logic [2*CountW-1:0]         in_tcount;   // each beat's byte count (from the parser)
  logic [1:0]                  in_tvalid, in_tready, in_tlast;
  logic [2*MetaW-1:0]          in_tuser;
  logic [1:0] cnt_frames, cnt_runt, cnt_trunc, cnt_ihl, cnt_etype, cnt_spoof;
  logic [2*nicsched_pkg::SOURCE_W-1:0] cnt_spoof_src;  // [1]: RX, no binding
  logic [1:0] q_tready;

  for (genvar d = 0; d < 2; d++) begin : gen_ingress
    // TX takes frames from 14 bytes up and pads them to 60; RX drops runts (< 60 bytes).
    nicsched_ingress #(
      .DataWidth    (DataWidth),
      .NumClsEntries(NumClsEntries),
      .MinFrameBytes((d == 0) ? nicsched_pkg::MIN_HOST_FRAME : nicsched_pkg::MIN_WIRE_FRAME),
      .PadFrameBytes((d == 0) ? nicsched_pkg::MIN_WIRE_FRAME : 0),
      .NumSources   (NumSources)  // RX: TX_IDENTITY.MODE tied to HEADERS below
    ) u_ingress (
      .clk_i,
      .rst_ni,
      .ctrl_bad_to_default_i       (cfg_bad_to_default),
      .cls_vlan_value_i            (cls_vlan_value),
      .cls_vlan_mask_i             (cls_vlan_mask),
      .cls_dscp_proto_dscp_i       (cls_dscp),
      .cls_dscp_proto_dscp_mask_i  (cls_dscp_mask),
      .cls_dscp_proto_proto_i      (cls_proto),
      .cls_dscp_proto_proto_mask_i (cls_proto_mask),
      .cls_port_value_i            (cls_port),
      .cls_port_mask_i             (cls_port_mask),
      .cls_action_valid_i          (cls_valid),
      .cls_action_tenant_i         (cls_tenant),
      .cls_action_class_i          (cls_class),
      .cls_action_crypto_op_i      (cls_op),
      .default_action_tenant_i     (def_tenant),
      .default_action_class_i      (def_class),
      .default_action_crypto_op_i  (def_op),
      .tx_identity_mode_i          ((d == 0) && tx_id_mode),
      .src_bind_bound_i            (src_bound),
      .src_bind_tenant_i           (src_tenant),
      .src_bind_drop_spoof_i       (src_drop),
      .s_axis_tdata                ((d == 0) ? s_axis_tx_tdata  : s_axis_rx_tdata),
      .s_axis_tkeep                ((d == 0) ? s_axis_tx_tkeep  : s_axis_rx_tkeep),
      .s_axis_tvalid               ((d == 0) ? s_axis_tx_tvalid : s_axis_rx_tvalid),
      .s_axis_tready               (in_tready[d]),
      .s_axis_tlast                ((d == 0) ? s_axis_tx_tlast  : s_axis_rx_tlast),
      .s_axis_tuser                ((d == 0) ? s_axis_tx_tuser  : '0),
      .m_axis_tdata                (in_tdata[d*DataWidth +: DataWidth]),
      .m_axis_tkeep                (in_tkeep[d*DataBytes +: DataBytes]),
      .m_axis_tcount               (in_tcount[d*CountW +: CountW]),
      .m_axis_tvalid               (in_tvalid[d]),
      .m_axis_tready               (q_tready[d]),
      .m_axis_tlast                (in_tlast[d]),
      .m_axis_tuser                (in_tuser[d*MetaW +: MetaW]),
      .cnt_frames_o                (cnt_frames[d]),
      .cnt_runt_o                  (cnt_runt[d]),
      .cnt_truncated_o             (cnt_trunc[d]),
      .cnt_bad_ihl_o               (cnt_ihl[d]),
      .cnt_unknown_etype_o         (cnt_etype[d]),
      .cnt_spoof_o                 (cnt_spoof[d]),
      .cnt_spoof_source_o          (cnt_spoof_src[d*nicsched_pkg::SOURCE_W +: nicsched_pkg::SOURCE_W])
    );
  end
  assign s_axis_tx_tready = in_tready[0];
  assign s_axis_rx_tready = in_tready[1];

  // ------------------------------------------------------------------ shaper
  logic [NumTenants-1:0]   conform;
  logic [2*NumTenants-1:0]      sched_oh;   // [d*NumTenants + t]
  logic [1:0]                   sched_ctrl;
  logic [2*NumTenants*LenW-1:0] sched_len;  // [(d*NumTenants + t)*LenW]

  nicsched_shaper #(
    .NumTenants(NumTenants),
    .LenW      (LenW)
  ) u_shaper (
    .clk_i,
    .rst_ni,
    .rate_en_i       (t_rate_en),
    .rate_i          (t_rate),
    .burst_i         (t_burst),
    .consume_i       (sched_oh[NumTenants-1:0]),
    .consume_len_i   (sched_len[NumTenants*LenW-1:0]),
    .conform_o       (conform)
  );

  // Control buckets: the same token buckets, enabled by CTRL.CONTROL_LEVEL (held full while
  // it is 0), full after reset, paying only for TX frames granted at the control level.
  logic [NumTenants-1:0]   ctrl_conform;

  nicsched_shaper #(
    .NumTenants(NumTenants),
    .LenW      (LenW),
    .RateW     (nicsched_regs_pkg::T_CTRL_RATE_BYTES_PER_KCYCLE_WIDTH),
    .BurstW    (nicsched_regs_pkg::T_CTRL_BURST_BYTES_WIDTH),
    .ResetBytes(nicsched_regs_pkg::T_CTRL_BURST_BYTES_RESET)
  ) u_ctrl_shaper (
    .clk_i,
    .rst_ni,
    .rate_en_i       ({NumTenants{cfg_ctrl_level}}),
    .rate_i          (t_ctrl_rate),
    .burst_i         (t_ctrl_burst),
    .consume_i       (sched_oh[NumTenants-1:0] & {NumTenants{sched_ctrl[0]}}),
    .consume_len_i   (sched_len[NumTenants*LenW-1:0]),
    .conform_o       (ctrl_conform)
  );

  // ------------------------------------------------------------------ crypto slots
  logic [2*NumTenants-1:0] can_claim;
  logic [1:0]              claim, done_valid, done_ready;
  logic [2*TenantW-1:0]    claim_tenant;
  logic [2*LenW-1:0]       claim_len;
  logic [2*TagW-1:0]       claim_tag, done_tag;
  logic [2*QueueW-1:0]     claim_key;
  logic [NumTenants*BusyW-1:0] busy_tx, busy_rx;
  logic [NumTenants*nicsched_regs_pkg::CR_SLOTS_HELD_COUNT_WIDTH-1:0] held;
  logic [nicsched_regs_pkg::CRYPTO_BUSY_SLOTS_WIDTH-1:0]              held_total;
  logic [2*NumTenants-1:0] crypto_wait;
  logic [2*NumTenants-1:0] crypto_want;

  nicsched_crypto_slots #(
    .NumTenants (NumTenants),
    .CryptoSlots(CryptoSlots),
    .LenW       (LenW),
    .TagW       (TagW),
    .KeyW       (QueueW)
  ) u_crypto (
    .clk_i,
    .rst_ni,
    .bpc_i         (eng_bpc),
    .latency_i     (eng_lat),
    .quota_i       (t_quota),
    .can_claim_o   (can_claim),
    .want_i        (crypto_want),
    .claim_i       (claim),
    .claim_tenant_i(claim_tenant),
    .claim_len_i   (claim_len),
    .claim_tag_i   (claim_tag),
    .claim_key_i   (claim_key),
    .done_valid_o  (done_valid),
    .done_tag_o    (done_tag),
    .done_ready_i  (done_ready),
    .busy_tx_o     (busy_tx),
    .busy_rx_o     (busy_rx),
    .held_o        (held),
    .held_total_o  (held_total)
  );

  // ------------------------------------------------------------------ paths
  logic [2*DataWidth-1:0]      out_tdata;
  logic [2*DataBytes-1:0]      out_tkeep;
  logic [1:0]                  out_tvalid, out_tready, out_tlast;
  logic [2*UserW-1:0]          out_tuser;
  logic [1:0]                  ev_valid, ev_accept, ev_drop_limit, ev_drop_buf;
  logic [2*MetaW-1:0]          ev_meta;
  logic [2*LenW-1:0]           ev_len;
  logic [2*QueueW-1:0]         ev_queue;
  logic [1:0]                  lat_valid, sent_valid;
  logic [2*QueueW-1:0]         lat_queue, sent_queue;
  logic [2*TsW-1:0]            lat_cycles;
  logic [2*LenW-1:0]           sent_len;
  logic [2*NumQueues*32-1:0]   q_bytes, q_pkts;

  assign out_tready = {m_axis_rx_tready, m_axis_tx_tready};

  for (genvar d = 0; d < 2; d++) begin : gen_path
    nicsched_path #(
      .NumTenants (NumTenants),
      .DataWidth  (DataWidth),
      .BufferBytes(BufferBytes),
      .CryptoOp   ((d == 0) ? 2'd1 : 2'd2),
      .LenW       (LenW),
      .TsW        (TsW)
    ) u_path (
      .clk_i,
      .rst_ni,
      .now_i          (cycle[TsW-1:0]),
      .s_axis_tdata   (in_tdata[d*DataWidth +: DataWidth]),
      .s_axis_tkeep   (in_tkeep[d*DataBytes +: DataBytes]),
      .s_axis_tcount  (in_tcount[d*CountW +: CountW]),
      .s_axis_tvalid  (in_tvalid[d]),
      .s_axis_tready  (q_tready[d]),
      .s_axis_tlast   (in_tlast[d]),
      .s_axis_tuser   (in_tuser[d*MetaW +: MetaW]),
      .m_axis_tdata   (out_tdata[d*DataWidth +: DataWidth]),
      .m_axis_tkeep   (out_tkeep[d*DataBytes +: DataBytes]),
      .m_axis_tvalid  (out_tvalid[d]),
      .m_axis_tready  (out_tready[d]),
      .m_axis_tlast   (out_tlast[d]),
      .m_axis_tuser   (out_tuser[d*UserW +: UserW]),
      // TX follows CTRL and the tenant registers; RX is weighted round robin, always on
      .enable_i       ((d == 0) ? cfg_enable : 1'b1),
      .mode_i         ((d == 0) ? cfg_mode : nicsched_regs_pkg::CTRL_ARB_MODE_DWRR),
      .t_enable_i     ((d == 0) ? t_enable : {NumTenants{1'b1}}),
      .t_prio_i       ((d == 0) ? t_prio : '0),
      .t_quantum_i    (t_quantum),
      .qlimit_i       (qlimit),
      .conform_i      ((d == 0) ? conform : {NumTenants{1'b1}}),
      .ctrl_level_i   ((d == 0) ? cfg_ctrl_level : 1'b0),
      .ctrl_conform_i ((d == 0) ? ctrl_conform : {NumTenants{1'b0}}),
      .sched_oh_o     (sched_oh[d*NumTenants +: NumTenants]),
      .sched_ctrl_o   (sched_ctrl[d]),
      .sched_len_o    (sched_len[d*NumTenants*LenW +: NumTenants*LenW]),
      .can_claim_i    (can_claim[d*NumTenants +: NumTenants]),
      .claim_o        (claim[d]),
      .claim_tenant_o (claim_tenant[d*TenantW +: TenantW]),
      .claim_len_o    (claim_len[d*LenW +: LenW]),
      .claim_tag_o    (claim_tag[d*TagW +: TagW]),
      .claim_key_o    (claim_key[d*QueueW +: QueueW]),
      .done_valid_i   (done_valid[d]),
      .done_tag_i     (done_tag[d*TagW +: TagW]),
      .done_ready_o   (done_ready[d]),
      .crypto_wait_o  (crypto_wait[d*NumTenants +: NumTenants]),
      .crypto_want_o  (crypto_want[d*NumTenants +: NumTenants]),
      .ev_valid_o     (ev_valid[d]),
      .ev_meta_o      (ev_meta[d*MetaW +: MetaW]),
      .ev_len_o       (ev_len[d*LenW +: LenW]),
      .ev_accept_o    (ev_accept[d]),
      .ev_drop_limit_o(ev_drop_limit[d]),
      .ev_drop_buf_o  (ev_drop_buf[d]),
      .lat_valid_o    (lat_valid[d]),
      .lat_queue_o    (lat_queue[d*QueueW +: QueueW]),
      .lat_cycles_o   (lat_cycles[d*TsW +: TsW]),
      .sent_valid_o   (sent_valid[d]),
      .sent_queue_o   (sent_queue[d*QueueW +: QueueW]),
      .sent_len_o     (sent_len[d*LenW +: LenW]),
      .q_bytes_o      (q_bytes[d*NumQueues*32 +: NumQueues*32]),
      .q_pkts_o       (q_pkts[d*NumQueues*32 +: NumQueues*32])
    );
  end
  assign path_buf_drop = ev_drop_buf;

  // queue of the frame that ended: {tenant, class}
  /* verilator lint_off UNUSEDSIGNAL */
  nicsched_pkg::ingress_meta_t ev_meta_tx, ev_meta_rx;
  logic [TenantW:0]            ev_q_tx, ev_q_rx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ev_meta_tx = ev_meta[0 +: MetaW];
  assign ev_meta_rx = ev_meta[MetaW +: MetaW];
  assign ev_q_tx    = {ev_meta_tx.tenant[TenantW-1:0], ev_meta_tx.cls};
  assign ev_q_rx    = {ev_meta_rx.tenant[TenantW-1:0], ev_meta_rx.cls};
  assign ev_queue   = {ev_q_rx[QueueW-1:0], ev_q_tx[QueueW-1:0]};

  assign m_axis_tx_tdata  = out_tdata[0 +: DataWidth];
  assign m_axis_tx_tkeep  = out_tkeep[0 +: DataBytes];
  assign m_axis_tx_tvalid = out_tvalid[0];
  assign m_axis_tx_tlast  = out_tlast[0];
  assign m_axis_tx_tuser  = out_tuser[0 +: UserW];
  assign m_axis_rx_tdata  = out_tdata[DataWidth +: DataWidth];
  assign m_axis_rx_tkeep  = out_tkeep[DataBytes +: DataBytes];
  assign m_axis_rx_tvalid = out_tvalid[1];
  assign m_axis_rx_tlast  = out_tlast[1];
  assign m_axis_rx_tuser  = out_tuser[UserW +: UserW];

  // ------------------------------------------------------------------ telemetry
  nicsched_telemetry #(
    .NumTenants(NumTenants),
    .LenW      (LenW),
    .TsW       (TsW),
    .BusyW     (BusyW),
    .NumSources(NumSources)
  ) u_telemetry (
    .clk_i,
    .rst_ni,
    .clear_i            (clear_we && clear_go),
    .snapshot_i         (snapshot_fire),
    .snap_load_i        (snap_load),
    .q_rd_idx_i         (q_snap_idx[QueueW-1:0]),
    .t_rd_idx_i         (t_snap_idx[TenantW-1:0]),
    .prs_frames_i       (cnt_frames),
    .prs_runt_i         (cnt_runt),
    .prs_truncated_i    (cnt_trunc),
    .prs_bad_ihl_i      (cnt_ihl),
    .prs_unknown_etype_i(cnt_etype),
    .spoof_i            (cnt_spoof[0]),
    .spoof_source_i     (cnt_spoof_src[0 +: nicsched_pkg::SOURCE_W]),
    .buf_drop_i         (ev_drop_buf),
    .enq_valid_i        (ev_accept),
    .lim_drop_i         (ev_drop_limit),
    .ev_queue_i         (ev_queue),
    .ev_len_i           (ev_len),
    .sent_valid_i       (sent_valid),
    .sent_queue_i       (sent_queue),
    .sent_len_i         (sent_len),
    .lat_valid_i        (lat_valid),
    .lat_queue_i        (lat_queue),
    .lat_cycles_i       (lat_cycles),
    .tx_q_bytes_i       (q_bytes[0 +: NumQueues*32]),
    .tx_q_pkts_i        (q_pkts[0 +: NumQueues*32]),
    .rx_q_bytes_i       (q_bytes[NumQueues*32 +: NumQueues*32]),
    .rx_q_pkts_i        (q_pkts[NumQueues*32 +: NumQueues*32]),
    .cr_busy_tx_i       (busy_tx),
    .cr_busy_rx_i       (busy_rx),
    .cr_wait_tx_i       (crypto_wait[NumTenants-1:0]),
    .cr_wait_rx_i       (crypto_wait[2*NumTenants-1:NumTenants]),
    .cr_claim_i         (claim),
    .cr_claim_tenant_i  (claim_tenant),
    .cr_claim_len_i     (claim_len),
    .cr_held_i          (held),
    .cr_held_total_i    (held_total),
    .cycle_o            (cycle),
    .crypto_busy_o      (crypto_busy),
    .prs_frames_o       (prs_frames),
    .prs_runt_o         (prs_runt),
    .prs_truncated_o    (prs_trunc),
    .prs_bad_ihl_o      (prs_ihl),
    .prs_unknown_etype_o(prs_etype),
    .prs_buf_drop_o     (prs_buf),
    .src_spoof_o        (src_spoof),
    .cr_tx_busy_o       (cr_tx_busy),
    .cr_tx_wait_o       (cr_tx_wait),
    .cr_rx_busy_o       (cr_rx_busy),
    .cr_rx_wait_o       (cr_rx_wait),
    .cr_slots_held_o    (cr_held_cnt),
    .q_depth_o          (q_depth),
    .q_depth_hwm_o      (q_depth_hwm),
    .q_depth_pkts_o     (q_depth_pkts),
    .cr_tx_bytes_snap_o (cr_tx_bytes),
    .cr_tx_pkts_snap_o  (cr_tx_pkts),
    .cr_rx_bytes_snap_o (cr_rx_bytes),
    .cr_rx_pkts_snap_o  (cr_rx_pkts),
    .q_enq_pkts_snap_o  (q_enq_pkts),
    .q_enq_bytes_snap_o (q_enq_bytes),
    .q_tx_pkts_snap_o   (q_tx_pkts),
    .q_tx_bytes_snap_o  (q_tx_bytes),
    .q_drop_pkts_snap_o (q_drop_pkts),
    .q_drop_bytes_snap_o(q_drop_bytes),
    .q_lat_sum_snap_o   (q_lat_sum),
    .q_lat_count_snap_o (q_lat_count),
    .q_lat_max_snap_o   (q_lat_max)
  );

  // values software reads back but the datapath does not use
  logic unused;
  // (RX has no shaper: its scheduling events go nowhere)
  assign unused = ^{scratch, st_tx_full, st_rx_full, snapshot_go, snapshot_we, ev_valid, q_snap_idx, t_snap_idx,
                    sched_oh[2*NumTenants-1:NumTenants], sched_ctrl[1], sched_len[2*NumTenants*LenW-1:NumTenants*LenW],
                    cnt_spoof[1], cnt_spoof_src[2*nicsched_pkg::SOURCE_W-1:nicsched_pkg::SOURCE_W]};

endmodule

`default_nettype wire
