// nicsched_classifier: match-table lookup of the parsed fields; writes ingress_meta_t on tlast.
//
// Behaviour
//   Frames pass unchanged (each beat with its byte count, s/m_axis_tcount), two register
//   stages later. On the tlast beat the classifier turns the parser's fields into
//   nicsched_pkg::ingress_meta_t on m_axis_tuser (zero on other beats):
//     - parser drop reason != DROP_NONE: meta.drop = that reason, tenant/class/crypto 0;
//     - parser says "default" (unknown ethertype with CTRL.BAD_TO_DEFAULT): DEFAULT_ACTION;
//     - otherwise the lowest-numbered entry i with CLS_ACTION[i].VALID whose four fields all
//       match under their masks, ((field ^ value) & mask) == 0 for VLAN ID, DSCP, protocol
//       and L4 destination port, gives {tenant, class, crypto op}; no match: DEFAULT_ACTION.
//   A crypto-op value of 3 (not defined in the register map) is treated as NONE.
//   TX identity (docs/trust.md; the reference model's classify_tx): with the tlast beat
//   comes the frame's source binding (s_src_i). A bound source's frame keeps the table's
//   result only if the winning entry names the source's tenant; otherwise (no entry, or
//   a "default" frame) it gets the source's tenant with DEFAULT_ACTION's class and crypto
//   op; and if the winning entry names another tenant the frame is a spoof: m_spoof_o is
//   set with its meta, and with the binding's drop_spoof meta.drop = DROP_SPOOF. Frames
//   with a parser drop reason are never spoofs. An unbound source: as above, headers only.
//   The table is read when the tlast beat enters the first stage, so a COMMIT takes effect
//   from the next frame whose tlast has not yet entered it.
//
// Timing
//   Two register stages: latency two clocks, one beat per clock when m_axis_tready is high.
//   Stage A registers each entry's field match and its action folded with the binding
//   (tenant, class, op, spoof bits; beside the matches, not after the lowest-hit pick);
//   stage B picks the lowest hit and selects the frame's result from those registers. One
//   stage held the matches, the pick and the result in series: the ingress's slowest
//   group, 4.7 ns by the cell-delay model (docs/fpga.md), over the 4.0 ns of 250 MHz.
//   s_axis_tready = !stage A full || !stage B full || m_axis_tready.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_classifier #(
  parameter int DataWidth     = 512,  // AXI4-Stream data bits; 64..512, a power of two
  parameter int NumClsEntries = 16    // match-table entries; 1..64
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,

  // Match table (CSR block active copies), element i at [i*W +: W]
  input  logic [NumClsEntries*12-1:0] cls_vlan_value_i,
  input  logic [NumClsEntries*12-1:0] cls_vlan_mask_i,
  input  logic [NumClsEntries*6-1:0]  cls_dscp_proto_dscp_i,
  input  logic [NumClsEntries*6-1:0]  cls_dscp_proto_dscp_mask_i,
  input  logic [NumClsEntries*8-1:0]  cls_dscp_proto_proto_i,
  input  logic [NumClsEntries*8-1:0]  cls_dscp_proto_proto_mask_i,
  input  logic [NumClsEntries*16-1:0] cls_port_value_i,
  input  logic [NumClsEntries*16-1:0] cls_port_mask_i,
  input  logic [NumClsEntries-1:0]    cls_action_valid_i,
  input  logic [NumClsEntries*6-1:0]  cls_action_tenant_i,
  input  logic [NumClsEntries-1:0]    cls_action_class_i,
  input  logic [NumClsEntries*2-1:0]  cls_action_crypto_op_i,
  // Result for misses (DEFAULT_ACTION)
  input  logic [5:0]                  default_action_tenant_i,
  input  logic                        default_action_class_i,
  input  logic [1:0]                  default_action_crypto_op_i,

  // Frames in, with the parser's fields on the tlast beat
  input  logic [DataWidth-1:0]        s_axis_tdata,
  input  logic [DataWidth/8-1:0]      s_axis_tkeep,
  input  logic [$clog2(DataWidth/8+1)-1:0] s_axis_tcount,  // the beat's byte count (parser)
  input  logic                        s_axis_tvalid,
  output logic                        s_axis_tready,
  input  logic                        s_axis_tlast,
  input  logic [11:0]                 s_prs_vlan_i,
  input  logic [5:0]                  s_prs_dscp_i,
  input  logic [7:0]                  s_prs_proto_i,
  input  logic [15:0]                 s_prs_dport_i,
  input  nicsched_pkg::drop_reason_e  s_prs_drop_i,
  input  logic                        s_prs_default_i,
  input  nicsched_pkg::src_bind_t     s_src_i,        // TX source binding (bound = 0: header-only)

  // Frames out, metadata on the tlast beat
  output logic [DataWidth-1:0]        m_axis_tdata,
  output logic [DataWidth/8-1:0]      m_axis_tkeep,
  output logic [$clog2(DataWidth/8+1)-1:0] m_axis_tcount,  // ... carried with its beat
  output logic                        m_axis_tvalid,
  input  logic                        m_axis_tready,
  output logic                        m_axis_tlast,
  output nicsched_pkg::ingress_meta_t m_axis_tuser,
  output logic                        m_spoof_o,      // with the tlast beat: the frame is a spoof
  output logic [nicsched_pkg::SOURCE_W-1:0] m_spoof_source_o  // ... from this source
);

  if (NumClsEntries < 1 || NumClsEntries > 64) begin : g_bad_entries
    $error("nicsched_classifier %m: NumClsEntries must be in 1..64");
  end
  if (DataWidth < 64 || DataWidth > 512 || (DataWidth & (DataWidth - 1)) != 0) begin : g_bad_width
    $error("nicsched_classifier %m: DataWidth must be a power of two in 64..512");
  end

  // ---------------------------------------------------------------------------------
  // Stage A: the field matches, and each entry's action folded with the binding
  // ---------------------------------------------------------------------------------
  logic [NumClsEntries-1:0] hit;
  for (genvar i = 0; i < NumClsEntries; i++) begin : g_entry
    assign hit[i] = cls_action_valid_i[i] &&
        (((s_prs_vlan_i  ^ cls_vlan_value_i[i*12 +: 12])      & cls_vlan_mask_i[i*12 +: 12])      == '0) &&
        (((s_prs_dscp_i  ^ cls_dscp_proto_dscp_i[i*6 +: 6])   & cls_dscp_proto_dscp_mask_i[i*6 +: 6]) == '0) &&
        (((s_prs_proto_i ^ cls_dscp_proto_proto_i[i*8 +: 8])  & cls_dscp_proto_proto_mask_i[i*8 +: 8]) == '0) &&
        (((s_prs_dport_i ^ cls_port_value_i[i*16 +: 16])      & cls_port_mask_i[i*16 +: 16])      == '0);
  end

  // The binding folded into each entry's action, beside the matches, so that stage B's
  // lowest-hit pick selects the frame's final tenant, class and op directly. For a bound
  // source, entry i names another tenant (foreign); if it is the winner the frame is a
  // spoof: dropped (sdrop) with the binding's drop_spoof, else kept as the source's tenant
  // with DEFAULT_ACTION's class and op. A bound source's own entry keeps its class and op;
  // its tenant is the source's. A miss (no hit, or a "default" frame) takes DEFAULT_ACTION,
  // with the bound source's tenant in place of its tenant (a miss is no spoof). Everything
  // the result needs from the table is registered here, so the table is read once per
  // frame, when its tlast beat enters stage A.
  logic [NumClsEntries-1:0]   foreign, sdrop;
  logic [NumClsEntries*6-1:0] eff_tenant;
  logic [NumClsEntries-1:0]   eff_class;
  logic [NumClsEntries*2-1:0] eff_op;
  for (genvar i = 0; i < NumClsEntries; i++) begin : g_eff
    assign foreign[i] = s_src_i.bound && (cls_action_tenant_i[i*6 +: 6] != s_src_i.tenant);
    assign sdrop[i]   = foreign[i] && s_src_i.drop_spoof;
    assign eff_tenant[i*6 +: 6] = sdrop[i] ? '0 :
                                  (s_src_i.bound ? s_src_i.tenant : cls_action_tenant_i[i*6 +: 6]);
    assign eff_class[i]        = sdrop[i] ? 1'b0 :
                                  (foreign[i] ? default_action_class_i : cls_action_class_i[i]);
    assign eff_op[i*2 +: 2]    = sdrop[i] ? 2'd0 :
                                  (foreign[i] ? default_action_crypto_op_i : cls_action_crypto_op_i[i*2 +: 2]);
  end

  logic                        valid_a, last_a, dflt_a, bound_a;
  logic [DataWidth-1:0]        data_a;
  logic [DataWidth/8-1:0]      keep_a;
  logic [$clog2(DataWidth/8+1)-1:0] cnt_a;
  logic [NumClsEntries-1:0]    hit_a, foreign_a, sdrop_a;
  logic [NumClsEntries*6-1:0]  eff_tenant_a;
  logic [NumClsEntries-1:0]    eff_class_a;
  logic [NumClsEntries*2-1:0]  eff_op_a;
  logic [5:0]                  miss_tenant_a, bound_tenant_a;
  logic                        miss_class_a;
  logic [1:0]                  miss_op_a;
  nicsched_pkg::drop_reason_e  drop_a;
  logic [nicsched_pkg::SOURCE_W-1:0] source_a;
  logic                        in_fire, a_fire, b_ready;

  assign b_ready       = !valid_q || m_axis_tready;
  assign s_axis_tready = !valid_a || b_ready;
  assign in_fire       = s_axis_tvalid && s_axis_tready;
  assign a_fire        = valid_a && b_ready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_a <= 1'b0;
    end else if (in_fire) begin
      valid_a <= 1'b1;
    end else if (b_ready) begin
      valid_a <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_fire) begin
      data_a         <= s_axis_tdata;
      keep_a         <= s_axis_tkeep;
      cnt_a          <= s_axis_tcount;
      last_a         <= s_axis_tlast;
      hit_a          <= hit;
      dflt_a         <= s_prs_default_i;
      drop_a         <= s_prs_drop_i;
      bound_a        <= s_src_i.bound;
      bound_tenant_a <= s_src_i.tenant;
      source_a       <= s_src_i.source;
      foreign_a      <= foreign;
      sdrop_a        <= sdrop;
      eff_tenant_a   <= eff_tenant;
      eff_class_a    <= eff_class;
      eff_op_a       <= eff_op;
      miss_tenant_a  <= s_src_i.bound ? s_src_i.tenant : default_action_tenant_i;
      miss_class_a   <= default_action_class_i;
      miss_op_a      <= default_action_crypto_op_i;
    end
  end

  // ---------------------------------------------------------------------------------
  // Stage B: the lowest hit wins; its folded action is the frame's
  // ---------------------------------------------------------------------------------
  // The lowest hit, one-hot, then an AND-OR of the entries' actions: the same function as
  // an if-chain from the highest entry down, but a log-depth OR prefix and a flat OR in
  // place of a mux chain as long as the table (the 16-tenant core's worst path was that
  // chain: docs/rtl.md).
  logic [NumClsEntries-1:0] hit_below;  // some entry below i hits
  logic [NumClsEntries-1:0] first_hit;
  always_comb begin
    hit_below = '0;
    // Kogge-Stone prefix OR of hit, shifted by one entry
    for (int i = 1; i < NumClsEntries; i++) hit_below[i] = hit_a[i-1];
    for (int d = 1; d < NumClsEntries; d *= 2) begin
      for (int i = NumClsEntries - 1; i >= d; i--) hit_below[i] = hit_below[i] | hit_below[i-d];
    end
    first_hit = hit_a & ~hit_below & {NumClsEntries{!dflt_a}};
  end

  logic       use_table;
  logic       sel_spoof;   // the winning entry names another tenant than the bound source's
  logic       sel_sdrop;   // ... and the binding drops spoofs
  logic [5:0] sel_tenant;
  logic       sel_class;
  logic [1:0] sel_op;
  assign use_table = (|hit_a) && !dflt_a;
  always_comb begin
    sel_tenant = use_table ? '0 : miss_tenant_a;
    sel_class  = use_table ? '0 : miss_class_a;
    sel_op     = use_table ? '0 : miss_op_a;
    sel_spoof  = 1'b0;
    sel_sdrop  = 1'b0;
    for (int i = 0; i < NumClsEntries; i++) begin
      sel_tenant = sel_tenant | ({6{first_hit[i]}} & eff_tenant_a[i*6 +: 6]);
      sel_class  = sel_class  | (first_hit[i] & eff_class_a[i]);
      sel_op     = sel_op     | ({2{first_hit[i]}} & eff_op_a[i*2 +: 2]);
      sel_spoof  = sel_spoof  | (first_hit[i] & foreign_a[i]);
      sel_sdrop  = sel_sdrop  | (first_hit[i] & sdrop_a[i]);
    end
  end

  logic spoof;
  assign spoof = sel_spoof && (drop_a == nicsched_pkg::DROP_NONE);

  nicsched_pkg::ingress_meta_t meta_d;
  always_comb begin
    meta_d           = '0;
    meta_d.drop      = drop_a;
    if (drop_a == nicsched_pkg::DROP_NONE) begin
      if (sel_sdrop) meta_d.drop = nicsched_pkg::DROP_SPOOF;
      meta_d.tenant = sel_tenant;
      meta_d.cls    = sel_class;
      unique case (sel_op)
        2'd1:    meta_d.crypto_op = nicsched_pkg::CRYPTO_ENCRYPT;
        2'd2:    meta_d.crypto_op = nicsched_pkg::CRYPTO_DECRYPT;
        default: meta_d.crypto_op = nicsched_pkg::CRYPTO_NONE;
      endcase
    end
    if (!last_a) meta_d = '0;
  end

  // ---------------------------------------------------------------------------------
  // Output register
  // ---------------------------------------------------------------------------------
  logic                        valid_q;
  logic [DataWidth-1:0]        data_q;
  logic [DataWidth/8-1:0]      keep_q;
  logic [$clog2(DataWidth/8+1)-1:0] cnt_q;
  logic                        last_q;
  nicsched_pkg::ingress_meta_t meta_q;
  logic                        spoof_q;
  logic [nicsched_pkg::SOURCE_W-1:0] spoof_source_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else if (a_fire) begin
      valid_q <= 1'b1;
    end else if (m_axis_tready) begin
      valid_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (a_fire) begin
      data_q <= data_a;
      keep_q <= keep_a;
      cnt_q  <= cnt_a;
      last_q <= last_a;
      meta_q <= meta_d;
      spoof_q        <= spoof && last_a;
      spoof_source_q <= source_a;
    end
  end

  assign m_axis_tdata  = data_q;
  assign m_axis_tkeep  = keep_q;
  assign m_axis_tcount = cnt_q;
  assign m_axis_tvalid = valid_q;
  assign m_axis_tlast  = last_q;
  assign m_axis_tuser  = meta_q;
  assign m_spoof_o        = spoof_q;
  assign m_spoof_source_o = spoof_source_q;

  // A bound source's kept frame is its own tenant's, whatever its headers say.
  `NICSCHED_ASSERT(BoundSourceOwnTenant_A,
                   !(a_fire && last_a && bound_a && meta_d.drop == nicsched_pkg::DROP_NONE) ||
                   meta_d.tenant == bound_tenant_a)

endmodule

`default_nettype wire
