// nicsched_mac_rx_cdc: frames from the 100G MAC's RX clock (CMAC, 322.265625 MHz) to
// the core clock (250 MHz).
//
// The CMAC's RX AXI-Stream has no tready: a beat not taken is lost. So the decision is
// made per frame, at its first beat: the frame is accepted only if the FIFO has room
// for a frame of MaxFrameBytes (as seen by the MAC side, which over-states the fill, so
// the room is really there); otherwise the whole frame is dropped and counted. An
// accepted frame never loses a beat and the core never sees a partial frame. A frame
// longer than MaxFrameBytes (the CMAC cuts at its RX_MAX_PACKET_LEN, set to the same
// value) is cut at MaxFrameBytes with tlast forced, and the cut is counted.
//
// The CMAC marks bad-FCS frames with tuser on the last beat; by then the frame's head
// has already gone on (cut-through), so such frames reach the core; the CMAC counts
// them (stat_rx_bad_fcs). See docs/fpga.md.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_mac_rx_cdc #(
  parameter int DataWidth     = 512,  // AXI4-Stream data bits on both sides
  parameter int MaxFrameBytes = 9600, // longest frame accepted whole (jumbo)
  parameter int Depth         = 512   // FIFO beats; a power of two >= 2 * MaxFrameBytes / (DataWidth / 8)
) (
  // MAC side (no backpressure)
  input  logic                   mac_clk_i,
  input  logic                   mac_rst_ni,
  input  logic [DataWidth-1:0]   s_axis_tdata,
  input  logic [DataWidth/8-1:0] s_axis_tkeep,
  input  logic                   s_axis_tvalid,
  input  logic                   s_axis_tlast,
  output logic                   dropped_o,   // MAC domain: one-cycle pulse per frame dropped for lack of room
  output logic                   truncated_o, // MAC domain: one-cycle pulse per frame cut at MaxFrameBytes
  // core side
  input  logic                   core_clk_i,
  input  logic                   core_rst_ni,
  output logic [DataWidth-1:0]   m_axis_tdata,
  output logic [DataWidth/8-1:0] m_axis_tkeep,
  output logic                   m_axis_tvalid,
  input  logic                   m_axis_tready,
  output logic                   m_axis_tlast
);

  localparam int KeepWidth = DataWidth / 8;
  localparam int MaxBeats  = (MaxFrameBytes + KeepWidth - 1) / KeepWidth;
  localparam int BeatW     = $clog2(MaxBeats + 1);
  localparam int CountW    = $clog2(Depth) + 1;
  localparam int WordW     = DataWidth + KeepWidth + 1; // {last, keep, data}
  localparam int LastBeatInt = MaxBeats - 1;
  localparam int RoomInt     = Depth - MaxBeats;
  localparam logic [BeatW-1:0]  LAST_BEAT = LastBeatInt[BeatW-1:0];
  localparam logic [BeatW-1:0]  ONE_BEAT  = {{(BeatW-1){1'b0}}, 1'b1};
  localparam logic [CountW-1:0] ROOM_FILL = RoomInt[CountW-1:0]; // accept a frame when fill <= this

  if (MaxBeats < 2) begin : gen_bad_max_frame
    $error("nicsched_mac_rx_cdc %m: MaxFrameBytes must span at least two beats");
  end
  if (Depth < 2 * MaxBeats) begin : gen_bad_depth
    $error("nicsched_mac_rx_cdc %m: Depth must hold two frames of MaxFrameBytes");
  end

  // -------------------------------------------------------------------- MAC side
  typedef enum logic [1:0] {
    RX_IDLE,    // between frames: the next beat starts a frame
    RX_ACCEPT,  // inside an accepted frame: every beat is written
    RX_DISCARD  // inside a dropped or cut frame: beats are thrown away up to tlast
  } rx_state_e;

  rx_state_e        state_q, state_d;
  logic [BeatW-1:0] beats_q, beats_d;
  logic [CountW-1:0] wr_fill;
  logic             wr_valid, wr_ready, cut_here, room;
  logic [WordW-1:0] wr_word;

  always_comb begin
    room        = wr_fill <= ROOM_FILL;
    state_d     = state_q;
    beats_d     = beats_q;
    wr_valid    = 1'b0;
    cut_here    = 1'b0;
    dropped_o   = 1'b0;
    truncated_o = 1'b0;
    if (s_axis_tvalid) begin
      unique case (state_q)
        RX_IDLE, RX_ACCEPT: begin
          if (state_q == RX_IDLE && !room) begin
            dropped_o = 1'b1;
            state_d   = s_axis_tlast ? RX_IDLE : RX_DISCARD;
          end else begin
            wr_valid    = 1'b1;
            beats_d     = (state_q == RX_IDLE) ? ONE_BEAT : beats_q + ONE_BEAT;
            cut_here    = !s_axis_tlast && (beats_d == LAST_BEAT + ONE_BEAT);
            truncated_o = cut_here;
            state_d     = (s_axis_tlast || cut_here) ? (cut_here ? RX_DISCARD : RX_IDLE) : RX_ACCEPT;
          end
        end
        RX_DISCARD: begin
          state_d = s_axis_tlast ? RX_IDLE : RX_DISCARD;
        end
        default: begin
          state_d = RX_IDLE;
        end
      endcase
    end
    wr_word = {s_axis_tlast || cut_here, s_axis_tkeep, s_axis_tdata};
  end

  always_ff @(posedge mac_clk_i or negedge mac_rst_ni) begin
    if (!mac_rst_ni) begin
      state_q <= RX_IDLE;
      beats_q <= '0;
    end else begin
      state_q <= state_d;
      beats_q <= beats_d;
    end
  end

  // Room was reserved at the frame's first beat: a write is never refused.
  `NICSCHED_ASSERT(WriteNeverRefused_A, !wr_valid || wr_ready, mac_clk_i, mac_rst_ni)

  // ------------------------------------------------------------------- core side
  logic [WordW-1:0] rd_word;

  always_comb begin
    {m_axis_tlast, m_axis_tkeep, m_axis_tdata} = rd_word;
  end

  /* verilator lint_off PINCONNECTEMPTY */
  nicsched_async_fifo #(.Width(WordW), .Depth(Depth)) u_fifo (
    .wr_clk_i   (mac_clk_i),
    .wr_rst_ni  (mac_rst_ni),
    .wr_valid_i (wr_valid),
    .wr_ready_o (wr_ready),
    .wr_data_i  (wr_word),
    .wr_count_o (wr_fill),
    .rd_clk_i   (core_clk_i),
    .rd_rst_ni  (core_rst_ni),
    .rd_valid_o (m_axis_tvalid),
    .rd_ready_i (m_axis_tready),
    .rd_data_o  (rd_word),
    .rd_count_o ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

endmodule

`default_nettype wire
