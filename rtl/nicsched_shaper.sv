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
`include "rtl/nicsched_assert.svh"

module nicsched_shaper #(
  parameter int NumTenants = 8,   // tenants
  parameter int LenW       = 16,  // frame length bits
  // the rate and burst fields' widths (the rate limit's by default; the control buckets'
  // T_CTRL_RATE / T_CTRL_BURST are passed by nicsched_top)
  parameter int RateW      = nicsched_regs_pkg::T_RATE_BYTES_PER_KCYCLE_WIDTH,
  parameter int BurstW     = nicsched_regs_pkg::T_BURST_BYTES_WIDTH,
  parameter logic [BurstW-1:0] ResetBytes = '0  // tokens (bytes) in every bucket after reset
) (
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic [NumTenants-1:0]    rate_en_i,   // T_CTRL.RATE_EN
  input  wire logic [NumTenants*RateW-1:0]  rate_i,   // T_RATE.BYTES_PER_KCYCLE
  input  wire logic [NumTenants*BurstW-1:0] burst_i,  // T_BURST.BYTES
  input  wire logic [NumTenants-1:0]    consume_i,   // a frame of tenant t left (one-hot or none)
  input  wire logic [NumTenants*LenW-1:0] consume_len_i,  // [t]: its length (read where consume_i[t])
  output logic [NumTenants-1:0]         conform_o    // tenant may send now
);
  // signed, 1/1024-byte units: the cap (burst << 10), a rate added whole and a frame's length
  // (len << 10) fit with a bit to spare before the sign
  localparam int MagW = (RateW > BurstW + 10) ? RateW : BurstW + 10;
  localparam int TokW = ((MagW > LenW + 10) ? MagW : LenW + 10) + 2;
  localparam int CmpW = TokW + 1;  // tok + rate - cap without overflow

  logic [NumTenants*TokW-1:0] tok_q, tok_d;
  logic [NumTenants-1:0]      over;  // tok + rate > cap: the refill is capped

  // Every candidate next value from flops and inputs, in parallel, then selected (no carry
  // chain after another): the refill tok + rate, the cap, and each less a frame sent now.
  // Three-operand sums are reduced to a sum and a carry word (one LUT a bit) so that each
  // takes one carry chain. The selects are AND-OR, not a mux of sums (which Yosys's
  // opt_share would merge back into one sum after the select).
  always_comb begin
    logic [TokW-1:0] tok, rate, cap, len, fill, fill_c, cap_c, s;
    logic [CmpW-1:0] ca, cb, cc, cs, diff;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [TokW-1:0] cy;   // its top bit carries out of the sum: not read
    logic [CmpW-1:0] ccy;  // likewise
    /* verilator lint_on UNUSEDSIGNAL */
    logic            take, sel_fill, sel_fill_c, sel_cap, sel_cap_c;
    for (int i = 0; i < NumTenants; i++) begin
      tok  = tok_q[i*TokW +: TokW];
      rate = TokW'(rate_i[i*RateW +: RateW]);
      cap  = TokW'({burst_i[i*BurstW +: BurstW], 10'b0});
      len  = TokW'({consume_len_i[i*LenW +: LenW], 10'b0});
      take = consume_i[i];
      // tok + rate > cap  <=>  tok + rate + ~cap >= 0 (~cap = -cap - 1), in CmpW bits
      ca   = {tok[TokW-1], tok};
      cb   = {1'b0, rate};
      cc   = ~{1'b0, cap};
      cs   = ca ^ cb ^ cc;
      ccy  = (ca & cb) | (ca & cc) | (cb & cc);
      diff = cs + {ccy[CmpW-2:0], 1'b0};
      over[i] = !diff[CmpW-1];
      // tok + rate - len = tok + rate + ~len + 1, the + 1 in the carry word's free bit
      s      = tok ^ rate ^ ~len;
      cy     = (tok & rate) | (tok & ~len) | (rate & ~len);
      fill   = tok + rate;
      fill_c = s + {cy[TokW-2:0], 1'b1};
      cap_c  = cap - len;
      // RATE_EN = 0 holds the bucket full
      sel_fill   = rate_en_i[i] && !over[i] && !take;
      sel_fill_c = rate_en_i[i] && !over[i] && take;
      sel_cap    = !rate_en_i[i] || (over[i] && !take);
      sel_cap_c  = rate_en_i[i] && over[i] && take;
      tok_d[i*TokW +: TokW] = ({TokW{sel_fill}} & fill) | ({TokW{sel_fill_c}} & fill_c) |
                              ({TokW{sel_cap}} & cap) | ({TokW{sel_cap_c}} & cap_c);
      conform_o[i] = !rate_en_i[i] || !tok[TokW-1];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tok_q <= {NumTenants{TokW'({ResetBytes, 10'b0})}};
    end else begin
      tok_q <= tok_d;
    end
  end

  `NICSCHED_ASSERT(ConsumeOnehot_A, (consume_i & (consume_i - NumTenants'(1))) == '0)
  // the capped refill's compare taken as the signed compare of the sum it replaces
  for (genvar i = 0; i < NumTenants; i++) begin : g_assert
    `NICSCHED_ASSERT(OverIsSignedCompare_A, over[i] ==
                     ($signed(tok_q[i*TokW +: TokW]) + $signed(TokW'(rate_i[i*RateW +: RateW])) >
                      $signed(TokW'({burst_i[i*BurstW +: BurstW], 10'b0}))))
  end

endmodule

`default_nettype wire
