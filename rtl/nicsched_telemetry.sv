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
  // One register per counter and element, each in its own clocked process that adds only
  // when an event names its element (an event of each direction may name it in the same
  // clock: both are added). Nothing is added over every counter of every queue each clock
  // in combinational logic: before, all counters sat in one packed vector (14 kbit at 8
  // tenants) that an always_comb copied and added to for every queue, and because the
  // egress counts depend combinationally on m_axis_tready, a simulator evaluated that block
  // again on every input change. The hardware is the same per-counter adder (the CSR
  // latches every counter in parallel at SNAPSHOT, so they cannot share an adder through a
  // RAM port); values, and the clock they change in, are unchanged.

  logic [NumQueues*32-1:0] depth_d;
  always_comb begin
    for (int q = 0; q < NumQueues; q++) begin
      depth_d[q*32 +: 32] = tx_q_bytes_i[q*32 +: 32] + rx_q_bytes_i[q*32 +: 32];
    end
  end

  // ------------------------------------------------ per-queue counters
  for (genvar q = 0; q < NumQueues; q++) begin : g_queue
    localparam logic [QueueW-1:0] Q = q[QueueW-1:0];
    logic [1:0] enq_hit, drop_hit, sent_hit, lat_hit;  // [dir]: an event of dir names q
    logic [63:0] enq_pkts_q, enq_bytes_q, drop_pkts_q, drop_bytes_q, tx_pkts_q, tx_bytes_q;
    logic [63:0] lat_sum_q, lat_count_q;
    logic [31:0] lat_max_q, hwm_q;
    logic [LenW:0] enq_by, drop_by, sent_by;
    logic [TsW:0]  lat_add;
    logic [TsW-1:0] lat_big;
    always_comb begin
      for (int d = 0; d < 2; d++) begin
        enq_hit[d]  = enq_valid_i[d] && ev_queue_i[d*QueueW +: QueueW] == Q;
        drop_hit[d] = lim_drop_i[d] && ev_queue_i[d*QueueW +: QueueW] == Q;
        sent_hit[d] = sent_valid_i[d] && sent_queue_i[d*QueueW +: QueueW] == Q;
        lat_hit[d]  = lat_valid_i[d] && lat_queue_i[d*QueueW +: QueueW] == Q;
      end
      enq_by  = (enq_hit[0] ? {1'b0, ev_len_i[0 +: LenW]} : '0) + (enq_hit[1] ? {1'b0, ev_len_i[LenW +: LenW]} : '0);
      drop_by = (drop_hit[0] ? {1'b0, ev_len_i[0 +: LenW]} : '0) + (drop_hit[1] ? {1'b0, ev_len_i[LenW +: LenW]} : '0);
      sent_by = (sent_hit[0] ? {1'b0, sent_len_i[0 +: LenW]} : '0) + (sent_hit[1] ? {1'b0, sent_len_i[LenW +: LenW]} : '0);
      lat_add = (lat_hit[0] ? {1'b0, lat_cycles_i[0 +: TsW]} : '0) + (lat_hit[1] ? {1'b0, lat_cycles_i[TsW +: TsW]} : '0);
      lat_big = lat_max_q;
      for (int d = 0; d < 2; d++) begin
        if (lat_hit[d] && lat_cycles_i[d*TsW +: TsW] > lat_big) lat_big = lat_cycles_i[d*TsW +: TsW];
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        enq_pkts_q <= '0; enq_bytes_q <= '0; drop_pkts_q <= '0; drop_bytes_q <= '0;
        tx_pkts_q  <= '0; tx_bytes_q  <= '0; lat_sum_q   <= '0; lat_count_q  <= '0;
        lat_max_q  <= '0; hwm_q       <= '0;
      end else if (clear_i) begin
        enq_pkts_q <= '0; enq_bytes_q <= '0; drop_pkts_q <= '0; drop_bytes_q <= '0;
        tx_pkts_q  <= '0; tx_bytes_q  <= '0; lat_sum_q   <= '0; lat_count_q  <= '0;
        lat_max_q  <= '0; hwm_q       <= '0;
      end else begin
        if (enq_hit != '0) begin
          enq_pkts_q  <= enq_pkts_q + {62'd0, {1'b0, enq_hit[0]} + {1'b0, enq_hit[1]}};
          enq_bytes_q <= enq_bytes_q + {{(63-LenW){1'b0}}, enq_by};
        end
        if (drop_hit != '0) begin
          drop_pkts_q  <= drop_pkts_q + {62'd0, {1'b0, drop_hit[0]} + {1'b0, drop_hit[1]}};
          drop_bytes_q <= drop_bytes_q + {{(63-LenW){1'b0}}, drop_by};
        end
        if (sent_hit != '0) begin
          tx_pkts_q  <= tx_pkts_q + {62'd0, {1'b0, sent_hit[0]} + {1'b0, sent_hit[1]}};
          tx_bytes_q <= tx_bytes_q + {{(63-LenW){1'b0}}, sent_by};
        end
        if (lat_hit != '0) begin
          lat_count_q <= lat_count_q + {62'd0, {1'b0, lat_hit[0]} + {1'b0, lat_hit[1]}};
          lat_sum_q   <= lat_sum_q + {{(63-TsW){1'b0}}, lat_add};
          lat_max_q   <= lat_big;
        end
        if (depth_d[q*32 +: 32] > hwm_q) begin
          hwm_q <= depth_d[q*32 +: 32];
        end
      end
    end
    assign q_enq_pkts_o[q*64 +: 64]   = enq_pkts_q;
    assign q_enq_bytes_o[q*64 +: 64]  = enq_bytes_q;
    assign q_drop_pkts_o[q*64 +: 64]  = drop_pkts_q;
    assign q_drop_bytes_o[q*64 +: 64] = drop_bytes_q;
    assign q_tx_pkts_o[q*64 +: 64]    = tx_pkts_q;
    assign q_tx_bytes_o[q*64 +: 64]   = tx_bytes_q;
    assign q_lat_sum_o[q*64 +: 64]    = lat_sum_q;
    assign q_lat_count_o[q*64 +: 64]  = lat_count_q;
    assign q_lat_max_o[q*32 +: 32]    = lat_max_q;
    assign q_depth_hwm_o[q*32 +: 32]  = hwm_q;
  end

  // ------------------------------------------------ levels: depth
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

  // ------------------------------------------------ per-tenant crypto counters
  // busy and wait add a level every clock (slots in hold, a head waiting); bytes and pkts
  // add the claim of each direction that names the tenant
  for (genvar t = 0; t < NumTenants; t++) begin : g_tenant
    localparam logic [TenantW-1:0] T = t[TenantW-1:0];
    logic [63:0] tx_busy_q, rx_busy_q, tx_wait_q, rx_wait_q;
    logic [63:0] tx_bytes_q, tx_pkts_q, rx_bytes_q, rx_pkts_q;
    logic        tx_claim, rx_claim;
    assign tx_claim = cr_claim_i[0] && cr_claim_tenant_i[0 +: TenantW] == T;
    assign rx_claim = cr_claim_i[1] && cr_claim_tenant_i[TenantW +: TenantW] == T;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        tx_busy_q  <= '0; rx_busy_q <= '0; tx_wait_q  <= '0; rx_wait_q <= '0;
        tx_bytes_q <= '0; tx_pkts_q <= '0; rx_bytes_q <= '0; rx_pkts_q <= '0;
      end else if (clear_i) begin
        tx_busy_q  <= '0; rx_busy_q <= '0; tx_wait_q  <= '0; rx_wait_q <= '0;
        tx_bytes_q <= '0; tx_pkts_q <= '0; rx_bytes_q <= '0; rx_pkts_q <= '0;
      end else begin
        tx_busy_q <= tx_busy_q + {{(64-BusyW){1'b0}}, cr_busy_tx_i[t*BusyW +: BusyW]};
        rx_busy_q <= rx_busy_q + {{(64-BusyW){1'b0}}, cr_busy_rx_i[t*BusyW +: BusyW]};
        tx_wait_q <= tx_wait_q + {63'd0, cr_wait_tx_i[t]};
        rx_wait_q <= rx_wait_q + {63'd0, cr_wait_rx_i[t]};
        if (tx_claim) begin
          tx_bytes_q <= tx_bytes_q + {{(64-LenW){1'b0}}, cr_claim_len_i[LenW-1:0]};
          tx_pkts_q  <= tx_pkts_q + 64'd1;
        end
        if (rx_claim) begin
          rx_bytes_q <= rx_bytes_q + {{(64-LenW){1'b0}}, cr_claim_len_i[2*LenW-1:LenW]};
          rx_pkts_q  <= rx_pkts_q + 64'd1;
        end
      end
    end
    assign cr_tx_busy_o[t*64 +: 64]  = tx_busy_q;
    assign cr_rx_busy_o[t*64 +: 64]  = rx_busy_q;
    assign cr_tx_wait_o[t*64 +: 64]  = tx_wait_q;
    assign cr_rx_wait_o[t*64 +: 64]  = rx_wait_q;
    assign cr_tx_bytes_o[t*64 +: 64] = tx_bytes_q;
    assign cr_tx_pkts_o[t*64 +: 64]  = tx_pkts_q;
    assign cr_rx_bytes_o[t*64 +: 64] = rx_bytes_q;
    assign cr_rx_pkts_o[t*64 +: 64]  = rx_pkts_q;
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
