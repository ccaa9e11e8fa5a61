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
  // per-queue: what each direction's event adds this clock
  logic [NumQueues*64-1:0] enq_pkts_d, enq_bytes_d, tx_pkts_d, tx_bytes_d;
  logic [NumQueues*64-1:0] drop_pkts_d, drop_bytes_d, lat_sum_d, lat_count_d;
  logic [NumQueues*32-1:0] lat_max_d, depth_d, hwm_d;
  logic [NumTenants*64-1:0] txb_d, txw_d, txy_d, txp_d, rxb_d, rxw_d, rxy_d, rxp_d;
  logic [2*64-1:0] pf_d, pr_d, pt_d, pi_d, pu_d, pb_d;

  always_comb begin
    logic [63:0] a_pk, a_by, d_pk, d_by, s_pk, s_by, l_sum, l_cnt;
    logic [31:0] l_max, dep;
    enq_pkts_d = q_enq_pkts_o;   enq_bytes_d = q_enq_bytes_o;
    tx_pkts_d  = q_tx_pkts_o;    tx_bytes_d  = q_tx_bytes_o;
    drop_pkts_d = q_drop_pkts_o; drop_bytes_d = q_drop_bytes_o;
    lat_sum_d  = q_lat_sum_o;    lat_count_d = q_lat_count_o;
    lat_max_d  = q_lat_max_o;    depth_d = q_depth_o;  hwm_d = q_depth_hwm_o;
    for (int q = 0; q < NumQueues; q++) begin
      a_pk = '0; a_by = '0; d_pk = '0; d_by = '0; s_pk = '0; s_by = '0;
      l_sum = '0; l_cnt = '0;
      l_max = q_lat_max_o[q*32 +: 32];
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
      enq_pkts_d[q*64 +: 64]   = q_enq_pkts_o[q*64 +: 64] + a_pk;
      enq_bytes_d[q*64 +: 64]  = q_enq_bytes_o[q*64 +: 64] + a_by;
      drop_pkts_d[q*64 +: 64]  = q_drop_pkts_o[q*64 +: 64] + d_pk;
      drop_bytes_d[q*64 +: 64] = q_drop_bytes_o[q*64 +: 64] + d_by;
      tx_pkts_d[q*64 +: 64]    = q_tx_pkts_o[q*64 +: 64] + s_pk;
      tx_bytes_d[q*64 +: 64]   = q_tx_bytes_o[q*64 +: 64] + s_by;
      lat_sum_d[q*64 +: 64]    = q_lat_sum_o[q*64 +: 64] + l_sum;
      lat_count_d[q*64 +: 64]  = q_lat_count_o[q*64 +: 64] + l_cnt;
      lat_max_d[q*32 +: 32]    = l_max;
      dep = tx_q_bytes_i[q*32 +: 32] + rx_q_bytes_i[q*32 +: 32];
      depth_d[q*32 +: 32]      = dep;
      hwm_d[q*32 +: 32]        = (dep > q_depth_hwm_o[q*32 +: 32]) ? dep : q_depth_hwm_o[q*32 +: 32];
    end
  end

  always_comb begin
    for (int t = 0; t < NumTenants; t++) begin
      txb_d[t*64 +: 64] = cr_tx_busy_o[t*64 +: 64] + {{(64-BusyW){1'b0}}, cr_busy_tx_i[t*BusyW +: BusyW]};
      rxb_d[t*64 +: 64] = cr_rx_busy_o[t*64 +: 64] + {{(64-BusyW){1'b0}}, cr_busy_rx_i[t*BusyW +: BusyW]};
      txw_d[t*64 +: 64] = cr_tx_wait_o[t*64 +: 64] + {63'd0, cr_wait_tx_i[t]};
      rxw_d[t*64 +: 64] = cr_rx_wait_o[t*64 +: 64] + {63'd0, cr_wait_rx_i[t]};
      txy_d[t*64 +: 64] = cr_tx_bytes_o[t*64 +: 64];
      txp_d[t*64 +: 64] = cr_tx_pkts_o[t*64 +: 64];
      rxy_d[t*64 +: 64] = cr_rx_bytes_o[t*64 +: 64];
      rxp_d[t*64 +: 64] = cr_rx_pkts_o[t*64 +: 64];
      if (cr_claim_i[0] && cr_claim_tenant_i[TenantW-1:0] == t[TenantW-1:0]) begin
        txy_d[t*64 +: 64] = txy_d[t*64 +: 64] + {{(64-LenW){1'b0}}, cr_claim_len_i[LenW-1:0]};
        txp_d[t*64 +: 64] = txp_d[t*64 +: 64] + 64'd1;
      end
      if (cr_claim_i[1] && cr_claim_tenant_i[2*TenantW-1:TenantW] == t[TenantW-1:0]) begin
        rxy_d[t*64 +: 64] = rxy_d[t*64 +: 64] + {{(64-LenW){1'b0}}, cr_claim_len_i[2*LenW-1:LenW]};
        rxp_d[t*64 +: 64] = rxp_d[t*64 +: 64] + 64'd1;
      end
    end
    for (int d = 0; d < 2; d++) begin
      pf_d[d*64 +: 64] = prs_frames_o[d*64 +: 64] + {63'd0, prs_frames_i[d]};
      pr_d[d*64 +: 64] = prs_runt_o[d*64 +: 64] + {63'd0, prs_runt_i[d]};
      pt_d[d*64 +: 64] = prs_truncated_o[d*64 +: 64] + {63'd0, prs_truncated_i[d]};
      pi_d[d*64 +: 64] = prs_bad_ihl_o[d*64 +: 64] + {63'd0, prs_bad_ihl_i[d]};
      pu_d[d*64 +: 64] = prs_unknown_etype_o[d*64 +: 64] + {63'd0, prs_unknown_etype_i[d]};
      pb_d[d*64 +: 64] = prs_buf_drop_o[d*64 +: 64] + {63'd0, buf_drop_i[d]};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cycle_o <= '0;
    end else begin
      cycle_o <= cycle_o + 64'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      crypto_busy_o       <= '0;
      cr_slots_held_o     <= '0;
      q_depth_o           <= '0;
      q_depth_pkts_o      <= '0;
      prs_frames_o        <= '0;
      prs_runt_o          <= '0;
      prs_truncated_o     <= '0;
      prs_bad_ihl_o       <= '0;
      prs_unknown_etype_o <= '0;
      prs_buf_drop_o      <= '0;
      cr_tx_busy_o        <= '0;
      cr_tx_wait_o        <= '0;
      cr_tx_bytes_o       <= '0;
      cr_tx_pkts_o        <= '0;
      cr_rx_busy_o        <= '0;
      cr_rx_wait_o        <= '0;
      cr_rx_bytes_o       <= '0;
      cr_rx_pkts_o        <= '0;
      q_enq_pkts_o        <= '0;
      q_enq_bytes_o       <= '0;
      q_tx_pkts_o         <= '0;
      q_tx_bytes_o        <= '0;
      q_drop_pkts_o       <= '0;
      q_drop_bytes_o      <= '0;
      q_lat_sum_o         <= '0;
      q_lat_count_o       <= '0;
      q_lat_max_o         <= '0;
      q_depth_hwm_o       <= '0;
    end else begin
      // levels: follow the datapath, never cleared
      crypto_busy_o   <= cr_held_total_i;
      cr_slots_held_o <= cr_held_i;
      q_depth_o       <= depth_d;
      for (int q = 0; q < NumQueues; q++) begin
        q_depth_pkts_o[q*32 +: 32] <= tx_q_pkts_i[q*32 +: 32] + rx_q_pkts_i[q*32 +: 32];
      end
      if (clear_i) begin
        prs_frames_o        <= '0;
        prs_runt_o          <= '0;
        prs_truncated_o     <= '0;
        prs_bad_ihl_o       <= '0;
        prs_unknown_etype_o <= '0;
        prs_buf_drop_o      <= '0;
        cr_tx_busy_o        <= '0;
        cr_tx_wait_o        <= '0;
        cr_tx_bytes_o       <= '0;
        cr_tx_pkts_o        <= '0;
        cr_rx_busy_o        <= '0;
        cr_rx_wait_o        <= '0;
        cr_rx_bytes_o       <= '0;
        cr_rx_pkts_o        <= '0;
        q_enq_pkts_o        <= '0;
        q_enq_bytes_o       <= '0;
        q_tx_pkts_o         <= '0;
        q_tx_bytes_o        <= '0;
        q_drop_pkts_o       <= '0;
        q_drop_bytes_o      <= '0;
        q_lat_sum_o         <= '0;
        q_lat_count_o       <= '0;
        q_lat_max_o         <= '0;
        q_depth_hwm_o       <= '0;
      end else begin
        prs_frames_o        <= pf_d;
        prs_runt_o          <= pr_d;
        prs_truncated_o     <= pt_d;
        prs_bad_ihl_o       <= pi_d;
        prs_unknown_etype_o <= pu_d;
        prs_buf_drop_o      <= pb_d;
        cr_tx_busy_o        <= txb_d;
        cr_tx_wait_o        <= txw_d;
        cr_tx_bytes_o       <= txy_d;
        cr_tx_pkts_o        <= txp_d;
        cr_rx_busy_o        <= rxb_d;
        cr_rx_wait_o        <= rxw_d;
        cr_rx_bytes_o       <= rxy_d;
        cr_rx_pkts_o        <= rxp_d;
        q_enq_pkts_o        <= enq_pkts_d;
        q_enq_bytes_o       <= enq_bytes_d;
        q_tx_pkts_o         <= tx_pkts_d;
        q_tx_bytes_o        <= tx_bytes_d;
        q_drop_pkts_o       <= drop_pkts_d;
        q_drop_bytes_o      <= drop_bytes_d;
        q_lat_sum_o         <= lat_sum_d;
        q_lat_count_o       <= lat_count_d;
        q_lat_max_o         <= lat_max_d;
        q_depth_hwm_o       <= hwm_d;
      end
    end
  end

endmodule

`default_nettype wire
