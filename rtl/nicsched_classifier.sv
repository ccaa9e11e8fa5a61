// nicsched_classifier: match-table lookup of the parsed fields; writes ingress_meta_t on tlast.
//
// Behaviour
//   Frames pass unchanged, one register stage later. On the tlast beat the classifier
//   turns the parser's fields into nicsched_pkg::ingress_meta_t on m_axis_tuser (zero on
//   other beats):
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
//   The table is read when the tlast beat passes, so a COMMIT takes effect from the next
//   frame whose tlast has not yet passed.
//
// Timing
//   One register stage: latency one clock, one beat per clock when m_axis_tready is high.
//   The binding is folded into every entry's action beside the field matches (not after
//   the lowest-hit pick), so the pick selects the frame's final tenant, class, op and spoof
//   bits directly: the binding adds no logic level after the pick.
//   s_axis_tready = !stage full || m_axis_tready.
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
  // Match: one hit bit per entry, then the lowest hit wins
  // ---------------------------------------------------------------------------------
  logic [NumClsEntries-1:0] hit;
  for (genvar i = 0; i < NumClsEntries; i++) begin : g_entry
    assign hit[i] = cls_action_valid_i[i] &&
        (((s_prs_vlan_i  ^ cls_vlan_value_i[i*12 +: 12])      & cls_vlan_mask_i[i*12 +: 12])      == '0) &&
        (((s_prs_dscp_i  ^ cls_dscp_proto_dscp_i[i*6 +: 6])   & cls_dscp_proto_dscp_mask_i[i*6 +: 6]) == '0) &&
        (((s_prs_proto_i ^ cls_dscp_proto_proto_i[i*8 +: 8])  & cls_dscp_proto_proto_mask_i[i*8 +: 8]) == '0) &&
        (((s_prs_dport_i ^ cls_port_value_i[i*16 +: 16])      & cls_port_mask_i[i*16 +: 16])      == '0);
  end

  // The lowest hit, one-hot, then an AND-OR of the entries' actions: the same function as
  // an if-chain from the highest entry down, but a log-depth OR prefix and a flat OR in
  // place of a mux chain as long as the table (the 16-tenant core's worst path was that
  // chain: docs/rtl.md).
  logic [NumClsEntries-1:0] hit_below;  // some entry below i hits
  logic [NumClsEntries-1:0] first_hit;
  always_comb begin
    hit_below = '0;
    // Kogge-Stone prefix OR of hit, shifted by one entry
    for (int i = 1; i < NumClsEntries; i++) hit_below[i] = hit[i-1];
    for (int d = 1; d < NumClsEntries; d *= 2) begin
      for (int i = NumClsEntries - 1; i >= d; i--) hit_below[i] = hit_below[i] | hit_below[i-d];
    end
    first_hit = hit & ~hit_below & {NumClsEntries{!s_prs_default_i}};
  end

  // The binding folded into each entry's action, beside the matches (from the source's
  // binding and the table, both registers: in parallel with the field compares), so that
  // the lowest-hit pick selects the frame's final tenant, class and op directly and the
  // binding adds no level after it. For a bound source, entry i names another tenant
  // (foreign); if it is the winner the frame is a spoof: dropped (sdrop) with the
  // binding's drop_spoof, else kept as the source's tenant with DEFAULT_ACTION's class
  // and op. A bound source's own entry keeps its class and op; its tenant is the source's.
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

  // The result: the winner's folded action, or for a miss (no hit, or a "default" frame)
  // DEFAULT_ACTION, with the bound source's tenant in place of its tenant (a miss is no
  // spoof). An AND-OR over the one-hot winner, one more input for the miss.
  logic       use_table;
  logic       sel_spoof;   // the winning entry names another tenant than the bound source's
  logic       sel_sdrop;   // ... and the binding drops spoofs
  logic [5:0] sel_tenant;
  logic       sel_class;
  logic [1:0] sel_op;
  assign use_table = (|hit) && !s_prs_default_i;
  always_comb begin
    sel_tenant = use_table ? '0 : (s_src_i.bound ? s_src_i.tenant : default_action_tenant_i);
    sel_class  = use_table ? '0 : default_action_class_i;
    sel_op     = use_table ? '0 : default_action_crypto_op_i;
    sel_spoof  = 1'b0;
    sel_sdrop  = 1'b0;
    for (int i = 0; i < NumClsEntries; i++) begin
      sel_tenant = sel_tenant | ({6{first_hit[i]}} & eff_tenant[i*6 +: 6]);
      sel_class  = sel_class  | (first_hit[i] & eff_class[i]);
      sel_op     = sel_op     | ({2{first_hit[i]}} & eff_op[i*2 +: 2]);
      sel_spoof  = sel_spoof  | (first_hit[i] & foreign[i]);
      sel_sdrop  = sel_sdrop  | (first_hit[i] & sdrop[i]);
    end
  end

  logic spoof;
  assign spoof = sel_spoof && (s_prs_drop_i == nicsched_pkg::DROP_NONE);

  nicsched_pkg::ingress_meta_t meta_d;
  always_comb begin
    meta_d           = '0;
    meta_d.drop      = s_prs_drop_i;
    if (s_prs_drop_i == nicsched_pkg::DROP_NONE) begin
      if (sel_sdrop) meta_d.drop = nicsched_pkg::DROP_SPOOF;
      meta_d.tenant = sel_tenant;
      meta_d.cls    = sel_class;
      unique case (sel_op)
        2'd1:    meta_d.crypto_op = nicsched_pkg::CRYPTO_ENCRYPT;
        2'd2:    meta_d.crypto_op = nicsched_pkg::CRYPTO_DECRYPT;
        default: meta_d.crypto_op = nicsched_pkg::CRYPTO_NONE;
      endcase
    end
    if (!s_axis_tlast) meta_d = '0;
  end

  // ---------------------------------------------------------------------------------
  // Output register
  // ---------------------------------------------------------------------------------
  logic                        valid_q;
  logic [DataWidth-1:0]        data_q;
  logic [DataWidth/8-1:0]      keep_q;
  logic                        last_q;
  nicsched_pkg::ingress_meta_t meta_q;
  logic                        spoof_q;
  logic [nicsched_pkg::SOURCE_W-1:0] spoof_source_q;
  logic                        in_fire;

  assign s_axis_tready = !valid_q || m_axis_tready;
  assign in_fire       = s_axis_tvalid && s_axis_tready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else if (in_fire) begin
      valid_q <= 1'b1;
    end else if (m_axis_tready) begin
      valid_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_fire) begin
      data_q <= s_axis_tdata;
      keep_q <= s_axis_tkeep;
      last_q <= s_axis_tlast;
      meta_q <= meta_d;
      spoof_q        <= spoof && s_axis_tlast;
      spoof_source_q <= s_src_i.source;
    end
  end

  assign m_axis_tdata  = data_q;
  assign m_axis_tkeep  = keep_q;
  assign m_axis_tvalid = valid_q;
  assign m_axis_tlast  = last_q;
  assign m_axis_tuser  = meta_q;
  assign m_spoof_o        = spoof_q;
  assign m_spoof_source_o = spoof_source_q;

  // A bound source's kept frame is its own tenant's, whatever its headers say.
  `NICSCHED_ASSERT(BoundSourceOwnTenant_A,
                   !(in_fire && s_axis_tlast && s_src_i.bound && meta_d.drop == nicsched_pkg::DROP_NONE) ||
                   meta_d.tenant == s_src_i.tenant)

endmodule

`default_nettype wire
