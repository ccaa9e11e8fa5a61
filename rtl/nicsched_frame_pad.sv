// nicsched_frame_pad: pads short frames with zero bytes to the Ethernet minimum (TX side).
//
// Behaviour
//   A host hands its NIC unpadded frames (a 42-byte ARP request, a minimal UDP datagram)
//   and relies on the MAC to pad them. Here the frames are padded in the datapath, before
//   the queues, so that everything after (buffer, arbiter, shaper, crypto hold time,
//   telemetry) sees the frame as it goes on the wire: MinBytes bytes at least, the bytes
//   past the host's frame zero.
//   - A frame whose tlast beat carries s_pad_i = 1 and which is shorter than MinBytes
//     leaves MinBytes long: its tlast beat gets tkeep extended (and zero data in the added
//     lanes); where the frame needs more than one extra beat (narrow DataWidth), the tlast
//     beat leaves as a full non-last beat and zero beats follow, the last of them with
//     tlast and the frame's tuser (tuser is zero on the other beats, as it came in).
//   - Every other frame (s_pad_i = 0: a frame the queues will drop, or MinBytes long
//     already) passes unchanged.
//   The bytes of a frame are those of its tkeep lanes in order (tkeep contiguous from bit 0
//   on every beat; a beat before tlast may be partial, the tlast beat may be empty), so the
//   padding goes into the tlast beat's lanes after its own bytes.
//
// Timing
//   No register on the data path: m_axis = s_axis, combinationally, outside the pad beats
//   (s_axis_tready = m_axis_tready then). Pad beats are only inserted when a beat holds
//   fewer than MinBytes bytes (DataWidth < 8 * MinBytes): s_axis_tready is low while they
//   leave, one per clock. At DataWidth = 512 a short frame is one beat and nothing is
//   inserted: no latency, one beat per clock.
`default_nettype none

module nicsched_frame_pad #(
  parameter int DataWidth = 512,  // AXI4-Stream data bits; 64..512, a power of two
  parameter int UserW     = 12,   // tuser bits (valid on the tlast beat)
  parameter int MinBytes  = 60    // shortest frame that leaves; 1..1500
) (
  input  wire logic                   clk_i,
  input  wire logic                   rst_ni,

  // Frames in; s_pad_i with the tlast beat: this frame may be padded
  input  wire logic [DataWidth-1:0]   s_axis_tdata,
  input  wire logic [DataWidth/8-1:0] s_axis_tkeep,   // contiguous from bit 0
  input  wire logic                   s_axis_tvalid,
  output logic                        s_axis_tready,
  input  wire logic                   s_axis_tlast,
  input  wire logic [UserW-1:0]       s_axis_tuser,
  input  wire logic                   s_pad_i,

  // Frames out, MinBytes long at least where padded
  output logic [DataWidth-1:0]        m_axis_tdata,
  output logic [DataWidth/8-1:0]      m_axis_tkeep,
  output logic                        m_axis_tvalid,
  input  wire logic                   m_axis_tready,
  output logic                        m_axis_tlast,
  output logic [UserW-1:0]            m_axis_tuser
);

  localparam int BPB  = DataWidth / 8;
  localparam int CNTW = $clog2(MinBytes + BPB + 1);
  localparam logic [31:0] MIN32 = MinBytes;
  localparam logic [31:0] BPB32 = BPB;

  if (DataWidth < 64 || DataWidth > 512 || (DataWidth & (DataWidth - 1)) != 0) begin : g_bad_width
    $error("nicsched_frame_pad %m: DataWidth must be a power of two in 64..512");
  end
  if (MinBytes < 1 || MinBytes > 1500) begin : g_bad_min
    $error("nicsched_frame_pad %m: MinBytes must be in 1..1500");
  end

  // keep_cnt: the index of s_axis_tkeep's highest set bit + 1, 0 when none; the same as
  // `for j: if (tkeep[j]) keep_cnt = j + 1` for every tkeep, contiguous or not, but a
  // balanced tree (log2 depth) instead of a BPB-deep priority chain (issue 16: that chain,
  // 9 LUT6 in series at 64 lanes, was nicsched_top's critical path). The leaves are
  // {tkeep, 1'b1} zero-extended to KN = 2^KCW bits, so leaf i stands for "i bytes" and
  // leaf 0 is always set: the highest set leaf's index is the answer, with no +1 after the
  // tree. Each level merges pairs of (any, index) nodes in place:
  // node i = (node 2i+1 has any) ? (its index with bit l set) : node 2i's index.
  localparam int KCW = $clog2(BPB + 1);   // bits of 0..BPB
  localparam int KN  = 1 << KCW;          // leaves, a power of two above BPB
  logic [KN-1:0]     kt_any;
  logic [KN*KCW-1:0] kt_idx;               // node i's index in kt_idx[i*KCW +: KCW]


  // Bytes of the current frame already passed (saturating at MinBytes) and the pad state.
  logic [CNTW-1:0]  cnt_q, cnt_d;
  logic             pad_q, pad_d;          // emitting inserted zero beats
  logic [UserW-1:0] user_q;                // the frame's tuser, for the last inserted beat

  logic [BPB-1:0]   pad_keep;              // lanes that are below MinBytes in this beat
  logic             more;                  // even a full beat leaves the frame short
  logic [CNTW-1:0]  cnt_next;              // cnt_q + one full beat, saturating
  logic [31:0]      keep_cnt;              // bytes in the input beat: highest tkeep lane + 1
  logic [31:0]      cnt_in;                // cnt_q + those bytes
  logic [CNTW-1:0]  cnt_in_sat;
  always_comb begin
    for (int j = 0; j < BPB; j++) begin
      pad_keep[j] = ({{(32 - CNTW){1'b0}}, cnt_q} + j) < MIN32;
    end
    more     = ({{(32 - CNTW){1'b0}}, cnt_q} + BPB32) < MIN32;
    cnt_next = more ? cnt_q + BPB32[CNTW-1:0] : MIN32[CNTW-1:0];
    kt_any = {{(KN - BPB - 1){1'b0}}, s_axis_tkeep, 1'b1};
    kt_idx = '0;
    for (int l = 0; l < KCW; l++) begin
      for (int i = 0; i < (KN >> (l + 1)); i++) begin
        kt_idx[i*KCW +: KCW] = kt_any[2*i + 1] ? (kt_idx[(2*i + 1)*KCW +: KCW] | (KCW'(1) << l))
                                               : kt_idx[(2*i)*KCW +: KCW];
        kt_any[i] = kt_any[2*i + 1] | kt_any[2*i];
      end
    end
    keep_cnt = {{(32 - KCW){1'b0}}, kt_idx[0 +: KCW]};
    cnt_in     = {{(32 - CNTW){1'b0}}, cnt_q} + keep_cnt;
    cnt_in_sat = (cnt_in < MIN32) ? cnt_in[CNTW-1:0] : MIN32[CNTW-1:0];
  end

  logic pad_last;   // the input's tlast beat is padded
  logic in_fire, out_fire;
  assign pad_last = s_axis_tlast && s_pad_i && pad_keep[0];
  assign in_fire  = s_axis_tvalid && s_axis_tready;
  assign out_fire = m_axis_tvalid && m_axis_tready;

  always_comb begin
    if (pad_q) begin
      m_axis_tdata  = '0;
      m_axis_tkeep  = pad_keep;
      m_axis_tvalid = 1'b1;
      m_axis_tlast  = !more;
      m_axis_tuser  = more ? '0 : user_q;
      s_axis_tready = 1'b0;
    end else begin
      m_axis_tdata  = s_axis_tdata;
      m_axis_tkeep  = s_axis_tkeep;
      m_axis_tvalid = s_axis_tvalid;
      m_axis_tlast  = s_axis_tlast;
      m_axis_tuser  = s_axis_tuser;
      s_axis_tready = m_axis_tready;
      if (pad_last) begin
        for (int j = 0; j < BPB; j++) begin
          if (!s_axis_tkeep[j]) m_axis_tdata[j*8 +: 8] = 8'd0;
        end
        m_axis_tkeep = s_axis_tkeep | pad_keep;
        if (more) begin
          m_axis_tlast = 1'b0;
          m_axis_tuser = '0;
        end
      end
    end
  end

  always_comb begin
    cnt_d = cnt_q;
    pad_d = pad_q;
    if (pad_q) begin
      if (out_fire) begin
        cnt_d = more ? cnt_next : '0;
        pad_d = more;
      end
    end else if (in_fire) begin
      if (!s_axis_tlast) begin
        cnt_d = cnt_in_sat;
      end else if (pad_last && more) begin
        cnt_d = cnt_next;
        pad_d = 1'b1;
      end else begin
        cnt_d = '0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
      pad_q <= 1'b0;
    end else begin
      cnt_q <= cnt_d;
      pad_q <= pad_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_fire && pad_last && more) user_q <= s_axis_tuser;
  end

endmodule

`default_nettype wire
