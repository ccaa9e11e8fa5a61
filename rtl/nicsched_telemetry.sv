// nicsched_telemetry: telemetry counters (live, and for the per-queue and per-tenant event
// counters also their snapshot).
//
// Counts events of both directions (TX and RX) per queue q = tenant*2 + class, per
// tenant (crypto) and per direction (parser), in 64-bit counters that wrap; queue depth
// and its high-water mark are the sum of both directions' queues. clear_i
// (COUNTER_CLEAR) zeroes every counter and high-water mark in one clock (events of that
// clock are lost); the cycle counter is free-running and is not cleared.
// Event counters per queue (Q_ENQ/TX/DROP_*, Q_LAT_*) and per tenant (CR_*_BYTES/PKTS) live
// in RAM, one nicsched_counter_ram per event source and direction, with their snapshot
// (snapshot_i: the CSR's SNAPSHOT, in the clock whose edge takes it). The CSR reads them by
// element: *_snap_o loads the snapshot of element q_rd_idx_i / t_rd_idx_i (both directions
// added; Q_LAT_MAX the larger) as it is before the edge (a SNAPSHOT at the same edge is not
// in it), in a clock with snap_load_i (the CSR's read enters its stage 1), and holds
// otherwise. The indices come from the CSR's stage-0 address register, so the RAM read and
// the add start at flops. Every other output is a live register that the CSR's snapshot
// copies at the same edge, so software reads one consistent view, one clock behind the
// events.
`default_nettype none

module nicsched_telemetry #(
  parameter int NumTenants = 8,   // tenants
  parameter int LenW       = 16,  // frame length bits
  parameter int TsW        = 32,  // latency bits
  parameter int BusyW      = 3,   // bits of a per-tenant busy-slot count
  parameter int NumSources = 8,   // TX sources with a spoof counter (SRC_SPOOF); 1..64
  // register fields' widths, from the generated package
  parameter int HeldW      = nicsched_regs_pkg::CR_SLOTS_HELD_COUNT_WIDTH,
  parameter int TotalW     = nicsched_regs_pkg::CRYPTO_BUSY_SLOTS_WIDTH,
  // derived
  parameter int NumQueues  = NumTenants * 2,
  parameter int QueueW     = $clog2(NumQueues),
  parameter int TenantW    = (NumTenants > 1) ? $clog2(NumTenants) : 1
) (
  input  wire logic                         clk_i,
  input  wire logic                         rst_ni,
  input  wire logic                         clear_i,          // COUNTER_CLEAR.GO
  input  wire logic                         snapshot_i,       // SNAPSHOT.GO (the CSR's snapshot_o)
  input  wire logic                         snap_load_i,      // *_snap_o load (the CSR's snap_load_o)
  input  wire logic [QueueW-1:0]            q_rd_idx_i,       // queue read by the CSR (QUEUE_STATS)
  input  wire logic [TenantW-1:0]           t_rd_idx_i,       // tenant read by the CSR (CRYPTO_STATS)
  // parser pulses per direction [dir]
  input  wire logic [1:0]                   prs_frames_i,
  input  wire logic [1:0]                   prs_runt_i,
  input  wire logic [1:0]                   prs_truncated_i,
  input  wire logic [1:0]                   prs_bad_ihl_i,
  input  wire logic [1:0]                   prs_unknown_etype_i,
  input  wire logic                         spoof_i,          // a TX spoof from spoof_source_i
  input  wire logic [nicsched_pkg::SOURCE_W-1:0] spoof_source_i,
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
  input  wire logic [NumTenants*HeldW-1:0]  cr_held_i,
  input  wire logic [TotalW-1:0]            cr_held_total_i,
  // counters
  output logic [63:0]                       cycle_o,
  output logic [TotalW-1:0]                 crypto_busy_o,
  output logic [2*64-1:0]                   prs_frames_o,
  output logic [2*64-1:0]                   prs_runt_o,
  output logic [2*64-1:0]                   prs_truncated_o,
  output logic [2*64-1:0]                   prs_bad_ihl_o,
  output logic [2*64-1:0]                   prs_unknown_etype_o,
  output logic [2*64-1:0]                   prs_buf_drop_o,
  output logic [NumSources*64-1:0]          src_spoof_o,      // SRC_SPOOF per source
  output logic [NumTenants*64-1:0]          cr_tx_busy_o,
  output logic [NumTenants*64-1:0]          cr_tx_wait_o,
  output logic [NumTenants*64-1:0]          cr_rx_busy_o,
  output logic [NumTenants*64-1:0]          cr_rx_wait_o,
  output logic [NumTenants*HeldW-1:0]       cr_slots_held_o,
  output logic [NumQueues*32-1:0]           q_depth_o,
  output logic [NumQueues*32-1:0]           q_depth_hwm_o,
  output logic [NumQueues*32-1:0]           q_depth_pkts_o,
  // snapshots of the RAM counters: element q_rd_idx_i / t_rd_idx_i, loaded with snap_load_i
  output logic [63:0]                       cr_tx_bytes_snap_o,
  output logic [63:0]                       cr_tx_pkts_snap_o,
  output logic [63:0]                       cr_rx_bytes_snap_o,
  output logic [63:0]                       cr_rx_pkts_snap_o,
  output logic [63:0]                       q_enq_pkts_snap_o,
  output logic [63:0]                       q_enq_bytes_snap_o,
  output logic [63:0]                       q_tx_pkts_snap_o,
  output logic [63:0]                       q_tx_bytes_snap_o,
  output logic [63:0]                       q_drop_pkts_snap_o,
  output logic [63:0]                       q_drop_bytes_snap_o,
  output logic [63:0]                       q_lat_sum_snap_o,
  output logic [63:0]                       q_lat_count_snap_o,
  output logic [31:0]                       q_lat_max_snap_o
);
  // The flop counters COUNTER_CLEAR zeroes, one field per output of that name: reset and
  // clear zero them in one assignment. (Levels integrated every clock for every tenant, and
  // the high-water mark compared every clock for every queue: not one event per clock.)
  typedef struct packed {
    logic [2*64-1:0]          prs_frames, prs_runt, prs_truncated, prs_bad_ihl;
    logic [2*64-1:0]          prs_unknown_etype, prs_buf_drop;
    logic [NumTenants*64-1:0] cr_tx_busy, cr_tx_wait;
    logic [NumTenants*64-1:0] cr_rx_busy, cr_rx_wait;
    logic [NumQueues*32-1:0]  q_depth_hwm;
    logic [NumSources*64-1:0] src_spoof;
  } counters_t;

  // Every counter zero: the value after reset and COUNTER_CLEAR. (Verilator takes any fill
  // of more than 8 kbit for a mistake; this one is meant: 21 kbit at 64 tenants.)
  /* verilator lint_off WIDTHCONCAT */
  localparam counters_t COUNTERS_ZERO = '0;
  /* verilator lint_on WIDTHCONCAT */

  counters_t cnt_q, cnt_d;

  if (BusyW < 1 || BusyW > 8) begin : gen_bad_busy_w
    $error("nicsched_telemetry %m: BusyW must be in 1..8 (a busy-slot count fits a byte)");
  end

  // A one-event counter: the increment from the flops, selected by the event (not the event
  // as the carry into a 64-bit chain, which puts the chain after the event's own logic).
  function automatic logic [63:0] count_if(input logic ev, input logic [63:0] cnt);
    count_if = ev ? cnt + 64'd1 : cnt;
  endfunction
  logic [NumQueues*32-1:0] depth_d;

  // a + b for the 64-bit event counters and their snapshot sums, as a carry-select adder:
  // the low half's sum and both sums of the high half (carry in 0: a + b; carry in 1:
  // a - ~b = a + b + 1) are each one 32-bit carry chain, in parallel, and the high half is
  // selected by the low half's carry: a chain of 8 CARRY4 and one LUT where a 64-bit add
  // is 16 CARRY4 in series. (Three parts of 21 bits map no better: the middle part's
  // carry out becomes a LUT level of its own.) The select is AND-OR, not a mux of the two
  // sums, which Yosys's opt_share would merge back into one sum after the carry.
  function automatic logic [63:0] add64(input logic [63:0] a, input logic [63:0] b);
    logic [32:0] lo;
    logic [31:0] hi0, hi1;
    lo    = {1'b0, a[31:0]} + {1'b0, b[31:0]};
    hi0   = a[63:32] + b[63:32];
    hi1   = a[63:32] - ~b[63:32];
    add64 = {({32{lo[32]}} & hi1) | ({32{!lo[32]}} & hi0), lo[31:0]};
  endfunction

  // a + inc for the slot-busy counters, whose increment is a small count (busy slots this
  // clock) at the end of the crypto pool's per-tenant decode: inc meets the low byte
  // alone (two CARRY4), the high bits' increment is made from the flop beside it, and the
  // low byte's carry selects (AND-OR, as in add64). A 64-bit chain after the decode was
  // 17 CARRY4 in series behind it (the 8-tenant core's cr_*_busy).
  function automatic logic [63:0] add64_small(input logic [63:0] a, input logic [7:0] inc);
    logic [8:0]  lo;
    logic [55:0] hi1;
    lo  = {1'b0, a[7:0]} + {1'b0, inc};
    hi1 = a[63:8] + 56'd1;
    add64_small = {({56{lo[8]}} & hi1) | ({56{!lo[8]}} & a[63:8]), lo[7:0]};
  endfunction

  always_comb begin
    logic [31:0] dep;
    cnt_d   = cnt_q;
    depth_d = q_depth_o;
    for (int q = 0; q < NumQueues; q++) begin
      dep = tx_q_bytes_i[q*32 +: 32] + rx_q_bytes_i[q*32 +: 32];
      depth_d[q*32 +: 32]            = dep;
      cnt_d.q_depth_hwm[q*32 +: 32]  = (dep > cnt_q.q_depth_hwm[q*32 +: 32]) ? dep : cnt_q.q_depth_hwm[q*32 +: 32];
    end

    for (int t = 0; t < NumTenants; t++) begin
      cnt_d.cr_tx_busy[t*64 +: 64] = add64_small(cnt_q.cr_tx_busy[t*64 +: 64], 8'(cr_busy_tx_i[t*BusyW +: BusyW]));
      cnt_d.cr_rx_busy[t*64 +: 64] = add64_small(cnt_q.cr_rx_busy[t*64 +: 64], 8'(cr_busy_rx_i[t*BusyW +: BusyW]));
      cnt_d.cr_tx_wait[t*64 +: 64] = count_if(cr_wait_tx_i[t], cnt_q.cr_tx_wait[t*64 +: 64]);
      cnt_d.cr_rx_wait[t*64 +: 64] = count_if(cr_wait_rx_i[t], cnt_q.cr_rx_wait[t*64 +: 64]);
    end
    for (int d = 0; d < 2; d++) begin
      cnt_d.prs_frames[d*64 +: 64]        = count_if(prs_frames_i[d], cnt_q.prs_frames[d*64 +: 64]);
      cnt_d.prs_runt[d*64 +: 64]          = count_if(prs_runt_i[d], cnt_q.prs_runt[d*64 +: 64]);
      cnt_d.prs_truncated[d*64 +: 64]     = count_if(prs_truncated_i[d], cnt_q.prs_truncated[d*64 +: 64]);
      cnt_d.prs_bad_ihl[d*64 +: 64]       = count_if(prs_bad_ihl_i[d], cnt_q.prs_bad_ihl[d*64 +: 64]);
      cnt_d.prs_unknown_etype[d*64 +: 64] = count_if(prs_unknown_etype_i[d], cnt_q.prs_unknown_etype[d*64 +: 64]);
      cnt_d.prs_buf_drop[d*64 +: 64]      = count_if(buf_drop_i[d], cnt_q.prs_buf_drop[d*64 +: 64]);
    end
    for (int i = 0; i < NumSources; i++) begin
      cnt_d.src_spoof[i*64 +: 64] = count_if(spoof_i && spoof_source_i == i[nicsched_pkg::SOURCE_W-1:0],
                                             cnt_q.src_spoof[i*64 +: 64]);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cycle_o         <= '0;
      crypto_busy_o   <= '0;
      cr_slots_held_o <= '0;
      q_depth_o       <= '0;
      q_depth_pkts_o  <= '0;
      cnt_q           <= COUNTERS_ZERO;
    end else begin
      cycle_o         <= cycle_o + 64'd1; // free-running, never cleared
      // levels: follow the datapath, never cleared
      crypto_busy_o   <= cr_held_total_i;
      cr_slots_held_o <= cr_held_i;
      q_depth_o       <= depth_d;
      for (int q = 0; q < NumQueues; q++) begin
        q_depth_pkts_o[q*32 +: 32] <= tx_q_pkts_i[q*32 +: 32] + rx_q_pkts_i[q*32 +: 32];
      end
      cnt_q <= clear_i ? COUNTERS_ZERO : cnt_d;
    end
  end

  assign prs_frames_o        = cnt_q.prs_frames;
  assign prs_runt_o          = cnt_q.prs_runt;
  assign prs_truncated_o     = cnt_q.prs_truncated;
  assign prs_bad_ihl_o       = cnt_q.prs_bad_ihl;
  assign prs_unknown_etype_o = cnt_q.prs_unknown_etype;
  assign prs_buf_drop_o      = cnt_q.prs_buf_drop;
  assign src_spoof_o         = cnt_q.src_spoof;
  assign cr_tx_busy_o        = cnt_q.cr_tx_busy;
  assign cr_tx_wait_o        = cnt_q.cr_tx_wait;
  assign cr_rx_busy_o        = cnt_q.cr_rx_busy;
  assign cr_rx_wait_o        = cnt_q.cr_rx_wait;
  assign q_depth_hwm_o       = cnt_q.q_depth_hwm;

  // ---------------------------------------------------------------- event counters in RAM
  // One RAM per event source and direction (TX and RX can hit the same element in one
  // clock); each element's fields packed low to high in the order below.
  localparam int QoW  = 4 * 64;       // outcome: enq pkts, enq bytes, drop pkts, drop bytes
  localparam int SentW = 2 * 64;      // sent: pkts, bytes
  localparam int LatW = 2 * 64 + 32;  // latency: sum, count, max
  localparam int CrW  = 2 * 64;       // crypto claim: bytes, pkts
  logic [2*QoW-1:0]   qo_snap;
  logic [2*SentW-1:0] sent_snap;
  logic [2*LatW-1:0]  lat_snap;
  logic [2*CrW-1:0]   cr_snap;

  for (genvar d = 0; d < 2; d++) begin : g_dir
    logic [LenW-1:0]  ev_len, sent_len, claim_len;
    logic [TsW-1:0]   lat;
    logic [63:0]      ev_len64, sent_len64, claim_len64, lat64;
    logic [QoW-1:0]   qo_live, qo_next;
    logic [SentW-1:0] sent_live, sent_next;
    logic [LatW-1:0]  lat_live, lat_next;
    logic [CrW-1:0]   cr_live, cr_next;
    assign ev_len      = ev_len_i[d*LenW +: LenW];
    assign sent_len    = sent_len_i[d*LenW +: LenW];
    assign claim_len   = cr_claim_len_i[d*LenW +: LenW];
    assign lat         = lat_cycles_i[d*TsW +: TsW];
    assign ev_len64    = {{(64-LenW){1'b0}}, ev_len};
    assign sent_len64  = {{(64-LenW){1'b0}}, sent_len};
    assign claim_len64 = {{(64-LenW){1'b0}}, claim_len};
    assign lat64       = {{(64-TsW){1'b0}}, lat};

    // queue outcome: accepted or tail-dropped at the limit
    always_comb begin
      qo_next = qo_live;
      if (enq_valid_i[d]) begin
        qo_next[0 +: 64]  = add64(qo_live[0 +: 64], 64'd1);
        qo_next[64 +: 64] = add64(qo_live[64 +: 64], ev_len64);
      end
      if (lim_drop_i[d]) begin
        qo_next[128 +: 64] = add64(qo_live[128 +: 64], 64'd1);
        qo_next[192 +: 64] = add64(qo_live[192 +: 64], ev_len64);
      end
    end
    nicsched_counter_ram #(.Depth(NumQueues), .Width(QoW)) u_outcome (
      .clk_i, .rst_ni, .clear_i, .snapshot_i,
      .ev_valid_i (enq_valid_i[d] | lim_drop_i[d]),
      .ev_idx_i   (ev_queue_i[d*QueueW +: QueueW]),
      .live_o     (qo_live),
      .ev_value_i (qo_next),
      .rd_idx_i   (q_rd_idx_i),
      .snap_o     (qo_snap[d*QoW +: QoW])
    );

    // sent: the last beat left
    assign sent_next = {add64(sent_live[64 +: 64], sent_len64), add64(sent_live[0 +: 64], 64'd1)};
    nicsched_counter_ram #(.Depth(NumQueues), .Width(SentW)) u_sent (
      .clk_i, .rst_ni, .clear_i, .snapshot_i,
      .ev_valid_i (sent_valid_i[d]),
      .ev_idx_i   (sent_queue_i[d*QueueW +: QueueW]),
      .live_o     (sent_live),
      .ev_value_i (sent_next),
      .rd_idx_i   (q_rd_idx_i),
      .snap_o     (sent_snap[d*SentW +: SentW])
    );

    // latency: sum, count, max
    assign lat_next = {(lat > lat_live[128 +: 32]) ? lat : lat_live[128 +: 32],
                       add64(lat_live[64 +: 64], 64'd1), add64(lat_live[0 +: 64], lat64)};
    nicsched_counter_ram #(.Depth(NumQueues), .Width(LatW)) u_latency (
      .clk_i, .rst_ni, .clear_i, .snapshot_i,
      .ev_valid_i (lat_valid_i[d]),
      .ev_idx_i   (lat_queue_i[d*QueueW +: QueueW]),
      .live_o     (lat_live),
      .ev_value_i (lat_next),
      .rd_idx_i   (q_rd_idx_i),
      .snap_o     (lat_snap[d*LatW +: LatW])
    );

    // crypto claims of this direction, per tenant
    assign cr_next = {add64(cr_live[64 +: 64], 64'd1), add64(cr_live[0 +: 64], claim_len64)};
    nicsched_counter_ram #(.Depth(NumTenants), .Width(CrW)) u_claim (
      .clk_i, .rst_ni, .clear_i, .snapshot_i,
      .ev_valid_i (cr_claim_i[d]),
      .ev_idx_i   (cr_claim_tenant_i[d*TenantW +: TenantW]),
      .live_o     (cr_live),
      .ev_value_i (cr_next),
      .rd_idx_i   (t_rd_idx_i),
      .snap_o     (cr_snap[d*CrW +: CrW])
    );
  end

  // The CSR's read stage 1 takes these registers, loaded as its read enters stage 1: both
  // directions added (the add is off the datapath, between the RAM read and this register).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      q_enq_pkts_snap_o   <= '0;
      q_enq_bytes_snap_o  <= '0;
      q_drop_pkts_snap_o  <= '0;
      q_drop_bytes_snap_o <= '0;
      q_tx_pkts_snap_o    <= '0;
      q_tx_bytes_snap_o   <= '0;
      q_lat_sum_snap_o    <= '0;
      q_lat_count_snap_o  <= '0;
      q_lat_max_snap_o    <= '0;
      cr_tx_bytes_snap_o  <= '0;
      cr_tx_pkts_snap_o   <= '0;
      cr_rx_bytes_snap_o  <= '0;
      cr_rx_pkts_snap_o   <= '0;
    end else if (snap_load_i) begin
      q_enq_pkts_snap_o   <= add64(qo_snap[0 +: 64], qo_snap[QoW + 0 +: 64]);
      q_enq_bytes_snap_o  <= add64(qo_snap[64 +: 64], qo_snap[QoW + 64 +: 64]);
      q_drop_pkts_snap_o  <= add64(qo_snap[128 +: 64], qo_snap[QoW + 128 +: 64]);
      q_drop_bytes_snap_o <= add64(qo_snap[192 +: 64], qo_snap[QoW + 192 +: 64]);
      q_tx_pkts_snap_o    <= add64(sent_snap[0 +: 64], sent_snap[SentW + 0 +: 64]);
      q_tx_bytes_snap_o   <= add64(sent_snap[64 +: 64], sent_snap[SentW + 64 +: 64]);
      q_lat_sum_snap_o    <= add64(lat_snap[0 +: 64], lat_snap[LatW + 0 +: 64]);
      q_lat_count_snap_o  <= add64(lat_snap[64 +: 64], lat_snap[LatW + 64 +: 64]);
      q_lat_max_snap_o    <= (lat_snap[128 +: 32] > lat_snap[LatW + 128 +: 32]) ? lat_snap[128 +: 32]
                                                                              : lat_snap[LatW + 128 +: 32];
      cr_tx_bytes_snap_o  <= cr_snap[0 +: 64];
      cr_tx_pkts_snap_o   <= cr_snap[64 +: 64];
      cr_rx_bytes_snap_o  <= cr_snap[CrW + 0 +: 64];
      cr_rx_pkts_snap_o   <= cr_snap[CrW + 64 +: 64];
    end
  end

endmodule

`default_nettype wire
