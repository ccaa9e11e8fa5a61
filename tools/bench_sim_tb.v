// Icarus Verilog stimulus for the simulation-speed comparison (tools/bench_sim.sh): the
// same register writes and looping TX frames that `bench_sim replay` drives into the
// Verilated top, against the Yosys-written plain-Verilog nicsched_top. The egress MAC
// takes beats at 50 bytes/cycle (100 GbE at 250 MHz) with 24 bytes per frame of overhead,
// as NicModel's MAC does. Run: vvp sim +cycles=N (files regs.hex, beats.hex in the cwd).
`timescale 1ns / 1ps
`include "stimulus.vh"
module bench_sim_tb;
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  reg [511:0] s_tx_tdata = 512'b0;
  reg [63:0] s_tx_tkeep = 64'b0;
  reg s_tx_tvalid = 1'b0;
  reg s_tx_tlast = 1'b0;
  wire s_tx_tready;
  wire [511:0] m_tx_tdata;
  wire [63:0] m_tx_tkeep;
  wire m_tx_tvalid, m_tx_tlast;
  wire [8:0] m_tx_tuser;
  reg m_tx_tready = 1'b0;
  reg [15:0] awaddr = 16'b0;
  reg awvalid = 1'b0;
  wire awready;
  reg [31:0] wdata = 32'b0;
  reg wvalid = 1'b0;
  wire wready;
  wire [1:0] bresp;
  wire bvalid;
  reg bready = 1'b0;
  wire arready;
  wire [31:0] rdata;
  wire [1:0] rresp;
  wire rvalid;

  nicsched_top dut (
    .clk_i(clk), .rst_ni(rst_n),
    .s_axis_tx_tdata(s_tx_tdata), .s_axis_tx_tkeep(s_tx_tkeep), .s_axis_tx_tvalid(s_tx_tvalid),
    .s_axis_tx_tready(s_tx_tready), .s_axis_tx_tlast(s_tx_tlast),
    .m_axis_tx_tdata(m_tx_tdata), .m_axis_tx_tkeep(m_tx_tkeep), .m_axis_tx_tvalid(m_tx_tvalid),
    .m_axis_tx_tready(m_tx_tready), .m_axis_tx_tlast(m_tx_tlast), .m_axis_tx_tuser(m_tx_tuser),
    // RX idle: nothing enters, whatever leaves is taken and not looked at.
    .s_axis_rx_tdata(512'b0), .s_axis_rx_tkeep(64'b0), .s_axis_rx_tvalid(1'b0),
    .s_axis_rx_tready(), .s_axis_rx_tlast(1'b0),
    .m_axis_rx_tdata(), .m_axis_rx_tkeep(), .m_axis_rx_tvalid(),
    .m_axis_rx_tready(1'b1), .m_axis_rx_tlast(), .m_axis_rx_tuser(),
    .s_axil_awaddr(awaddr), .s_axil_awprot(3'b0), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
    .s_axil_wdata(wdata), .s_axil_wstrb(4'hF), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
    .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
    .s_axil_araddr(16'b0), .s_axil_arprot(3'b0), .s_axil_arvalid(1'b0), .s_axil_arready(arready),
    .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(1'b1)
  );

  reg [47:0] regs [0:`NREGS-1];
  reg [579:0] beats [0:`NBEATS-1];
  integer ncycles;
  integer cycles = 0;
  integer ri = 0;
  integer bi = 0;
  integer frames_out = 0;
  integer credit = 64 * 256;
  integer spent;
  integer i;

  always #2 clk = ~clk;

  initial begin
    $readmemh("regs.hex", regs);
    $readmemh("beats.hex", beats);
    if (!$value$plusargs("cycles=%d", ncycles)) ncycles = 10000;
    repeat (16) @(posedge clk);
    rst_n <= 1'b1;
  end

  always @(posedge clk) begin
    if (rst_n) begin
      cycles <= cycles + 1;
      if (cycles == ncycles) begin
        $display("cycles %0d frames_out %0d", cycles, frames_out);
        $finish;
      end
      // Register writes first, one at a time.
      if (ri < `NREGS) begin
        if (!awvalid && !wvalid && !bready) begin
          awaddr <= regs[ri][47:32];
          wdata <= regs[ri][31:0];
          awvalid <= 1'b1;
          wvalid <= 1'b1;
          bready <= 1'b1;
        end else begin
          if (awvalid && awready) awvalid <= 1'b0;
          if (wvalid && wready) wvalid <= 1'b0;
          if (bvalid && bready) begin
            bready <= 1'b0;
            ri <= ri + 1;
          end
        end
      end else if (!s_tx_tvalid || s_tx_tready) begin
        // Frames back to back, looping.
        {s_tx_tlast, s_tx_tkeep, s_tx_tdata} <= beats[bi][576:0];
        s_tx_tvalid <= 1'b1;
        bi <= (bi + 1) % `NBEATS;
      end
      // Egress MAC: byte credit at the link rate.
      spent = 0;
      if (m_tx_tvalid && m_tx_tready) begin
        for (i = 0; i < 64; i = i + 1) spent = spent + m_tx_tkeep[i];
        if (m_tx_tlast) begin
          spent = spent + 24;
          frames_out <= frames_out + 1;
        end
      end
      credit = credit - spent * 256 + 12800;
      if (credit > 64 * 256) credit = 64 * 256;
      m_tx_tready <= credit > 0;
    end
  end
endmodule
