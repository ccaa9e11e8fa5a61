// nicsched_path: one scheduled direction: queues -> arbiter -> grant flop -> (crypto slot)
// -> descriptor FIFO -> egress.
//
// The top has two: TX (host to MAC: SP/DWRR/FIFO arbiter as configured, shaper,
// encryption) and RX (MAC to host: tenants weighted by DWRR, decryption).
// Registered grant (issue 16): the arbiter decides in clock t from the heads of t (and
// updates its deficits and round robin at edge t); its grant is a flop, and the path
// executes it in t+1: dequeue, shaper and control-bucket charge, crypto claim or egress
// descriptor. So the decision logic ends in flops and the queue manager, shaper, crypto
// pool and egress start from them. A grant decided in t is executable in t+1 because:
// - the tenant of the grant in flight (executing in t) is not eligible in t (its heads,
//   buckets and quota change at the edge that executes it);
// - plain frames go to the egress through a 3-entry descriptor FIFO with credits: a
//   plain head is eligible in t when FIFO entries + a plain grant executing in t < 3.
//   The egress takes a waiting crypto completion first, then the FIFO's head, then the
//   executing grant directly (bypass, FIFO empty); a plain grant it does not take waits
//   in the FIFO;
// - the crypto pool's can_claim_i of t permits a claim in t+1 (the pool's contract: it is
//   0 in a clock with a claim of either direction, and between t and t+1 slots and quota
//   units are only released).
// - Strict priority (SP, SP_DWRR) keeps its order across the masked clock: while the
//   tenant in flight u is executing, tenants of lower levels are not eligible if u, in the
//   clock it was granted, conformed, was enabled and held a frame beyond the granted one
//   (the clock is not handed to the level below; with the FIFO ahead of the egress that
//   would let a lower level take every other decision). The hold and the levels are those
//   of the decision's clock (t-1 for the mask in t): at the edge that loads the grant flop,
//   the decision's tenant selects its pairs' holds into one flop per tenant (blocked_q:
//   in flight, or below the tenant in flight).
// Eligibility in clock t, term by term, and why each is right for a claim or dequeue in
// t+1 although only the "below" term is of t-1 (blocked_q and the FIFO credit plain_ok_q
// are flops, but each is the rule on this clock's values, made a clock ahead):
//   head valid (a queue flop), conform (the shaper's flops: one LUT), the crypto op of the
//   head, inflight (the grant flop), the FIFO credit (its count and the grant flops) and
//   can_claim_i (the pool's flops) are all of clock t, as before: nothing between t-1 and
//   t is missed. "below" is from t-1: what can differ in t is u's second frame admitted at
//   edge t-1, u's bucket filling into conformance at edge t-1 (u was granted in t-1, so it
//   was not in flight then and its bucket was not charged at that edge), and a COMMIT at
//   edge t-1 (mode, enables, priorities). "below" is an ordering rule, not a condition of
//   executability (a head it does not mask is executable all the same), so each of these
//   only moves the rule by a clock: a hold that begins at the grant's edge, or a priority
//   committed there, applies from u's next grant. The reference model judges the hold in
//   the same clock (RefModel::decide(), Grant::below).
// - A queue's head is eligible when its tenant conforms to the rate limit (conform_i), is
//   not in flight nor below a blocking tenant in flight (above), and, if the frame needs
//   this direction's crypto op (CryptoOp), the crypto pool lets its tenant claim a slot
//   (can_claim_i); otherwise when the FIFO has a credit. The tenant in flight reports no
//   crypto want (its head is the frame whose claim executes).
// - A granted crypto frame claims a slot and waits there, cells untouched, for its hold
//   time; the slot then hands it to the egress stage, which takes completions before
//   plain frames. Any crypto op in the classification (ENCRYPT or DECRYPT) means this
//   direction's operation (one classifier table serves both directions: a tenant's
//   frames are encrypted on TX and decrypted on RX); tuser says CryptoOp.
// Timing (idle, 512-bit data): tlast into the queues at edge t, admitted at edge t+1
// (the queues' input stage), decision in clock t+2, grant executed (descriptor into the
// egress) in t+3, first beat valid on m_axis in clock t+5; with crypto add the hold time
// and one clock.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_path #(
  parameter int NumTenants  = 8,        // tenants
  parameter int DataWidth   = 512,      // stream data bits
  parameter int BufferBytes = 262144,   // shared buffer, bytes
  parameter logic [1:0] CryptoOp = 2'd1, // crypto_op_e this direction performs
  // derived
  parameter int NumQueues = NumTenants * 2,
  parameter int QueueW    = $clog2(NumQueues),
  parameter int TenantW   = (NumTenants > 1) ? $clog2(NumTenants) : 1,
  parameter int DataBytes = DataWidth / 8,
  parameter int CellW     = $clog2(BufferBytes / DataBytes),
  parameter int LenW      = 16,
  parameter int TsW       = 32,
  parameter int TagW      = CellW + LenW + QueueW + TsW,
  parameter int LimitW    = nicsched_regs_pkg::T_QLIMIT_CTRL_BYTES_WIDTH  // queue limit bits
) (
  input  wire logic                          clk_i,
  input  wire logic                          rst_ni,
  input  wire logic [TsW-1:0]                now_i,
  // frames in (from the ingress), ingress_meta_t on tlast
  input  wire logic [DataWidth-1:0]          s_axis_tdata,
  input  wire logic [DataBytes-1:0]          s_axis_tkeep,
  input  wire logic [$clog2(DataBytes+1)-1:0] s_axis_tcount, // bytes in the beat: tkeep's count
  input  wire logic                          s_axis_tvalid,
  output logic                               s_axis_tready,
  input  wire logic                          s_axis_tlast,
  input  wire nicsched_pkg::ingress_meta_t   s_axis_tuser,
  // frames out
  output logic [DataWidth-1:0]               m_axis_tdata,
  output logic [DataBytes-1:0]               m_axis_tkeep,
  output logic                               m_axis_tvalid,
  input  wire logic                          m_axis_tready,
  output logic                               m_axis_tlast,
  output nicsched_pkg::egress_user_t         m_axis_tuser,
  // configuration
  input  wire logic                          enable_i,
  input  wire logic [1:0]                    mode_i,
  input  wire logic [NumTenants-1:0]         t_enable_i,
  input  wire logic [NumTenants*2-1:0]       t_prio_i,
  input  wire logic [NumTenants*16-1:0]      t_quantum_i,
  input  wire logic [NumQueues*LimitW-1:0]   qlimit_i,
  input  wire logic [NumTenants-1:0]         conform_i,     // shaper
  input  wire logic                          ctrl_level_i,  // CTRL.CONTROL_LEVEL (RX: 0)
  input  wire logic [NumTenants-1:0]         ctrl_conform_i,// control buckets have tokens
  // shapers: a frame of tenant t was scheduled (sched_oh_o[t]; one-hot or none; sched_ctrl_o:
  // at the control level), its length in sched_len_o[t] (per tenant: a bucket reads its own
  // tenant's length from the head registers, not one length muxed from every queue)
  output logic [NumTenants-1:0]              sched_oh_o,
  output logic                               sched_ctrl_o,
  output logic [NumTenants*LenW-1:0]         sched_len_o,
  // crypto slots
  input  wire logic [NumTenants-1:0]         can_claim_i,
  output logic                               claim_o,
  output logic [TenantW-1:0]                 claim_tenant_o,
  output logic [LenW-1:0]                    claim_len_o,
  output logic [TagW-1:0]                    claim_tag_o,
  output logic [QueueW-1:0]                  claim_key_o,    // completions keep queue order
  input  wire logic                          done_valid_i,
  input  wire logic [TagW-1:0]               done_tag_i,
  output logic                               done_ready_o,
  output logic [NumTenants-1:0]              crypto_wait_o,  // a head waits for a slot
  output logic [NumTenants-1:0]              crypto_want_o,  // a crypto head is eligible but for the slot
  // telemetry events
  output logic                               ev_valid_o,
  output nicsched_pkg::ingress_meta_t        ev_meta_o,
  output logic [LenW-1:0]                    ev_len_o,
  output logic                               ev_accept_o,
  output logic                               ev_drop_limit_o,
  output logic                               ev_drop_buf_o,
  output logic                               lat_valid_o,
  output logic [QueueW-1:0]                  lat_queue_o,
  output logic [TsW-1:0]                     lat_cycles_o,
  output logic                               sent_valid_o,
  output logic [QueueW-1:0]                  sent_queue_o,
  output logic [LenW-1:0]                    sent_len_o,
  output logic [NumQueues*32-1:0]            q_bytes_o,
  output logic [NumQueues*32-1:0]            q_pkts_o
);
  logic [NumQueues-1:0]       head_valid, head_second;
  logic [NumQueues*CellW-1:0] head_cell;
  logic [NumQueues*LenW-1:0]  head_len;
  logic [NumQueues*TsW-1:0]   head_ts;
  logic [NumQueues*2-1:0]     head_op;
  logic [NumQueues-1:0]       q_elig, q_backlog, q_crypto;
  logic [QueueW-1:0]          deq_queue;
  logic                       rd_en;
  logic [CellW-1:0]           rd_cell, rd_next;
  logic [DataWidth-1:0]       rd_data;
  logic                       free_valid;
  logic [CellW-1:0]           free_head, free_tail;
  logic                       eg_valid, eg_ready;
  logic [CellW-1:0]           eg_cell;
  logic [LenW-1:0]            eg_len;
  logic [QueueW-1:0]          eg_queue;
  logic [1:0]                 eg_op;
  logic [TsW-1:0]             eg_ts;
  logic                       arb_valid, arb_ctrl;
  logic                       arb_crypto;   // the decision takes a crypto head
  logic [QueueW-1:0]          arb_queue;
  logic [NumQueues-1:0]       arb_onehot;
  // the grant in flight: decided last clock, executed in this one
  logic                       gq_valid_q;
  logic [QueueW-1:0]          gq_queue_q;
  logic [NumQueues-1:0]       gq_onehot_q;
  logic                       gq_ctrl_q, gq_crypto_q;
  logic [NumTenants-1:0]      inflight;     // the tenant of the grant in flight

  nicsched_queues #(
    .NumTenants (NumTenants),
    .DataWidth  (DataWidth),
    .BufferBytes(BufferBytes),
    .LenW       (LenW),
    .TsW        (TsW),
    .LimitW     (LimitW)
  ) u_queues (
    .clk_i,
    .rst_ni,
    .now_i,
    .s_axis_tdata,
    .s_axis_tkeep,
    .s_axis_tcount,
    .s_axis_tvalid,
    .s_axis_tready,
    .s_axis_tlast,
    .s_axis_tuser,
    .qlimit_i,
    .ev_valid_o,
    .ev_meta_o,
    .ev_len_o,
    .ev_accept_o,
    .ev_drop_limit_o,
    .ev_drop_buf_o,
    .head_valid_o (head_valid),
    .head_second_o(head_second),
    .head_cell_o  (head_cell),
    .head_len_o   (head_len),
    .head_ts_o    (head_ts),
    .head_op_o    (head_op),
    .q_bytes_o,
    .q_pkts_o,
    .deq_oh_i     (gq_onehot_q),
    .rd_en_i      (rd_en),
    .rd_cell_i    (rd_cell),
    .rd_data_o    (rd_data),
    .rd_next_o    (rd_next),
    .free_valid_i (free_valid),
    .free_head_i  (free_head),
    .free_tail_i  (free_tail)
  );

  // eligibility (the rules of the registered grant: see the header)
  // The terms that the grant in flight decides (its tenant is masked, the tenants below it
  // are masked, a plain grant executing takes a FIFO credit) are each one flop, made at the
  // edge that loads the grant flop from the decision and from what was ready before it:
  // blocked_q[t] (t in flight, or below the tenant in flight) and plain_ok_q (the FIFO's
  // credit for a plain head). So a head's eligibility is one LUT of flops (its queue's
  // valid and crypto op, the shaper, the crypto pool, blocked_q, plain_ok_q), not the
  // grant flop's AND-OR over every tenant pair and the FIFO count in front of the pick.
  // The rules are those of clock t exactly (BlockedIsRule_A, PlainOkIsCredit_A): each
  // flop is the rule evaluated on the next values of the flops it reads.
  localparam int FifoDepth = 3;
  localparam logic [1:0] FIFO_DEPTH = 2'(FifoDepth);
  logic [1:0] fifo_cnt, fifo_cnt_next;
  logic       exec_plain;  // a plain grant executes this clock
  logic       plain_ok_q, plain_ok_d;
  assign exec_plain = gq_valid_q && !gq_crypto_q;
  // Strict priority across the masked clock: tenant t is below the tenant in flight u when,
  // in the clock u was granted (the clock before this one), u conformed, was enabled and
  // held a frame beyond the one granted (sp_hold) and t's level was below u's. sp_hold of
  // this clock is taken for every u beside the pick (hold_below_d[t][u]), and the pick's
  // tenant selects its column into blocked_d.
  logic [NumTenants-1:0] sp_hold;  // u would block the levels below it while in flight
  logic [NumTenants-1:0] blocked_q, blocked_d;  // in flight, or below the tenant in flight
  logic [NumTenants-1:0] grant_t;  // the decision's tenant, one-hot (in flight next clock)
  logic                  sp_mode;
  logic [NumTenants*NumTenants-1:0] hold_below_d;  // [t*N + u]: t waits while u is in flight
  always_comb begin
    sp_mode = (mode_i == nicsched_regs_pkg::CTRL_ARB_MODE_SP ||
               mode_i == nicsched_regs_pkg::CTRL_ARB_MODE_SP_DWRR);
    for (int u = 0; u < NumTenants; u++) begin
      inflight[u] = gq_onehot_q[2*u] || gq_onehot_q[2*u+1];
      grant_t[u]  = arb_valid && (arb_onehot[2*u] || arb_onehot[2*u+1]);
      // frames of the tenant, the one a grant would take included: at least two
      // (from the queues' head registers, not their counts: see head_second_o)
      sp_hold[u]  = sp_mode && conform_i[u] && t_enable_i[u] &&
                    (head_second[2*u] || head_second[2*u+1] ||
                     (head_valid[2*u] && head_valid[2*u+1]));
    end
    for (int t = 0; t < NumTenants; t++) begin
      blocked_d[t] = grant_t[t];
      for (int u = 0; u < NumTenants; u++) begin
        hold_below_d[t*NumTenants + u] = sp_hold[u] && (t_prio_i[t*2 +: 2] > t_prio_i[u*2 +: 2]);
        blocked_d[t] = blocked_d[t] || (grant_t[u] && hold_below_d[t*NumTenants + u]);
      end
    end
    // the credit of the next clock: entries then + a plain grant executing then < depth
    // (compares for equality: the add and compare mapped to a carry chain)
    arb_crypto = arb_valid && ((arb_onehot & q_crypto) != '0);
    plain_ok_d = (fifo_cnt_next != FIFO_DEPTH) &&
                 !(arb_valid && !arb_crypto && fifo_cnt_next == FIFO_DEPTH - 2'd1);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      blocked_q  <= '0;
      plain_ok_q <= 1'b1;  // the FIFO is empty, nothing executes
    end else begin
      blocked_q  <= blocked_d;
      plain_ok_q <= plain_ok_d;
    end
  end
  always_comb begin
    crypto_wait_o = '0;
    crypto_want_o = '0;
    for (int q = 0; q < NumQueues; q++) begin
      q_crypto[q]  = (head_op[q*2 +: 2] != 2'd0);
      q_backlog[q] = head_valid[q];  // a frame queued (the queues' HeadValid_A)
      q_elig[q]    = head_valid[q] && conform_i[q/2] && !blocked_q[q/2] &&
                     (q_crypto[q] ? can_claim_i[q/2] : plain_ok_q);
      if (head_valid[q] && q_crypto[q] && !can_claim_i[q/2]) begin
        crypto_wait_o[q/2] = 1'b1;
      end
      if (head_valid[q] && q_crypto[q] && conform_i[q/2] && enable_i && t_enable_i[q/2] &&
          !inflight[q/2]) begin
        crypto_want_o[q/2] = 1'b1;
      end
    end
  end
`ifndef SYNTHESIS
  // the rules the flops stand for, from the grant flop and the FIFO count of this clock
  // (hold_below_q: the pairs' holds of the clock before, for the assertion only)
  logic [NumTenants*NumTenants-1:0] hold_below_q;
  logic [NumTenants-1:0]            below;  // tenants of a level below the one in flight
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_below_q <= '0;
    end else begin
      hold_below_q <= hold_below_d;
    end
  end
  always_comb begin
    for (int t = 0; t < NumTenants; t++) begin
      below[t] = 1'b0;
      for (int u = 0; u < NumTenants; u++) begin
        below[t] = below[t] || (inflight[u] && hold_below_q[t*NumTenants + u]);
      end
    end
  end
  `NICSCHED_ASSERT(BlockedIsRule_A, blocked_q == (inflight | below))
  `NICSCHED_ASSERT(PlainOkIsCredit_A,
                   plain_ok_q == ((fifo_cnt != FIFO_DEPTH) && !(exec_plain && fifo_cnt == FIFO_DEPTH - 2'd1)))
`endif

  nicsched_arbiter #(
    .NumTenants(NumTenants),
    .LenW      (LenW),
    .TsW       (TsW)
  ) u_arbiter (
    .clk_i,
    .rst_ni,
    .enable_i,
    .mode_i,
    .t_enable_i,
    .t_prio_i,
    .t_quantum_i,
    .ctrl_level_i,
    .ctrl_conform_i,
    .now_i,
    .q_elig_i      (q_elig),
    .q_backlog_i   (q_backlog),
    .q_len_i       (head_len),
    .q_ts_i        (head_ts),
    .grant_valid_o (arb_valid),
    .grant_queue_o (arb_queue),
    .grant_onehot_o(arb_onehot),
    .grant_ctrl_o  (arb_ctrl)
  );

  // the grant flop
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      gq_valid_q  <= 1'b0;
      gq_queue_q  <= '0;
      gq_onehot_q <= '0;
      gq_ctrl_q   <= 1'b0;
      gq_crypto_q <= 1'b0;
    end else begin
      gq_valid_q  <= arb_valid;
      gq_queue_q  <= arb_queue;
      gq_onehot_q <= arb_valid ? arb_onehot : '0;
      gq_ctrl_q   <= arb_valid && arb_ctrl;
      gq_crypto_q <= arb_crypto;
    end
  end
  assign deq_queue    = gq_queue_q;
  assign sched_ctrl_o = gq_ctrl_q;

  // the head of the grant in flight: still the head of its queue in this clock (its
  // tenant was masked, so nothing dequeued it since the decision). An AND-OR of the
  // one-hot grant flop, not an if-chain (which maps to a NumQueues-deep priority chain of
  // LUTs: the 8-tenant core's worst path on h10-wip, 7 LUT levels): at most one term is
  // non-zero.
  logic [CellW-1:0] g_cell;
  logic [LenW-1:0]  g_len;
  logic [TsW-1:0]   g_ts;
  always_comb begin
    g_cell   = '0;
    g_len    = '0;
    g_ts     = '0;
    for (int q = 0; q < NumQueues; q++) begin
      g_cell = g_cell | (head_cell[q*CellW +: CellW] & {CellW{gq_onehot_q[q]}});
      g_len  = g_len | (head_len[q*LenW +: LenW] & {LenW{gq_onehot_q[q]}});
      g_ts   = g_ts | (head_ts[q*TsW +: TsW] & {TsW{gq_onehot_q[q]}});
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  logic [QueueW:0] deq_queue_x;  // {queue, 0}: tenant = queue >> 1
  /* verilator lint_on UNUSEDSIGNAL */
  assign deq_queue_x    = {deq_queue, 1'b0};
  assign sched_oh_o = inflight;
  always_comb begin
    for (int t = 0; t < NumTenants; t++) begin
      // the tenant's granted head: its control queue's or its bulk queue's
      sched_len_o[t*LenW +: LenW] = gq_onehot_q[2*t] ? head_len[(2*t)*LenW +: LenW]
                                                     : head_len[(2*t+1)*LenW +: LenW];
    end
  end
  // the grant's tenant and length, as the shapers see them per tenant
  `NICSCHED_ASSERT(SchedIsGrant_A, sched_oh_o == (gq_valid_q ? (NumTenants'(1) << claim_tenant_o) : '0))
  `NICSCHED_ASSERT(SchedLenIsGrant_A, !gq_valid_q || sched_len_o[claim_tenant_o*LenW +: LenW] == g_len)

  assign claim_o        = gq_valid_q && gq_crypto_q;
  assign claim_tenant_o = deq_queue_x[TenantW+1:2];
  assign claim_len_o    = g_len;
  assign claim_tag_o    = {g_cell, g_len, deq_queue, g_ts};
  assign claim_key_o    = deq_queue;

  // plain descriptors waiting for the egress: {cell, len, queue, ts}
  localparam int DescW = CellW + LenW + QueueW + TsW;
  logic [DescW-1:0]           exec_desc, fifo_head;
  logic                       fifo_pop, fifo_push, bypass;
  assign exec_desc = {g_cell, g_len, deq_queue, g_ts};

  // egress descriptor: crypto completions first, then the FIFO, then the executing grant
  always_comb begin
    eg_op    = 2'd0;
    fifo_pop = 1'b0;
    bypass   = 1'b0;
    if (done_valid_i) begin
      eg_valid = 1'b1;
      {eg_cell, eg_len, eg_queue, eg_ts} = done_tag_i;
      eg_op    = CryptoOp;
    end else if (fifo_cnt != 2'd0) begin
      eg_valid = 1'b1;
      {eg_cell, eg_len, eg_queue, eg_ts} = fifo_head;
      fifo_pop = eg_ready;
    end else begin
      eg_valid = exec_plain;
      {eg_cell, eg_len, eg_queue, eg_ts} = exec_desc;
      bypass   = eg_ready;
    end
  end
  assign done_ready_o = eg_ready;
  assign fifo_push    = exec_plain && !bypass;

  nicsched_desc_fifo #(
    .Width(DescW),
    .Depth(FifoDepth)
  ) u_desc_fifo (
    .clk_i,
    .rst_ni,
    .push_i (fifo_push),
    .data_i (exec_desc),
    .pop_i  (fifo_pop),
    .head_o      (fifo_head),
    .count_o     (fifo_cnt),
    .count_next_o(fifo_cnt_next)
  );

  nicsched_egress #(
    .DataWidth(DataWidth),
    .CellW    (CellW),
    .QueueW   (QueueW),
    .LenW     (LenW),
    .TsW      (TsW)
  ) u_egress (
    .clk_i,
    .rst_ni,
    .now_i,
    .desc_valid_i   (eg_valid),
    .desc_ready_o   (eg_ready),
    .desc_cell_i    (eg_cell),
    .desc_len_i     (eg_len),
    .desc_queue_i   (eg_queue),
    .desc_op_i      (eg_op),
    .desc_ts_i      (eg_ts),
    .rd_en_o        (rd_en),
    .rd_cell_o      (rd_cell),
    .rd_data_i      (rd_data),
    .rd_next_i      (rd_next),
    .free_valid_o   (free_valid),
    .free_head_o    (free_head),
    .free_tail_o    (free_tail),
    .m_axis_tdata,
    .m_axis_tkeep,
    .m_axis_tvalid,
    .m_axis_tready,
    .m_axis_tlast,
    .m_axis_tuser,
    .ev_lat_valid_o (lat_valid_o),
    .ev_lat_queue_o (lat_queue_o),
    .ev_lat_cycles_o(lat_cycles_o),
    .ev_sent_valid_o(sent_valid_o),
    .ev_sent_queue_o(sent_queue_o),
    .ev_sent_len_o  (sent_len_o)
  );

  // a plain grant in flight always has the egress or a FIFO entry (the credit rule; the
  // FIFO's own NoOverflow_A, NoUnderflow_A)
  // at most one tenant in flight (the arbiter's one-hot grant): the AND-OR of `below` is
  // the selected tenant's rule
  `NICSCHED_ASSERT(InflightOnehot_A, (inflight & (inflight - NumTenants'(1))) == '0)
  // the grant in flight is still its queue's head
  `NICSCHED_ASSERT(GrantHeadValid_A, !gq_valid_q || (gq_onehot_q & head_valid) == gq_onehot_q)

endmodule

`default_nettype wire
