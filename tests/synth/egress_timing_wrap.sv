// egress_timing_wrap: nicsched_egress between flops (timing_port_flops,
// tests/synth/timing_port_flops.sv), for Yosys `sta` and constraints/yosys/logic_depth.py
// only (docs/rtl.md, "Clock rate"; issue 16), so every path is flop to flop as in
// nicsched_top. out_o starts with the ports that go to the queue manager: {..., rd_cell_o,
// rd_en_o, free_valid_o, desc_ready_o} (bits 0, 1, 2, 3 .. 3+CellW-1).
`default_nettype none

module egress_timing_wrap #(
  parameter int DataWidth = 512,  // as nicsched_egress
  parameter int CellW     = 12,
  parameter int QueueW    = 5,    // 16 tenants
  parameter int LenW      = 16,
  parameter int TsW       = 32,
  localparam int UserW    = nicsched_pkg::EGRESS_USER_W,
  // every input port, concatenated, and every output port
  parameter int InW  = TsW + 1 + CellW + LenW + QueueW + 2 + TsW + DataWidth + CellW + 1,
  parameter int OutW = 3 + CellW + 2 * CellW + DataWidth + DataWidth / 8 + 2 + UserW +
                       1 + QueueW + TsW + 1 + QueueW + LenW
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire logic [InW-1:0]  in_i,
  output logic      [OutW-1:0] out_o
);
  localparam int BPB = DataWidth / 8;
  logic [InW-1:0]  in_q;
  logic [OutW-1:0] out_d;
  timing_port_flops #(.InW(InW), .OutW(OutW)) u_flops (.clk_i, .rst_ni, .in_i, .in_q, .out_d, .out_o);

  // input fields, in order
  localparam int I_NOW   = 0;
  localparam int I_DV    = I_NOW + TsW;
  localparam int I_CELL  = I_DV + 1;
  localparam int I_LEN   = I_CELL + CellW;
  localparam int I_Q     = I_LEN + LenW;
  localparam int I_OP    = I_Q + QueueW;
  localparam int I_TS    = I_OP + 2;
  localparam int I_DATA  = I_TS + TsW;
  localparam int I_NEXT  = I_DATA + DataWidth;
  localparam int I_READY = I_NEXT + CellW;
  // output fields, in order
  localparam int O_FREEH = 3 + CellW;
  localparam int O_FREET = O_FREEH + CellW;
  localparam int O_DATA  = O_FREET + CellW;
  localparam int O_KEEP  = O_DATA + DataWidth;
  localparam int O_VALID = O_KEEP + BPB;
  localparam int O_LAST  = O_VALID + 1;
  localparam int O_USER  = O_LAST + 1;
  localparam int O_LATV  = O_USER + UserW;
  localparam int O_LATQ  = O_LATV + 1;
  localparam int O_LATC  = O_LATQ + QueueW;
  localparam int O_SENTV = O_LATC + TsW;
  localparam int O_SENTQ = O_SENTV + 1;
  localparam int O_SENTL = O_SENTQ + QueueW;

  nicsched_egress #(
    .DataWidth(DataWidth), .CellW(CellW), .QueueW(QueueW), .LenW(LenW), .TsW(TsW)
  ) u_egress (
    .clk_i, .rst_ni,
    .now_i          (in_q[I_NOW +: TsW]),
    .desc_valid_i   (in_q[I_DV]),
    .desc_ready_o   (out_d[0]),
    .desc_cell_i    (in_q[I_CELL +: CellW]),
    .desc_len_i     (in_q[I_LEN +: LenW]),
    .desc_queue_i   (in_q[I_Q +: QueueW]),
    .desc_op_i      (in_q[I_OP +: 2]),
    .desc_ts_i      (in_q[I_TS +: TsW]),
    .rd_en_o        (out_d[2]),
    .rd_cell_o      (out_d[3 +: CellW]),
    .rd_data_i      (in_q[I_DATA +: DataWidth]),
    .rd_next_i      (in_q[I_NEXT +: CellW]),
    .free_valid_o   (out_d[1]),
    .free_head_o    (out_d[O_FREEH +: CellW]),
    .free_tail_o    (out_d[O_FREET +: CellW]),
    .m_axis_tdata   (out_d[O_DATA +: DataWidth]),
    .m_axis_tkeep   (out_d[O_KEEP +: BPB]),
    .m_axis_tvalid  (out_d[O_VALID]),
    .m_axis_tready  (in_q[I_READY]),
    .m_axis_tlast   (out_d[O_LAST]),
    .m_axis_tuser   (out_d[O_USER +: UserW]),
    .ev_lat_valid_o (out_d[O_LATV]),
    .ev_lat_queue_o (out_d[O_LATQ +: QueueW]),
    .ev_lat_cycles_o(out_d[O_LATC +: TsW]),
    .ev_sent_valid_o(out_d[O_SENTV]),
    .ev_sent_queue_o(out_d[O_SENTQ +: QueueW]),
    .ev_sent_len_o  (out_d[O_SENTL +: LenW])
  );
endmodule

`default_nettype wire
