// nicsched_arbiter: egress scheduler, one decision per clock (FIFO / SP / DWRR / SP+DWRR).
//
// Inputs are the heads of every (tenant, class) queue: q_elig_i says a head may leave
// now (it is valid, and the shaper, the crypto slots and the egress stage allow it).
// The arbiter answers in the same clock (combinational grant, registered state).
// Modes (CTRL.ARB_MODE):
// - FIFO:    the eligible head with the oldest enqueue time across every queue, ties
//            to the lowest queue index (a plain NIC).
// - SP:      strict priority across 4 levels (T_CTRL.PRIORITY, 0 highest); round robin
//            by packets among the tenants of the top level.
// - DWRR:    deficit weighted round robin by bytes across every tenant (one level);
//            tenant t gets a share of the bytes proportional to its quantum.
// - SP_DWRR: strict priority across levels, DWRR inside the top level.
// Within a tenant the control class goes before bulk (except in FIFO mode).
// Control level (ctrl_level_i = CTRL.CONTROL_LEVEL, SP / DWRR / SP_DWRR): above every
// priority level sits one more, whose requests are the tenants' eligible control heads
// whose control bucket has tokens (ctrl_conform_i); round robin by packets among them, no
// deficit charged or refilled (the bucket bounds what the level takes). A control head
// without tokens is not dropped: it competes at its tenant's own level as any head does
// (control before bulk, deficit charged). grant_ctrl_o says the grant came from the
// control level (the control bucket pays for it). In FIFO mode the level does not exist.
// DWRR: every tenant has a signed deficit. A tenant with deficit > 0 may be picked
// (round robin from the last grant of its level); the grant subtracts the frame's
// length. When no eligible tenant of the level has credit, a round ends: every
// backlogged tenant of the level with deficit <= 0 gains 2^m quanta, and the pick is made
// among the level's eligible tenants (all of which now have credit) in the same clock.
// The refill exponent m and the quanta it multiplies are those of the clock before (a flop,
// exp_q, and the quanta registered beside it): m is the least (0..LenW) for which, at the
// start of that clock, every tenant with deficit <= 0 (any level, enabled or not,
// backlogged or not) would gain credit, and every tenant with an eligible head has 2^m
// quanta >= the length a grant would charge it. A deficit <= 0 now is one of the clock
// before or a grant's (credit >= 1 less such a frame), so every refill gives credit.
// 2^m quanta is 2^m rounds collapsed into one clock: every tenant of the level gains the
// same number of quanta, so byte shares stay proportional to the quanta, and a decision
// is made every clock whatever the quanta and frame lengths (work conserving). With
// quanta of at least one frame length and of every debt m is 0: plain rounds. A tenant
// whose queues empty loses its positive credit (kept debt stays). Nothing inside a level
// starves: round robin visits every eligible tenant.
// Deficits are DefW = LenW + QuantumW + 2 bits (QuantumW: T_WEIGHT.QUANTUM's width),
// signed: a grant needs credit >= 1, so a deficit stays >= -(2^LenW - 2); a refill gives
// at most 2^m * quantum with 2^(m-1) * quantum_min <= 2^LenW, i.e. < 2^(LenW + QuantumW +
// 1); nothing wraps.
// The control level is rank 0 of the decision, priority level l is rank 1 + l: one chain.
// Timing: the grant is combinational in the queue heads (q_elig_i, q_len_i, q_ts_i), so
// the logic between them and the grant is kept shallow and free of ripple chains:
//   - the deficit is held less one (def_m1_q = deficit - 1), so every test the rule makes
//     of it is a sign or a bit pattern: credit (deficit > 0) is the flop's sign bit; the
//     debt (-deficit, for deficit <= 0) is its complement (-(d + 1) = ~d in two's
//     complement), with no negation; a next deficit's credit is its own sum's sign, the
//     end of the carry chain that makes it, not a separate compare;
//   - what does not depend on the heads is ready before them: per level, which tenants
//     are enabled at that level (configuration), the credit bits, each tenant's refilled
//     deficit (from the deficits, the registered quanta and the refill exponent, a flop:
//     the exponent's compares and least-exponent search end in exp_q, not in the
//     deficits); the length a grant would charge is not selected before it is used: both
//     heads' compares with the shifted quanta and "deficit - length" (refilled or not) are
//     made from the head registers side by side, and the eligibility (control head
//     first) selects among the results; "refilled less the frame" is one carry chain
//     after a carry-save step (three operands);
//   - every level's pick is computed in parallel and the top level selects one; inside
//     a level both candidate masks (eligible tenants with credit, every eligible tenant)
//     are picked from in parallel and whether any has credit selects;
//   - round robin is nicsched_rr_pick: a masked lowest-set-bit search (tenants after the
//     rank's last grant; else all), i.e. OR prefixes, not a rotating index walk. The last
//     grant is held one-hot per rank (rr_last_q) and the mask "after it" is its OR
//     prefix, made from the flop at the start of the clock beside the request masks, so
//     the pick ends in the flop directly (the rank's pick is the next rr_last_q), with no
//     prefix after it;
//   - FIFO orders every pair of heads (in groups of 16 queues) from the heads alone, by
//     whether each ts is past now (the age wrapped) beside a compare of the two ts (no
//     subtraction now - ts), and the eligibility selects the oldest with one AND per
//     queue; groups meet in a balanced tree (log2 of the groups deep: none at 8 tenants);
//   - the grant is produced one-hot, and the queue number encoded from it.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_arbiter #(
  parameter int NumTenants = 8,   // tenants; queues = NumTenants * 2
  parameter int LenW       = 16,  // frame length bits
  parameter int TsW        = 32,  // enqueue timestamp bits
  // derived
  parameter int NumQueues  = NumTenants * 2,
  parameter int QueueW     = $clog2(NumQueues)
) (
  input  wire logic                    clk_i,
  input  wire logic                    rst_ni,
  // configuration (active copies)
  input  wire logic                    enable_i,      // CTRL.ENABLE
  input  wire logic [1:0]              mode_i,        // CTRL.ARB_MODE
  input  wire logic [NumTenants-1:0]   t_enable_i,    // T_CTRL.ENABLE
  input  wire logic [NumTenants*nicsched_regs_pkg::T_CTRL_PRIORITY_WIDTH-1:0] t_prio_i,  // T_CTRL.PRIORITY
  input  wire logic [NumTenants*nicsched_regs_pkg::T_WEIGHT_QUANTUM_WIDTH-1:0] t_quantum_i,  // T_WEIGHT.QUANTUM (0 counts as 1)
  input  wire logic                    ctrl_level_i,  // CTRL.CONTROL_LEVEL (0: no control level)
  input  wire logic [NumTenants-1:0]   ctrl_conform_i, // tenant's control bucket has tokens
  // queue heads
  input  wire logic [TsW-1:0]          now_i,         // cycle counter
  input  wire logic [NumQueues-1:0]    q_elig_i,      // head may leave now (implies q_backlog_i)
  input  wire logic [NumQueues-1:0]    q_backlog_i,   // queue holds frames
  input  wire logic [NumQueues*LenW-1:0] q_len_i,     // head frame length, bytes
  input  wire logic [NumQueues*TsW-1:0]  q_ts_i,      // head enqueue time
  // decision
  output logic                         grant_valid_o,
  output logic [QueueW-1:0]            grant_queue_o,
  output logic [NumQueues-1:0]         grant_onehot_o,
  output logic                         grant_ctrl_o   // the grant is at the control level
);
  localparam logic [1:0] MODE_FIFO    = nicsched_regs_pkg::CTRL_ARB_MODE_FIFO;
  localparam logic [1:0] MODE_SP      = nicsched_regs_pkg::CTRL_ARB_MODE_SP;
  localparam logic [1:0] MODE_DWRR    = nicsched_regs_pkg::CTRL_ARB_MODE_DWRR;
  localparam logic [1:0] MODE_SP_DWRR = nicsched_regs_pkg::CTRL_ARB_MODE_SP_DWRR;
  localparam int QuantumW  = nicsched_regs_pkg::T_WEIGHT_QUANTUM_WIDTH;  // t_quantum_i element
  localparam int PrioW     = nicsched_regs_pkg::T_CTRL_PRIORITY_WIDTH;    // t_prio_i element
  localparam int DefW      = LenW + QuantumW + 2;  // signed deficit (see the header)
  localparam int ExpN      = LenW + 1;  // refill exponents m = 0..LenW
  localparam int ExpW      = $clog2(ExpN + 1);
  localparam int CmpW      = (LenW > QuantumW) ? LenW : QuantumW;  // quantum vs debt >> s
  localparam int NumLevels = 1 << PrioW;  // strict-priority levels (T_CTRL.PRIORITY values)
  localparam int NumRanks  = NumLevels + 1;  // rank 0: the control level; rank 1 + l: level l
  localparam int FifoLeaves = 1 << QueueW;  // FIFO pick: queues rounded up to a power of 2
  localparam int FifoGroup  = (FifoLeaves < 16) ? FifoLeaves : 16;  // queues compared pairwise
  localparam int FifoGroups = FifoLeaves / FifoGroup;  // groups: the leaves of the age tree
  localparam int FifoNodes  = 2 * FifoGroups - 1;
  localparam int FifoGroupW = $clog2(FifoGroup);       // queue number bits inside a group
  localparam int FifoKeyW   = TsW + 1;                 // FIFO order key {ts > now, ~ts}
  localparam logic [NumTenants-1:0] RR_LAST_RESET = NumTenants'(1);  // as if tenant 0 was granted last

  if (NumTenants < 1 || NumTenants > 64) begin : gen_bad_tenants
    $error("nicsched_arbiter %m: NumTenants must be in 1..64");
  end
  if (LenW < 1 || LenW > 30) begin : gen_bad_len
    $error("nicsched_arbiter %m: LenW must be in 1..30");
  end

  // ---------------------------------------------------------------- state
  logic [NumTenants*DefW-1:0]      def_m1_q, def_m1_d;      // deficits less one (signed): deficit - 1
  logic [NumRanks*NumTenants-1:0]  rr_last_q, rr_last_d;    // per rank: its last grant, one-hot
  logic [ExpW-1:0]                 exp_q, exp_d;            // this clock's refill exponent m
  logic [NumTenants*QuantumW-1:0]  quantum_q, quantum_d;    // the quanta of the clock before (the refill's), 0 as 1

  // ---------------------------------------------------------------- ready before the heads
  logic                            sp_mode, use_dwrr, fifo_mode;
  logic [NumTenants-1:0]           t_backlog;   // a queue of the tenant holds frames
  logic [ExpN*NumQueues-1:0]       len_fits;    // [s][q]: 2^s quanta of q's tenant cover q's head
  logic [ExpN*NumTenants-1:0]      debt_fits;   // [s][t]: 2^s quanta cover t's debt (or t has credit)
  logic [ExpN*NumTenants-1:0]      fits;        // [s][t]: 2^s quanta cover the debt and the head
  logic [NumTenants*DefW-1:0]      refill_add;  // 2^m quanta of the clock before
  logic [NumTenants*DefW-1:0]      def_plus;    // deficit + 2^m quanta, less one
  logic [NumTenants-1:0]           pos;         // deficit > 0 (the sign of def_m1_q)
  logic [NumLevels*NumTenants-1:0] lvl_on;      // tenant enabled and at the level
  logic [NumTenants*PrioW-1:0]     t_lvl;       // tenant's level (T_CTRL.PRIORITY in SP modes, else 0)
  logic [ExpN-1:0]                 need;        // per exponent: some tenant not covered

  always_comb begin
    logic [QuantumW-1:0] q_raw;
    logic                q_zero;        // T_WEIGHT.QUANTUM is 0 (counted as 1)
    logic [LenW-1:0]     debt;          // -deficit, for a deficit <= 0 (< 2^LenW)
    logic [LenW-1:0]     len_m1;        // a head's length - 1 (2^s quanta >= len <=> > len - 1)
    logic                len_zero;
    logic [CmpW-1:0]     debt_s, len_s; // debt >> s, (len - 1) >> s
    logic [(1<<ExpW)-1:0] therm;        // need[0..LenW-1], zeros above
    logic [DefW-1:0]     refill_lo;     // quantum << (m mod 4)
    sp_mode   = (mode_i == MODE_SP) || (mode_i == MODE_SP_DWRR);
    use_dwrr  = (mode_i == MODE_DWRR) || (mode_i == MODE_SP_DWRR);
    fifo_mode = (mode_i == MODE_FIFO);
    for (int t = 0; t < NumTenants; t++) begin
      // The next clock's exponent, from this clock's flops, quanta and heads.
      // quantum * 2^s > x  <=>  quantum > floor(x / 2^s) (integers). The quantum's "0 counts
      // as 1" is taken beside the compare (1 > x <=> x == 0), not before it. Both heads'
      // compares are made from the head registers side by side, and the eligibility only
      // selects the one a grant would charge (control head first): the subtraction and the
      // compares are not behind the eligibility.
      q_raw    = t_quantum_i[t*QuantumW +: QuantumW];
      q_zero   = q_raw == '0;
      quantum_d[t*QuantumW +: QuantumW] = q_zero ? QuantumW'(1) : q_raw;
      pos[t]   = !def_m1_q[t*DefW + DefW-1];
      debt     = LenW'(~def_m1_q[t*DefW +: DefW]);  // -(deficit) = -(def_m1 + 1) = ~def_m1
      for (int s = 0; s < ExpN; s++) begin
        // 2^s quanta > debt (1 > x <=> x == 0 for a quantum of 0)
        debt_s = CmpW'(debt) >> s;
        debt_fits[s*NumTenants + t] = pos[t] || (CmpW'(q_raw) > debt_s) || (q_zero && debt_s == '0);
      end
      for (int c = 0; c < 2; c++) begin
        // 2^s quanta >= len  <=>  2^s quanta > len - 1 (a length of 0 always fits)
        len_zero = q_len_i[(2*t+c)*LenW +: LenW] == '0;
        len_m1   = q_len_i[(2*t+c)*LenW +: LenW] - LenW'(1);
        for (int s = 0; s < ExpN; s++) begin
          len_s = CmpW'(len_m1) >> s;
          len_fits[s*NumQueues + 2*t + c] = len_zero || (CmpW'(q_raw) > len_s) || (q_zero && len_s == '0);
        end
      end
      for (int s = 0; s < ExpN; s++) begin
        fits[s*NumTenants + t] = debt_fits[s*NumTenants + t] &&
            (q_elig_i[2*t]   ? len_fits[s*NumQueues + 2*t] :
             q_elig_i[2*t+1] ? len_fits[s*NumQueues + 2*t + 1] : 1'b1);
      end
      t_backlog[t] = q_backlog_i[2*t] || q_backlog_i[2*t+1];
      t_lvl[t*PrioW +: PrioW] = sp_mode ? t_prio_i[t*PrioW +: PrioW] : '0;
      for (int l = 0; l < NumLevels; l++) begin
        lvl_on[l*NumTenants + t] = enable_i && t_enable_i[t] && (t_lvl[t*PrioW +: PrioW] == l[PrioW-1:0]);
      end
    end
    // m: the least exponent at which every tenant is covered. need[] falls with s (each
    // compare holds from some exponent on: NeedFalls_A) and need[LenW] is 0 (quantum >= 1,
    // debt < 2^LenW, len < 2^LenW), so need[0..LenW-1] is a thermometer of m ones, and m's
    // bit k is 1 where the thermometer ends in the upper half of an aligned block of
    // 2^(k+1) exponents: an OR of two-input terms, not a priority search over the
    // exponents. fits is exponent-major so that need[s] is one mask test per exponent (word
    // operations in a simulator).
    for (int s = 0; s < ExpN; s++) begin
      need[s] = fits[s*NumTenants +: NumTenants] != '1;
    end
    therm = '0;
    therm[ExpN-2:0] = need[ExpN-2:0];
    for (int k = 0; k < ExpW; k++) begin
      exp_d[k] = 1'b0;
      for (int b = 0; b < (1 << ExpW); b += (2 << k)) begin
        exp_d[k] = exp_d[k] || (therm[b + (1 << k) - 1] && !therm[b + (2 << k) - 1]);
      end
    end
    // This clock's refill: the registered exponent and quanta, quantum << m as two selects
    // of four or more ways (by m's low two bits, then by the rest in steps of four), not a
    // shifter of log2(ExpN) two-way stages, whose shared stage outputs ABC mapped as four
    // LUT3 and two LUT2 in series in front of the refilled deficit's adder (8-tenant core);
    // the selects map as the low bits' decode, a LUT6 and a LUT3.
    for (int t = 0; t < NumTenants; t++) begin
      refill_lo = '0;
      for (int k = 0; k < 4; k++) begin
        refill_lo = refill_lo | ((DefW'(quantum_q[t*QuantumW +: QuantumW]) << k) &
                                 {DefW{exp_q[1:0] == 2'(k)}});
      end
      refill_add[t*DefW +: DefW] = '0;
      for (int k = 0; 4 * k < (1 << ExpW); k++) begin
        refill_add[t*DefW +: DefW] = refill_add[t*DefW +: DefW] |
            ((refill_lo << (4 * k)) & {DefW{(exp_q >> 2) == ExpW'(k)}});
      end
      def_plus[t*DefW +: DefW] = def_m1_q[t*DefW +: DefW] + refill_add[t*DefW +: DefW];
    end
  end

  // ---------------------------------------------------------------- SP / DWRR decision
  logic [NumTenants-1:0] t_req;                 // tenant has an eligible head
  logic [NumTenants-1:0] ctrl_req;              // ... a control head with tokens (control level)
  logic [NumRanks-1:0]   lvl_any;               // rank has an eligible tenant
  logic [NumRanks-1:0]   lvl_any_credit;        // ... one with credit (DWRR; the control level: any)
  logic [NumRanks-1:0]   top_is;                // one-hot: the top rank
  logic [NumRanks*NumTenants-1:0] lvl_pick;     // per rank: its pick, one-hot
  logic [NumTenants-1:0] pick_oh;               // the pick: one-hot tenant
  logic                  pick_found, replenish;
  logic [NumRanks*NumTenants-1:0] lvl_in;       // per rank: its eligible tenants
  logic [NumRanks*NumTenants-1:0] lvl_cr;       // ... those with credit (the control level: all)
  logic [NumRanks*NumTenants-1:0] lvl_pick_in;  // per rank: round robin among lvl_in, one-hot
  logic [NumRanks*NumTenants-1:0] lvl_pick_cr;  // ... among lvl_cr
  always_comb begin
    logic higher;                                // a higher rank has an eligible tenant
    for (int t = 0; t < NumTenants; t++) begin
      t_req[t]    = q_elig_i[2*t] || q_elig_i[2*t+1];
      ctrl_req[t] = ctrl_level_i && !fifo_mode && enable_i && t_enable_i[t] && q_elig_i[2*t] &&
                    ctrl_conform_i[t];
    end
    higher = 1'b0;
    for (int l = 0; l < NumRanks; l++) begin
      if (l == 0) begin
        lvl_in[0 +: NumTenants] = ctrl_req;
        lvl_cr[0 +: NumTenants] = ctrl_req;   // no deficits at the control level
      end else begin
        lvl_in[l*NumTenants +: NumTenants] = lvl_on[(l-1)*NumTenants +: NumTenants] & t_req;
        lvl_cr[l*NumTenants +: NumTenants] = use_dwrr ? (lvl_in[l*NumTenants +: NumTenants] & pos) : '0;
      end
      lvl_any[l]        = lvl_in[l*NumTenants +: NumTenants] != '0;
      lvl_any_credit[l] = lvl_cr[l*NumTenants +: NumTenants] != '0;
      top_is[l]         = lvl_any[l] && !higher;
      higher            = higher || lvl_any[l];
    end
  end
  // Per rank, round robin from its last grant over both candidate masks side by side (with
  // credit; every eligible tenant, which all have credit after a refill); "any credit"
  // selects.
  for (genvar l = 0; l < NumRanks; l++) begin : g_rank
    nicsched_rr_pick #(.NumReq(NumTenants)) u_pick_cr (
      .clk_i, .rst_ni,
      .last_i (rr_last_q[l*NumTenants +: NumTenants]),
      .req_i  (lvl_cr[l*NumTenants +: NumTenants]),
      .gnt_o  (lvl_pick_cr[l*NumTenants +: NumTenants])
    );
    nicsched_rr_pick #(.NumReq(NumTenants)) u_pick_in (
      .clk_i, .rst_ni,
      .last_i (rr_last_q[l*NumTenants +: NumTenants]),
      .req_i  (lvl_in[l*NumTenants +: NumTenants]),
      .gnt_o  (lvl_pick_in[l*NumTenants +: NumTenants])
    );
    assign lvl_pick[l*NumTenants +: NumTenants] =
        lvl_any_credit[l] ? lvl_pick_cr[l*NumTenants +: NumTenants] : lvl_pick_in[l*NumTenants +: NumTenants];
  end
  always_comb begin
    pick_oh = '0;
    replenish = 1'b0;
    for (int l = 0; l < NumRanks; l++) begin
      pick_oh   = pick_oh | (top_is[l] ? lvl_pick[l*NumTenants +: NumTenants] : '0);
      replenish = replenish || (use_dwrr && top_is[l] && !lvl_any_credit[l]);
    end
    pick_found = pick_oh != '0;
  end

  // ---------------------------------------------------------------- FIFO: oldest eligible head
  // A head's age is now - ts modulo 2^TsW. No subtraction is needed to order two ages: a
  // head with ts > now was enqueued before now last wrapped, so its age is
  // now - ts + 2^TsW, older than any head with ts <= now; between two heads on the same
  // side of the wrap the lower ts is the older. The order is that of the key
  // {ts > now, ~ts} (FifoKeyW bits, larger is older), and a pair is ordered by
  // "wrapped" (one compare with now per head) beside a compare of the two ts: compares
  // side by side, not a subtraction and then a compare.
  // Inside a group of FifoGroup queues every pair is compared from the heads alone (beside
  // the eligibility), and a queue wins its group when it is eligible and no other eligible
  // queue of the group beats it: the eligibility meets the ages in one AND per queue, not
  // in a compare per tree level. Groups (more than one from 16 tenants on) meet in a
  // balanced tree of key compares. Ties go to the lowest queue index throughout.
  logic [QueueW-1:0]    fifo_pick;
  logic [NumQueues-1:0] fifo_oh;     // the pick, one-hot
  logic                 fifo_found;
  always_comb begin
    logic [FifoLeaves-1:0]         lv;   // leaf: an eligible head
    logic [FifoLeaves-1:0]         lw;   // leaf: its ts is past now (enqueued before the wrap)
    logic [FifoLeaves*FifoKeyW-1:0] lk;  // leaf: its key {wrapped, ~ts}
    logic [FifoLeaves-1:0]         win;  // leaf: the oldest eligible head of its group
    logic [FifoNodes-1:0]          nv;   // node: some eligible head below
    logic [FifoNodes*FifoKeyW-1:0] nk;   // node: the oldest key below
    logic [FifoNodes*QueueW-1:0]   ni;   // node: its queue
    logic [FifoGroup*FifoGroup-1:0] lo_first;  // [i*G + j], i < j: queue i beats j (group g)
    logic [TsW-1:0]                ts_i, ts_j;
    logic                          take_r, beaten;
    // Only FIFO mode reads the pick (the grant selects it by the mode), so the compares
    // are made only then: the same logic once synthesised (the mode selects either way),
    // and a simulator skips them in the other modes.
    lv         = '0;
    lw         = '0;
    lk         = '0;
    win        = '0;
    nv         = '0;
    nk         = '0;
    ni         = '0;
    lo_first   = '0;
    ts_i       = '0;
    ts_j       = '0;
    take_r     = 1'b0;
    beaten     = 1'b0;
    fifo_found = 1'b0;
    fifo_pick  = '0;
    fifo_oh    = '0;
    if (fifo_mode) begin
      for (int q = 0; q < FifoLeaves; q++) begin
        if (q < NumQueues) begin  // (leaves beyond the queues stay cleared)
          lv[q] = enable_i && t_enable_i[q/2] && q_elig_i[q];
          lw[q] = q_ts_i[q*TsW +: TsW] > now_i;
          lk[q*FifoKeyW +: FifoKeyW] = {lw[q], ~q_ts_i[q*TsW +: TsW]};
        end
      end
      for (int g = 0; g < FifoGroups; g++) begin
        // one compare per pair: i < j, the lower queue i is at least as old as j
        lo_first = '0;
        for (int i = 0; i < FifoGroup; i++) begin
          for (int j = i + 1; j < FifoGroup; j++) begin
            ts_i = (g*FifoGroup + i < NumQueues) ? q_ts_i[(g*FifoGroup + i)*TsW +: TsW] : '0;
            ts_j = (g*FifoGroup + j < NumQueues) ? q_ts_i[(g*FifoGroup + j)*TsW +: TsW] : '0;
            lo_first[i*FifoGroup + j] =
                (lw[g*FifoGroup + i] && !lw[g*FifoGroup + j]) ||
                ((lw[g*FifoGroup + i] == lw[g*FifoGroup + j]) && (ts_i <= ts_j));
          end
        end
        for (int i = 0; i < FifoGroup; i++) begin
          beaten = 1'b0;
          for (int j = 0; j < FifoGroup; j++) begin
            if (j < i) begin
              beaten = beaten || (lv[g*FifoGroup + j] && lo_first[j*FifoGroup + i]);
            end else if (j > i) begin
              beaten = beaten || (lv[g*FifoGroup + j] && !lo_first[i*FifoGroup + j]);
            end
          end
          win[g*FifoGroup + i] = lv[g*FifoGroup + i] && !beaten;
        end
        // the group's winner as a tree leaf: an AND-OR of the one-hot win (at most one)
        nv[FifoGroups-1+g] = (win[g*FifoGroup +: FifoGroup] != '0);
        nk[(FifoGroups-1+g)*FifoKeyW +: FifoKeyW] = '0;
        ni[(FifoGroups-1+g)*QueueW +: QueueW]     = '0;
        for (int i = 0; i < FifoGroup; i++) begin
          nk[(FifoGroups-1+g)*FifoKeyW +: FifoKeyW] = nk[(FifoGroups-1+g)*FifoKeyW +: FifoKeyW] |
              (lk[(g*FifoGroup + i)*FifoKeyW +: FifoKeyW] & {FifoKeyW{win[g*FifoGroup + i]}});
          ni[(FifoGroups-1+g)*QueueW +: QueueW] = ni[(FifoGroups-1+g)*QueueW +: QueueW] |
              (QueueW'(g*FifoGroup + i) & {QueueW{win[g*FifoGroup + i]}});
        end
      end
      for (int n = FifoGroups - 2; n >= 0; n--) begin
        take_r = nv[2*n+2] &&
                 (!nv[2*n+1] || nk[(2*n+2)*FifoKeyW +: FifoKeyW] > nk[(2*n+1)*FifoKeyW +: FifoKeyW]);
        nv[n] = nv[2*n+1] || nv[2*n+2];
        nk[n*FifoKeyW +: FifoKeyW] = take_r ? nk[(2*n+2)*FifoKeyW +: FifoKeyW] : nk[(2*n+1)*FifoKeyW +: FifoKeyW];
        ni[n*QueueW +: QueueW]     = take_r ? ni[(2*n+2)*QueueW +: QueueW] : ni[(2*n+1)*QueueW +: QueueW];
      end
      fifo_found = nv[0];
      fifo_pick  = ni[0 +: QueueW];
      // one-hot: the group's winner, in the group the tree chose (one group: no choice)
      for (int q = 0; q < NumQueues; q++) begin
        fifo_oh[q] = win[q] && ((fifo_pick >> FifoGroupW) == QueueW'(q / FifoGroup));
      end
    end
  end

  // ---------------------------------------------------------------- grant
  always_comb begin
    for (int q = 0; q < NumQueues; q++) begin
      if (fifo_mode) begin
        grant_onehot_o[q] = fifo_oh[q];
      end else if (q % 2 == 0) begin
        grant_onehot_o[q] = pick_oh[q/2] && q_elig_i[q];     // control first
      end else begin
        grant_onehot_o[q] = pick_oh[q/2] && !q_elig_i[q-1];
      end
    end
    grant_valid_o = fifo_mode ? fifo_found : pick_found;
    grant_ctrl_o  = top_is[0];   // ctrl_req is empty in FIFO mode
    grant_queue_o = '0;
    if (fifo_mode) begin
      grant_queue_o = fifo_pick;
    end else begin
      for (int q = 0; q < NumQueues; q++) begin
        grant_queue_o = grant_queue_o | (grant_onehot_o[q] ? q[QueueW-1:0] : '0);
      end
    end
  end

  // ---------------------------------------------------------------- state update
  always_comb begin
    logic             granted;
    logic             refill;
    logic [DefW-1:0]  len_n;            // ~frame length (DefW bits): -len = ~len + 1
    logic [4*DefW-1:0] cand;            // next deficit less one: kept, refilled, granted, both
    logic [2*2*DefW-1:0] cand_head;     // [c]: granted, both, charging head c (0: control)
    logic [DefW-1:0]  cs_s;             // refilled less the frame, carry-save: sum
    logic [DefW-2:0]  cs_c;             // ... carries (the top bit's would leave the word)
    logic [1:0]       sel;              // {granted, refilled}
    def_m1_d  = def_m1_q;
    rr_last_d = rr_last_q;
    // the top rank's own pick (one-hot, never zero: the rank has an eligible tenant)
    for (int l = 0; l < NumRanks; l++) begin
      if (!fifo_mode && top_is[l]) begin
        rr_last_d[l*NumTenants +: NumTenants] = lvl_pick[l*NumTenants +: NumTenants];
      end
    end
    // Every next deficit a tenant may get (kept, refilled, less the frame, both) is computed
    // beside the pick, which then only selects among them; whether it is positive is its
    // sign bit (the deficit is held less one), so nothing is compared after the select.
    for (int t = 0; t < NumTenants; t++) begin
      // kept: an idle tenant keeps its debt but not its credit (deficit 0: less one, all
      // ones). A tenant without a frame is neither granted nor refilled, so this is the
      // only candidate it can take.
      cand[0*DefW +: DefW] = (!t_backlog[t] && pos[t]) ? '1 : def_m1_q[t*DefW +: DefW];
      cand[1*DefW +: DefW] = def_plus[t*DefW +: DefW];
      // Less the frame, for each head side by side from the head registers; the eligibility
      // selects the charged one (control head first) after the sums.
      for (int c = 0; c < 2; c++) begin
        len_n = ~{{(DefW-LenW){1'b0}}, q_len_i[(2*t+c)*LenW +: LenW]};
        // (deficit - len) - 1 = def_m1 + ~len + 1
        cand_head[(2*c+0)*DefW +: DefW] = def_m1_q[t*DefW +: DefW] + len_n + DefW'(1);
        // refilled less the frame: def_m1 + ~len + 1 + 2^m quanta, three operands reduced
        // to a sum and a carry word (one LUT a bit; the + 1 in the carry word's free bit),
        // then one carry chain: the frame comes off beside the refill's exponent and shift
        cs_s = def_m1_q[t*DefW +: DefW] ^ len_n ^ refill_add[t*DefW +: DefW];
        cs_c = (def_m1_q[t*DefW +: DefW-1] & len_n[DefW-2:0]) |
               (def_m1_q[t*DefW +: DefW-1] & refill_add[t*DefW +: DefW-1]) |
               (len_n[DefW-2:0] & refill_add[t*DefW +: DefW-1]);
        cand_head[(2*c+1)*DefW +: DefW] = cs_s + {cs_c, 1'b1};
      end
      cand[2*DefW +: 2*DefW] = q_elig_i[2*t] ? cand_head[0 +: 2*DefW] : cand_head[2*DefW +: 2*DefW];
      // A round ends: every backlogged tenant of the top level without credit gains 2^m quanta
      // (never at the control level, where every request has credit).
      refill = 1'b0;
      for (int l = 0; l < NumLevels; l++) begin
        refill = refill || (top_is[l+1] && lvl_on[l*NumTenants + t]);
      end
      refill  = replenish && refill && t_backlog[t] && !pos[t];
      granted = use_dwrr && pick_oh[t] && !top_is[0];  // the control level charges no deficit
      sel     = {granted, refill};
      // (an explicit 4-way select: an indexed part-select cand[sel*DefW +: DefW] would be a
      // multiply and a barrel shift of the whole candidate vector)
      unique case (sel)
        2'b00:   def_m1_d[t*DefW +: DefW] = cand[0*DefW +: DefW];
        2'b01:   def_m1_d[t*DefW +: DefW] = cand[1*DefW +: DefW];
        2'b10:   def_m1_d[t*DefW +: DefW] = cand[2*DefW +: DefW];
        default: def_m1_d[t*DefW +: DefW] = cand[3*DefW +: DefW];
      endcase
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      def_m1_q   <= '1;  // deficits 0
      rr_last_q  <= {NumRanks{RR_LAST_RESET}};
      exp_q      <= '0;
      quantum_q  <= {NumTenants{QuantumW'(1)}};  // 0 after reset, counted as 1
    end else begin
      def_m1_q   <= def_m1_d;
      rr_last_q  <= rr_last_d;
      exp_q      <= exp_d;
      quantum_q  <= quantum_d;
    end
  end

  for (genvar t = 0; t < NumTenants; t++) begin : g_tenant_assert
    // a refill gives credit to every tenant, whatever its level, enable and backlog: the
    // exponent of the clock before covered every debt then and every head a grant could
    // charge (refilled deficit > 0: less one, >= 0)
    `NICSCHED_ASSERT(RefillCredit_A, pos[t] || $signed(def_plus[t*DefW +: DefW]) >= 0)
    // a tenant without a frame is never picked (so its only next deficit is the kept one)
    `NICSCHED_ASSERT(IdleNotPicked_A, t_backlog[t] || !pick_oh[t])
    // the bound of the header: a grant needs credit >= 1, so debt stays < 2^LenW - 1
    // (deficit >= -(2^LenW - 2): less one, >= -(2^LenW - 1)), and the debt is the low
    // LenW bits of ~def_m1_q
    `NICSCHED_ASSERT(DebtBound_A, $signed(def_m1_q[t*DefW +: DefW]) >= -$signed({{(DefW-LenW){1'b0}}, {LenW{1'b1}}}))
  end
  // the exponent's thermometer: once every tenant is covered at s, it is at s + 1
  `NICSCHED_ASSERT(NeedFalls_A, (need[ExpN-1:1] & ~need[ExpN-2:0]) == '0)
  `NICSCHED_ASSERT(GrantOnehot_A, !grant_valid_o || $onehot(grant_onehot_o))
  `NICSCHED_ASSERT(GrantEligible_A, !grant_valid_o || q_elig_i[grant_queue_o])  // only an eligible head

endmodule

`default_nettype wire
