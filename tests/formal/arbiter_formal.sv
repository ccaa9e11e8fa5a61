// arbiter_formal: formal wrapper of nicsched_arbiter (small parameters) stating its
// safety properties as immediate assertions; proven by k-induction
// (constraints/yosys/formal.sh, proof "arbiter_safety").
//   - the grant is one-hot or zero and names an eligible head of an enabled tenant
//   - work conservation in every mode, whatever the quanta (0 included) and lengths: some
//     eligible head => a grant (in DWRR a round that leaves nobody with credit refills
//     2^m quanta in the same clock)
//   - control level (ctrl_level_i, all modes but FIFO): while some enabled tenant has an
//     eligible control head and control tokens, the grant is such a head, at the control
//     level (grant_ctrl); grant_ctrl only ever names such a head
//   - strict priority (SP, SP_DWRR): below the control level, never a tenant of a lower
//     level (higher number) while a tenant of a higher level has an eligible head
//   - within a tenant, control before bulk (all modes but FIFO)
//   - FIFO: the granted head is the oldest eligible one (ties to the lowest queue)
`default_nettype none

module arbiter_formal #(
  parameter int NumTenants = 4,   // power of two: every pointer value names a tenant
  parameter int LenW       = 13,  // 13-bit lengths (the core uses 16) keep the proof small
  parameter int TsW        = 4,
  parameter int NumQueues  = NumTenants * 2,
  parameter int QueueW     = $clog2(NumQueues)
) (
  input wire logic                        clk_i,
  input wire logic                        rst_ni,
  input wire logic                        enable_i,
  input wire logic [1:0]                  mode_i,
  input wire logic [NumTenants-1:0]       t_enable_i,
  input wire logic [NumTenants*2-1:0]     t_prio_i,
  input wire logic [NumTenants*16-1:0]    t_quantum_i,
  input wire logic                        ctrl_level_i,
  input wire logic [NumTenants-1:0]       ctrl_conform_i,
  input wire logic [TsW-1:0]              now_i,
  input wire logic [NumQueues-1:0]        q_elig_i,
  input wire logic [NumQueues-1:0]        q_backlog_i,
  input wire logic [NumQueues*LenW-1:0]   q_len_i,
  input wire logic [NumQueues*TsW-1:0]    q_ts_i
);
  logic              grant_valid;
  logic [QueueW-1:0] grant_queue;
  logic [NumQueues-1:0] grant_onehot;
  logic              grant_ctrl;

  nicsched_arbiter #(
    .NumTenants(NumTenants), .LenW(LenW), .TsW(TsW)
  ) u_dut (
    .clk_i, .rst_ni, .enable_i, .mode_i, .t_enable_i, .t_prio_i, .t_quantum_i,
    .ctrl_level_i, .ctrl_conform_i, .now_i,
    .q_elig_i, .q_backlog_i, .q_len_i, .q_ts_i,
    .grant_valid_o(grant_valid), .grant_queue_o(grant_queue), .grant_onehot_o(grant_onehot),
    .grant_ctrl_o(grant_ctrl)
  );

  // Reset in the first clock: the abc engine's AIGER has no reset of its own
  // (constraints/yosys/formal.sh); the sat engine sets it with -set-at 1 rst_ni 0.
  initial assume (!rst_ni);

  // What the queue manager guarantees: an eligible head is a queued frame of length >= 1.
  always_comb begin
    for (int q = 0; q < NumQueues; q++) begin
      assume (!q_elig_i[q] || q_backlog_i[q]);
      assume (q_len_i[q*LenW +: LenW] != '0);
    end
  end

  logic [NumQueues-1:0] live;      // eligible heads the arbiter may serve
  logic [NumTenants-1:0] ctrl_live; // ... control heads with tokens (control level on)
  logic [1:0]           g_prio;
  logic [TsW-1:0]       g_age, age;
  logic                 sp_mode;
  always_comb begin
    for (int q = 0; q < NumQueues; q++) begin
      live[q] = enable_i && t_enable_i[q/2] && q_elig_i[q];
    end
    for (int t = 0; t < NumTenants; t++) begin
      ctrl_live[t] = ctrl_level_i && mode_i != 2'd0 && live[2*t] && ctrl_conform_i[t];
    end
    g_prio  = t_prio_i[(grant_queue/2)*2 +: 2];
    g_age   = now_i - q_ts_i[grant_queue*TsW +: TsW];
    sp_mode = mode_i == 2'd1 || mode_i == 2'd3;
    age     = '0;
    if (rst_ni) begin
      assert ($onehot0(grant_onehot));
      assert (grant_valid == (grant_onehot != '0));
      if (grant_valid) begin
        assert (grant_onehot[grant_queue]);
        assert (live[grant_queue]);
      end
      if (live != '0) begin
        assert (grant_valid);
      end
      assert (grant_ctrl == (ctrl_live != '0));
      if (grant_ctrl) begin
        assert (grant_queue[0] == 1'b0 && ctrl_live[grant_queue/2]);
      end
      for (int q = 0; q < NumQueues; q++) begin
        age = now_i - q_ts_i[q*TsW +: TsW];
        if (grant_valid && live[q]) begin
          if (sp_mode && !grant_ctrl) begin
            assert (g_prio <= t_prio_i[(q/2)*2 +: 2]);
          end
          if (mode_i != 2'd0 && (q % 2) == 0 && q / 2 == grant_queue / 2) begin
            assert (grant_queue == q[QueueW-1:0]);  // control before bulk
          end
          if (mode_i == 2'd0) begin
            assert (g_age > age || (g_age == age && grant_queue <= q[QueueW-1:0]));
          end
        end
      end
    end
  end
endmodule

`default_nettype wire
