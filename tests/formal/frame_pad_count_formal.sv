// frame_pad_count_formal: nicsched_frame_pad's byte count of a beat equals the old rule
// `for j: if (tkeep[j]) n = j + 1` (the index of the highest tkeep lane + 1, 0 when none)
// for EVERY tkeep, contiguous or not: all 2^BPB values at once, by a SAT proof
// (constraints/yosys/formal.sh, proof "frame_pad_count"; issue 16 replaced the 64-deep
// priority chain by a log-depth tree and this proves the two the same).
// How the count is seen: MinBytes = one beat; after reset the harness sends one non-last
// beat with a free tkeep (keep_i), then an empty tlast beat with s_pad_i = 1, which leaves
// with tkeep on lanes 0 .. MinBytes - n - 1 exactly. OffBy shifts the reference count (0
// in the proof; "frame_pad_count_off" sets 1 and must fail, so the assertion is not vacuous).
`default_nettype none

module frame_pad_count_formal #(
  parameter int DataWidth = 512,
  parameter int OffBy     = 0
) (
  input wire logic                   clk_i,
  input wire logic                   rst_ni,
  input wire logic [DataWidth/8-1:0] keep_i
);
  localparam int BPB = DataWidth / 8;

  logic           phase_q;   // 0: the non-last beat goes in; 1: the empty padded tlast beat
  logic [BPB-1:0] keep_q;    // the first beat's tkeep
  logic [BPB-1:0] m_keep;
  logic           m_valid, m_last, s_ready;

  nicsched_frame_pad #(
    .DataWidth(DataWidth), .UserW(1), .MinBytes(BPB)
  ) u_dut (
    .clk_i, .rst_ni,
    .s_axis_tdata('0),
    .s_axis_tkeep(phase_q ? '0 : keep_i),
    .s_axis_tvalid(1'b1),
    .s_axis_tready(s_ready),
    .s_axis_tlast(phase_q),
    .s_axis_tuser(1'b0),
    .s_pad_i(phase_q),
    .m_axis_tdata(),
    .m_axis_tkeep(m_keep),
    .m_axis_tvalid(m_valid),
    .m_axis_tready(1'b1),
    .m_axis_tlast(m_last),
    .m_axis_tuser()
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      phase_q <= 1'b0;
      keep_q  <= '0;
    end else begin
      phase_q <= !phase_q;
      keep_q  <= keep_i;
    end
  end

  // The reference: the old rule, verbatim, and the pad lanes it implies.
  int             ref_n;
  logic [BPB-1:0] want;
  always_comb begin
    ref_n = 0;
    for (int j = 0; j < BPB; j++) begin
      if (keep_q[j]) ref_n = j + 1;
    end
    ref_n = ref_n + OffBy;
    for (int j = 0; j < BPB; j++) begin
      want[j] = (j + ref_n) < BPB;
    end
  end

  always_comb begin
    if (rst_ni && phase_q) begin
      assert (s_ready && m_valid && m_last);
      assert (m_keep == want);
    end
  end
endmodule

`default_nettype wire
