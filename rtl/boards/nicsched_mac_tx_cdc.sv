// nicsched_mac_tx_cdc: frames from the core clock (250 MHz) to the 100G MAC's TX clock
// (CMAC gt_txusrclk2, 322.265625 MHz), store-and-forward.
//
// The CMAC's TX AXI-Stream must not run dry inside a frame (a gap is an underflow and
// the frame goes out with a bad FCS), while the core may pause mid-frame. So a frame is
// released to the MAC only once all of it is in the FIFO: the write side pushes a token
// into a second async FIFO two core cycles after writing a frame's last beat (so the
// token is never seen on the MAC side before the data pointer that covers that beat),
// and the MAC side starts a frame only after taking a token. One idle MAC cycle between
// frames; at 322 MHz that is still 161 Mpps for 64-byte frames, above 100G line rate.
//
// Frames longer than MaxFrameBytes would never fit: the write side cuts such a frame at
// MaxFrameBytes, marks its last beat with tuser = 1 (the CMAC then sends it with a bad
// FCS, so the peer drops it) and discards the rest of it.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_mac_tx_cdc #(
  parameter int DataWidth     = 512,  // AXI4-Stream data bits on both sides
  parameter int MaxFrameBytes = 9600, // longest frame passed whole (jumbo)
  parameter int Depth         = 256   // FIFO beats; a power of two >= MaxFrameBytes / (DataWidth / 8)
) (
  // core side
  input  logic                   core_clk_i,
  input  logic                   core_rst_ni,
  input  logic [DataWidth-1:0]   s_axis_tdata,
  input  logic [DataWidth/8-1:0] s_axis_tkeep,
  input  logic                   s_axis_tvalid,
  output logic                   s_axis_tready,
  input  logic                   s_axis_tlast,
  // MAC side
  input  logic                   mac_clk_i,
  input  logic                   mac_rst_ni,
  output logic [DataWidth-1:0]   m_axis_tdata,
  output logic [DataWidth/8-1:0] m_axis_tkeep,
  output logic                   m_axis_tvalid,
  input  logic                   m_axis_tready,
  output logic                   m_axis_tlast,
  output logic                   m_axis_tuser,        // 1 on the last beat of a cut frame
  output logic                   truncated_o          // core domain: one-cycle pulse per cut frame
);

  localparam int KeepWidth = DataWidth / 8;
  localparam int MaxBeats  = (MaxFrameBytes + KeepWidth - 1) / KeepWidth;
  localparam int BeatW     = $clog2(MaxBeats + 1);
  localparam int WordW     = DataWidth + KeepWidth + 2; // {err, last, keep, data}
  localparam int LastBeatInt = MaxBeats - 1;
  localparam logic [BeatW-1:0] LAST_BEAT = LastBeatInt[BeatW-1:0];
  localparam logic [BeatW-1:0] ONE_BEAT  = {{(BeatW-1){1'b0}}, 1'b1};

  if (MaxBeats < 2) begin : gen_bad_max_frame
    $error("nicsched_mac_tx_cdc %m: MaxFrameBytes must span at least two beats");
  end
  if (Depth < MaxBeats) begin : gen_bad_depth
    $error("nicsched_mac_tx_cdc %m: Depth must hold MaxFrameBytes (MaxBeats beats)");
  end

  // ------------------------------------------------------------------ core side
  logic [WordW-1:0] wr_word;
  logic             data_wr_valid, data_wr_ready;
  logic             token_wr_ready;
  logic [BeatW-1:0] beats_q, beats_d;
  logic             cutting_q, cutting_d;
  logic [1:0]       token_delay_q, token_delay_d;
  logic             beat_taken, cut_here;

  always_comb begin
    cut_here      = !cutting_q && !s_axis_tlast && (beats_q == LAST_BEAT);
    data_wr_valid = s_axis_tvalid && !cutting_q;
    s_axis_tready = cutting_q || data_wr_ready;
    beat_taken    = s_axis_tvalid && s_axis_tready;
    wr_word       = {cut_here, s_axis_tlast || cut_here, s_axis_tkeep, s_axis_tdata};

    beats_d   = beats_q;
    cutting_d = cutting_q;
    if (beat_taken) begin
      beats_d = s_axis_tlast ? '0 : beats_q + ONE_BEAT;
      if (cut_here) begin
        cutting_d = 1'b1;
      end else if (s_axis_tlast) begin
        cutting_d = 1'b0;
      end
    end
    // A frame is complete in the FIFO when its last beat is written (not when discarded).
    token_delay_d = {token_delay_q[0], beat_taken && !cutting_q && (s_axis_tlast || cut_here)};
    truncated_o   = beat_taken && cut_here;
  end

  always_ff @(posedge core_clk_i or negedge core_rst_ni) begin
    if (!core_rst_ni) begin
      beats_q       <= '0;
      cutting_q     <= 1'b0;
      token_delay_q <= '0;
    end else begin
      beats_q       <= beats_d;
      cutting_q     <= cutting_d;
      token_delay_q <= token_delay_d;
    end
  end

  // The token FIFO holds at most one token per frame in the data FIFO, plus the few the
  // writer still counts after the reader took them: twice the depth never fills.
  `NICSCHED_ASSERT(TokenFifoNeverFull_A, !token_delay_q[1] || token_wr_ready, core_clk_i, core_rst_ni)

  // ------------------------------------------------------------------- MAC side
  logic [WordW-1:0] rd_word;
  logic             data_rd_valid, data_rd_ready;
  logic             token_rd_valid, token_rd_ready;
  logic             in_frame_q, in_frame_d;

  always_comb begin
    token_rd_ready = !in_frame_q;
    in_frame_d     = in_frame_q;
    if (!in_frame_q && token_rd_valid) begin
      in_frame_d = 1'b1;
    end else if (in_frame_q && data_rd_valid && m_axis_tready && rd_word[WordW-2]) begin
      in_frame_d = 1'b0;
    end
    m_axis_tvalid = in_frame_q && data_rd_valid;
    data_rd_ready = in_frame_q && m_axis_tready;
    {m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata} = rd_word;
  end

  always_ff @(posedge mac_clk_i or negedge mac_rst_ni) begin
    if (!mac_rst_ni) begin
      in_frame_q <= 1'b0;
    end else begin
      in_frame_q <= in_frame_d;
    end
  end

  // Fill levels (and the token's constant data) are not needed here.
  /* verilator lint_off PINCONNECTEMPTY */
  nicsched_async_fifo #(.Width(WordW), .Depth(Depth)) u_data_fifo (
    .wr_clk_i   (core_clk_i),
    .wr_rst_ni  (core_rst_ni),
    .wr_valid_i (data_wr_valid),
    .wr_ready_o (data_wr_ready),
    .wr_data_i  (wr_word),
    .wr_count_o (),
    .rd_clk_i   (mac_clk_i),
    .rd_rst_ni  (mac_rst_ni),
    .rd_valid_o (data_rd_valid),
    .rd_ready_i (data_rd_ready),
    .rd_data_o  (rd_word),
    .rd_count_o ()
  );

  nicsched_async_fifo #(.Width(1), .Depth(2 * Depth)) u_token_fifo (
    .wr_clk_i   (core_clk_i),
    .wr_rst_ni  (core_rst_ni),
    .wr_valid_i (token_delay_q[1]),
    .wr_ready_o (token_wr_ready),
    .wr_data_i  (1'b1),
    .wr_count_o (),
    .rd_clk_i   (mac_clk_i),
    .rd_rst_ni  (mac_rst_ni),
    .rd_valid_o (token_rd_valid),
    .rd_ready_i (token_rd_ready),
    .rd_data_o  (),
    .rd_count_o ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

endmodule

`default_nettype wire
