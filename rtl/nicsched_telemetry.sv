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
  // The counters COUNTER_CLEAR zeroes, one field per output of that name: reset and clear
  // zero them in one assignment.
  typedef struct packed {
    logic [2*64-1:0]          prs_frames, prs_runt, prs_truncated, prs_bad_ihl;
    logic [2*64-1:0]          prs_unknown_etype, prs_buf_drop;
    logic [NumTenants*64-1:0] cr_tx_busy, cr_tx_wait, cr_tx_bytes, cr_tx_pkts;
    logic [NumTenants*64-1:0] cr_rx_busy, cr_rx_wait, cr_rx_bytes, cr_rx_pkts;
    logic [NumQueues*64-1:0]  q_enq_pkts, q_enq_bytes, q_tx_pkts, q_tx_bytes;
    logic [NumQueues*64-1:0]  q_drop_pkts, q_drop_bytes, q_lat_sum, q_lat_count;
    logic [NumQueues*32-1:0]  q_lat_max, q_depth_hwm;
  } counters_t;

  // Every counter zero: the value after reset and COUNTER_CLEAR. (Verilator takes any fill
  // of more than 8 kbit for a mistake; this one is meant: 14 kbit at 8 tenants.)
  /* verilator lint_off WIDTHCONCAT */
  localparam counters_t COUNTERS_ZERO = '0;
  /* verilator lint_on WIDTHCONCAT */

  counters_t cnt_q, cnt_d;
  logic [NumQueues*32-1:0] depth_d;

  always_comb begin
    logic [63:0] a_pk, a_by, d_pk, d_by, s_pk, s_by, l_sum, l_cnt;
    logic [31:0] l_max, dep;
    cnt_d   = cnt_q;
    depth_d = q_depth_o;
    for (int q = 0; q < NumQueues; q++) begin
      a_pk = '0; a_by = '0; d_pk = '0; d_by = '0; s_pk = '0; s_by = '0;
      l_sum = '0; l_cnt = '0;
      l_max = cnt_q.q_lat_max[q*32 +: 32];
      for (int d = 0; d < 2; d++) begin
        if (ev_queue_i[d*QueueW +: QueueW] == q[QueueW-1:0]) begin
          if (enq_valid_i[d]) begin
            a_pk = a_pk + 64'd1;
            a_by = a_by + {{(64-LenW){1'b0}}, ev_len_i[d*LenW +: LenW]};
          end
          if (lim_drop_i[d]) begin
            d_pk = d_pk + 64'd1;
            d_by = d_by + {{(64-LenW){1'b0}}, ev_len_i[d*LenW +: LenW]};
          end
        end
        if (sent_valid_i[d] && sent_queue_i[d*QueueW +: QueueW] == q[QueueW-1:0]) begin
          s_pk = s_pk + 64'd1;
          s_by = s_by + {{(64-LenW){1'b0}}, sent_len_i[d*LenW +: LenW]};
        end
        if (lat_valid_i[d] && lat_queue_i[d*QueueW +: QueueW] == q[QueueW-1:0]) begin
          l_cnt = l_cnt + 64'd1;
          l_sum = l_sum + {{(64-TsW){1'b0}}, lat_cycles_i[d*TsW +: TsW]};
          if (lat_cycles_i[d*TsW +: TsW] > l_max) begin
            l_max = lat_cycles_i[d*TsW +: TsW];
          end
        end
      end
      cnt_d.q_enq_pkts[q*64 +: 64]   = cnt_q.q_enq_pkts[q*64 +: 64] + a_pk;
      cnt_d.q_enq_bytes[q*64 +: 64]  = cnt_q.q_enq_bytes[q*64 +: 64] + a_by;
      cnt_d.q_drop_pkts[q*64 +: 64]  = cnt_q.q_drop_pkts[q*64 +: 64] + d_pk;
      cnt_d.q_drop_bytes[q*64 +: 64] = cnt_q.q_drop_bytes[q*64 +: 64] + d_by;
      cnt_d.q_tx_pkts[q*64 +: 64]    = cnt_q.q_tx_pkts[q*64 +: 64] + s_pk;
      cnt_d.q_tx_bytes[q*64 +: 64]   = cnt_q.q_tx_bytes[q*64 +: 64] + s_by;
      cnt_d.q_lat_sum[q*64 +: 64]    = cnt_q.q_lat_sum[q*64 +: 64] + l_sum;
      cnt_d.q_lat_count[q*64 +: 64]  = cnt_q.q_lat_count[q*64 +: 64] + l_cnt;
      cnt_d.q_lat_max[q*32 +: 32]    = l_max;
      dep = tx_q_bytes_i[q*32 +: 32] + rx_q_bytes_i[q*32 +: 32];
      depth_d[q*32 +: 32]            = dep;
      cnt_d.q_depth_hwm[q*32 +: 32]  = (dep > cnt_q.q_depth_hwm[q*32 +: 32]) ? dep : cnt_q.q_depth_hwm[q*32 +: 32];
    end

    for (int t = 0; t < NumTenants; t++) begin
      cnt_d.cr_tx_busy[t*64 +: 64] = cnt_q.cr_tx_busy[t*64 +: 64] + {{(64-BusyW){1'b0}}, cr_busy_tx_i[t*BusyW +: BusyW]};
      cnt_d.cr_rx_busy[t*64 +: 64] = cnt_q.cr_rx_busy[t*64 +: 64] + {{(64-BusyW){1'b0}}, cr_busy_rx_i[t*BusyW +: BusyW]};
      cnt_d.cr_tx_wait[t*64 +: 64] = cnt_q.cr_tx_wait[t*64 +: 64] + {63'd0, cr_wait_tx_i[t]};
      cnt_d.cr_rx_wait[t*64 +: 64] = cnt_q.cr_rx_wait[t*64 +: 64] + {63'd0, cr_wait_rx_i[t]};
      if (cr_claim_i[0] && cr_claim_tenant_i[TenantW-1:0] == t[TenantW-1:0]) begin
        cnt_d.cr_tx_bytes[t*64 +: 64] = cnt_d.cr_tx_bytes[t*64 +: 64] + {{(64-LenW){1'b0}}, cr_claim_len_i[LenW-1:0]};
        cnt_d.cr_tx_pkts[t*64 +: 64]  = cnt_d.cr_tx_pkts[t*64 +: 64] + 64'd1;
      end
      if (cr_claim_i[1] && cr_claim_tenant_i[2*TenantW-1:TenantW] == t[TenantW-1:0]) begin
        cnt_d.cr_rx_bytes[t*64 +: 64] = cnt_d.cr_rx_bytes[t*64 +: 64] + {{(64-LenW){1'b0}}, cr_claim_len_i[2*LenW-1:LenW]};
        cnt_d.cr_rx_pkts[t*64 +: 64]  = cnt_d.cr_rx_pkts[t*64 +: 64] + 64'd1;
      end
    end
    for (int d = 0; d < 2; d++) begin
      cnt_d.prs_frames[d*64 +: 64]        = cnt_q.prs_frames[d*64 +: 64] + {63'd0, prs_frames_i[d]};
      cnt_d.prs_runt[d*64 +: 64]          = cnt_q.prs_runt[d*64 +: 64] + {63'd0, prs_runt_i[d]};
      cnt_d.prs_truncated[d*64 +: 64]     = cnt_q.prs_truncated[d*64 +: 64] + {63'd0, prs_truncated_i[d]};
      cnt_d.prs_bad_ihl[d*64 +: 64]       = cnt_q.prs_bad_ihl[d*64 +: 64] + {63'd0, prs_bad_ihl_i[d]};
      cnt_d.prs_unknown_etype[d*64 +: 64] = cnt_q.prs_unknown_etype[d*64 +: 64] + {63'd0, prs_unknown_etype_i[d]};
      cnt_d.prs_buf_drop[d*64 +: 64]      = cnt_q.prs_buf_drop[d*64 +: 64] + {63'd0, buf_drop_i[d]};
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
  assign cr_tx_busy_o        = cnt_q.cr_tx_busy;
  assign cr_tx_wait_o        = cnt_q.cr_tx_wait;
  assign cr_tx_bytes_o       = cnt_q.cr_tx_bytes;
  assign cr_tx_pkts_o        = cnt_q.cr_tx_pkts;
  assign cr_rx_busy_o        = cnt_q.cr_rx_busy;
  assign cr_rx_wait_o        = cnt_q.cr_rx_wait;
  assign cr_rx_bytes_o       = cnt_q.cr_rx_bytes;
  assign cr_rx_pkts_o        = cnt_q.cr_rx_pkts;
  assign q_enq_pkts_o        = cnt_q.q_enq_pkts;
  assign q_enq_bytes_o       = cnt_q.q_enq_bytes;
  assign q_tx_pkts_o         = cnt_q.q_tx_pkts;
  assign q_tx_bytes_o        = cnt_q.q_tx_bytes;
  assign q_drop_pkts_o       = cnt_q.q_drop_pkts;
  assign q_drop_bytes_o      = cnt_q.q_drop_bytes;
  assign q_lat_sum_o         = cnt_q.q_lat_sum;
  assign q_lat_count_o       = cnt_q.q_lat_count;
  assign q_lat_max_o         = cnt_q.q_lat_max;
  assign q_depth_hwm_o       = cnt_q.q_depth_hwm;

endmodule

`default_nettype wire
