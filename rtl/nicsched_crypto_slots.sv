// nicsched_crypto_slots: pool of crypto engine slots shared by TX encrypt and RX decrypt.
//
// Behaviour
// - CryptoSlots slots. A frame that needs crypto claims one (claim_*; direction 0 TX,
//   1 RX) and holds it for ceil(len / BYTES_PER_CYCLE) + LATENCY clocks (BYTES_PER_CYCLE
//   0 counts as 1; both latched at the claim): the engine model. The slot then offers
//   the frame's tag back on done_*; the slot is free again in the clock after the tag is
//   taken (done_ready_i), so a slot also covers the engine's output waiting for the link.
//   Frames with the same key (claim_key_i: the queue) come back in the order they were
//   claimed: a finished frame waits while an older frame of its key and direction is
//   still held (frames of a queue never overtake each other).
// - A tenant holds at most quota_i[t] slots (TX and RX together); quota 0 keeps its
//   crypto frames waiting. The pool works with quota_i as it was one clock before (a
//   COMMIT's new quota counts from the clock after the one it lands in), so that the
//   permission below is a flop. can_claim_o in clock t says, per direction and tenant, that a
//   claim in clock t+1 is allowed (the paths register their grant: issue 16). It is 0 in
//   a clock with a claim of either direction, so the state a permission of t was made
//   from changes only by releases before the claim it allows (claims drop to at most one
//   per two clocks per direction). Both directions may claim in one clock: they take
//   turns being the direction that may use the last free slot / the last unit of a
//   quota, so neither direction's permission depends on the other's. The turn passes to
//   the other direction when that one waits for a slot only the turn would give it
//   (want_i: a crypto head of the tenant is otherwise eligible; a slot is free and the
//   tenant is below its quota, but the turn alone keeps it from a claim), except in a
//   clock with a claim (its slot is not yet counted, so the turn would pass back for a
//   slot already taken: under steady TX claims RX never got a slot), and stays otherwise. So under
//   contention the last slot, and the last unit of a tenant's quota, alternate between
//   TX and RX, and a direction alone gets the turn the clock after it needs it. (A turn
//   passed every clock locked onto the parity of the hold times and could starve a
//   direction.)
// - busy_*_o: slots in their hold time per tenant and direction this clock (the
//   slot-busy cycle counters add these); held_o: slots each tenant holds.
// Timing: permission in clock t-1, claim at edge t, hold clocks t+1 .. t+H, done_valid_o
// from clock t+H+1. can_claim_o is a flop and one gate: the permission from the state
// alone (can_now_q) is computed at each edge from the state after it (the slots held per
// tenant and free slots after its claims and releases, the turn after it, and the quota
// the pool will work with: quota_i now), and gated by this clock's claims.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_crypto_slots #(
  parameter int NumTenants  = 8,   // tenants
  parameter int CryptoSlots = 4,   // engine slots
  parameter int LenW        = 16,  // frame length bits
  parameter int TagW        = 32,  // bits carried with each frame (its descriptor)
  parameter int KeyW        = 4,   // ordering key bits (the queue)
  // derived
  parameter int TenantW     = (NumTenants > 1) ? $clog2(NumTenants) : 1,
  parameter int SlotW       = (CryptoSlots > 1) ? $clog2(CryptoSlots) : 1,
  parameter int BusyW       = $clog2(CryptoSlots + 1),
  // register fields' widths, from the generated package
  parameter int BpcW        = nicsched_regs_pkg::CRYPTO_ENGINE_BYTES_PER_CYCLE_WIDTH,
  parameter int LatW        = nicsched_regs_pkg::CRYPTO_ENGINE_LATENCY_WIDTH,
  parameter int QuotaW      = nicsched_regs_pkg::T_CTRL_CRYPTO_QUOTA_WIDTH,
  parameter int HeldW       = nicsched_regs_pkg::CR_SLOTS_HELD_COUNT_WIDTH,
  parameter int TotalW      = nicsched_regs_pkg::CRYPTO_BUSY_SLOTS_WIDTH
) (
  input  wire logic                        clk_i,
  input  wire logic                        rst_ni,
  input  wire logic [BpcW-1:0]             bpc_i,        // CRYPTO_ENGINE.BYTES_PER_CYCLE
  input  wire logic [LatW-1:0]             latency_i,    // CRYPTO_ENGINE.LATENCY
  input  wire logic [NumTenants*QuotaW-1:0] quota_i,     // T_CTRL.CRYPTO_QUOTA
  output logic [2*NumTenants-1:0]          can_claim_o,  // [dir*NumTenants + t]
  input  wire logic [2*NumTenants-1:0]     want_i,       // [dir*NumTenants + t]: a crypto
                                                         // head of t waits for a slot only
  input  wire logic [1:0]                  claim_i,      // per direction
  input  wire logic [2*TenantW-1:0]        claim_tenant_i,
  input  wire logic [2*LenW-1:0]           claim_len_i,
  input  wire logic [2*TagW-1:0]           claim_tag_i,
  input  wire logic [2*KeyW-1:0]           claim_key_i,
  output logic [1:0]                       done_valid_o, // per direction
  output logic [2*TagW-1:0]                done_tag_o,
  input  wire logic [1:0]                  done_ready_i,
  output logic [NumTenants*BusyW-1:0]      busy_tx_o,    // slots in hold, TX, per tenant
  output logic [NumTenants*BusyW-1:0]      busy_rx_o,    // slots in hold, RX, per tenant
  output logic [NumTenants*HeldW-1:0]      held_o,       // slots held per tenant
  output logic [TotalW-1:0]                held_total_o  // slots not free
);
  localparam logic [1:0] ST_FREE = 2'd0;
  localparam logic [1:0] ST_HOLD = 2'd1;
  localparam logic [1:0] ST_DONE = 2'd2;
  localparam int RemW = LenW + 2;  // signed bytes still to process
  localparam logic [TotalW-1:0] SLOTS = TotalW'(CryptoSlots);

  if (CryptoSlots < 1 || CryptoSlots > 64) begin : gen_bad_slots
    $error("nicsched_crypto_slots %m: CryptoSlots must be in 1..64");
  end
  if (BusyW > HeldW || BusyW > TotalW) begin : gen_bad_widths
    $error("nicsched_crypto_slots %m: the slot counts must fit HeldW and TotalW");
  end

  logic [CryptoSlots*2-1:0]       st_q, st_d;
  logic [CryptoSlots-1:0]         dir_q, dir_d;
  logic [CryptoSlots*TenantW-1:0] ten_q, ten_d;
  logic [CryptoSlots*RemW-1:0]    rem_q, rem_d;
  logic [CryptoSlots*LatW-1:0]    lat_q, lat_d;
  logic [CryptoSlots*BpcW-1:0]    bpc_q, bpc_d;
  logic [CryptoSlots*TagW-1:0]    tag_q, tag_d;
  logic [CryptoSlots*KeyW-1:0]    key_q, key_d;
  // [s*S + o]: slot o claimed before s (the claim order alone: read only by
  // BlocksIsKeyOrder_A, the reference for blocks_q; synthesis drops it)
  logic [CryptoSlots*CryptoSlots-1:0] older_q, older_d;
  // [s*S + o]: slot o was claimed before s with the same key and direction (set at s's
  // claim, from o's flops and the claim's key; cleared when o is claimed again)
  logic [CryptoSlots*CryptoSlots-1:0] blocks_q, blocks_d;
  logic [CryptoSlots-1:0]         may_leave;              // done, and no older frame of its key
  logic                           prio_q, prio_d;  // direction that may take the last slot
  logic [2*NumTenants-1:0]        can_now_q, can_now_d;  // permission from the state alone
  logic [NumTenants*QuotaW-1:0]   quota_q;          // the quota the pool works with: quota_i delayed

  // Slots held per tenant and free slots are flops (held_q, free_q), counted from which
  // slots are occupied after the edge (occ_d: claims and releases only, not the hold
  // countdown), so the claim permission below starts at flops: in the core it feeds each
  // path's eligibility and the arbiter's decision in the same clock. Counts are BusyW bits
  // (they never exceed CryptoSlots).
  logic [NumTenants*BusyW-1:0] held_q, held_d;
  logic [BusyW-1:0]            free_q, free_d;
  logic [CryptoSlots-1:0]      occ_q, occ_d;        // slot not free (now / after the edge)
  logic [CryptoSlots-1:0]      hold_q;              // slot in its hold time
  logic [2*CryptoSlots-1:0]    claim_at;            // [d*S + s]: direction d claims slot s
  logic [CryptoSlots-1:0]      released;            // slot s's completion is taken
  logic [SlotW-1:0]            slot_lo, slot_hi;    // lowest / highest free slot
  logic [1:0]                  done_found;
  logic [2*SlotW-1:0]          done_slot;
  logic [2*TenantW-1:0]        done_ten;            // the tenant of each direction's done slot

  // slots of occ (a set of slots) claimed by tenant t (ten: each slot's tenant)
  function automatic logic [BusyW-1:0] held_by(input logic [CryptoSlots-1:0] occ,
                                               input logic [CryptoSlots*TenantW-1:0] ten,
                                               input logic [TenantW-1:0] t);
    held_by = '0;
    for (int s = 0; s < CryptoSlots; s++) begin
      held_by = held_by + BusyW'(occ[s] && ten[s*TenantW +: TenantW] == t);
    end
  endfunction
  function automatic logic [BusyW-1:0] ones(input logic [CryptoSlots-1:0] v);
    ones = '0;
    for (int s = 0; s < CryptoSlots; s++) begin
      ones = ones + BusyW'(v[s]);
    end
  endfunction

  // counts
  always_comb begin
    slot_lo   = '0;
    slot_hi   = '0;
    for (int s = CryptoSlots - 1; s >= 0; s--) begin
      occ_q[s]  = st_q[s*2 +: 2] != ST_FREE;
      hold_q[s] = st_q[s*2 +: 2] == ST_HOLD;
      if (!occ_q[s]) begin
        slot_lo = s[SlotW-1:0];
      end
    end
    for (int s = 0; s < CryptoSlots; s++) begin
      if (!occ_q[s]) begin
        slot_hi = s[SlotW-1:0];
      end
    end
    for (int t = 0; t < NumTenants; t++) begin
      held_d[t*BusyW +: BusyW] = held_by(occ_d, ten_d, t[TenantW-1:0]);
      busy_tx_o[t*BusyW +: BusyW] = held_by(hold_q & ~dir_q, ten_q, t[TenantW-1:0]);
      busy_rx_o[t*BusyW +: BusyW] = held_by(hold_q & dir_q, ten_q, t[TenantW-1:0]);
      held_o[t*HeldW +: HeldW] = HeldW'(held_q[t*BusyW +: BusyW]);
    end
    free_d       = ones(~occ_d);
    held_total_o = SLOTS - TotalW'(free_q);
  end

  // the turn passes to the other direction when it waits for what only the turn gives
  logic [NumTenants-1:0] lenient;  // a claim would be allowed with the turn
  logic                  other_starved;
  always_comb begin
    other_starved = 1'b0;
    for (int t = 0; t < NumTenants; t++) begin
      // the permission of the direction holding the turn (PermissionIsState_A)
      lenient[t] = prio_q ? can_now_q[NumTenants + t] : can_now_q[t];
      if (prio_q) begin
        other_starved = other_starved || (want_i[t] && lenient[t] && !can_now_q[t]);
      end else begin
        other_starved = other_starved ||
            (want_i[NumTenants + t] && lenient[t] && !can_now_q[NumTenants + t]);
      end
    end
  end
  // not in a clock with a claim: the state the wants see there does not count the claim
  // about to land, so a direction could take the turn back for a slot already taken
  assign prio_d = (other_starved && claim_i == 2'b00) ? !prio_q : prio_q;

  // claim permission from a state (free slots, slots held per tenant, turn, quotas): the
  // direction with the turn may take the last free slot and the last unit of a quota, the
  // other leaves one of each
  function automatic logic [2*NumTenants-1:0] permission(input logic [BusyW-1:0] free,
                                                         input logic [NumTenants*BusyW-1:0] held,
                                                         input logic prio,
                                                         input logic [NumTenants*QuotaW-1:0] quota);
    for (int d = 0; d < 2; d++) begin
      for (int t = 0; t < NumTenants; t++) begin
        if (d[0] == prio) begin
          permission[d*NumTenants + t] = (TotalW'(free) >= TotalW'(1)) &&
              ((QuotaW+1)'(held[t*BusyW +: BusyW]) + (QuotaW+1)'(1) <= (QuotaW+1)'(quota[t*QuotaW +: QuotaW]));
        end else begin
          permission[d*NumTenants + t] = (TotalW'(free) >= TotalW'(2)) &&
              ((QuotaW+1)'(held[t*BusyW +: BusyW]) + (QuotaW+1)'(2) <= (QuotaW+1)'(quota[t*QuotaW +: QuotaW]));
        end
      end
    end
  endfunction
  // The permission of the next clock, from the state after this edge (quota_q takes
  // quota_i): permission(free_d, held_d, prio_d, quota_i), without the counts after the
  // edge in series with the compares (held_d is a popcount behind the completions' chain).
  // After the edge a tenant holds held_q + its claims - its releases and the pool has
  // free_q - claims + releases free, so every compare that could be needed is made from
  // flops (ok_held, ok_free) and this edge's claims, releases and turn only select one.
  logic [NumTenants*6-1:0] ok_held;  // [t*6 + m]: held_q[t] + m <= quota_i[t] + 1
  logic [5:0]              ok_free;  // [m]: m <= free_q + 1
  // count of two events as two bits, without an adder
  function automatic logic [1:0] count2(input logic a, input logic b);
    count2 = {a & b, a ^ b};
  endfunction
  // whether `need` more units fit after an edge with c claims and r releases, from the
  // compares made from flops (ok[m]: a count of m - 1 more fits, m = need + c - r + 1):
  // a select, not an add and compare (need is a constant at each call)
  function automatic logic fits_after(input logic [5:0] ok, input int need, input logic [1:0] c,
                                      input logic [1:0] r);
    fits_after = 1'b0;
    for (int ci = 0; ci < 3; ci++) begin
      for (int ri = 0; ri < 3; ri++) begin
        if (c == ci[1:0] && r == ri[1:0]) fits_after = ok[need + ci - ri + 1];
      end
    end
  endfunction
  always_comb begin
    logic [1:0] rel_dir;              // a completion of each direction is taken at this edge
    logic [1:0] claims_all, rels_all;
    logic [1:0] claims_t, rels_t;
    logic       ok_last, ok_spare;    // with the turn (need 1) / without it (need 2)
    for (int t = 0; t < NumTenants; t++) begin
      for (int m = 0; m < 6; m++) begin
        ok_held[t*6 + m] = (QuotaW+2)'(held_q[t*BusyW +: BusyW]) + (QuotaW+2)'(m) <=
                           (QuotaW+2)'(quota_i[t*QuotaW +: QuotaW]) + (QuotaW+2)'(1);
      end
    end
    for (int m = 0; m < 6; m++) begin
      ok_free[m] = 8'(m) <= 8'(free_q) + 8'd1;
    end
    rel_dir    = done_found & done_ready_i;
    claims_all = count2(claim_i[0], claim_i[1]);
    rels_all   = count2(rel_dir[0], rel_dir[1]);
    for (int t = 0; t < NumTenants; t++) begin
      claims_t = count2(claim_i[0] && claim_tenant_i[0 +: TenantW] == t[TenantW-1:0],
                        claim_i[1] && claim_tenant_i[TenantW +: TenantW] == t[TenantW-1:0]);
      rels_t   = count2(rel_dir[0] && done_ten[0 +: TenantW] == t[TenantW-1:0],
                        rel_dir[1] && done_ten[TenantW +: TenantW] == t[TenantW-1:0]);
      ok_last  = fits_after(ok_free, 1, claims_all, rels_all) && fits_after(ok_held[t*6 +: 6], 1, claims_t, rels_t);
      ok_spare = fits_after(ok_free, 2, claims_all, rels_all) && fits_after(ok_held[t*6 +: 6], 2, claims_t, rels_t);
      // the turn after the edge picks which (it comes last: its logic is the deepest)
      can_now_d[t]              = prio_d ? ok_spare : ok_last;
      can_now_d[NumTenants + t] = prio_d ? ok_last : ok_spare;
    end
  end
  // claim permission (for the next clock; none in a clock with a claim)
  assign can_claim_o = (claim_i != 2'b00) ? '0 : can_now_q;

  // completions: lowest slot in DONE per direction whose older same-key frames have left.
  // "Older with the same key and direction" is a flop per pair (blocks_q), set when the
  // younger frame is claimed: not the key compares of every pair here, in front of the
  // completion's select, the slot release and the egress's descriptor (the 8-tenant core's
  // egress left_q and the permission can_now_q started at key_q through these compares).
  always_comb begin
    for (int s = 0; s < CryptoSlots; s++) begin
      may_leave[s] = (st_q[s*2 +: 2] == ST_DONE);
      for (int o = 0; o < CryptoSlots; o++) begin
        if (o != s && blocks_q[s*CryptoSlots + o] && st_q[o*2 +: 2] != ST_FREE) begin
          may_leave[s] = 1'b0;
        end
      end
    end
  end

  always_comb begin
    done_found = '0;
    done_slot  = '0;
    done_tag_o = '0;
    done_ten   = '0;
    for (int d = 0; d < 2; d++) begin
      for (int s = CryptoSlots - 1; s >= 0; s--) begin
        if (may_leave[s] && dir_q[s] == d[0]) begin
          done_found[d]                 = 1'b1;
          done_slot[d*SlotW +: SlotW]   = s[SlotW-1:0];
        end
      end
      for (int s = 0; s < CryptoSlots; s++) begin
        if (done_slot[d*SlotW +: SlotW] == s[SlotW-1:0]) begin
          done_tag_o[d*TagW +: TagW]      = tag_q[s*TagW +: TagW];
          done_ten[d*TenantW +: TenantW] = ten_q[s*TenantW +: TenantW];
        end
      end
    end
    done_valid_o = done_found;
  end

  // which slots are claimed and released at the edge, and which are occupied after it
  always_comb begin
    for (int s = 0; s < CryptoSlots; s++) begin
      released[s] = 1'b0;
      for (int d = 0; d < 2; d++) begin
        claim_at[d*CryptoSlots + s] = claim_i[d] && (d == 0 ? slot_lo : slot_hi) == s[SlotW-1:0];
        released[s] = released[s] ||
                      (done_found[d] && done_ready_i[d] && done_slot[d*SlotW +: SlotW] == s[SlotW-1:0]);
      end
      occ_d[s] = claim_at[s] || claim_at[CryptoSlots + s] || (occ_q[s] && !released[s]);
    end
  end

  // slot state
  always_comb begin
    logic [RemW-1:0] rem_n;
    logic [LatW-1:0] lat_n;
    logic [BpcW-1:0] bpc;
    st_d  = st_q;
    dir_d = dir_q;
    ten_d = ten_q;
    rem_d = rem_q;
    lat_d = lat_q;
    bpc_d = bpc_q;
    tag_d = tag_q;
    key_d = key_q;
    older_d = older_q;
    blocks_d = blocks_q;
    rem_n = '0;
    lat_n = '0;
    for (int s = 0; s < CryptoSlots; s++) begin
      if (st_q[s*2 +: 2] == ST_HOLD) begin
        if ($signed(rem_q[s*RemW +: RemW]) > 0) begin
          rem_n = rem_q[s*RemW +: RemW] - RemW'(bpc_q[s*BpcW +: BpcW]);
          lat_n = lat_q[s*LatW +: LatW];
        end else begin
          rem_n = rem_q[s*RemW +: RemW];
          lat_n = lat_q[s*LatW +: LatW] - LatW'(1);
        end
        rem_d[s*RemW +: RemW] = rem_n;
        lat_d[s*LatW +: LatW] = lat_n;
        // rem_n <= 0 && lat_n == 0, from the flops (compares side by side, not after the
        // subtraction): processing ends with latency 0, or the latency runs out
        if ($signed(rem_q[s*RemW +: RemW]) > 0 ? ($signed(rem_q[s*RemW +: RemW]) <= $signed(RemW'(bpc_q[s*BpcW +: BpcW])) &&
                                               lat_q[s*LatW +: LatW] == '0)
                                            : lat_q[s*LatW +: LatW] == LatW'(1)) begin
          st_d[s*2 +: 2] = ST_DONE;
        end
      end
    end
    bpc = (bpc_i == '0) ? BpcW'(1) : bpc_i;
    for (int s = 0; s < CryptoSlots; s++) begin
      if (released[s]) begin
        st_d[s*2 +: 2] = ST_FREE;
      end
      for (int d = 0; d < 2; d++) begin
        if (claim_at[d*CryptoSlots + s]) begin
          st_d[s*2 +: 2]              = ST_HOLD;
          dir_d[s]                    = d[0];
          ten_d[s*TenantW +: TenantW] = claim_tenant_i[d*TenantW +: TenantW];
          rem_d[s*RemW +: RemW]       = {2'b0, claim_len_i[d*LenW +: LenW]};
          lat_d[s*LatW +: LatW]       = latency_i;
          bpc_d[s*BpcW +: BpcW]       = bpc;
          tag_d[s*TagW +: TagW]       = claim_tag_i[d*TagW +: TagW];
          key_d[s*KeyW +: KeyW]       = claim_key_i[d*KeyW +: KeyW];
          for (int o = 0; o < CryptoSlots; o++) begin
            older_d[s*CryptoSlots + o] = occ_q[o];
            older_d[o*CryptoSlots + s] = 1'b0;  // the new frame is younger than every other
            blocks_d[s*CryptoSlots + o] = occ_q[o] && dir_q[o] == d[0] &&
                                          key_q[o*KeyW +: KeyW] == claim_key_i[d*KeyW +: KeyW];
            blocks_d[o*CryptoSlots + s] = 1'b0;
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= '0;
      dir_q  <= '0;
      ten_q  <= '0;
      rem_q  <= '0;
      lat_q  <= '0;
      bpc_q  <= '0;
      tag_q  <= '0;
      key_q  <= '0;
      older_q <= '0;
      blocks_q <= '0;
      prio_q <= 1'b0;
      held_q <= '0;
      free_q <= BusyW'(CryptoSlots);
      quota_q   <= '0;  // no claim in the first clock after reset
      can_now_q <= '0;  // = permission(reset state, quota 0)
    end else begin
      st_q   <= st_d;
      dir_q  <= dir_d;
      ten_q  <= ten_d;
      rem_q  <= rem_d;
      lat_q  <= lat_d;
      bpc_q  <= bpc_d;
      tag_q  <= tag_d;
      key_q  <= key_d;
      older_q <= older_d;
      blocks_q <= blocks_d;
      prio_q <= prio_d;
      held_q <= held_d;
      free_q <= free_d;
      quota_q   <= quota_i;
      can_now_q <= can_now_d;
    end
  end

`ifndef SYNTHESIS
  // the permission each claim was made on: the clock before's
  logic [2*NumTenants-1:0] can_claim_prev_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      can_claim_prev_q <= '0;
    end else begin
      can_claim_prev_q <= can_claim_o;
    end
  end
  logic [TotalW-1:0] held_sum;
  always_comb begin
    held_sum = '0;
    for (int t = 0; t < NumTenants; t++) begin
      held_sum = held_sum + TotalW'(held_o[t*HeldW +: HeldW]);
    end
  end
`endif
  // a claim was allowed the clock before and lands on a free slot; two claims, two slots
  `NICSCHED_ASSERT(ClaimTxAllowed_A,
                   !claim_i[0] || can_claim_prev_q[{{(32-TenantW){1'b0}}, claim_tenant_i[TenantW-1:0]}])
  `NICSCHED_ASSERT(ClaimTxFreeSlot_A, !claim_i[0] || st_q[slot_lo*2 +: 2] == ST_FREE)
  `NICSCHED_ASSERT(ClaimRxAllowed_A,
                   !claim_i[1] || can_claim_prev_q[NumTenants + {{(32-TenantW){1'b0}}, claim_tenant_i[2*TenantW-1:TenantW]}])
  `NICSCHED_ASSERT(ClaimRxFreeSlot_A, !claim_i[1] || st_q[slot_hi*2 +: 2] == ST_FREE)
  `NICSCHED_ASSERT(ClaimsTwoSlots_A, claim_i != 2'b11 || slot_lo != slot_hi)
  `NICSCHED_ASSERT(SlotsConserved_A, held_sum == held_total_o)  // slots never created or lost
  `NICSCHED_ASSERT(SlotsBounded_A, held_total_o <= SLOTS)
  // the count flops are the counts of the slot state
  `NICSCHED_ASSERT(FreeIsCount_A, free_q == ones(~occ_q))
  // the permission flop is the permission of the state it was made for
  `NICSCHED_ASSERT(PermissionIsState_A, can_now_q == permission(free_q, held_q, prio_q, quota_q))
  `NICSCHED_ASSERT(PermissionNext_A, can_now_d == permission(free_d, held_d, prio_d, quota_i))
  // the pair flop is the order and key relation of two occupied slots
  for (genvar s = 0; s < CryptoSlots; s++) begin : g_blocks_assert
    for (genvar o = 0; o < CryptoSlots; o++) begin : g_other
      if (o != s) begin : g_pair
        `NICSCHED_ASSERT(BlocksIsKeyOrder_A, !occ_q[s] || !occ_q[o] ||
                         blocks_q[s*CryptoSlots + o] ==
                         (older_q[s*CryptoSlots + o] && dir_q[o] == dir_q[s] &&
                          key_q[o*KeyW +: KeyW] == key_q[s*KeyW +: KeyW]))
      end
    end
  end
  for (genvar t = 0; t < NumTenants; t++) begin : g_held_assert
    `NICSCHED_ASSERT(HeldIsCount_A, held_q[t*BusyW +: BusyW] == held_by(occ_q, ten_q, TenantW'(t)))
  end

endmodule

`default_nettype wire
