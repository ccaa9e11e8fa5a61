// arbiter_dwrr_formal: bounded service of nicsched_arbiter in DWRR mode, proven by
// bounded model checking from reset (constraints/yosys/formal.sh, proof
// "arbiter_dwrr_bound"; k-induction does not apply: unreachable deficit values would
// have to be excluded by invariants on internal state).
// Environment: DWRR mode, every tenant enabled, frames of MinLen..MaxLen bytes, quanta of
// MaxLen..MaxQuantum bytes (a quantum covers any frame, so a round refills one quantum and
// the bound below is simple; work conservation with any quanta is proven by induction in
// arbiter_formal). Heads come and go freely.
// Properties:
//   - work conservation: some eligible head => a grant, every clock
//   - bounded service: a tenant with an eligible head is granted within ServiceBound
//     clocks. A tenant without credit waits at most for the others to spend theirs:
//     each holds at most MaxQuantum bytes, i.e. ceil(MaxQuantum / MinLen) frames, then a
//     round ends and round robin reaches it after at most N-1 more grants.
`default_nettype none

module arbiter_dwrr_formal #(
  parameter int NumTenants   = 3,
  parameter int LenW         = 13,
  parameter int TsW          = 4,
  parameter int MinLen       = 128,
  parameter int MaxLen       = 256,
  parameter int MaxQuantum   = 384,
  parameter int NumQueues    = NumTenants * 2,
  parameter int QueueW       = $clog2(NumQueues),
  parameter int PerRound     = (MaxQuantum + MinLen - 1) / MinLen,
  parameter int ServiceBound = (NumTenants - 1) * PerRound + (NumTenants - 1)
) (
  input wire logic                        clk_i,
  input wire logic                        rst_ni,
  input wire logic [NumTenants*2-1:0]     t_prio_i,
  input wire logic [NumTenants*16-1:0]    t_quantum_i,
  input wire logic [TsW-1:0]              now_i,
  input wire logic [NumQueues-1:0]        q_elig_i,
  input wire logic [NumQueues*LenW-1:0]   q_len_i,
  input wire logic [NumQueues*TsW-1:0]    q_ts_i
);
  logic              grant_valid;
  logic [QueueW-1:0] grant_queue;
  logic [NumQueues-1:0] grant_onehot;

  nicsched_arbiter #(
    .NumTenants(NumTenants), .LenW(LenW), .TsW(TsW)
  ) u_dut (
    .clk_i, .rst_ni,
    .enable_i(1'b1), .mode_i(2'd2), .t_enable_i({NumTenants{1'b1}}),
    .t_prio_i, .t_quantum_i, .ctrl_level_i(1'b0), .ctrl_conform_i('0), .now_i,
    .q_elig_i, .q_backlog_i(q_elig_i), .q_len_i, .q_ts_i,
    .grant_valid_o(grant_valid), .grant_queue_o(grant_queue), .grant_onehot_o(grant_onehot),
    .grant_ctrl_o()
  );

  // Reset in the first clock: the abc engine's AIGER has no reset of its own
  // (constraints/yosys/formal.sh); the sat engine sets it with -set-at 1 rst_ni 0.
  initial assume (!rst_ni);

  always_comb begin
    for (int q = 0; q < NumQueues; q++) begin
      assume (q_len_i[q*LenW +: LenW] >= MinLen);
      assume (q_len_i[q*LenW +: LenW] <= MaxLen);
    end
    for (int t = 0; t < NumTenants; t++) begin
      assume (t_quantum_i[t*16 +: 16] >= MaxLen);
      assume (t_quantum_i[t*16 +: 16] <= MaxQuantum);
    end
  end

  // Clocks each tenant has had an eligible head without being granted.
  logic [NumTenants*8-1:0] wait_q, wait_d;
  logic [NumTenants-1:0]   t_live;
  always_comb begin
    wait_d = wait_q;
    for (int t = 0; t < NumTenants; t++) begin
      t_live[t] = q_elig_i[2*t] || q_elig_i[2*t+1];
      if (!t_live[t] || (grant_valid && grant_queue / 2 == t)) begin
        wait_d[t*8 +: 8] = '0;
      end else if (wait_q[t*8 +: 8] != 8'hFF) begin
        wait_d[t*8 +: 8] = wait_q[t*8 +: 8] + 8'd1;
      end
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) wait_q <= '0;
    else         wait_q <= wait_d;
  end

  always_comb begin
    if (rst_ni) begin
      if (t_live != '0) assert (grant_valid);
      for (int t = 0; t < NumTenants; t++) begin
        assert (wait_q[t*8 +: 8] < ServiceBound);
      end
    end
  end
endmodule

`default_nettype wire
