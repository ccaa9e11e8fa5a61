// nicsched_sync: multi-flop synchroniser for signals entering the clk_i domain.
//
// Each bit of d_i passes through Stages flip-flops clocked by clk_i; q_o is d_i as
// seen Stages clock edges later. Use it only for signals where bits may be sampled
// independently: single-bit levels, or multi-bit values that change at most one bit
// at a time (gray-coded counters, as in nicsched_async_fifo). A binary multi-bit bus
// must not cross through this block.
//
// Reset synchroniser: with d_i tied to '1 and rst_ni driven by the asynchronous reset
// source, q_o asserts (goes to ResetValue = 0) asynchronously with rst_ni and
// deasserts synchronously to clk_i after Stages edges: the usual reset bridge.
//
// The flops carry ASYNC_REG so that Vivado places them in one slice and treats their
// inputs as asynchronous (see constraints/vivado/cdc.xdc for the timing exceptions).
`default_nettype none

module nicsched_sync #(
  parameter int Width      = 1,   // bits synchronised independently
  parameter int Stages     = 2,   // flip-flops in the chain; 2 or more
  parameter logic ResetValue = 1'b0 // value of every bit while rst_ni is low
) (
  input  wire logic             clk_i,  // destination clock
  input  wire logic             rst_ni, // asynchronous active-low reset (destination domain)
  input  wire logic [Width-1:0] d_i,    // asynchronous input
  output logic      [Width-1:0] q_o     // d_i synchronised to clk_i
);

  if (Stages < 2) begin : gen_bad_stages
    $error("nicsched_sync %m: Stages must be at least 2");
  end
  if (Width < 1) begin : gen_bad_width
    $error("nicsched_sync %m: Width must be at least 1");
  end

  (* ASYNC_REG = "TRUE" *) logic [Stages*Width-1:0] chain_q;
  logic [Stages*Width-1:0] chain_d;

  always_comb begin
    chain_d = {chain_q[(Stages-1)*Width-1:0], d_i};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      chain_q <= {(Stages*Width){ResetValue}};
    end else begin
      chain_q <= chain_d;
    end
  end

  assign q_o = chain_q[Stages*Width-1 -: Width];

endmodule

`default_nettype wire
