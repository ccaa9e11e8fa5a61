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
//   padding goes into the tlast beat's lanes after its own bytes. Each beat comes with its
//   byte count (s_axis_tcount, tkeep's count: CountIsKeep_A) and leaves with the count of
//   the tkeep it leaves with (m_axis_tcount: OutCountIsKeep_A).
//
// Timing
//   No register on the data path: m_axis = s_axis, combinationally, outside the pad beats
//   (s_axis_tready = m_axis_tready then). Pad beats are only inserted when a beat holds
//   fewer than MinBytes bytes (DataWidth < 8 * MinBytes): s_axis_tready is low while they
//   leave, one per clock. At DataWidth = 512 a short frame is one beat and nothing is
//   inserted: no latency, one beat per clock. The padder's own state (bytes still missing
//   to MinBytes, the lanes a padded beat fills, "a full beat is not enough") is registered
//   and decoded one beat ahead, so m_axis_tkeep / tlast / tuser are one gate of flops and
//   inputs: nothing after the padder waits on its byte count (issue 16).
`default_nettype none
`include "rtl/nicsched_assert.svh"

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
  input  wire logic [$clog2(DataWidth/8+1)-1:0] s_axis_tcount,  // bytes in the beat: tkeep's count
  input  wire logic                   s_axis_tvalid,
  output logic                        s_axis_tready,
  input  wire logic                   s_axis_tlast,
  input  wire logic [UserW-1:0]       s_axis_tuser,
  input  wire logic                   s_pad_i,

  // Frames out, MinBytes long at least where padded
  output logic [DataWidth-1:0]        m_axis_tdata,
  output logic [DataWidth/8-1:0]      m_axis_tkeep,
  output logic [$clog2(DataWidth/8+1)-1:0] m_axis_tcount,  // ... of the beat that leaves
  output logic                        m_axis_tvalid,
  input  wire logic                   m_axis_tready,
  output logic                        m_axis_tlast,
  output logic [UserW-1:0]            m_axis_tuser
);

  localparam int BPB = DataWidth / 8;
  localparam int RW  = $clog2(MinBytes + 1);   // bits of 0..MinBytes
  localparam int KCW = $clog2(BPB + 1);        // bits of 0..BPB
  // A frame's start: MinBytes to go, the pad lanes and `more` of that.
  localparam logic [RW-1:0]  REM_START   = RW'(MinBytes);
  localparam logic [BPB-1:0] LANES_START = ~({BPB{1'b1}} << MinBytes);  // j < MinBytes
  localparam logic           MORE_START  = MinBytes > BPB;

  if (DataWidth < 64 || DataWidth > 512 || (DataWidth & (DataWidth - 1)) != 0) begin : g_bad_width
    $error("nicsched_frame_pad %m: DataWidth must be a power of two in 64..512");
  end
  if (MinBytes < 1 || MinBytes > 1500) begin : g_bad_min
    $error("nicsched_frame_pad %m: MinBytes must be in 1..1500");
  end

  // The beat's byte count comes with it (s_axis_tcount: counted once, where the beat
  // enters the parser, and carried in flops since), so no tkeep count sits in front of the
  // compares below.
  logic [KCW-1:0]    keep_cnt;             // bytes in the input beat
  logic [KCW-1:0]    lanes_cnt;            // lanes lanes_q sets: min(rem_q, BPB)

  // The state is what the next beat needs, registered (issue 16). The frame's byte count
  // is kept as the bytes still missing to MinBytes (rem_q, 0 once the frame has reached
  // it) with its decodes beside it (invariant: lanes_q[j] == (j < rem_q), more_q ==
  // (rem_q > BPB)), so that the outputs are one gate of flops and inputs (before, the count
  // went through a compare with MinBytes per lane into m_axis_tkeep and on into the
  // queues: nicsched_top's worst path), and a beat's bytes are compared with the
  // registered remainder (keep_cnt + j < rem_q) instead of a fresh sum with MinBytes.
  logic [RW-1:0]    rem_q, rem_d;          // bytes the frame still needs (to insert, in pad_q)
  logic [BPB-1:0]   lanes_q, lanes_d;      // lanes a padded beat fills now: j < rem_q
  logic             more_q, more_d;        // even a full beat leaves the frame short
  logic             pad_q, pad_d;          // emitting inserted zero beats
  logic [UserW-1:0] user_q;                // the frame's tuser, for the last inserted beat

  // What the state becomes after a non-last input beat (its keep_cnt bytes) and after a
  // full beat (an input tlast beat followed by pad beats, or a pad beat with more to come).
  logic             short_beat;            // the frame is still short after the input beat
  logic [RW-1:0]    rem_beat, rem_full;
  logic [BPB-1:0]   lanes_beat, lanes_full;
  logic             more_beat, more_full;
  always_comb begin
    keep_cnt  = s_axis_tcount;
    // lanes_q is the thermometer j < rem_q (rem_q <= MinBytes), more_q is rem_q > BPB
    lanes_cnt = more_q ? KCW'(BPB) : KCW'(rem_q);

    // Lane j of the next beat is padded when keep_cnt + j < rem_q, tested as keep_cnt <
    // rem_q - j: the right side comes from flops alone, so the beat's byte count only
    // meets compares (one carry chain after the tree), never a sum that is then compared;
    // `more` likewise. Lanes from MinBytes up are never padded. Whatever cannot happen at
    // these parameters (more with MinBytes <= BPB) is cut at elaboration.
    for (int j = 0; j < BPB; j++) begin
      lanes_beat[j] = (j < MinBytes) && lanes_q[j] &&
                      ({{(32 - KCW){1'b0}}, keep_cnt} < {{(32 - RW){1'b0}}, rem_q} - j);
      lanes_full[j] = (j < MinBytes) && (BPB + j < {{(32 - RW){1'b0}}, rem_q});
    end
    short_beat = lanes_beat[0];
    rem_beat   = short_beat ? rem_q - RW'(keep_cnt) : '0;
    more_beat  = (MinBytes > BPB) && more_q &&
                 ({{(32 - KCW){1'b0}}, keep_cnt} < {{(32 - RW){1'b0}}, rem_q} - BPB);
    rem_full   = rem_q - RW'(BPB);
    more_full  = (MinBytes > 2 * BPB) && (2 * BPB < {{(32 - RW){1'b0}}, rem_q});
  end

  logic pad_last;   // the input's tlast beat is padded
  logic in_fire, out_fire;
  assign pad_last = s_axis_tlast && s_pad_i && lanes_q[0];
  assign in_fire  = s_axis_tvalid && s_axis_tready;
  assign out_fire = m_axis_tvalid && m_axis_tready;

  always_comb begin
    if (pad_q) begin
      m_axis_tdata  = '0;
      m_axis_tkeep  = lanes_q;
      m_axis_tcount = lanes_cnt;
      m_axis_tvalid = 1'b1;
      m_axis_tlast  = !more_q;
      m_axis_tuser  = more_q ? '0 : user_q;
      s_axis_tready = 1'b0;
    end else begin
      m_axis_tdata  = s_axis_tdata;
      m_axis_tvalid = s_axis_tvalid;
      m_axis_tlast  = s_axis_tlast;
      m_axis_tuser  = s_axis_tuser;
      s_axis_tready = m_axis_tready;
      // lanes_q[j] implies lanes_q[0], so this is s_axis_tkeep | (pad_last ? lanes_q : 0)
      m_axis_tkeep  = s_axis_tkeep | ({BPB{s_axis_tlast && s_pad_i}} & lanes_q);
      // and its count: both are contiguous from lane 0, so the longer one's
      m_axis_tcount = (s_axis_tlast && s_pad_i && lanes_cnt > keep_cnt) ? lanes_cnt : keep_cnt;
      if (pad_last) begin
        for (int j = 0; j < BPB; j++) begin
          if (!s_axis_tkeep[j]) m_axis_tdata[j*8 +: 8] = 8'd0;
        end
        if (more_q) begin
          m_axis_tlast = 1'b0;
          m_axis_tuser = '0;
        end
      end
    end
  end

  // Next state, in order: a full beat leaves and pad beats follow (the padded tlast beat
  // or a pad beat with more to come); the frame ends (its last pad beat, or an input tlast
  // beat that needs no pad beat) and the next starts with MinBytes to go; a non-last input
  // beat counts its bytes.
  always_comb begin
    rem_d   = rem_q;
    lanes_d = lanes_q;
    more_d  = more_q;
    pad_d   = pad_q;
    if ((pad_q && out_fire && more_q) || (!pad_q && in_fire && pad_last && more_q)) begin
      rem_d   = rem_full;
      lanes_d = lanes_full;
      more_d  = more_full;
      pad_d   = 1'b1;
    end else if ((pad_q && out_fire) || (!pad_q && in_fire && s_axis_tlast)) begin
      rem_d   = REM_START;
      lanes_d = LANES_START;
      more_d  = MORE_START;
      pad_d   = 1'b0;
    end else if (!pad_q && in_fire) begin
      rem_d   = rem_beat;
      lanes_d = lanes_beat;
      more_d  = more_beat;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rem_q   <= REM_START;
      lanes_q <= LANES_START;
      more_q  <= MORE_START;
      pad_q   <= 1'b0;
    end else begin
      rem_q   <= rem_d;
      lanes_q <= lanes_d;
      more_q  <= more_d;
      pad_q   <= pad_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_fire && pad_last && more_q) user_q <= s_axis_tuser;
  end

  // the byte counts are tkeep's: tkeep is the thermometer of its count, in and out
  `NICSCHED_ASSERT(CountIsKeep_A, !s_axis_tvalid || s_axis_tkeep == ~({BPB{1'b1}} << s_axis_tcount))
  `NICSCHED_ASSERT(OutCountIsKeep_A, !m_axis_tvalid || m_axis_tkeep == ~({BPB{1'b1}} << m_axis_tcount))

endmodule

`default_nettype wire
