// nicsched_async_fifo: dual-clock FIFO with gray-coded pointers (clock-domain crossing).
//
// Behaviour: a word is written on wr_clk_i when wr_valid_i && wr_ready_o, and read on
// rd_clk_i when rd_valid_o && rd_ready_i; words leave in the order they entered,
// none lost, none duplicated. rd_data_o is valid whenever rd_valid_o is high
// (first-word fall-through: the head is visible without a read request).
//
// Crossing: each side keeps a binary pointer and its gray code (AW+1 bits, one wrap
// bit), both registered. Only the gray pointers cross, each through a nicsched_sync
// chain of SyncStages flops; a gray pointer changes one bit per increment, so a
// sample taken mid-transition is either the old or the new value. Full and empty are
// computed from the local pointer and the synchronised remote one, so they are
// conservative: the writer may see "full" a few cycles after space was freed, the
// reader may see "empty" a few cycles after a word arrived, never the reverse.
//
// Latency: a written word is visible on the read side 1 + SyncStages rd_clk_i edges
// (plus up to one for the sampling phase) after the write edge. Throughput: one word
// per clock on each side.
//
// Storage is an array without reset, read asynchronously (LUTRAM on UltraScale+).
//
// Reset: wr_rst_ni and rd_rst_ni must be asserted together (they come from one
// source, each synchronised to its own clock with nicsched_sync); the FIFO is empty
// after reset.
`default_nettype none

module nicsched_async_fifo #(
  parameter int Width      = 8,  // bits per word
  parameter int Depth      = 16, // words; a power of two, 2 or more
  parameter int SyncStages = 2   // synchroniser flops per pointer crossing
) (
  // write side
  input  logic                     wr_clk_i,   // write clock
  input  logic                     wr_rst_ni,  // write-domain reset, asynchronous, active low
  input  logic                     wr_valid_i, // a word is offered
  output logic                     wr_ready_o, // the FIFO is not full: the word is taken
  input  logic [Width-1:0]         wr_data_i,  // the word
  output logic [$clog2(Depth):0]   wr_count_o, // words in use as seen by the writer (>= true count)
  // read side
  input  logic                     rd_clk_i,   // read clock
  input  logic                     rd_rst_ni,  // read-domain reset, asynchronous, active low
  output logic                     rd_valid_o, // rd_data_o holds the oldest word
  input  logic                     rd_ready_i, // the reader takes it
  output logic [Width-1:0]         rd_data_o,  // the oldest word
  output logic [$clog2(Depth):0]   rd_count_o  // words available as seen by the reader (<= true count)
);

  localparam int AW = $clog2(Depth);
  // Gray pointers of a full FIFO differ from the empty ones in the top two bits.
  localparam int FULL_XOR_INT = 3 << (AW - 1);
  localparam logic [AW:0] FULL_XOR = FULL_XOR_INT[AW:0];

  if (Depth < 2 || (1 << AW) != Depth) begin : gen_bad_depth
    $error("nicsched_async_fifo %m: Depth must be a power of two, 2 or more");
  end

  logic [Width-1:0] mem_q [Depth];

  logic [AW:0] wr_bin_q, wr_bin_d, wr_gray_q, wr_gray_d; // write pointer (write domain)
  logic [AW:0] rd_gray_in_wr, rd_bin_in_wr;              // read pointer seen by the writer
  logic        push;
  logic [AW:0] rd_bin_q, rd_bin_d, rd_gray_q, rd_gray_d; // read pointer (read domain)
  logic [AW:0] wr_gray_in_rd, wr_bin_in_rd;              // write pointer seen by the reader
  logic        pop;

  // ---------------------------------------------------------------- write domain

  nicsched_sync #(.Width(AW + 1), .Stages(SyncStages)) u_sync_rd_ptr (
    .clk_i  (wr_clk_i),
    .rst_ni (wr_rst_ni),
    .d_i    (rd_gray_q),
    .q_o    (rd_gray_in_wr)
  );

  always_comb begin
    wr_ready_o = (wr_gray_q ^ rd_gray_in_wr) != FULL_XOR;
    push       = wr_valid_i && wr_ready_o;
    wr_bin_d   = wr_bin_q + {{AW{1'b0}}, push};
    wr_gray_d  = wr_bin_d ^ (wr_bin_d >> 1);
    for (int i = 0; i <= AW; i++) begin
      rd_bin_in_wr[i] = ^(rd_gray_in_wr >> i);
    end
    wr_count_o = wr_bin_q - rd_bin_in_wr;
  end

  always_ff @(posedge wr_clk_i or negedge wr_rst_ni) begin
    if (!wr_rst_ni) begin
      wr_bin_q  <= '0;
      wr_gray_q <= '0;
    end else begin
      wr_bin_q  <= wr_bin_d;
      wr_gray_q <= wr_gray_d;
    end
  end

  always_ff @(posedge wr_clk_i) begin
    if (push) begin
      mem_q[wr_bin_q[AW-1:0]] <= wr_data_i;
    end
  end

  // ----------------------------------------------------------------- read domain

  nicsched_sync #(.Width(AW + 1), .Stages(SyncStages)) u_sync_wr_ptr (
    .clk_i  (rd_clk_i),
    .rst_ni (rd_rst_ni),
    .d_i    (wr_gray_q),
    .q_o    (wr_gray_in_rd)
  );

  always_comb begin
    rd_valid_o = rd_gray_q != wr_gray_in_rd;
    pop        = rd_valid_o && rd_ready_i;
    rd_bin_d   = rd_bin_q + {{AW{1'b0}}, pop};
    rd_gray_d  = rd_bin_d ^ (rd_bin_d >> 1);
    for (int i = 0; i <= AW; i++) begin
      wr_bin_in_rd[i] = ^(wr_gray_in_rd >> i);
    end
    rd_count_o = wr_bin_in_rd - rd_bin_q;
  end

  always_ff @(posedge rd_clk_i or negedge rd_rst_ni) begin
    if (!rd_rst_ni) begin
      rd_bin_q  <= '0;
      rd_gray_q <= '0;
    end else begin
      rd_bin_q  <= rd_bin_d;
      rd_gray_q <= rd_gray_d;
    end
  end

  assign rd_data_o = mem_q[rd_bin_q[AW-1:0]];

endmodule

`default_nettype wire
