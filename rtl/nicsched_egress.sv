// nicsched_egress: streams scheduled frames out of the shared cell buffer.
//
// Takes one frame descriptor at a time (desc_*: first cell, length, queue, crypto op,
// enqueue time), reads its cells through the buffer's read port one per clock (the
// next-cell pointer comes back with each cell), and gives the frame's cells back (free_*)
// in the clock its last cell is read. Beats wait in a 4-entry output FIFO, so
// m_axis_tready backpressure only pauses the reads; with tready held high a frame of
// n beats leaves in n clocks and the next descriptor is taken in the clock of the last
// read, so frames leave back to back. tkeep is made from the length (contiguous from
// bit 0), tuser names the tenant, class and crypto op on every beat.
// Events: ev_lat_* at the first beat's handshake (latency = now - enqueue time),
// ev_sent_* at the last beat's handshake.
// Timing: a descriptor taken at edge t gives tvalid from clock t+2. "This read is the
// frame's last" (last_q, = one beat left) is a flop set at the edge before, so
// desc_ready_o and free_valid_o are a few gates of flops (issue 16: the 11-bit compare
// of left_q was the 16-tenant core's worst path into the queues' descriptor read).
// Likewise the output FIFO's room is a gate of cnt_q and rv_q, not an adder. The beats
// still to read are kept as whole beats (left_q) and a partial one (part_q), loaded from
// the length's bits: no ceil(len / DataBytes) adder between the descriptor (a crypto
// completion's select) and the count.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_egress #(
  parameter int DataWidth = 512,  // stream data bits
  parameter int CellW     = 12,   // cell index bits
  parameter int QueueW    = 4,    // queue index bits
  parameter int LenW      = 16,   // frame length bits
  parameter int TsW       = 32,   // timestamp bits
  // derived
  parameter int DataBytes = DataWidth / 8
) (
  input  wire logic                        clk_i,
  input  wire logic                        rst_ni,
  input  wire logic [TsW-1:0]              now_i,
  // frame descriptor
  input  wire logic                        desc_valid_i,
  output logic                             desc_ready_o,
  input  wire logic [CellW-1:0]            desc_cell_i,
  input  wire logic [LenW-1:0]             desc_len_i,
  input  wire logic [QueueW-1:0]           desc_queue_i,
  input  wire logic [1:0]                  desc_op_i,
  input  wire logic [TsW-1:0]              desc_ts_i,
  // buffer read port
  output logic                             rd_en_o,
  output logic [CellW-1:0]                 rd_cell_o,
  input  wire logic [DataWidth-1:0]        rd_data_i,
  input  wire logic [CellW-1:0]            rd_next_i,
  // cells given back
  output logic                             free_valid_o,
  output logic [CellW-1:0]                 free_head_o,
  output logic [CellW-1:0]                 free_tail_o,
  // frames out
  output logic [DataWidth-1:0]             m_axis_tdata,
  output logic [DataBytes-1:0]             m_axis_tkeep,
  output logic                             m_axis_tvalid,
  input  wire logic                        m_axis_tready,
  output logic                             m_axis_tlast,
  output nicsched_pkg::egress_user_t       m_axis_tuser,
  // events
  output logic                             ev_lat_valid_o,
  output logic [QueueW-1:0]                ev_lat_queue_o,
  output logic [TsW-1:0]                   ev_lat_cycles_o,
  output logic                             ev_sent_valid_o,
  output logic [QueueW-1:0]                ev_sent_queue_o,
  output logic [LenW-1:0]                  ev_sent_len_o
);
  localparam int Depth  = 4;
  localparam logic [3:0] DEPTH4 = 4'd4;
  localparam int ByteW  = $clog2(DataBytes);
  localparam int BeatW  = LenW - ByteW + 1;
  localparam int UserW  = nicsched_pkg::EGRESS_USER_W;
  // sideband of a beat: {first, last, keep bytes (0 = all), queue, len, ts, op}
  localparam int SideW  = 2 + ByteW + QueueW + LenW + TsW + 2;

  if (DataWidth < 64 || DataWidth > 512 || (DataWidth & (DataWidth - 1)) != 0) begin : gen_bad_dw
    $error("nicsched_egress %m: DataWidth must be a power of two in 64..512");
  end

  // current frame
  logic               act_q, act_d;
  logic               first_q, first_d;
  logic [CellW-1:0]   head_q, head_d;
  logic [BeatW-1:0]   left_q, left_d;     // whole beats still to read (beyond part_q)
  logic               part_q, part_d;     // the partial beat (the frame's tail) is still to read
  logic               last_q, last_d;     // left_q + part_q == 1: the next read is the last
  logic [LenW-1:0]    len_q, len_d;
  logic [QueueW-1:0]  qid_q, qid_d;
  logic [1:0]         op_q, op_d;
  logic [TsW-1:0]     ts_q, ts_d;

  // read in flight and FIFO
  logic               rv_q;
  logic [SideW-1:0]   rside_q, rside_d;
  logic [Depth*DataWidth-1:0] fd_q;
  logic [Depth*SideW-1:0]     fs_q;
  logic [1:0]         wp_q, rp_q;
  logic [2:0]         cnt_q;

  logic               issue, last_beat, push, pop;
  logic [SideW-1:0]   head_side;

  // room for one more beat: cnt_q + rv_q < 4, written out (cnt_q <= 4) so that issue,
  // desc_ready_o and free_valid_o are one LUT of flops each, not an adder's carry chain
  assign issue     = act_q && !cnt_q[2] && !(cnt_q[1] && cnt_q[0] && rv_q);
  assign last_beat = last_q;
  assign desc_ready_o = !act_q || (issue && last_beat);
  assign rd_en_o   = issue;
  assign rd_cell_o = first_q ? head_q : rd_next_i;

  assign free_valid_o = issue && last_beat;
  assign free_head_o  = head_q;
  assign free_tail_o  = rd_cell_o;

  always_comb begin
    act_d   = act_q;
    first_d = first_q;
    head_d  = head_q;
    left_d  = left_q;
    part_d  = part_q;
    last_d  = last_q;
    len_d   = len_q;
    qid_d   = qid_q;
    op_d    = op_q;
    ts_d    = ts_q;
    rside_d = rside_q;
    if (issue) begin
      rside_d = {first_q, last_beat, len_q[ByteW-1:0], qid_q, len_q, ts_q, op_q};
      first_d = 1'b0;
      // the partial beat is counted off first: only the number of beats is counted (the
      // cells come in order from the buffer's next pointers)
      if (part_q) begin
        part_d = 1'b0;
      end else begin
        left_d = left_q - 1'b1;
      end
      last_d  = part_q ? (left_q == {{(BeatW-1){1'b0}}, 1'b1})
                       : (left_q == {{(BeatW-2){1'b0}}, 2'd2});
      if (last_beat) begin
        act_d = 1'b0;
      end
    end
    if (desc_valid_i && desc_ready_o) begin
      act_d   = 1'b1;
      first_d = 1'b1;
      head_d  = desc_cell_i;
      left_d  = {1'b0, desc_len_i[LenW-1:ByteW]};
      part_d  = desc_len_i[ByteW-1:0] != '0;
      // one beat: 1 <= len <= DataBytes (len 0 is excluded by DescLenNonZero_A)
      last_d  = (desc_len_i[LenW-1:ByteW] == '0) ||
                (desc_len_i == LenW'(DataBytes));
      len_d   = desc_len_i;
      qid_d   = desc_queue_i;
      op_d    = desc_op_i;
      ts_d    = desc_ts_i;
    end
  end

  assign push = rv_q;
  assign pop  = m_axis_tvalid && m_axis_tready;

  // output
  always_comb begin
    logic [ByteW-1:0] kb;
    logic [UserW-1:0] user_vec;
    head_side     = '0;
    m_axis_tdata  = '0;
    for (int i = 0; i < Depth; i++) begin
      if (rp_q == i[1:0]) begin
        head_side    = fs_q[i*SideW +: SideW];
        m_axis_tdata = fd_q[i*DataWidth +: DataWidth];
      end
    end
    m_axis_tvalid = (cnt_q != 3'd0);
    m_axis_tlast  = head_side[SideW-2];
    kb            = head_side[QueueW + LenW + TsW + 2 +: ByteW];
    m_axis_tkeep  = '1;
    if (m_axis_tlast && kb != '0) begin
      for (int i = 0; i < DataBytes; i++) begin
        m_axis_tkeep[i] = (i < {{(32-ByteW){1'b0}}, kb});
      end
    end
    user_vec      = '0;
    user_vec[UserW-1 -: 2] = head_side[1:0];                     // crypto_op
    user_vec[nicsched_pkg::TENANT_W] = head_side[TsW + LenW + 2]; // cls
    user_vec[QueueW-2:0] = head_side[TsW + LenW + 3 +: QueueW - 1]; // tenant
    m_axis_tuser  = user_vec;
    ev_lat_valid_o  = pop && head_side[SideW-1];
    ev_lat_queue_o  = head_side[TsW + LenW + 2 +: QueueW];
    ev_lat_cycles_o = now_i - head_side[2 +: TsW];
    ev_sent_valid_o = pop && m_axis_tlast;
    ev_sent_queue_o = head_side[TsW + LenW + 2 +: QueueW];
    ev_sent_len_o   = head_side[TsW + 2 +: LenW];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_q   <= 1'b0;
      first_q <= 1'b0;
      head_q  <= '0;
      left_q  <= '0;
      part_q  <= 1'b0;
      last_q  <= 1'b0;
      len_q   <= '0;
      qid_q   <= '0;
      op_q    <= '0;
      ts_q    <= '0;
      rv_q    <= 1'b0;
      rside_q <= '0;
      fs_q    <= '0;
      wp_q    <= '0;
      rp_q    <= '0;
      cnt_q   <= '0;
    end else begin
      act_q   <= act_d;
      first_q <= first_d;
      head_q  <= head_d;
      left_q  <= left_d;
      part_q  <= part_d;
      last_q  <= last_d;
      len_q   <= len_d;
      qid_q   <= qid_d;
      op_q    <= op_d;
      ts_q    <= ts_d;
      rv_q    <= issue;
      rside_q <= rside_d;
      for (int i = 0; i < Depth; i++) begin
        if (push && wp_q == i[1:0]) begin
          fs_q[i*SideW +: SideW] <= rside_q;
        end
      end
      if (push) begin
        wp_q <= wp_q + 2'd1;
      end
      if (pop) begin
        rp_q <= rp_q + 2'd1;
      end
      cnt_q <= cnt_q + {2'b0, push} - {2'b0, pop};
    end
  end

  // beat data: no reset needed
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < Depth; i++) begin
      if (push && wp_q == i[1:0]) begin
        fd_q[i*DataWidth +: DataWidth] <= rd_data_i;
      end
    end
  end

  `NICSCHED_ASSERT(IssueHasRoom_A, issue == (act_q && ({1'b0, cnt_q} + {3'b0, rv_q} < DEPTH4)))
  `NICSCHED_ASSERT(LastMatchesLeft_A, last_q == (left_q + BeatW'(part_q) == BeatW'(1)))
  // an active frame has a beat to read
  `NICSCHED_ASSERT(ActiveHasBeat_A, !act_q || left_q != '0 || part_q)
  `NICSCHED_ASSERT(FifoNoOverflow_A, cnt_q <= 3'd4)
  `NICSCHED_ASSERT(DescLenNonZero_A, !(desc_valid_i && desc_ready_o) || desc_len_i != '0)

endmodule

`default_nettype wire
