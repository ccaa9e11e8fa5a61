// nicsched_telemetry: live telemetry counters (the values the CSR block latches at SNAPSHOT).
//
// Counts events of both directions (TX and RX) per queue q = tenant*2 + class, per
// tenant (crypto) and per direction (parser), in 64-bit counters that wrap; queue depth
// and its high-water mark are the sum of both directions' queues. clear_i
// (COUNTER_CLEAR) zeroes every counter and high-water mark in one clock (events of that
// clock are lost); the cycle counter is free-running and is not cleared. Every output is
// a register (the CSR's snapshot copies them at one edge, so software reads a consistent
// view one clock behind the events).
`default_nettype none

module nicsched_telemetry #(
  parameter int NumTenants = 8,   // tenants
  parameter int LenW       = 16,  // frame length bits
  parameter int TsW        = 32,  // latency bits
  parameter int BusyW      = 3,   // bits of a per-tenant busy-slot count
  // derived
  parameter int NumQueues  = NumTenants * 2,
  parameter int QueueW     = $clog2(NumQueues),
  parameter int TenantW    = (NumTenants > 1) ? $clog2(NumTenants) : 1
) (
  input  wire logic                         clk_i,
  input  wire logic                         rst_ni,
  input  wire logic                         clear_i,          // COUNTER_CLEAR.GO
  // parser pulses per direction [dir]
  input  wire logic [1:0]                   prs_frames_i,
  input  wire logic [1:0]                   prs_runt_i,
  input  wire logic [1:0]                   prs_truncated_i,
  input  wire logic [1:0]                   prs_bad_ihl_i,
  input  wire logic [1:0]                   prs_unknown_etype_i,
  input  wire logic [1:0]                   buf_drop_i,       // no free cell
  // queue manager outcome per direction [dir]
  input  wire logic [1:0]                   enq_valid_i,      // accepted
  input  wire logic [1:0]                   lim_drop_i,       // tail-dropped at the limit
  input  wire logic [2*QueueW-1:0]          ev_queue_i,
  input  wire logic [2*LenW-1:0]            ev_len_i,
  // egress per direction [dir]
  input  wire logic [1:0]                   sent_valid_i,
  input  wire logic [2*QueueW-1:0]          sent_queue_i,
  input  wire logic [2*LenW-1:0]            sent_len_i,
  input  wire logic [1:0]                   lat_valid_i,
  input  wire logic [2*QueueW-1:0]          lat_queue_i,
  input  wire logic [2*TsW-1:0]             lat_cycles_i,
  // queue occupancy per direction
  input  wire logic [NumQueues*32-1:0]      tx_q_bytes_i,
  input  wire logic [NumQueues*32-1:0]      tx_q_pkts_i,
  input  wire logic [NumQueues*32-1:0]      rx_q_bytes_i,
  input  wire logic [NumQueues*32-1:0]      rx_q_pkts_i,
  // crypto
  input  wire logic [NumTenants*BusyW-1:0]  cr_busy_tx_i,     // slots in hold per tenant
  input  wire logic [NumTenants*BusyW-1:0]  cr_busy_rx_i,
  input  wire logic [NumTenants-1:0]        cr_wait_tx_i,     // a head waits for a slot
  input  wire logic [NumTenants-1:0]        cr_wait_rx_i,
  input  wire logic [1:0]                   cr_claim_i,       // per direction
  input  wire logic [2*TenantW-1:0]         cr_claim_tenant_i,
  input  wire logic [2*LenW-1:0]            cr_claim_len_i,
  input  wire logic [NumTenants*8-1:0]      cr_held_i,
  input  wire logic [7:0]                   cr_held_total_i,
  // counters
  output logic [63:0]                       cycle_o,
  output logic [7:0]                        crypto_busy_o,
  output logic [2*64-1:0]                   prs_frames_o,
  output logic [2*64-1:0]                   prs_runt_o,
  output logic [2*64-1:0]                   prs_truncated_o,
  output logic [2*64-1:0]                   prs_bad_ihl_o,
  output logic [2*64-1:0]                   prs_unknown_etype_o,
  output logic [2*64-1:0]                   prs_buf_drop_o,
  output logic [NumTenants*64-1:0]          cr_tx_busy_o,
  output logic [NumTenants*64-1:0]          cr_tx_wait_o,
  output logic [NumTenants*64-1:0]          cr_tx_bytes_o,
  output logic [NumTenants*64-1:0]          cr_tx_pkts_o,
  output logic [NumTenants*64-1:0]          cr_rx_busy_o,
  output logic [NumTenants*64-1:0]          cr_rx_wait_o,
  output logic [NumTenants*64-1:0]          cr_rx_bytes_o,
  output logic [NumTenants*64-1:0]          cr_rx_pkts_o,
  output logic [NumTenants*8-1:0]           cr_slots_held_o,
  output logic [NumQueues*64-1:0]           q_enq_pkts_o,
  output logic [NumQueues*64-1:0]           q_enq_bytes_o,
  output logic [NumQueues*64-1:0]           q_tx_pkts_o,
  output logic [NumQueues*64-1:0]           q_tx_bytes_o,
  output logic [NumQueues*64-1:0]           q_drop_pkts_o,
  output logic [NumQueues*64-1:0]           q_drop_bytes_o,
  output logic [NumQueues*64-1:0]           q_lat_sum_o,
  output logic [NumQueues*64-1:0]           q_lat_count_o,
  output logic [NumQueues*32-1:0]           q_lat_max_o,
  output logic [NumQueues*32-1:0]           q_depth_o,
  output logic [NumQueues*32-1:0]           q_depth_hwm_o,
  output logic [NumQueues*32-1:0]           q_depth_pkts_o
);
  // Event counters (per queue; per tenant for crypto claims) are RAMs of 64-bit words with
  // one read-modify-write port per event source: the queue manager's outcome, the egress,
  // the latency tap and the crypto claim, per direction. When both directions name the
  // same element in one clock the direction-0 port writes the sum and the direction-1
  // port writes nothing. The RAMs have no reset: a live bit per element (a flop vector,
  // cleared in one clock by reset and COUNTER_CLEAR) says whether the element holds a
  // count since the last clear; a dead element reads as zero and is written as if it held
  // zero. Levels summed every clock (crypto busy/wait), parser pulses and the depth
  // high-water marks are one register per element. The per-cycle work is a few element
  // updates instead of an add over every counter of every queue (what a simulator and a
  // synthesis tool both paid for with one packed counter vector); the values, and the
  // clock they change in, are those of a per-counter adder.
  logic [63:0] q_enq_pkts_q   [NumQueues];
  logic [63:0] q_enq_bytes_q  [NumQueues];
  logic [63:0] q_drop_pkts_q  [NumQueues];
  logic [63:0] q_drop_bytes_q [NumQueues];
  logic [63:0] q_tx_pkts_q    [NumQueues];
  logic [63:0] q_tx_bytes_q   [NumQueues];
  logic [63:0] q_lat_sum_q    [NumQueues];
  logic [63:0] q_lat_count_q  [NumQueues];
  logic [31:0] q_lat_max_q    [NumQueues];
  logic [63:0] cr_tx_bytes_q  [NumTenants];
  logic [63:0] cr_tx_pkts_q   [NumTenants];
  logic [63:0] cr_rx_bytes_q  [NumTenants];
  logic [63:0] cr_rx_pkts_q   [NumTenants];
  // live bits, one per element of the RAMs written together
  logic [NumQueues-1:0]  enq_live_q, drop_live_q, sent_live_q, lat_live_q;
  logic [NumTenants-1:0] crtx_live_q, crrx_live_q;

  // ------------------------------------------------ event sources, one per direction
  // The element each source writes and the amount it adds: a source that names the same
  // queue as direction 0's source of that kind is folded into direction 0's write.
  localparam logic [31:0]      QUEUES32   = NumQueues;
  localparam logic [31:0]      TENANTS32  = NumTenants;
  localparam logic [QueueW:0]  QUEUES_W1  = QUEUES32[QueueW:0];
  localparam logic [TenantW:0] TENANTS_W1 = TENANTS32[TenantW:0];

  logic [QueueW-1:0] evq [2], snq [2], ltq [2];
  logic [LenW-1:0]   evl [2], snl [2];
  logic [TsW-1:0]    ltc [2];
  logic              ev_same, sn_same, lt_same;  // both directions, one queue
  logic              enq_w [2], drop_w [2], sent_w [2], lat_w [2];  // port d writes
  logic [1:0]        enq_pk [2], drop_pk [2], sent_pk [2], lat_pk [2];
  logic [LenW:0]     enq_by [2], drop_by [2], sent_by [2];
  logic [TsW:0]      lat_sum [2];
  logic [TsW-1:0]    lat_big [2];  // the larger latency a port brings
  logic [TenantW-1:0] claim_t [2];  // tenant of the crypto claim per direction
  logic              claim_w [2];   // a claim of a tenant that exists
  logic [NumQueues*32-1:0] depth_d;

  always_comb begin
    for (int d = 0; d < 2; d++) begin
      evq[d] = ev_queue_i[d*QueueW +: QueueW];
      snq[d] = sent_queue_i[d*QueueW +: QueueW];
      ltq[d] = lat_queue_i[d*QueueW +: QueueW];
      evl[d] = ev_len_i[d*LenW +: LenW];
      snl[d] = sent_len_i[d*LenW +: LenW];
      ltc[d] = lat_cycles_i[d*TsW +: TsW];
    end
    // a queue number past the last queue (NumTenants not a power of two) counts nowhere
    for (int d = 0; d < 2; d++) begin
      claim_t[d] = cr_claim_tenant_i[d*TenantW +: TenantW];
      claim_w[d] = cr_claim_i[d] && ({1'b0, claim_t[d]} < TENANTS_W1);
    end
    ev_same = (evq[0] == evq[1]);
    sn_same = sent_valid_i[0] && sent_valid_i[1] && (snq[0] == snq[1]);
    lt_same = lat_valid_i[0] && lat_valid_i[1] && (ltq[0] == ltq[1]);
    // direction 0 writes what it brings plus direction 1's share on a shared queue
    enq_pk[0]  = {1'b0, enq_valid_i[0]} + {1'b0, enq_valid_i[1] && ev_same};
    enq_by[0]  = (enq_valid_i[0] ? {1'b0, evl[0]} : '0) + ((enq_valid_i[1] && ev_same) ? {1'b0, evl[1]} : '0);
    drop_pk[0] = {1'b0, lim_drop_i[0]} + {1'b0, lim_drop_i[1] && ev_same};
    drop_by[0] = (lim_drop_i[0] ? {1'b0, evl[0]} : '0) + ((lim_drop_i[1] && ev_same) ? {1'b0, evl[1]} : '0);
    sent_pk[0] = {1'b0, sent_valid_i[0]} + {1'b0, sn_same};
    sent_by[0] = (sent_valid_i[0] ? {1'b0, snl[0]} : '0) + (sn_same ? {1'b0, snl[1]} : '0);
    lat_pk[0]  = {1'b0, lat_valid_i[0]} + {1'b0, lt_same};
    lat_sum[0] = (lat_valid_i[0] ? {1'b0, ltc[0]} : '0) + (lt_same ? {1'b0, ltc[1]} : '0);
    lat_big[0] = (lt_same && ltc[1] > ltc[0]) ? ltc[1] : ltc[0];
    enq_w[0]   = (enq_valid_i[0] || (enq_valid_i[1] && ev_same)) && ({1'b0, evq[0]} < QUEUES_W1);
    drop_w[0]  = (lim_drop_i[0] || (lim_drop_i[1] && ev_same)) && ({1'b0, evq[0]} < QUEUES_W1);
    sent_w[0]  = sent_valid_i[0] && ({1'b0, snq[0]} < QUEUES_W1);
    lat_w[0]   = lat_valid_i[0] && ({1'b0, ltq[0]} < QUEUES_W1);
    // direction 1 writes only a queue direction 0 does not
    enq_pk[1]  = 2'd1;
    enq_by[1]  = {1'b0, evl[1]};
    drop_pk[1] = 2'd1;
    drop_by[1] = {1'b0, evl[1]};
    sent_pk[1] = 2'd1;
    sent_by[1] = {1'b0, snl[1]};
    lat_pk[1]  = 2'd1;
    lat_sum[1] = {1'b0, ltc[1]};
    lat_big[1] = ltc[1];
    enq_w[1]   = enq_valid_i[1] && !ev_same && ({1'b0, evq[1]} < QUEUES_W1);
    drop_w[1]  = lim_drop_i[1] && !ev_same && ({1'b0, evq[1]} < QUEUES_W1);
    sent_w[1]  = sent_valid_i[1] && !sn_same && ({1'b0, snq[1]} < QUEUES_W1);
    lat_w[1]   = lat_valid_i[1] && !lt_same && ({1'b0, ltq[1]} < QUEUES_W1);
    for (int q = 0; q < NumQueues; q++) begin
      depth_d[q*32 +: 32] = tx_q_bytes_i[q*32 +: 32] + rx_q_bytes_i[q*32 +: 32];
    end
  end

  // ------------------------------------------------ per-queue counters (RAMs)
  // live bits: cleared by reset and COUNTER_CLEAR (that clock's events are lost), set by a write
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      enq_live_q  <= '0;
      drop_live_q <= '0;
      sent_live_q <= '0;
      lat_live_q  <= '0;
      crtx_live_q <= '0;
      crrx_live_q <= '0;
    end else if (clear_i) begin
      enq_live_q  <= '0;
      drop_live_q <= '0;
      sent_live_q <= '0;
      lat_live_q  <= '0;
      crtx_live_q <= '0;
      crrx_live_q <= '0;
    end else begin
      if (enq_w[0])   enq_live_q[evq[0]]  <= 1'b1;
      if (enq_w[1])   enq_live_q[evq[1]]  <= 1'b1;
      if (drop_w[0])  drop_live_q[evq[0]] <= 1'b1;
      if (drop_w[1])  drop_live_q[evq[1]] <= 1'b1;
      if (sent_w[0])  sent_live_q[snq[0]] <= 1'b1;
      if (sent_w[1])  sent_live_q[snq[1]] <= 1'b1;
      if (lat_w[0])   lat_live_q[ltq[0]]  <= 1'b1;
      if (lat_w[1])   lat_live_q[ltq[1]]  <= 1'b1;
      if (claim_w[0]) crtx_live_q[claim_t[0]] <= 1'b1;
      if (claim_w[1]) crrx_live_q[claim_t[1]] <= 1'b1;
    end
  end

  // one write port per source and direction; never two ports on one element of one RAM.
  // A port reads a dead element as zero.
  always_ff @(posedge clk_i) begin
    if (!clear_i) begin
      if (enq_w[0]) begin
        q_enq_pkts_q[evq[0]]  <= (enq_live_q[evq[0]] ? q_enq_pkts_q[evq[0]] : 64'd0) + {62'd0, enq_pk[0]};
        q_enq_bytes_q[evq[0]] <= (enq_live_q[evq[0]] ? q_enq_bytes_q[evq[0]] : 64'd0) + {{(63-LenW){1'b0}}, enq_by[0]};
      end
      if (enq_w[1]) begin
        q_enq_pkts_q[evq[1]]  <= (enq_live_q[evq[1]] ? q_enq_pkts_q[evq[1]] : 64'd0) + {62'd0, enq_pk[1]};
        q_enq_bytes_q[evq[1]] <= (enq_live_q[evq[1]] ? q_enq_bytes_q[evq[1]] : 64'd0) + {{(63-LenW){1'b0}}, enq_by[1]};
      end
      if (drop_w[0]) begin
        q_drop_pkts_q[evq[0]]  <= (drop_live_q[evq[0]] ? q_drop_pkts_q[evq[0]] : 64'd0) + {62'd0, drop_pk[0]};
        q_drop_bytes_q[evq[0]] <= (drop_live_q[evq[0]] ? q_drop_bytes_q[evq[0]] : 64'd0) + {{(63-LenW){1'b0}}, drop_by[0]};
      end
      if (drop_w[1]) begin
        q_drop_pkts_q[evq[1]]  <= (drop_live_q[evq[1]] ? q_drop_pkts_q[evq[1]] : 64'd0) + {62'd0, drop_pk[1]};
        q_drop_bytes_q[evq[1]] <= (drop_live_q[evq[1]] ? q_drop_bytes_q[evq[1]] : 64'd0) + {{(63-LenW){1'b0}}, drop_by[1]};
      end
      if (sent_w[0]) begin
        q_tx_pkts_q[snq[0]]  <= (sent_live_q[snq[0]] ? q_tx_pkts_q[snq[0]] : 64'd0) + {62'd0, sent_pk[0]};
        q_tx_bytes_q[snq[0]] <= (sent_live_q[snq[0]] ? q_tx_bytes_q[snq[0]] : 64'd0) + {{(63-LenW){1'b0}}, sent_by[0]};
      end
      if (sent_w[1]) begin
        q_tx_pkts_q[snq[1]]  <= (sent_live_q[snq[1]] ? q_tx_pkts_q[snq[1]] : 64'd0) + {62'd0, sent_pk[1]};
        q_tx_bytes_q[snq[1]] <= (sent_live_q[snq[1]] ? q_tx_bytes_q[snq[1]] : 64'd0) + {{(63-LenW){1'b0}}, sent_by[1]};
      end
      if (lat_w[0]) begin
        q_lat_count_q[ltq[0]] <= (lat_live_q[ltq[0]] ? q_lat_count_q[ltq[0]] : 64'd0) + {62'd0, lat_pk[0]};
        q_lat_sum_q[ltq[0]]   <= (lat_live_q[ltq[0]] ? q_lat_sum_q[ltq[0]] : 64'd0) + {{(63-TsW){1'b0}}, lat_sum[0]};
        q_lat_max_q[ltq[0]]   <= (lat_live_q[ltq[0]] && q_lat_max_q[ltq[0]] >= lat_big[0])
                                 ? q_lat_max_q[ltq[0]] : lat_big[0];
      end
      if (lat_w[1]) begin
        q_lat_count_q[ltq[1]] <= (lat_live_q[ltq[1]] ? q_lat_count_q[ltq[1]] : 64'd0) + {62'd0, lat_pk[1]};
        q_lat_sum_q[ltq[1]]   <= (lat_live_q[ltq[1]] ? q_lat_sum_q[ltq[1]] : 64'd0) + {{(63-TsW){1'b0}}, lat_sum[1]};
        q_lat_max_q[ltq[1]]   <= (lat_live_q[ltq[1]] && q_lat_max_q[ltq[1]] >= lat_big[1])
                                 ? q_lat_max_q[ltq[1]] : lat_big[1];
      end
      // one claim per direction per clock
      if (claim_w[0]) begin
        cr_tx_bytes_q[claim_t[0]] <= (crtx_live_q[claim_t[0]] ? cr_tx_bytes_q[claim_t[0]] : 64'd0)
                                     + {{(64-LenW){1'b0}}, cr_claim_len_i[LenW-1:0]};
        cr_tx_pkts_q[claim_t[0]]  <= (crtx_live_q[claim_t[0]] ? cr_tx_pkts_q[claim_t[0]] : 64'd0) + 64'd1;
      end
      if (claim_w[1]) begin
        cr_rx_bytes_q[claim_t[1]] <= (crrx_live_q[claim_t[1]] ? cr_rx_bytes_q[claim_t[1]] : 64'd0)
                                     + {{(64-LenW){1'b0}}, cr_claim_len_i[2*LenW-1:LenW]};
        cr_rx_pkts_q[claim_t[1]]  <= (crrx_live_q[claim_t[1]] ? cr_rx_pkts_q[claim_t[1]] : 64'd0) + 64'd1;
      end
    end
  end

  // ------------------------------------------------ levels: depth and its high-water mark
  // Depth is a level the datapath changes every clock a frame moves, so it is summed for
  // every queue each clock (32-bit adds, no 64-bit counter).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      q_depth_o      <= '0;
      q_depth_pkts_o <= '0;
    end else begin
      q_depth_o <= depth_d;
      for (int q = 0; q < NumQueues; q++) begin
        q_depth_pkts_o[q*32 +: 32] <= tx_q_pkts_i[q*32 +: 32] + rx_q_pkts_i[q*32 +: 32];
      end
    end
  end

  for (genvar q = 0; q < NumQueues; q++) begin : g_queue
    logic [31:0] hwm_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        hwm_q <= '0;
      end else if (clear_i) begin
        hwm_q <= '0;
      end else if (depth_d[q*32 +: 32] > hwm_q) begin
        hwm_q <= depth_d[q*32 +: 32];
      end
    end
    assign q_enq_pkts_o[q*64 +: 64]   = (enq_live_q[q] ? q_enq_pkts_q[q] : 64'd0);
    assign q_enq_bytes_o[q*64 +: 64]  = (enq_live_q[q] ? q_enq_bytes_q[q] : 64'd0);
    assign q_drop_pkts_o[q*64 +: 64]  = (drop_live_q[q] ? q_drop_pkts_q[q] : 64'd0);
    assign q_drop_bytes_o[q*64 +: 64] = (drop_live_q[q] ? q_drop_bytes_q[q] : 64'd0);
    assign q_tx_pkts_o[q*64 +: 64]    = (sent_live_q[q] ? q_tx_pkts_q[q] : 64'd0);
    assign q_tx_bytes_o[q*64 +: 64]   = (sent_live_q[q] ? q_tx_bytes_q[q] : 64'd0);
    assign q_lat_sum_o[q*64 +: 64]    = (lat_live_q[q] ? q_lat_sum_q[q] : 64'd0);
    assign q_lat_count_o[q*64 +: 64]  = (lat_live_q[q] ? q_lat_count_q[q] : 64'd0);
    assign q_lat_max_o[q*32 +: 32]    = lat_live_q[q] ? q_lat_max_q[q] : 32'd0;
    assign q_depth_hwm_o[q*32 +: 32]  = hwm_q;
  end

  // ------------------------------------------------ per-tenant crypto counters
  // busy and wait add a level every clock (slots in hold, a head waiting): a register each
  for (genvar t = 0; t < NumTenants; t++) begin : g_tenant
    logic [63:0] tx_busy_q, rx_busy_q, tx_wait_q, rx_wait_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        tx_busy_q <= '0;
        rx_busy_q <= '0;
        tx_wait_q <= '0;
        rx_wait_q <= '0;
      end else if (clear_i) begin
        tx_busy_q <= '0;
        rx_busy_q <= '0;
        tx_wait_q <= '0;
        rx_wait_q <= '0;
      end else begin
        tx_busy_q <= tx_busy_q + {{(64-BusyW){1'b0}}, cr_busy_tx_i[t*BusyW +: BusyW]};
        rx_busy_q <= rx_busy_q + {{(64-BusyW){1'b0}}, cr_busy_rx_i[t*BusyW +: BusyW]};
        tx_wait_q <= tx_wait_q + {63'd0, cr_wait_tx_i[t]};
        rx_wait_q <= rx_wait_q + {63'd0, cr_wait_rx_i[t]};
      end
    end
    assign cr_tx_busy_o[t*64 +: 64]  = tx_busy_q;
    assign cr_rx_busy_o[t*64 +: 64]  = rx_busy_q;
    assign cr_tx_wait_o[t*64 +: 64]  = tx_wait_q;
    assign cr_rx_wait_o[t*64 +: 64]  = rx_wait_q;
    assign cr_tx_bytes_o[t*64 +: 64] = (crtx_live_q[t] ? cr_tx_bytes_q[t] : 64'd0);
    assign cr_tx_pkts_o[t*64 +: 64]  = (crtx_live_q[t] ? cr_tx_pkts_q[t] : 64'd0);
    assign cr_rx_bytes_o[t*64 +: 64] = (crrx_live_q[t] ? cr_rx_bytes_q[t] : 64'd0);
    assign cr_rx_pkts_o[t*64 +: 64]  = (crrx_live_q[t] ? cr_rx_pkts_q[t] : 64'd0);
  end

  // ------------------------------------------------ per-direction parser counters
  for (genvar d = 0; d < 2; d++) begin : g_dir
    logic [63:0] frames_q, runt_q, truncated_q, bad_ihl_q, unknown_etype_q, buf_drop_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        frames_q        <= '0;
        runt_q          <= '0;
        truncated_q     <= '0;
        bad_ihl_q       <= '0;
        unknown_etype_q <= '0;
        buf_drop_q      <= '0;
      end else if (clear_i) begin
        frames_q        <= '0;
        runt_q          <= '0;
        truncated_q     <= '0;
        bad_ihl_q       <= '0;
        unknown_etype_q <= '0;
        buf_drop_q      <= '0;
      end else begin
        frames_q        <= frames_q + {63'd0, prs_frames_i[d]};
        runt_q          <= runt_q + {63'd0, prs_runt_i[d]};
        truncated_q     <= truncated_q + {63'd0, prs_truncated_i[d]};
        bad_ihl_q       <= bad_ihl_q + {63'd0, prs_bad_ihl_i[d]};
        unknown_etype_q <= unknown_etype_q + {63'd0, prs_unknown_etype_i[d]};
        buf_drop_q      <= buf_drop_q + {63'd0, buf_drop_i[d]};
      end
    end
    assign prs_frames_o[d*64 +: 64]        = frames_q;
    assign prs_runt_o[d*64 +: 64]          = runt_q;
    assign prs_truncated_o[d*64 +: 64]     = truncated_q;
    assign prs_bad_ihl_o[d*64 +: 64]       = bad_ihl_q;
    assign prs_unknown_etype_o[d*64 +: 64] = unknown_etype_q;
    assign prs_buf_drop_o[d*64 +: 64]      = buf_drop_q;
  end

  // ------------------------------------------------ free-running and level registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cycle_o         <= '0;
      crypto_busy_o   <= '0;
      cr_slots_held_o <= '0;
    end else begin
      cycle_o         <= cycle_o + 64'd1; // free-running, never cleared
      // levels: follow the datapath, never cleared
      crypto_busy_o   <= cr_held_total_i;
      cr_slots_held_o <= cr_held_i;
    end
  end

endmodule

`default_nettype wire
