// arbiter_timing_wrap: nicsched_arbiter between flops (timing_port_flops,
// tests/synth/timing_port_flops.sv), for Yosys `sta` only (docs/rtl.md, "Clock rate"), so
// the reported critical path is flop to flop as in nicsched_top.
`default_nettype none

module arbiter_timing_wrap #(
  parameter int NumTenants = 8,   // as nicsched_arbiter
  parameter int LenW       = 16,
  parameter int TsW        = 32,
  parameter int NumQueues  = NumTenants * 2,
  parameter int QueueW     = $clog2(NumQueues),
  // every input port, concatenated, and every output port
  parameter int InW  = 1 + 2 + NumTenants + NumTenants * 2 + NumTenants * 16 + TsW +
                       2 * NumQueues + NumQueues * LenW + NumQueues * TsW + 1 + NumTenants,
  parameter int OutW = 1 + QueueW + NumQueues + 1
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire logic [InW-1:0]  in_i,
  output logic      [OutW-1:0] out_o
);
  logic [InW-1:0]  in_q;
  logic [OutW-1:0] out_d;
  timing_port_flops #(.InW(InW), .OutW(OutW)) u_flops (.clk_i, .rst_ni, .in_i, .in_q, .out_d, .out_o);

  nicsched_arbiter #(
    .NumTenants(NumTenants), .LenW(LenW), .TsW(TsW)
  ) u_arbiter (
    .clk_i, .rst_ni,
    .enable_i      (in_q[0]),
    .mode_i        (in_q[2:1]),
    .t_enable_i    (in_q[3 +: NumTenants]),
    .t_prio_i      (in_q[3 + NumTenants +: NumTenants * 2]),
    .t_quantum_i   (in_q[3 + NumTenants * 3 +: NumTenants * 16]),
    .now_i         (in_q[3 + NumTenants * 19 +: TsW]),
    .q_elig_i      (in_q[3 + NumTenants * 19 + TsW +: NumQueues]),
    .q_backlog_i   (in_q[3 + NumTenants * 19 + TsW + NumQueues +: NumQueues]),
    .q_len_i       (in_q[3 + NumTenants * 19 + TsW + 2 * NumQueues +: NumQueues * LenW]),
    .q_ts_i        (in_q[3 + NumTenants * 19 + TsW + 2 * NumQueues + NumQueues * LenW +: NumQueues * TsW]),
    .ctrl_level_i  (in_q[InW - 1 - NumTenants]),
    .ctrl_conform_i(in_q[InW - NumTenants +: NumTenants]),
    .grant_valid_o (out_d[0]),
    .grant_queue_o (out_d[1 +: QueueW]),
    .grant_onehot_o(out_d[1 + QueueW +: NumQueues]),
    .grant_ctrl_o  (out_d[OutW - 1])
  );
endmodule

`default_nettype wire
