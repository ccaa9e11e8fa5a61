// nicsched_queues: shared cell buffer with one FIFO queue of frames per (tenant, class).
//
// Behaviour
// - Store and forward. Every beat of s_axis is written into a free cell (DataWidth bits)
//   as it arrives; s_axis_tready is 1 except during the NumCells-cycle initialisation
//   after reset (the free list is built then). At the tlast beat the frame is either
//   linked to the tail of queue q = tenant*2 + class (s_axis_tuser, ingress_meta_t), or
//   dropped: a parser drop reason, a frame that would take the queue past its byte
//   limit (qlimit_i, tail drop), or a frame that found no free cell (shared buffer
//   full). A dropped frame gives its cells back at once; nothing else is disturbed,
//   so a flood on one queue drops only that queue's frames.
// - Free list: a linked list through next_mem. A frame's cells are the prefix of the
//   free list it was written into, so writing a frame needs no link writes; dropping it
//   rewinds the allocation pointer. Frames leave through the read port (rd_*) and come
//   back as one splice (free_*): next[free_tail] = frame head. The last free cell is a
//   sentinel, so NumCells-1 cells hold frames.
// - Queues: the first two descriptors of every queue in registers (head and second;
//   head_*_o shows the heads, the arbiter sees every head at once) and the rest of the
//   queue as a linked list of descriptors in desc_mem, indexed by each frame's first cell
//   (desc_mem[first cell of frame i] = descriptor of frame i+1, written when frame i+1
//   is enqueued). A dequeue moves the second descriptor into the head and, when the queue
//   holds more, issues one read of desc_mem for the next one; its data lands a clock later
//   as the new second, or straight as the head when the queue is dequeued again in that
//   clock. So a queue can be dequeued on consecutive clocks: a backlogged queue of
//   one-beat frames sends one frame per clock. At most one read is in flight (one
//   dequeue per clock), and it never reads the entry being written (the tail's).
// - Input stage: every beat first goes through one register, where the frame's running
//   length is taken from the beat's byte count (s_axis_tcount, which comes with the beat);
//   the clock that writes the beat and admits or drops the frame starts from those flops
//   (length, queue, drop reason), so the admission (length against the queue's limit)
//   is not in series with the byte count and the ingress logic before it.
// - Admission depth: the input stage also registers the frame's length plus the one's
//   complement of its queue's limit (in_over_q: len + ~limit, the limit selected by the
//   beat's queue), so the admission is one two-operand carry chain from flops per queue,
//   bytes + in_over_q >= 2^LimitW (bytes + len > limit), and the admission selects one
//   bit; the byte and frame counters take both next values (with and without the
//   enqueue) from flops and select by the admission. A frame is therefore judged by the
//   limit in force when its last beat entered the stage, one clock before the admission:
//   a COMMIT that changes the limit in between applies from the next frame. A queue never
//   holds more than the limit it was admitted under (below 2^LimitW), so its byte counter
//   is LimitW bits wide (q_bytes_o zero-extends it).
// Timing: a frame whose tlast is accepted at edge t is admitted at edge t+1 (ev_*_o in
// clock t+1) and is a valid head from edge t+2; after a dequeue at edge t the queue's
// next head (if any) is valid from edge t+1.
`default_nettype none
`include "rtl/nicsched_assert.svh"

module nicsched_queues #(
  parameter int NumTenants  = 8,       // tenants; queues = NumTenants * 2
  parameter int DataWidth   = 512,     // stream data bits, one cell per beat
  parameter int BufferBytes = 262144,  // shared buffer size, bytes
  // derived
  parameter int NumQueues = NumTenants * nicsched_pkg::NUM_CLASSES,
  parameter int QueueW    = $clog2(NumQueues),
  parameter int DataBytes = DataWidth / 8,
  parameter int NumCells  = BufferBytes / DataBytes,
  parameter int CellW     = $clog2(NumCells),
  parameter int LenW      = 16,        // frame length bits; longer frames are dropped
  parameter int TsW       = 32,        // enqueue timestamp bits
  // bits of a queue's byte limit (the register field); a queue's bytes stay below 2^LimitW
  parameter int LimitW    = nicsched_regs_pkg::T_QLIMIT_CTRL_BYTES_WIDTH
) (
  input  wire logic                         clk_i,
  input  wire logic                         rst_ni,
  input  wire logic [TsW-1:0]               now_i,          // cycle counter (timestamps)
  // frames from the ingress (tuser valid on the tlast beat)
  input  wire logic [DataWidth-1:0]         s_axis_tdata,
  input  wire logic [DataBytes-1:0]         s_axis_tkeep,   // (checked against the count)
  input  wire logic [$clog2(DataBytes+1)-1:0] s_axis_tcount, // bytes in the beat: tkeep's count
  input  wire logic                         s_axis_tvalid,
  output logic                              s_axis_tready,
  input  wire logic                         s_axis_tlast,
  input  wire nicsched_pkg::ingress_meta_t  s_axis_tuser,
  // per-queue byte limits (active configuration), LimitW bits each
  input  wire logic [NumQueues*LimitW-1:0]  qlimit_i,
  // frame outcome, one pulse per tlast beat
  output logic                              ev_valid_o,     // a frame ended
  output nicsched_pkg::ingress_meta_t       ev_meta_o,      // its classification
  output logic [LenW-1:0]                   ev_len_o,       // its length, bytes
  output logic                              ev_accept_o,    // linked to its queue
  output logic                              ev_drop_limit_o,// dropped at the queue limit
  output logic                              ev_drop_buf_o,  // dropped: no free cell
  // head of every queue (registered)
  output logic [NumQueues-1:0]              head_valid_o,
  output logic [NumQueues-1:0]              head_second_o,  // two or more frames queued
  output logic [NumQueues*CellW-1:0]        head_cell_o,
  output logic [NumQueues*LenW-1:0]         head_len_o,
  output logic [NumQueues*TsW-1:0]          head_ts_o,
  output logic [NumQueues*2-1:0]            head_op_o,      // crypto_op_e
  output logic [NumQueues*32-1:0]           q_bytes_o,      // bytes queued
  output logic [NumQueues*32-1:0]           q_pkts_o,       // frames queued
  // dequeue the head of one queue, one-hot (or none: zero); its head_valid_o must be 1.
  // One-hot, as the grant flop holds it: every per-queue dequeue term is then a flop bit,
  // not a decode of a queue number (in front of the byte count's subtraction and the
  // descriptor read)
  input  wire logic [NumQueues-1:0]         deq_oh_i,
  // cell read port (egress): data and next cell of rd_cell_i, one clock later
  input  wire logic                         rd_en_i,
  input  wire logic [CellW-1:0]             rd_cell_i,
  output logic [DataWidth-1:0]              rd_data_o,
  output logic [CellW-1:0]                  rd_next_o,
  // give a frame's cells back (its first and last cell)
  input  wire logic                         free_valid_i,
  input  wire logic [CellW-1:0]             free_head_i,
  input  wire logic [CellW-1:0]             free_tail_i
);
  localparam int DescW = CellW + LenW + TsW + 2;  // {cell, len, ts, op}
  localparam int CntW  = CellW + 1;
  localparam logic [31:0] LAST_CELL32 = NumCells - 1;
  localparam logic [31:0] TENANTS32   = NumTenants;
  localparam logic [CellW-1:0] LAST_CELL = LAST_CELL32[CellW-1:0];
  localparam logic [CntW-1:0]  ONE_FRAME = 1;
  localparam logic [CntW-1:0]  TWO_FRAMES = 2;
  localparam logic [7:0]       TENANTS8  = TENANTS32[7:0];

  if (DataWidth < 64 || DataWidth > 512 || (DataWidth & (DataWidth - 1)) != 0) begin : gen_bad_dw
    $error("nicsched_queues %m: DataWidth must be a power of two in 64..512");
  end
  if (NumCells < 16 || (NumCells & (NumCells - 1)) != 0) begin : gen_bad_cells
    $error("nicsched_queues %m: BufferBytes / (DataWidth/8) must be a power of two >= 16");
  end
  if (NumTenants < 1 || NumTenants > 64) begin : gen_bad_tenants
    $error("nicsched_queues %m: NumTenants must be in 1..64");
  end
  if (LimitW != nicsched_regs_pkg::T_QLIMIT_BULK_BYTES_WIDTH || LimitW <= LenW ||
      LimitW > 32) begin : gen_bad_limit
    $error("nicsched_queues %m: LimitW must be both limit fields' width, above LenW, at most 32");
  end

  // ---------------------------------------------------------------- memories
  logic [DataWidth-1:0] data_mem [NumCells];
  logic [CellW-1:0]     next_alloc_mem [NumCells];  // copy read by the allocator
  logic [CellW-1:0]     next_rd_mem [NumCells];     // copy read by the egress port
  logic [DescW-1:0]     desc_mem [NumCells];        // descriptor of the frame after this one

  // ---------------------------------------------------------------- state
  logic             init_q, init_d;        // building the free list
  logic [CellW-1:0] init_cnt_q, init_cnt_d;
  logic [CellW-1:0] alloc_q, alloc_d;      // next cell to write
  logic [CellW-1:0] free_tail_q, free_tail_d;
  logic             in_frame_q, in_frame_d;
  logic [CellW-1:0] start_q, start_d;      // first cell of the frame in progress
  logic             ovf_q, ovf_d;          // frame in progress found no free cell

  // input stage: the beat, with the frame's length up to and including it
  logic                        acc_mid_q, acc_mid_d;  // a beat without tlast went in: inside a frame
  logic [LenW:0]               acc_len_q, acc_len_d;  // bytes of that frame so far (extra bit: too long)
  logic                        in_beat_q;             // a beat waits in the stage
  logic                        in_last_q;
  nicsched_pkg::ingress_meta_t in_user_q;
  logic [LenW:0]               in_len_q;              // frame length up to this beat (extra bit: too long)
  logic [NumQueues-1:0]        in_qoh_q, in_qoh_d;    // its queue, one-hot (0: tenant >= NumTenants)
  // that length + ~(its queue's limit), LimitW + 1 bits (read only at the frame's last beat
  // and when it is not too long); the limit itself is kept for the assertions only
  logic [LimitW:0]             in_over_q, in_over_d;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [LimitW-1:0]           in_limit_q, in_limit_d;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [DataWidth-1:0]        in_data_q;

  logic [NumQueues-1:0]       hv_q, hv_d;    // head valid
  logic [NumQueues*DescW-1:0] hd_q, hd_d;    // head descriptor
  logic [NumQueues-1:0]       sv_q, sv_d;    // second valid
  logic [NumQueues*DescW-1:0] sd_q, sd_d;    // second descriptor
  logic [NumQueues*CellW-1:0] tail_q, tail_d;
  logic [NumQueues*CntW-1:0]  cnt_q, cnt_d;
  logic [NumQueues*LimitW-1:0] bytes_q, bytes_d;  // an enqueue keeps them <= the limit
  logic [NumQueues-1:0]       refill_oh_q, refill_oh_d;  // queue whose desc_mem read lands, one-hot

  // next_alloc_mem read (address alloc_d) with write bypass
  logic [CellW-1:0] alloc_next_raw;
  logic             byp_q, byp_d;
  logic [CellW-1:0] byp_val_q;
  logic [CellW-1:0] alloc_next;

  // write ports
  logic             nx_we;
  logic [CellW-1:0] nx_waddr, nx_wdata;
  logic             dw_we;
  logic [CellW-1:0] dw_addr;
  logic             ds_we;
  logic [CellW-1:0] ds_waddr;
  logic [DescW-1:0] ds_wdata;
  logic             ds_re;
  logic [CellW-1:0] ds_raddr;
  logic [DescW-1:0] ds_rdata;

  // ---------------------------------------------------------------- ingress
  logic                 in_beat;     // a beat enters the input stage
  logic                 beat;        // the stage's beat is written this clock
  logic [LenW:0]        frame_len;
  logic                 have_cell;
  logic                 frame_ovf;
  logic [CellW-1:0]     frame_start;
  logic [QueueW-1:0]    eq_q;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [nicsched_pkg::TENANT_W:0] eq_full;  // {tenant, class}; low bits index the queue
  /* verilator lint_on UNUSEDSIGNAL */
  logic [NumQueues-1:0] q_over;      // per queue: bytes + the stage's length > limit
  logic                 enq_ok;      // the stage's frame ends and may enter, but for its limit
  logic [NumQueues-1:0] enq_oh;      // the queue it enters, one-hot (0: dropped)
  logic                 enq;
  logic [DescW-1:0]     enq_desc;

  assign s_axis_tready = !init_q;
  assign in_beat       = s_axis_tvalid && !init_q;
  assign beat          = in_beat_q;  // (the stage is empty until the initialisation ends)
  assign alloc_next    = byp_q ? byp_val_q : alloc_next_raw;

  always_comb begin
    // the beat's bytes come with it (s_axis_tcount: counted where the beat entered the
    // parser, carried in flops since), so no count of tkeep is in front of the sum
    acc_len_d = (acc_mid_q ? acc_len_q : '0) + (LenW+1)'(s_axis_tcount);
    acc_len_d[LenW] = acc_len_d[LenW] | (acc_mid_q & acc_len_q[LenW]);  // sticky: too long
    acc_mid_d = in_beat ? !s_axis_tlast : acc_mid_q;
    if (!in_beat) begin
      acc_len_d = acc_len_q;
    end
  end

  always_comb begin
    logic [nicsched_pkg::TENANT_W:0] idx;
    logic [(1 << QueueW)*LimitW-1:0] lim;  // every queue's limit, 0 beyond the queues
    logic [LimitW-1:0] a, b, c, s, cy;
    idx = {s_axis_tuser.tenant, s_axis_tuser.cls};
    for (int q = 0; q < NumQueues; q++) begin
      in_qoh_d[q] = (32'(idx) == q);
    end
    // the beat's queue's limit, selected by the queue number's bits from the top one down
    // (a balanced tree of 2:1 selects: a LUT and MUXF7/MUXF8 at 16 queues, not a compare
    // per queue and an OR over them); a tenant beyond NumTenants has no queue (in_qoh_d
    // is 0) and its value is not read
    lim = '0;
    lim[NumQueues*LimitW-1:0] = qlimit_i;
    for (int k = QueueW - 1; k >= 0; k--) begin
      for (int e = 0; e < (1 << k); e++) begin
        lim[e*LimitW +: LimitW] = idx[k] ? lim[(e + (1 << k))*LimitW +: LimitW] : lim[e*LimitW +: LimitW];
      end
    end
    in_limit_d = lim[LimitW-1:0];
    // the frame's length so far (acc_len_d's sum without its sticky bit) + ~limit: the
    // three operands reduced to a sum and a carry word (one LUT a bit), then one carry chain
    a         = acc_mid_q ? LimitW'(acc_len_q[LenW-1:0]) : '0;
    b         = LimitW'(s_axis_tcount);
    c         = ~in_limit_d;
    s         = a ^ b ^ c;
    cy        = (a & b) | (a & c) | (b & c);
    in_over_d = {1'b0, s} + {cy, 1'b0};
  end

  always_comb begin
    have_cell   = (alloc_q != free_tail_q);
    frame_start = in_frame_q ? start_q : alloc_q;
    frame_ovf   = (in_frame_q && ovf_q) || !have_cell;
    frame_len   = in_len_q;
    eq_full     = {in_user_q.tenant, in_user_q.cls};
    eq_q        = eq_full[QueueW-1:0];
    // every queue's compare from flops, then one bit selected (0 beyond the queues):
    // bytes + len > limit  <=>  bytes + (len + ~limit) >= 2^LimitW, the stage's in_over_q
    // (meaningful for the frame's own queue only, the one the admission selects)
    for (int q = 0; q < NumQueues; q++) begin
      /* verilator lint_off UNUSEDSIGNAL */
      logic [LimitW+1:0] total;  // only its bits of 2^LimitW and above are read
      /* verilator lint_on UNUSEDSIGNAL */
      total     = (LimitW+2)'(bytes_q[q*LimitW +: LimitW]) + (LimitW+2)'(in_over_q);
      q_over[q] = total[LimitW+1:LimitW] != 2'b00;
    end
    // per queue: the queue from its registered one-hot (none for a tenant beyond
    // NumTenants), so each queue's enqueue is its own compare and a few flops; the shared
    // logic (allocation pointer, links, events): the queue's compare selected by its index
    enq_ok = beat && in_last_q && !frame_ovf && !frame_len[LenW] &&
             (in_user_q.drop == nicsched_pkg::DROP_NONE);
    enq_oh = (enq_ok ? in_qoh_q : '0) & ~q_over;
    // the admission: an OR of the queues' own terms (one per queue, a shallow tree), not
    // the compare selected by the queue index (EnqIsAdmission_A pins the two equal)
    enq    = |enq_oh;
    enq_desc    = {frame_start, frame_len[LenW-1:0], now_i, in_user_q.crypto_op};
  end

  assign ev_valid_o      = beat && in_last_q;
  assign ev_meta_o       = in_user_q;
  assign ev_len_o        = frame_len[LenW] ? {LenW{1'b1}} : frame_len[LenW-1:0];
  assign ev_accept_o     = enq;
  assign ev_drop_buf_o   = beat && in_last_q && frame_ovf &&
                           (in_user_q.drop == nicsched_pkg::DROP_NONE);
  assign ev_drop_limit_o = beat && in_last_q && !frame_ovf && !enq &&
                           (in_user_q.drop == nicsched_pkg::DROP_NONE);

  // where the next allocation pointer comes from (alloc_d and its bypass compare both
  // select by it), worked out for both outcomes of the admission (alloc_src_acc: the frame
  // ends here and is linked; alloc_src_rej: otherwise), so the admission, the end of the
  // limit compare's carry chain, only chooses between the two
  typedef enum logic [1:0] {
    AllocKeep,    // alloc_q
    AllocFirst,   // cell 0 (the free list is built)
    AllocNext,    // the next free cell after alloc_q
    AllocRewind   // frame_start (a dropped frame's cells are free again)
  } alloc_src_e;
  alloc_src_e alloc_src_acc, alloc_src_rej, alloc_src;

  always_comb begin
    init_d        = init_q;
    init_cnt_d    = init_cnt_q;
    alloc_src_acc = AllocKeep;
    free_tail_d   = free_tail_q;
    in_frame_d    = in_frame_q;
    start_d       = start_q;
    ovf_d         = ovf_q;
    nx_we         = 1'b0;
    nx_waddr      = free_tail_q;
    nx_wdata      = free_head_i;
    dw_we         = 1'b0;
    dw_addr       = alloc_q;

    if (init_q) begin
      nx_we      = 1'b1;
      nx_waddr   = init_cnt_q;
      nx_wdata   = init_cnt_q + 1'b1;
      init_cnt_d = init_cnt_q + 1'b1;
      if (init_cnt_q == LAST_CELL) begin
        init_d        = 1'b0;
        alloc_src_acc = AllocFirst;
        free_tail_d   = LAST_CELL;
      end
    end else begin
      if (free_valid_i) begin
        nx_we       = 1'b1;
        free_tail_d = free_tail_i;
      end
      if (beat) begin
        if (!frame_ovf) begin
          dw_we         = 1'b1;
          alloc_src_acc = AllocNext;
        end
        start_d    = frame_start;
        ovf_d      = frame_ovf;
        in_frame_d = !in_last_q;
      end
    end
    // a frame that ends and is not linked: its cells are free again
    alloc_src_rej = (!init_q && beat && in_last_q) ? AllocRewind : alloc_src_acc;
    alloc_src     = enq ? alloc_src_acc : alloc_src_rej;
  end

  // bypass: the allocator reads next[alloc_d]; a same-edge write to it wins. The write
  // address is compared with every cell alloc_d may take, beside the admission, which then
  // only selects the compare (not a compare after the admission's select). The compares
  // are ANDed with their select, not muxed: Yosys's opt_share would merge muxed compares
  // of one operand into one compare after the mux.
  // The pointer likewise: one select line per source, each the admission choosing between
  // the two outcomes' sources, then an AND-OR of the sources (not a case on alloc_src,
  // which Yosys would put after the admission's select).
  logic byp_keep, byp_first, byp_next, byp_rewind;
  logic sel_keep, sel_next, sel_rewind;  // (AllocFirst: cell 0, nothing to OR in)
  always_comb begin
    byp_keep   = nx_we && (nx_waddr == alloc_q);
    byp_first  = nx_we && (nx_waddr == '0);
    byp_next   = nx_we && (nx_waddr == alloc_next);
    byp_rewind = nx_we && (in_frame_q ? (nx_waddr == start_q) : (nx_waddr == alloc_q));
    sel_keep   = enq ? (alloc_src_acc == AllocKeep) : (alloc_src_rej == AllocKeep);
    sel_next   = enq ? (alloc_src_acc == AllocNext) : (alloc_src_rej == AllocNext);
    sel_rewind = enq ? (alloc_src_acc == AllocRewind) : (alloc_src_rej == AllocRewind);
    byp_d      = (sel_keep && byp_keep) || (sel_next && byp_next) || (sel_rewind && byp_rewind) ||
                 (!sel_keep && !sel_next && !sel_rewind && byp_first);
    alloc_d    = ({CellW{sel_keep}} & alloc_q) | ({CellW{sel_next}} & alloc_next) |
                 ({CellW{sel_rewind}} & frame_start);
  end
  `NICSCHED_ASSERT(AllocSelect_A, alloc_d == (alloc_src == AllocKeep  ? alloc_q :
                                              alloc_src == AllocFirst ? CellW'(0) :
                                              alloc_src == AllocNext  ? alloc_next : frame_start))
  `NICSCHED_ASSERT(BypassIsWrite_A, byp_d == (nx_we && (nx_waddr == alloc_d)))

  // ---------------------------------------------------------------- queues
  logic [QueueW-1:0] dq;  // the dequeued queue's number (for the assertions)
  logic [CntW-1:0]   eq_cnt;

  // Every per-queue write is a loop over the queues with an index compare (not a
  // variable part-select), which synthesises to small muxes.
  always_comb begin
    refill_oh_d  = '0;
    ds_we        = 1'b0;
    ds_waddr     = '0;
    ds_wdata     = enq_desc;
    ds_re        = 1'b0;
    ds_raddr     = '0;
    dq           = '0;
    eq_cnt       = '0;
    for (int q = 0; q < NumQueues; q++) begin
      if (deq_oh_i[q]) begin
        dq = q[QueueW-1:0];
      end
      if (eq_q == q[QueueW-1:0]) begin
        eq_cnt   = cnt_q[q*CntW +: CntW];
        ds_waddr = tail_q[q*CellW +: CellW];
      end
      // A dequeue that leaves more than the new head fetches the descriptor after it: the
      // read is the per-queue refill decode (each queue's own count against TWO_FRAMES, the
      // dequeue's one-hot bit), its address an AND-OR of that one-hot decode with each
      // queue's first cell of its second frame. Not a mux of the dequeued queue's count
      // into one compare and then the read: that put the count mux, the compare's carry
      // chain and the address mux in series (the descriptor RAM's read address, 11 levels
      // in the 8-tenant core). "count > TWO_FRAMES" is written on the count's bits: as a
      // compare with a constant it mapped to a carry chain.
      refill_oh_d[q] = deq_oh_i[q] && (cnt_q[q*CntW + 2 +: CntW - 2] != '0 || cnt_q[q*CntW +: 2] == 2'b11);
      ds_raddr = ds_raddr | ({CellW{refill_oh_d[q]}} &
                             (sv_q[q] ? sd_q[q*DescW + LenW + TsW + 2 +: CellW]
                                      : ds_rdata[LenW + TsW + 2 +: CellW]));
    end
    ds_re = refill_oh_d != '0;

    // link the new frame behind the tail (read only if it is ever beyond the registers)
    ds_we = enq && (eq_cnt != '0);

    for (int q = 0; q < NumQueues; q++) begin
      logic             is_deq, is_enq, land, nxt_v;
      logic [DescW-1:0] nxt;
      logic [CntW-1:0]  cnt_inc, cnt_dec;  // the count plus / less one frame
      logic [LimitW-1:0] deq_len, b_old, b_len, b_s;
      /* verilator lint_off UNUSEDSIGNAL */
      logic [LimitW-1:0] b_cy;  // its top bit carries out of the counter
      /* verilator lint_on UNUSEDSIGNAL */
      is_deq = deq_oh_i[q];
      is_enq = enq_oh[q];
      land   = refill_oh_q[q];
      // the frame after the head: the second register, or the read landing now
      nxt_v  = sv_q[q] || land;
      nxt    = sv_q[q] ? sd_q[q*DescW +: DescW] : ds_rdata;
      // the next count: one more, one less or the same, each from the flop and selected
      // by the admission and the dequeue flop (AND-OR: a select of two sums, which Yosys's
      // opt_share turns into one sum after the select, put the count's carry chain after
      // the admission's)
      cnt_inc = cnt_q[q*CntW +: CntW] + ONE_FRAME;
      cnt_dec = cnt_q[q*CntW +: CntW] - ONE_FRAME;
      cnt_d[q*CntW +: CntW] = ({CntW{is_enq && !is_deq}} & cnt_inc) |
                              ({CntW{!is_enq && is_deq}} & cnt_dec) |
                              ({CntW{is_enq == is_deq}} & cnt_q[q*CntW +: CntW]);
      // bytes - dequeued (+ length): bytes + length + ~dequeued + 1, reduced to a sum and
      // a carry word, the + 1 in the carry word's free bit; one carry chain each
      deq_len   = is_deq ? {{(LimitW-LenW){1'b0}}, hd_q[q*DescW + TsW + 2 +: LenW]} : '0;
      b_old     = bytes_q[q*LimitW +: LimitW];
      b_len     = {{(LimitW-LenW){1'b0}}, frame_len[LenW-1:0]};
      b_s       = b_old ^ b_len ^ ~deq_len;
      b_cy      = (b_old & b_len) | (b_old & ~deq_len) | (b_len & ~deq_len);
      bytes_d[q*LimitW +: LimitW] = is_enq ? b_s + {b_cy[LimitW-2:0], 1'b1}
                                           : b_old - deq_len;
      tail_d[q*CellW +: CellW] = is_enq ? frame_start : tail_q[q*CellW +: CellW];
      if (is_deq) begin
        hv_d[q]                = nxt_v;
        hd_d[q*DescW +: DescW] = nxt;
        sv_d[q]                = 1'b0;
        sd_d[q*DescW +: DescW] = sd_q[q*DescW +: DescW];
      end else begin
        hv_d[q]                = hv_q[q];
        hd_d[q*DescW +: DescW] = hd_q[q*DescW +: DescW];
        sv_d[q]                = nxt_v;
        sd_d[q*DescW +: DescW] = nxt;
      end
      // a new frame that is the first or second of its queue goes straight to a register
      // (no frame or one frame left after the dequeue, as compares of the count, not after a
      // subtraction)
      if (is_enq && (cnt_q[q*CntW +: CntW] == (is_deq ? ONE_FRAME : '0))) begin
        hv_d[q]                = 1'b1;
        hd_d[q*DescW +: DescW] = enq_desc;
      end
      if (is_enq && (cnt_q[q*CntW +: CntW] == (is_deq ? TWO_FRAMES : ONE_FRAME))) begin
        sv_d[q]                = 1'b1;
        sd_d[q*DescW +: DescW] = enq_desc;
      end
    end
  end

  // ---------------------------------------------------------------- outputs
  always_comb begin
    for (int q = 0; q < NumQueues; q++) begin
      head_cell_o[q*CellW +: CellW] = hd_q[q*DescW + LenW + TsW + 2 +: CellW];
      head_len_o[q*LenW +: LenW]    = hd_q[q*DescW + TsW + 2 +: LenW];
      head_ts_o[q*TsW +: TsW]       = hd_q[q*DescW + 2 +: TsW];
      head_op_o[q*2 +: 2]           = hd_q[q*DescW +: 2];
      q_pkts_o[q*32 +: 32]          = {{(32-CntW){1'b0}}, cnt_q[q*CntW +: CntW]};
      q_bytes_o[q*32 +: 32]         = 32'(bytes_q[q*LimitW +: LimitW]);
    end
  end
  assign head_valid_o = hv_q;
  // two or more frames: the second descriptor is in its register or lands this clock
  // (the invariant SecondValid_A below), so the arbiter's rules need no compare of counts
  assign head_second_o = sv_q | refill_oh_q;

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      init_q       <= 1'b1;
      init_cnt_q   <= '0;
      alloc_q      <= '0;
      free_tail_q  <= '0;
      in_frame_q   <= 1'b0;
      start_q      <= '0;
      ovf_q        <= 1'b0;
      acc_mid_q    <= 1'b0;
      acc_len_q    <= '0;
      in_beat_q    <= 1'b0;
      in_last_q    <= 1'b0;
      in_user_q    <= '0;
      in_len_q     <= '0;
      in_qoh_q     <= '0;
      in_over_q    <= '0;
      in_limit_q   <= '0;
      byp_q        <= 1'b0;
      byp_val_q    <= '0;
      hv_q         <= '0;
      hd_q         <= '0;
      sv_q         <= '0;
      sd_q         <= '0;
      tail_q       <= '0;
      cnt_q        <= '0;
      bytes_q      <= '0;
      refill_oh_q  <= '0;
    end else begin
      init_q       <= init_d;
      init_cnt_q   <= init_cnt_d;
      alloc_q      <= alloc_d;
      free_tail_q  <= free_tail_d;
      in_frame_q   <= in_frame_d;
      start_q      <= start_d;
      ovf_q        <= ovf_d;
      acc_mid_q    <= acc_mid_d;
      acc_len_q    <= acc_len_d;
      in_beat_q    <= in_beat;
      in_last_q    <= s_axis_tlast;
      in_user_q    <= s_axis_tuser;
      in_len_q     <= acc_len_d;
      in_qoh_q     <= in_qoh_d;
      in_over_q    <= in_over_d;
      in_limit_q   <= in_limit_d;
      byp_q        <= byp_d;
      byp_val_q    <= nx_wdata;
      hv_q         <= hv_d;
      hd_q         <= hd_d;
      sv_q         <= sv_d;
      sd_q         <= sd_d;
      tail_q       <= tail_d;
      cnt_q        <= cnt_d;
      bytes_q      <= bytes_d;
      refill_oh_q  <= refill_oh_d;
    end
  end

  // the beat's data in the input stage (no reset: read only with in_beat_q)
  always_ff @(posedge clk_i) begin
    in_data_q <= s_axis_tdata;
  end

  // memories: one write port and one registered read port each (block RAM)
  always_ff @(posedge clk_i) begin
    if (dw_we) begin
      data_mem[dw_addr] <= in_data_q;
    end
    if (rd_en_i) begin
      rd_data_o <= data_mem[rd_cell_i];
    end
  end

  always_ff @(posedge clk_i) begin
    if (nx_we) begin
      next_alloc_mem[nx_waddr] <= nx_wdata;
    end
    alloc_next_raw <= next_alloc_mem[alloc_d];
  end

  always_ff @(posedge clk_i) begin
    if (nx_we) begin
      next_rd_mem[nx_waddr] <= nx_wdata;
    end
    if (rd_en_i) begin
      rd_next_o <= next_rd_mem[rd_cell_i];
    end
  end

  always_ff @(posedge clk_i) begin
    if (ds_we) begin
      desc_mem[ds_waddr] <= ds_wdata;
    end
    if (ds_re) begin
      ds_rdata <= desc_mem[ds_raddr];
    end
  end

  // the per-queue admission is the indexed one
  `NICSCHED_ASSERT(EnqIsOnehot_A, enq_oh == (enq ? (NumQueues'(1) << eq_q) : '0))
  `NICSCHED_ASSERT(EnqIsAdmission_A,
                   enq == (enq_ok && ({2'b0, in_user_q.tenant} < TENANTS8) && !q_over[eq_q]))
  `NICSCHED_ASSERT(DeqOnehot_A, (deq_oh_i & (deq_oh_i - NumQueues'(1))) == '0)
  `NICSCHED_ASSERT(DeqValidHead_A, (deq_oh_i & ~hv_q) == '0)    // dequeue only a valid head
  `NICSCHED_ASSERT(LinkRefillApart_A, !(ds_we && ds_re) || ds_waddr != ds_raddr)  // never collide
  // the per-queue refill decode (refill_oh_d, from each queue's own count) is the read the
  // dequeued queue's own count asks for: one queue, that queue, only then; its address is
  // that queue's first cell of the second frame (register or the read landing now)
  `NICSCHED_ASSERT(RefillIsRead_A, refill_oh_d == (ds_re ? (NumQueues'(1) << dq) : '0))
  `NICSCHED_ASSERT(ReadIsDeqCount_A, ds_re == (deq_oh_i != '0 && cnt_q[dq*CntW +: CntW] > TWO_FRAMES))
  `NICSCHED_ASSERT(ReadAddrIsNext_A, !ds_re ||
                   ds_raddr == (sv_q[dq] ? sd_q[dq*DescW + LenW + TsW + 2 +: CellW]
                                         : ds_rdata[LenW + TsW + 2 +: CellW]))
  `NICSCHED_ASSERT(NoFreeDuringInit_A, !free_valid_i || !init_q)
  // the beat's byte count is tkeep's (tkeep is the thermometer of the count: contiguous)
  `NICSCHED_ASSERT(CountIsKeep_A, !in_beat || s_axis_tkeep == ~({DataBytes{1'b1}} << s_axis_tcount))
  // the registers hold the first min(frames, 2) descriptors, counting a read in flight
  for (genvar q = 0; q < NumQueues; q++) begin : g_queue_assert
    `NICSCHED_ASSERT(HeadValid_A, hv_q[q] == (cnt_q[q*CntW +: CntW] != '0))
    `NICSCHED_ASSERT(SecondValid_A, (sv_q[q] || refill_oh_q[q]) ==
                                    (cnt_q[q*CntW +: CntW] > ONE_FRAME))
    `NICSCHED_ASSERT(SecondNotRefilling_A, !(sv_q[q] && refill_oh_q[q]))
    // an enqueue never takes a queue past its limit, so its bytes fit LimitW bits: the
    // admission's compare of the frame's queue (a beat in the stage, the frame not too
    // long) taken as the wide sum it replaces, with the limit the stage took
    `NICSCHED_ASSERT(OverIsWideSum_A, !beat || !in_qoh_q[q] || frame_len[LenW] || q_over[q] ==
                     (33'(bytes_q[q*LimitW +: LimitW]) + 33'(frame_len[LenW-1:0]) >
                      33'(in_limit_q)))
  end

endmodule

`default_nettype wire
