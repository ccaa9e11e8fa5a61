// nicsched_ingress: parser + classifier (+ padding to the minimum frame on TX); ingress_meta_t on tlast.
//
// Behaviour
//   Every beat that enters leaves unchanged, in order (except for the padding below); the
//   tlast beat of each frame carries
//   nicsched_pkg::ingress_meta_t on m_axis_tuser (zero on other beats): the drop reason
//   (frames with a reason still leave in full, for the queue manager to free at tlast),
//   or the tenant, class and crypto op from the classifier table / DEFAULT_ACTION.
//   With PadFrameBytes > 0 (TX: frames from the host), a kept frame (no drop reason)
//   shorter than PadFrameBytes leaves padded with zero bytes to PadFrameBytes, as the MAC
//   would put it on the wire (nicsched_frame_pad); everything after the ingress counts it
//   at that length. MinFrameBytes is the parser's runt threshold: 60 for frames from a MAC
//   (RX), 14 (an Ethernet header) for frames from a host (TX).
//   TX identity (NumSources > 0, docs/trust.md): s_axis_tuser names the frame's source
//   (read on the tlast beat; the host side holds it for the whole frame). The source's
//   binding (SRC_BIND[source] when TX_IDENTITY.TX_ID_MODE = SOURCE and source < NumSources; else
//   unbound) is looked up as the tlast beat enters and travels with it through the parser
//   to the classifier, which lets the headers choose only among the bound tenant's rows.
//   cnt_spoof_o pulses, with cnt_spoof_source_o, when a spoof's tlast beat leaves the
//   classifier (SRC_SPOOF). With NumSources = 0 (RX) there is no binding.
//   See nicsched_parser, nicsched_classifier and nicsched_frame_pad for the rules,
//   docs/ingress.md for a user's view.
//
// Timing
//   Latency four clocks (parser two, classifier two; the padding adds no register; the
//   binding lookup is a NumSources:1 mux into the parser's first register); one
//   beat per clock when m_axis_tready is high, no bubble between frames, except that at
//   DataWidth < 8 * PadFrameBytes a short frame's pad beats hold the input, one per clock.
//   s_axis_tready depends combinationally on m_axis_tready. Counter pulses (cnt_*_o) come when a frame's tlast
//   beat leaves the parser stage, one per frame (frames) and per reason.
`default_nettype none

module nicsched_ingress #(
  parameter int DataWidth     = 512,  // AXI4-Stream data bits; 64..512, a power of two
  parameter int NumClsEntries = 16,   // classifier match-table entries; 1..64
  parameter int MinFrameBytes = 60,   // shorter frames are runts (14..60; 14 on TX)
  parameter int PadFrameBytes = 0,    // pad kept frames to this length (0: no padding; 60 on TX)
  parameter int NumSources    = 0,    // TX sources with a binding (SOURCE block); 0: none (RX); 0..64
  // derived
  parameter int SrcN          = (NumSources > 0) ? NumSources : 1,
  parameter int CountW        = $clog2(DataWidth / 8 + 1)  // bits of a beat's byte count
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,

  // Configuration (CSR block active copies; names as the CSR ports without _o)
  input  logic                        ctrl_bad_to_default_i,
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
  input  logic [5:0]                  default_action_tenant_i,
  input  logic                        default_action_class_i,
  input  logic [1:0]                  default_action_crypto_op_i,
  input  logic                        tx_identity_mode_i,       // TX_IDENTITY.TX_ID_MODE: 1 SOURCE
  input  logic [SrcN-1:0]             src_bind_bound_i,         // SRC_BIND[i].BOUND
  input  logic [SrcN*6-1:0]           src_bind_tenant_i,        // SRC_BIND[i].TENANT
  input  logic [SrcN-1:0]             src_bind_drop_spoof_i,    // SRC_BIND[i].DROP_SPOOF

  // Frames in
  input  logic [DataWidth-1:0]        s_axis_tdata,
  input  logic [DataWidth/8-1:0]      s_axis_tkeep,    // contiguous from bit 0
  input  logic                        s_axis_tvalid,
  output logic                        s_axis_tready,
  input  logic                        s_axis_tlast,
  input  logic [nicsched_pkg::SOURCE_W-1:0] s_axis_tuser,      // the frame's source (TX)

  // Frames out, ingress_meta_t on the tlast beat
  output logic [DataWidth-1:0]        m_axis_tdata,
  output logic [DataWidth/8-1:0]      m_axis_tkeep,
  output logic [CountW-1:0]           m_axis_tcount,   // bytes in the beat (tkeep's count)
  output logic                        m_axis_tvalid,
  input  logic                        m_axis_tready,
  output logic                        m_axis_tlast,
  output nicsched_pkg::ingress_meta_t m_axis_tuser,

  // Counter pulses for telemetry (PARSER block: PRS_FRAMES, PRS_RUNT, ...)
  output logic                        cnt_frames_o,
  output logic                        cnt_runt_o,
  output logic                        cnt_truncated_o,
  output logic                        cnt_bad_ihl_o,
  output logic                        cnt_unknown_etype_o,
  output logic                        cnt_spoof_o,              // SRC_SPOOF[cnt_spoof_source_o]
  output logic [nicsched_pkg::SOURCE_W-1:0] cnt_spoof_source_o
);

  if (NumSources < 0 || NumSources > 64) begin : g_bad_sources
    $error("nicsched_ingress %m: NumSources must be in 0..64");
  end

  // The source's binding, looked up as the beat enters (an AND-OR over the table; a
  // source number beyond it is unbound).
  logic [SrcN-1:0] src_sel;
  for (genvar i = 0; i < SrcN; i++) begin : g_src_sel
    localparam logic [nicsched_pkg::SOURCE_W-1:0] SRC = i;
    assign src_sel[i] = (NumSources > 0) && (s_axis_tuser == SRC);
  end
  nicsched_pkg::src_bind_t in_bind;
  always_comb begin
    in_bind        = '0;
    in_bind.source = s_axis_tuser;
    for (int i = 0; i < SrcN; i++) begin
      in_bind.bound      = in_bind.bound      | (src_sel[i] & tx_identity_mode_i & src_bind_bound_i[i]);
      in_bind.tenant     = in_bind.tenant     | ({6{src_sel[i]}} & src_bind_tenant_i[i*6 +: 6]);
      in_bind.drop_spoof = in_bind.drop_spoof | (src_sel[i] & src_bind_drop_spoof_i[i]);
    end
  end
  nicsched_pkg::src_bind_t prs_bind;

  logic [DataWidth-1:0]       prs_tdata;
  logic [DataWidth/8-1:0]     prs_tkeep;
  logic [CountW-1:0]          prs_tcount;
  logic                       prs_tvalid, prs_tready, prs_tlast;
  logic [15:0]                prs_len, prs_sport, prs_dport;
  logic [11:0]                prs_vlan;
  logic [5:0]                 prs_dscp;
  logic [7:0]                 prs_proto;
  nicsched_pkg::drop_reason_e prs_drop;
  logic                       prs_default;

  nicsched_parser #(
    .DataWidth    (DataWidth),
    .MinFrameBytes(MinFrameBytes),
    .UserW        (nicsched_pkg::SRC_BIND_W)
  ) u_parser (
    .clk_i,
    .rst_ni,
    .bad_to_default_i   (ctrl_bad_to_default_i),
    .s_axis_tdata,
    .s_axis_tkeep,
    .s_axis_tvalid,
    .s_axis_tready,
    .s_axis_tlast,
    .s_axis_tuser       (in_bind),
    .m_axis_tdata       (prs_tdata),
    .m_axis_tkeep       (prs_tkeep),
    .m_axis_tcount      (prs_tcount),
    .m_axis_tvalid      (prs_tvalid),
    .m_axis_tready      (prs_tready),
    .m_axis_tlast       (prs_tlast),
    .m_axis_tuser       (prs_bind),
    .m_prs_len_o        (prs_len),
    .m_prs_vlan_o       (prs_vlan),
    .m_prs_dscp_o       (prs_dscp),
    .m_prs_proto_o      (prs_proto),
    .m_prs_sport_o      (prs_sport),
    .m_prs_dport_o      (prs_dport),
    .m_prs_drop_o       (prs_drop),
    .m_prs_default_o    (prs_default),
    .cnt_frames_o,
    .cnt_runt_o,
    .cnt_truncated_o,
    .cnt_bad_ihl_o,
    .cnt_unknown_etype_o
  );

  logic [DataWidth-1:0]        cls_tdata;
  logic [DataWidth/8-1:0]      cls_tkeep;
  logic [CountW-1:0]           cls_tcount;
  logic                        cls_tvalid, cls_tready, cls_tlast;
  nicsched_pkg::ingress_meta_t cls_tuser;
  logic                        cls_spoof;

  nicsched_classifier #(
    .DataWidth    (DataWidth),
    .NumClsEntries(NumClsEntries)
  ) u_classifier (
    .clk_i,
    .rst_ni,
    .cls_vlan_value_i,
    .cls_vlan_mask_i,
    .cls_dscp_proto_dscp_i,
    .cls_dscp_proto_dscp_mask_i,
    .cls_dscp_proto_proto_i,
    .cls_dscp_proto_proto_mask_i,
    .cls_port_value_i,
    .cls_port_mask_i,
    .cls_action_valid_i,
    .cls_action_tenant_i,
    .cls_action_class_i,
    .cls_action_crypto_op_i,
    .default_action_tenant_i,
    .default_action_class_i,
    .default_action_crypto_op_i,
    .s_axis_tdata       (prs_tdata),
    .s_axis_tkeep       (prs_tkeep),
    .s_axis_tcount      (prs_tcount),
    .s_axis_tvalid      (prs_tvalid),
    .s_axis_tready      (prs_tready),
    .s_axis_tlast       (prs_tlast),
    .s_prs_vlan_i       (prs_vlan),
    .s_prs_dscp_i       (prs_dscp),
    .s_prs_proto_i      (prs_proto),
    .s_prs_dport_i      (prs_dport),
    .s_prs_drop_i       (prs_drop),
    .s_prs_default_i    (prs_default),
    .s_src_i            (prs_bind),
    .m_axis_tdata       (cls_tdata),
    .m_axis_tkeep       (cls_tkeep),
    .m_axis_tcount      (cls_tcount),
    .m_axis_tvalid      (cls_tvalid),
    .m_axis_tready      (cls_tready),
    .m_axis_tlast       (cls_tlast),
    .m_axis_tuser       (cls_tuser),
    .m_spoof_o          (cls_spoof),
    .m_spoof_source_o   (cnt_spoof_source_o)
  );
  assign cnt_spoof_o = cls_tvalid && cls_tready && cls_tlast && cls_spoof;

  if (PadFrameBytes > 0) begin : g_pad
    localparam int MetaW = nicsched_pkg::INGRESS_META_W;
    logic [MetaW-1:0] pad_tuser;
    nicsched_frame_pad #(
      .DataWidth(DataWidth),
      .UserW    (MetaW),
      .MinBytes (PadFrameBytes)
    ) u_pad (
      .clk_i,
      .rst_ni,
      .s_axis_tdata (cls_tdata),
      .s_axis_tkeep (cls_tkeep),
      .s_axis_tcount(cls_tcount),
      .s_axis_tvalid(cls_tvalid),
      .s_axis_tready(cls_tready),
      .s_axis_tlast (cls_tlast),
      .s_axis_tuser (cls_tuser),
      .s_pad_i      (cls_tuser.drop == nicsched_pkg::DROP_NONE),
      .m_axis_tdata,
      .m_axis_tkeep,
      .m_axis_tcount,
      .m_axis_tvalid,
      .m_axis_tready,
      .m_axis_tlast,
      .m_axis_tuser (pad_tuser)
    );
    assign m_axis_tuser = pad_tuser;
  end else begin : g_no_pad
    assign m_axis_tdata  = cls_tdata;
    assign m_axis_tkeep  = cls_tkeep;
    assign m_axis_tcount = cls_tcount;
    assign m_axis_tvalid = cls_tvalid;
    assign cls_tready    = m_axis_tready;
    assign m_axis_tlast  = cls_tlast;
    assign m_axis_tuser  = cls_tuser;
  end

  // The length and source port are parsed for tests and future use; the classifier
  // matches on the destination port only.
  logic unused_prs;
  assign unused_prs = ^{prs_len, prs_sport};

endmodule

`default_nettype wire
