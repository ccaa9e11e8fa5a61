// nicsched_desc_fifo: a small FIFO of registers whose head is a flop (the path's plain
// descriptors waiting for the egress).
//
// Behaviour and timing
// - Entry 0 is the head (head_o, a flop: valid when count_o != 0). A pop shifts every entry
//   down by one; a push writes behind the last entry kept after this clock's pop, so a push
//   and a pop may share a clock, also with the FIFO full (the pop makes the room).
// - A pushed entry is the head from the next clock when the FIFO was empty (or held one
//   entry that is popped in the same clock): one clock from push to head_o, no bypass.
// - count_o is a flop: the caller's credit rules read it without logic of the FIFO's.
//   count_next_o is the count after this clock's pop and push (count_o of the next clock),
//   for a caller that registers a rule on the count a clock ahead.
// - The caller must not push into a full FIFO unless it pops in the same clock, and must
//   not pop an empty one (NoOverflow_A, NoUnderflow_A); nothing is checked or dropped.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_desc_fifo #(
  parameter int Width = 8,  // bits of an entry
  parameter int Depth = 3,  // entries
  // derived
  parameter int CountW = $clog2(Depth + 1)
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,
  // write side
  input  wire logic              push_i,   // data_i enters behind the kept entries
  input  wire logic [Width-1:0]  data_i,
  // read side
  input  wire logic              pop_i,    // head_o leaves at this edge
  output logic      [Width-1:0]  head_o,   // oldest entry (a flop)
  output logic      [CountW-1:0] count_o,      // entries held (a flop)
  output logic      [CountW-1:0] count_next_o  // entries held from the next clock
);
  if (Width < 1 || Depth < 1) begin : gen_bad_params
    $error("nicsched_desc_fifo %m: Width and Depth must be at least 1");
  end

  localparam logic [CountW-1:0] DEPTH = CountW'(Depth);

  logic [Depth*Width-1:0] mem_q;
  logic [CountW-1:0]      count_q, count_d, kept;

  assign kept    = count_q - {{(CountW-1){1'b0}}, pop_i};
  assign count_d = kept + {{(CountW-1){1'b0}}, push_i};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mem_q   <= '0;
      count_q <= '0;
    end else begin
      for (int i = 0; i < Depth; i++) begin
        if (pop_i && i + 1 < Depth) begin
          mem_q[i*Width +: Width] <= mem_q[(i+1)*Width +: Width];
        end
        if (push_i && {{(32-CountW){1'b0}}, kept} == i) begin
          mem_q[i*Width +: Width] <= data_i;
        end
      end
      count_q <= count_d;
    end
  end

  assign head_o  = mem_q[Width-1:0];
  assign count_o      = count_q;
  assign count_next_o = count_d;

  `NICSCHED_ASSERT(NoOverflow_A, !push_i || kept < DEPTH)
  `NICSCHED_ASSERT(NoUnderflow_A, !pop_i || count_q != '0)

endmodule

`default_nettype wire
