// timing_port_flops: the flops around a block synthesised alone for Yosys `sta` (the
// *_timing_wrap modules: tests/rtl_arbiter/arbiter_timing_wrap.sv,
// tests/rtl_ingress/frame_pad_timing_wrap.sv). In nicsched_top a block's inputs come from
// flops and its outputs end in flops; alone, its ports would be primary inputs and outputs,
// which `sta` times differently. Every input and output is registered here with the same
// asynchronous reset as the core, so the reported critical path is flop to flop.
`default_nettype none

module timing_port_flops #(
  parameter int InW  = 1,
  parameter int OutW = 1
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire logic [InW-1:0]  in_i,   // the wrapper's input port
  output logic      [InW-1:0]  in_q,   // ... registered: the block's inputs
  input  wire logic [OutW-1:0] out_d,  // the block's outputs
  output logic      [OutW-1:0] out_o   // ... registered: the wrapper's output port
);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q  <= '0;
      out_o <= '0;
    end else begin
      in_q  <= in_i;
      out_o <= out_d;
    end
  end
endmodule

`default_nettype wire
