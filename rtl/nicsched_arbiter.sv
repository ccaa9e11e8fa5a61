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
// DWRR: every tenant has a signed deficit. A tenant with deficit > 0 may be picked
// (round robin from the last grant of its level); the grant subtracts the frame's
// length. When no eligible tenant of the level has credit, a round ends: every
// backlogged tenant of the level with deficit <= 0 gains its quantum, and the pick is
// made from the new deficits in the same clock. A tenant whose queues empty loses its
// positive credit (kept debt stays). So a decision is made every clock whenever a
// quantum is at least one frame length; smaller quanta make a round take several clocks.
// Nothing inside a level starves: round robin visits every eligible tenant.
`default_nettype none

module nicsched_arbiter #(
  parameter int NumTenants = 8,   // tenants; queues = NumTenants * 2
  parameter int LenW       = 16,  // frame length bits
  parameter int TsW        = 32,  // enqueue timestamp bits
  // derived
  parameter int NumQueues  = NumTenants * 2,
  parameter int QueueW     = $clog2(NumQueues),
  parameter int TenantW    = (NumTenants > 1) ? $clog2(NumTenants) : 1
) (
  input  wire logic                    clk_i,
  input  wire logic                    rst_ni,
  // configuration (active copies)
  input  wire logic                    enable_i,      // CTRL.ENABLE
  input  wire logic [1:0]              mode_i,        // CTRL.ARB_MODE
  input  wire logic [NumTenants-1:0]   t_enable_i,    // T_CTRL.ENABLE
  input  wire logic [NumTenants*2-1:0] t_prio_i,      // T_CTRL.PRIORITY
  input  wire logic [NumTenants*16-1:0] t_quantum_i,  // T_WEIGHT.QUANTUM (0 counts as 1)
  // queue heads
  input  wire logic [TsW-1:0]          now_i,         // cycle counter
  input  wire logic [NumQueues-1:0]    q_elig_i,      // head may leave now
  input  wire logic [NumQueues-1:0]    q_backlog_i,   // queue holds frames
  input  wire logic [NumQueues*LenW-1:0] q_len_i,     // head frame length, bytes
  input  wire logic [NumQueues*TsW-1:0]  q_ts_i,      // head enqueue time
  // decision
  output logic                         grant_valid_o,
  output logic [QueueW-1:0]            grant_queue_o,
  output logic [NumQueues-1:0]         grant_onehot_o
);
  localparam logic [1:0] MODE_FIFO    = nicsched_regs_pkg::CTRL_ARB_MODE_FIFO;
  localparam logic [1:0] MODE_SP      = nicsched_regs_pkg::CTRL_ARB_MODE_SP;
  localparam logic [1:0] MODE_DWRR    = nicsched_regs_pkg::CTRL_ARB_MODE_DWRR;
  localparam logic [1:0] MODE_SP_DWRR = nicsched_regs_pkg::CTRL_ARB_MODE_SP_DWRR;
  localparam int DefW = LenW + 4;  // signed deficit: -(max len) .. quantum
  localparam logic [31:0] NT32 = NumTenants;

  if (NumTenants < 1 || NumTenants > 64) begin : gen_bad_tenants
    $error("nicsched_arbiter %m: NumTenants must be in 1..64");
  end

  logic [NumTenants*DefW-1:0]    def_q, def_d;      // deficits (signed)
  logic [4*TenantW-1:0]          rr_q, rr_d;        // last grant per level

  // per-tenant candidate
  logic [NumTenants-1:0]         t_elig, t_backlog, t_cls;
  logic [NumTenants*LenW-1:0]    t_len;
  logic [NumTenants*2-1:0]       t_lvl;
  logic [1:0]                    top_lvl;
  logic                          any_elig;
  logic [NumTenants-1:0]         in_lvl, credit, after, repl_set, pick_mask;
  logic                          use_dwrr, replenish;
  logic [TenantW-1:0]            rr_ptr, pick;
  logic                          pick_found;
  logic [NumTenants*DefW-1:0]    def_repl;          // deficits after a round's quantum

  always_comb begin
    for (int t = 0; t < NumTenants; t++) begin
      t_elig[t]    = enable_i && t_enable_i[t] && (q_elig_i[2*t] || q_elig_i[2*t+1]);
      t_backlog[t] = q_backlog_i[2*t] || q_backlog_i[2*t+1];
      t_cls[t]     = !q_elig_i[2*t];  // control first
      t_len[t*LenW +: LenW] = t_cls[t] ? q_len_i[(2*t+1)*LenW +: LenW]
                                       : q_len_i[2*t*LenW +: LenW];
      t_lvl[t*2 +: 2] = (mode_i == MODE_SP || mode_i == MODE_SP_DWRR) ? t_prio_i[t*2 +: 2]
                                                                      : 2'd0;
    end
  end

  // top level: the lowest level number with an eligible tenant
  always_comb begin
    top_lvl  = 2'd3;
    any_elig = 1'b0;
    for (int l = 3; l >= 0; l--) begin
      for (int t = 0; t < NumTenants; t++) begin
        if (t_elig[t] && t_lvl[t*2 +: 2] == l[1:0]) begin
          top_lvl  = l[1:0];
          any_elig = 1'b1;
        end
      end
    end
  end

  logic [DefW-1:0] quantum;
  always_comb begin
    use_dwrr = (mode_i == MODE_DWRR) || (mode_i == MODE_SP_DWRR);
    quantum  = '0;
    for (int t = 0; t < NumTenants; t++) begin
      quantum = {{(DefW-16){1'b0}}, t_quantum_i[t*16 +: 16]};
      if (quantum == '0) begin
        quantum = {{(DefW-1){1'b0}}, 1'b1};
      end
      in_lvl[t]   = t_elig[t] && (t_lvl[t*2 +: 2] == top_lvl);
      credit[t]   = in_lvl[t] && ($signed(def_q[t*DefW +: DefW]) > 0);
      repl_set[t] = enable_i && t_enable_i[t] && t_backlog[t] &&
                    (t_lvl[t*2 +: 2] == top_lvl) && ($signed(def_q[t*DefW +: DefW]) <= 0);
      def_repl[t*DefW +: DefW] = repl_set[t] ? def_q[t*DefW +: DefW] + quantum
                                             : def_q[t*DefW +: DefW];
      after[t]    = in_lvl[t] && ($signed(def_repl[t*DefW +: DefW]) > 0);
    end
    replenish = use_dwrr && any_elig && (credit == '0);
    if (!use_dwrr) begin
      pick_mask = in_lvl;
    end else if (replenish) begin
      pick_mask = after;
    end else begin
      pick_mask = credit;
    end
  end

  // round robin: first tenant of pick_mask after rr_ptr (cyclic)
  always_comb begin
    logic [31:0] idx;
    rr_ptr     = rr_q[top_lvl*TenantW +: TenantW];
    pick       = '0;
    pick_found = 1'b0;
    for (int k = 1; k <= NumTenants; k++) begin
      idx = {{(32-TenantW){1'b0}}, rr_ptr} + k;
      if (idx >= NT32) begin
        idx = idx - NT32;
      end
      if (!pick_found && pick_mask[idx[TenantW-1:0]]) begin
        pick_found = 1'b1;
        pick       = idx[TenantW-1:0];
      end
    end
  end

  // FIFO: oldest eligible head
  logic [QueueW-1:0] fifo_pick;
  logic              fifo_found;
  always_comb begin
    logic [TsW-1:0] best_age;
    logic [TsW-1:0] age;
    fifo_pick  = '0;
    fifo_found = 1'b0;
    best_age   = '0;
    for (int q = 0; q < NumQueues; q++) begin
      age = now_i - q_ts_i[q*TsW +: TsW];
      if (enable_i && t_enable_i[q/2] && q_elig_i[q] && (!fifo_found || age > best_age)) begin
        fifo_found = 1'b1;
        fifo_pick  = q[QueueW-1:0];
        best_age   = age;
      end
    end
  end

  // decision and state update
  logic [TenantW:0] pick_q_full;
  always_comb begin
    def_d = def_q;
    rr_d  = rr_q;
    pick_q_full = {pick, t_cls[pick]};
    if (mode_i == MODE_FIFO) begin
      grant_valid_o = fifo_found;
      grant_queue_o = fifo_pick;
    end else begin
      grant_valid_o = pick_found;
      grant_queue_o = pick_q_full[QueueW-1:0];
    end
    for (int l = 0; l < 4; l++) begin
      if (mode_i != MODE_FIFO && pick_found && top_lvl == l[1:0]) begin
        rr_d[l*TenantW +: TenantW] = pick;
      end
    end
    for (int t = 0; t < NumTenants; t++) begin
      if (mode_i != MODE_FIFO && replenish) begin
        def_d[t*DefW +: DefW] = def_repl[t*DefW +: DefW];
      end
      if (mode_i != MODE_FIFO && use_dwrr && pick_found && pick == t[TenantW-1:0]) begin
        def_d[t*DefW +: DefW] = def_d[t*DefW +: DefW] -
            {{(DefW-LenW){1'b0}}, t_len[t*LenW +: LenW]};
      end
      // an idle tenant keeps its debt but not its credit
      if (!t_backlog[t] && $signed(def_d[t*DefW +: DefW]) > 0) begin
        def_d[t*DefW +: DefW] = '0;
      end
    end
    for (int q = 0; q < NumQueues; q++) begin
      grant_onehot_o[q] = grant_valid_o && (grant_queue_o == q[QueueW-1:0]);
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      def_q <= '0;
      rr_q  <= '0;
    end else begin
      def_q <= def_d;
      rr_q  <= rr_d;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else if (grant_valid_o) begin
      assert ($onehot(grant_onehot_o));
      assert (q_elig_i[grant_queue_o]);   // only an eligible head is granted
    end
  end
`endif

endmodule

`default_nettype wire
