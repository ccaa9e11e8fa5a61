// nicsched_shaper: per-tenant token buckets (the egress rate limit; the control buckets).
//
// The one token-bucket implementation: nicsched_top has two instances, u_shaper for the
// rate limit (T_CTRL.RATE_EN, T_RATE, T_BURST) and u_ctrl_shaper for the control level
// (CTRL.CONTROL_LEVEL, T_CTRL_RATE, T_CTRL_BURST; it consumes only frames granted at the
// control level).
//
// Tokens are kept in 1/1024 byte, so T_RATE (bytes per 1024 cycles) is added whole
// every clock. The bucket holds at most T_BURST bytes. A tenant conforms (may send)
// while its bucket is not negative; a frame sent takes its length from the bucket,
// which may go negative (the next frame then waits until it is paid back). The long-run
// rate is exactly T_RATE, bursts are at most T_BURST plus one frame. With RATE_EN = 0
// the bucket is held full and the tenant always conforms, so enabling the limit starts
// with a full burst. Timing: conform_o is registered state; a consume at edge t is
// reflected from t+1. After reset a bucket holds ResetBytes (the rate limit: 0, held
// full anyway while RATE_EN is 0; the control buckets: the reset T_CTRL_BURST, full).
`default_nettype none

module nicsched_shaper #(
  parameter int NumTenants = 8,   // tenants
  parameter int LenW       = 16,  // frame length bits
  parameter logic [23:0] ResetBytes = 24'd0,  // tokens (bytes) in every bucket after reset
  // derived
  parameter int TenantW    = (NumTenants > 1) ? $clog2(NumTenants) : 1
) (
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic [NumTenants-1:0]    rate_en_i,   // T_CTRL.RATE_EN
  input  wire logic [NumTenants*24-1:0] rate_i,      // T_RATE.BYTES_PER_KCYCLE
  input  wire logic [NumTenants*24-1:0] burst_i,     // T_BURST.BYTES
  input  wire logic                     consume_i,   // a frame of tenant consume_tenant_i left
  input  wire logic [TenantW-1:0]       consume_tenant_i,
  input  wire logic [LenW-1:0]          consume_len_i,
  output logic [NumTenants-1:0]         conform_o    // tenant may send now
);
  localparam int TokW = 24 + 10 + 2;  // signed, 1/1024-byte units

  logic [NumTenants*TokW-1:0] tok_q, tok_d;

  always_comb begin
    logic [TokW-1:0] cap;
    logic [TokW-1:0] t;
    cap = '0;
    t   = '0;
    for (int i = 0; i < NumTenants; i++) begin
      cap = {2'b0, burst_i[i*24 +: 24], 10'b0};
      t   = tok_q[i*TokW +: TokW] + {12'b0, rate_i[i*24 +: 24]};
      if ($signed(t) > $signed(cap)) begin
        t = cap;
      end
      if (consume_i && consume_tenant_i == i[TenantW-1:0]) begin
        t = t - {{(TokW-LenW-10){1'b0}}, consume_len_i, 10'b0};
      end
      if (!rate_en_i[i]) begin
        t = cap;
      end
      tok_d[i*TokW +: TokW] = t;
      conform_o[i] = !rate_en_i[i] || !tok_q[i*TokW + TokW - 1];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tok_q <= {NumTenants{2'b0, ResetBytes, 10'b0}};
    end else begin
      tok_q <= tok_d;
    end
  end

endmodule

`default_nettype wire
