// frame_pad_timing_wrap: nicsched_frame_pad between flops (timing_port_flops,
// tests/synth/timing_port_flops.sv), for Yosys `sta` only (docs/rtl.md, "Clock rate";
// issue 16), so the reported critical path is flop to flop as in nicsched_top.
`default_nettype none

module frame_pad_timing_wrap #(
  parameter int DataWidth = 512,  // as nicsched_frame_pad
  parameter int UserW     = 12,
  parameter int MinBytes  = 60,
  // every input port, concatenated, and every output port
  parameter int CntW = $clog2(DataWidth / 8 + 1),
  parameter int InW  = DataWidth + DataWidth / 8 + 1 + 1 + UserW + 1 + 1 + CntW,
  parameter int OutW = DataWidth + DataWidth / 8 + 1 + 1 + UserW + 1 + CntW
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

  nicsched_frame_pad #(
    .DataWidth(DataWidth), .UserW(UserW), .MinBytes(MinBytes)
  ) u_pad (
    .clk_i, .rst_ni,
    .s_axis_tdata (in_q[0 +: DataWidth]),
    .s_axis_tkeep (in_q[DataWidth +: BPB]),
    .s_axis_tvalid(in_q[DataWidth + BPB]),
    .s_axis_tready(out_d[OutW - 1]),
    .s_axis_tlast (in_q[DataWidth + BPB + 1]),
    .s_axis_tuser (in_q[DataWidth + BPB + 2 +: UserW]),
    .s_pad_i      (in_q[DataWidth + BPB + 2 + UserW]),
    .m_axis_tdata (out_d[0 +: DataWidth]),
    .m_axis_tkeep (out_d[DataWidth +: BPB]),
    .m_axis_tvalid(out_d[DataWidth + BPB]),
    .m_axis_tready(in_q[InW - 1]),
    .m_axis_tlast (out_d[DataWidth + BPB + 1]),
    .m_axis_tuser (out_d[DataWidth + BPB + 2 +: UserW]),
    .s_axis_tcount(in_q[DataWidth + BPB + 2 + UserW + 1 +: CntW]),
    .m_axis_tcount(out_d[DataWidth + BPB + 2 + UserW +: CntW])
  );
endmodule

`default_nettype wire
