// nicsched_counter_ram: the counters of one event source for Depth elements, live and snapshot in RAM.
//
// The live counters L and their snapshot S are two distributed RAMs (asynchronous read, one
// synchronous write port each: LUTRAM on an FPGA, one copy per read port). Three flags per
// element make COUNTER_CLEAR and SNAPSHOT one clock each without touching the RAMs:
//   cleared_q[i]  the live value is logically 0 (cleared since L[i] was last written),
//   fresh_q[i]    S[i] holds the element's snapshot (written since the last SNAPSHOT),
//   zero_q[i]     the snapshot is logically 0 (the element was cleared when it was taken).
// Logical live     V(i) = cleared_q[i] ? 0 : L[i]
// Logical snapshot P(i) = fresh_q[i] ? S[i] : (zero_q[i] ? 0 : L[i])
//   snapshot_i: fresh_q <= 0, zero_q <= cleared_q for every element: P(i) becomes V(i) at the
//               edge, and that value stays in L until the element is next written.
//   clear_i:    cleared_q <= 1 for every element; an event in that clock is lost (as in the
//               flop counters it replaces). L is untouched, so stale snapshots keep their value.
//   event on i (ev_valid_i, not clear_i): the snapshot moves out of L before L changes:
//               S[i] <= snapshot_i ? V(i) : (zero_q[i] ? 0 : L[i]) when snapshot_i or !fresh_q[i];
//               L[i] <= ev_value_i; cleared_q[i] <= 0; fresh_q[i] <= 1.
// The parent computes ev_value_i from live_o = V(ev_idx_i) in the same clock (add for counts,
// max for maxima): one read-modify-write per clock, no forwarding (the read is asynchronous).
// So at every edge the logical counters move exactly as flops would: V(i) after the edge is
// the value before it plus this clock's event, and a SNAPSHOT takes the values before the edge.
// snap_o = P(rd_idx_i) as it is before this edge (combinational; the parent registers it): a
// SNAPSHOT in this clock is not in it, so its select (the CSR's write decode) is not on the
// read's path.
`default_nettype none

module nicsched_counter_ram #(
  parameter int Depth = 16,   // elements (queues or tenants)
  parameter int Width = 128,  // bits of one element's counters
  // derived
  parameter int IdxW  = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,
  input  wire logic             clear_i,     // COUNTER_CLEAR: every live value 0 after this edge
  input  wire logic             snapshot_i,  // SNAPSHOT: every snapshot = the live value before this edge
  // the event source: one read-modify-write per clock
  input  wire logic             ev_valid_i,
  input  wire logic [IdxW-1:0]  ev_idx_i,
  output logic      [Width-1:0] live_o,      // V(ev_idx_i) before this edge
  input  wire logic [Width-1:0] ev_value_i,  // V(ev_idx_i) after this edge, if ev_valid_i
  // the CSR's snapshot read
  input  wire logic [IdxW-1:0]  rd_idx_i,
  output logic      [Width-1:0] snap_o       // P(rd_idx_i) before this edge
);
  if (Depth < 1 || Width < 1) begin : g_bad_params
    $error("nicsched_counter_ram %m: Depth and Width must be at least 1");
  end

  logic [Width-1:0] live_mem [Depth];
  logic [Width-1:0] snap_mem [Depth];
  logic [Depth-1:0] cleared_q, fresh_q, zero_q;
  logic [Depth-1:0] cleared_d, fresh_d, zero_d;

  logic [Width-1:0] ev_live_raw, rd_live_raw, rd_snap_raw, snap_wdata;
  logic             write, snap_we;

  assign ev_live_raw = live_mem[ev_idx_i];
  assign live_o      = cleared_q[ev_idx_i] ? '0 : ev_live_raw;
  assign write       = ev_valid_i & ~clear_i;
  assign snap_we     = write & (snapshot_i | ~fresh_q[ev_idx_i]);
  assign snap_wdata  = snapshot_i ? live_o : (zero_q[ev_idx_i] ? '0 : ev_live_raw);

  always_ff @(posedge clk_i) begin
    if (write) live_mem[ev_idx_i] <= ev_value_i;
  end

  always_ff @(posedge clk_i) begin
    if (snap_we) snap_mem[ev_idx_i] <= snap_wdata;
  end

  always_comb begin
    cleared_d = cleared_q;
    fresh_d   = fresh_q;
    zero_d    = zero_q;
    if (snapshot_i) begin
      fresh_d = '0;
      zero_d  = cleared_q;
    end
    if (clear_i) cleared_d = '1;
    // the written element by a compare per element (an indexed write of a bit vector
    // becomes a shift with a 32-bit carry chain in Yosys)
    for (int i = 0; i < Depth; i++) begin
      if (write && ev_idx_i == i[IdxW-1:0]) begin
        cleared_d[i] = 1'b0;
        fresh_d[i]   = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cleared_q <= '1;  // the RAMs hold no defined value after reset: every counter reads 0
      fresh_q   <= '0;
      zero_q    <= '1;
    end else begin
      cleared_q <= cleared_d;
      fresh_q   <= fresh_d;
      zero_q    <= zero_d;
    end
  end

  // The snapshot of rd_idx_i before this edge: P.
  assign rd_live_raw = live_mem[rd_idx_i];
  assign rd_snap_raw = snap_mem[rd_idx_i];
  always_comb begin
    if (fresh_q[rd_idx_i]) begin
      snap_o = rd_snap_raw;
    end else begin
      snap_o = zero_q[rd_idx_i] ? '0 : rd_live_raw;
    end
  end

endmodule

`default_nettype wire
