// A module that infers a latch (an incomplete `always @*`), for the test that shows the
// Yosys check fails on latches. Not part of the RTL.
module latch_fixture (
  input  wire       en_i,
  input  wire [3:0] d_i,
  output reg  [3:0] q_o
);
  always @* begin
    if (en_i) q_o = d_i;
  end
endmodule
