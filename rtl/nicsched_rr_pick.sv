// nicsched_rr_pick: round-robin pick among NumReq requesters, combinational, one-hot.
//
// Grants the first requester after the last grant, cyclically: the lowest request above
// last_i's set bit, else the lowest request. last_i is the last grant, one-hot (all zero
// reads as "before requester 0": the lowest request wins). The caller keeps last_i in a
// flop and loads it with gnt_o when the grant is taken, so every requester that keeps its
// request is granted within NumReq picks (round robin by grants).
// Timing: no rotation and no index arithmetic. "Above the last grant" is an OR prefix of
// last_i, which is a flop in the caller, so it is ready before the requests; from req_i to
// gnt_o there are two lowest-set-bit searches side by side (requests above, every request)
// and a select on "some request above": OR prefixes of NumReq bits (log2(NumReq) deep once
// mapped) and one mux.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_rr_pick #(
  parameter int NumReq = 8  // requesters
) (
  input  wire logic              clk_i,   // for the assertions only
  input  wire logic              rst_ni,  // for the assertions only
  input  wire logic [NumReq-1:0] last_i,  // the last grant, one-hot (or zero)
  input  wire logic [NumReq-1:0] req_i,   // requests
  output logic      [NumReq-1:0] gnt_o    // the pick, one-hot; zero when no request
);
  if (NumReq < 1) begin : gen_bad_num_req
    $error("nicsched_rr_pick %m: NumReq must be at least 1");
  end

  if (NumReq == 1) begin : gen_single
    logic unused_last;  // one requester: it is always the next
    assign unused_last = last_i[0];
    assign gnt_o       = req_i;
  end else begin : gen_pick
    logic [NumReq-1:0] above;      // requesters after the last grant
    logic [NumReq-1:0] first_hi;   // lowest request above the last grant
    logic [NumReq-1:0] first_all;  // lowest request
    logic              any_hi;     // some request above the last grant
    always_comb begin
      logic seen_last, seen_hi, seen_all;
      seen_last = 1'b0;
      seen_hi   = 1'b0;
      seen_all  = 1'b0;
      for (int i = 0; i < NumReq; i++) begin
        above[i]     = seen_last;
        first_hi[i]  = req_i[i] && seen_last && !seen_hi;
        first_all[i] = req_i[i] && !seen_all;
        seen_last    = seen_last || last_i[i];
        seen_hi      = seen_hi || (req_i[i] && above[i]);
        seen_all     = seen_all || req_i[i];
      end
      any_hi = seen_hi;
      gnt_o  = any_hi ? first_hi : first_all;
    end
  end

  `NICSCHED_ASSERT(GntOnehot_A, gnt_o == '0 || $onehot(gnt_o))
  `NICSCHED_ASSERT(GntRequested_A, (gnt_o & ~req_i) == '0)
  `NICSCHED_ASSERT(GntWhenRequested_A, (req_i == '0) || (gnt_o != '0))

endmodule

`default_nettype wire
