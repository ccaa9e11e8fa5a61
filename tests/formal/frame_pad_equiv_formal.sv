// frame_pad_equiv_formal: nicsched_frame_pad against a plain reference of its rules, beat by
// beat, for free inputs (every beat byte count, tkeep its lanes as the contract has it;
// tlast, s_pad_i, tuser, tdata, valid and ready in any order): every output equal in every
// clock, the output byte count that of the output tkeep, by a bounded proof from reset
// (constraints/yosys/formal.sh, proofs "frame_pad_equiv*"). Issue 16 moved the padder's state
// to the bytes still missing (rem_q) with its decodes registered; the reference keeps the
// byte count the way the module did before (count of bytes passed, saturating at MinBytes,
// compared with MinBytes per lane), so the proof shows the two the same. The bound covers
// frames shorter than MinBytes over several beats, the pad beats after them under
// backpressure, and the frames after (see proofs.txt for the depth per configuration).
// OffBy moves the reference's minimum (0 in the proofs; "frame_pad_equiv_off" sets 1 and
// must fail, so the assertion is not vacuous).
`default_nettype none

module frame_pad_equiv_formal #(
  parameter int DataWidth = 64,
  parameter int MinBytes  = 20,
  parameter int OffBy     = 0
) (
  input wire logic                   clk_i,
  input wire logic                   rst_ni,
  input wire logic [DataWidth-1:0]   tdata_i,
  input wire logic [$clog2(DataWidth/8+1)-1:0] tcount_i,  // the beat's bytes (above BPB: BPB)
  input wire logic                   tvalid_i,
  input wire logic                   tlast_i,
  input wire logic [1:0]             tuser_i,
  input wire logic                   pad_i,
  input wire logic                   tready_i
);
  localparam int BPB = DataWidth / 8;
  localparam int MIN = MinBytes + OffBy;
  localparam int CW  = $clog2(BPB + 1);

  // The beat: tcount_i bytes (clamped to a full beat), tkeep on lanes 0 .. bytes - 1.
  logic [CW-1:0]  tcount;
  logic [BPB-1:0] tkeep_i;
  assign tcount  = (tcount_i > CW'(BPB)) ? CW'(BPB) : tcount_i;
  assign tkeep_i = ~({BPB{1'b1}} << tcount);

  logic [DataWidth-1:0] m_data;
  logic [BPB-1:0]       m_keep;
  logic [CW-1:0]        m_count;
  logic                 m_valid, m_last, s_ready;
  logic [1:0]           m_user;

  nicsched_frame_pad #(
    .DataWidth(DataWidth), .UserW(2), .MinBytes(MinBytes)
  ) u_dut (
    .clk_i, .rst_ni,
    .s_axis_tdata(tdata_i),
    .s_axis_tkeep(tkeep_i),
    .s_axis_tcount(tcount),
    .s_axis_tvalid(tvalid_i),
    .s_axis_tready(s_ready),
    .s_axis_tlast(tlast_i),
    .s_axis_tuser(tuser_i),
    .s_pad_i(pad_i),
    .m_axis_tdata(m_data),
    .m_axis_tkeep(m_keep),
    .m_axis_tcount(m_count),
    .m_axis_tvalid(m_valid),
    .m_axis_tready(tready_i),
    .m_axis_tlast(m_last),
    .m_axis_tuser(m_user)
  );

  // The reference: bytes of the frame passed so far (cnt_q, saturating at MIN), a beat's
  // bytes = its highest tkeep lane + 1, lane j padded while cnt_q + j < MIN.
  int                   cnt_q, cnt_d, n;
  logic                 pad_q, pad_d;
  logic [1:0]           user_q;
  logic [BPB-1:0]       lanes;
  logic                 more, last_pad;
  logic [DataWidth-1:0] r_data;
  logic [BPB-1:0]       r_keep;
  logic                 r_valid, r_last, r_ready;
  logic [1:0]           r_user;
  always_comb begin
    n = 0;
    for (int j = 0; j < BPB; j++) begin
      if (tkeep_i[j]) n = j + 1;
      lanes[j] = cnt_q + j < MIN;
    end
    more     = cnt_q + BPB < MIN;
    last_pad = tlast_i && pad_i && cnt_q < MIN;
    r_data   = tdata_i;
    r_keep   = tkeep_i;
    r_valid  = tvalid_i;
    r_last   = tlast_i;
    r_user   = tuser_i;
    r_ready  = tready_i;
    cnt_d    = cnt_q;
    pad_d    = pad_q;
    if (pad_q) begin
      r_data  = '0;
      r_keep  = lanes;
      r_valid = 1'b1;
      r_last  = !more;
      r_user  = more ? 2'd0 : user_q;
      r_ready = 1'b0;
      if (tready_i) begin
        cnt_d = more ? cnt_q + BPB : 0;
        pad_d = more;
      end
    end else begin
      if (last_pad) begin
        for (int j = 0; j < BPB; j++) begin
          if (!tkeep_i[j]) r_data[j*8 +: 8] = 8'd0;
        end
        r_keep = tkeep_i | lanes;
        if (more) begin
          r_last = 1'b0;
          r_user = 2'd0;
        end
      end
      if (tvalid_i && tready_i) begin
        if (!tlast_i) begin
          cnt_d = (cnt_q + n < MIN) ? cnt_q + n : MIN;
        end else if (last_pad && more) begin
          cnt_d = cnt_q + BPB;
          pad_d = 1'b1;
        end else begin
          cnt_d = 0;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q  <= 0;
      pad_q  <= 1'b0;
      user_q <= '0;
    end else begin
      cnt_q <= cnt_d;
      pad_q <= pad_d;
      if (!pad_q && tvalid_i && tready_i && last_pad && more) user_q <= tuser_i;
    end
  end

  always_comb begin
    if (rst_ni) begin
      assert (s_ready == r_ready);
      assert (m_valid == r_valid);
      assert (m_last == r_last);
      assert (m_keep == r_keep);
      assert (!m_valid || m_keep == ~({BPB{1'b1}} << m_count));
      assert (m_data == r_data);
      assert (m_user == r_user);
    end
  end
endmodule

`default_nettype wire
