// nicsched_assert.svh: the assertion macro of the RTL (after lowRISC's prim_assert.sv).
//
// `NICSCHED_ASSERT(Name_A, prop [, clk [, rst_n]])
//   prop holds at every rising edge of clk (default clk_i) while rst_n (default rst_ni)
//   is high. It is an immediate assertion in a clocked block named Name_A, so a failure
//   names it: Verilator checks it in models built with --assert, the formal flow
//   (constraints/yosys/formal.sh, which reads the RTL without SYNTHESIS) proves it, and
//   synthesis (SYNTHESIS defined: synth.sh, Vivado) leaves it out.
//   A condition is written as an implication: `!cond || prop`.
//
// Include it after `default_nettype none, before the module:
//   `include "rtl/nicsched_assert.svh"
// The path is from the repository root: a tool run there (`verilator --lint-only -Wall
// rtl/...`) finds it with no option; the project's flows put the root on the include
// path (NICSCHED_VERILATOR_ARGS, tests/lint/lint_rtl.sh, constraints/yosys/*.sh,
// constraints/vivado/build.tcl).
`ifndef NICSCHED_ASSERT_SVH
`define NICSCHED_ASSERT_SVH

`ifdef SYNTHESIS
`define NICSCHED_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni)
`else
`define NICSCHED_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni) \
  always_ff @(posedge __clk) begin : __name \
    if (__rst_n) assert (__prop); \
  end
`endif

`endif  // NICSCHED_ASSERT_SVH
