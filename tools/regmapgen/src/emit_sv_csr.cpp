// SystemVerilog CSR block nicsched_csr: an AXI4-Lite slave holding every register of the
// map, with ports named as docs/architecture.md ("Register map conventions") fixes.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "nicsched/regmapgen/generate.hpp"

namespace nicsched::regmapgen {

namespace {

std::string sized(std::uint32_t width, std::uint64_t v) { return fmt::format("{}'h{:X}", width, v); }
std::uint64_t mask_of(std::uint32_t width) { return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }
std::string range(std::uint32_t width) { return fmt::format("[{}:0]", width - 1); }

class CsrWriter {
 public:
  explicit CsrWriter(const RegisterMap& map) : map_(map), aw_(map.addr_width) {
    for (const Block& b : map.blocks) {
      for (const Register& r : b.registers) {
        if (r.width == 64 && r.writable()) wide_writes_ = true;
        if (r.snapshot_ram) ram_snapshots_ = true;
      }
    }
  }

  std::string run() {
    header();
    ports();
    checks();
    axi();
    for (const Block& b : map_.blocks) block(b);
    triggers();
    read_mux();
    unused();
    o_ += "\nendmodule\n\n`default_nettype wire\n";
    return o_;
  }

 private:
  // ---------------------------------------------------------------- naming
  static std::string stem(const Register& r, const Field& f) { return to_lower(r.name + "_" + f.name); }
  static std::string blk(const Block& b) { return to_lower(b.name); }
  static std::string reg(const Register& r) { return to_lower(r.name); }
  static bool has_ram_snapshot(const Block& b) {
    return std::any_of(b.registers.begin(), b.registers.end(), [](const Register& r) { return r.snapshot_ram; });
  }

  // Element count as used in the port list (expr params spelled out) and in the body.
  std::string count_port(const Block& b) const {
    if (b.array->count_param.empty()) return std::to_string(b.array->max_count);
    const Param* p = map_.find_param(b.array->count_param);
    return p->expr.empty() ? p->name : "(" + p->expr + ")";
  }
  static std::string count_body(const Block& b) {
    return b.array->count_param.empty() ? std::to_string(b.array->max_count) : b.array->count_param;
  }
  std::string port_range(const Block& b, std::uint32_t width) const {
    if (!b.array) return width == 1 ? "" : range(width);
    return fmt::format("[{}*{}-1:0]", count_port(b), width);
  }
  std::string flat_range(const Block& b, std::uint32_t width) const {
    if (!b.array) return range(width);
    return fmt::format("[{}*{}-1:0]", count_body(b), width);
  }
  // Word-offset bits of a block-relative address: [stride_bits-1:2] (whole rel for single blocks).
  std::uint32_t offset_bits(const Block& b) const {
    return b.array ? static_cast<std::uint32_t>(std::countr_zero(b.array->stride)) : aw_;
  }

  // Bits of the element index of an array block (at least 1).
  static std::uint32_t index_bits(const Block& b) {
    return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::bit_width(b.array->max_count - 1)));
  }
  // Bits [hi:lo] of a block-relative address of channel `ch`: straight address bits where the
  // block's base has no bit set at or below `hi` (no subtraction in the path), else the
  // difference.
  std::string rel_bits(const Block& b, const std::string& ch, std::uint32_t hi, std::uint32_t lo) const {
    const bool aligned = hi >= 31 ? b.base == 0 : (b.base & ((std::uint64_t{2} << hi) - 1)) == 0;
    if (aligned) return fmt::format("{}_addr[{}:{}]", ch, hi, lo);
    return fmt::format("{}_blk_{}_rel[{}:{}]", ch, blk(b), hi, lo);
  }
  // Byte-address bits that name a word inside one element (arrays) or the block: [sel_bits-1:2].
  std::uint32_t word_sel_bits(const Block& b) const {
    if (b.array) return offset_bits(b);
    return std::max<std::uint32_t>(2, static_cast<std::uint32_t>(std::bit_width(b.span() - 1)));
  }

  void line(const std::string& s = {}) { o_ += s + "\n"; }

  // ---------------------------------------------------------------- sections
  void header() {
    line("// " + generated_banner(map_));
    line("// nicsched_csr: AXI4-Lite register block of the " + map_.name + " register map (" + map_.desc + ").");
    line("//");
    line("// Bus: AXI4-Lite slave, " + std::to_string(aw_) + "-bit byte address (bits [1:0] ignored), 32-bit data.");
    line("//   AW and W are accepted independently into one-entry holding registers; in the cycle");
    line("//   both are present (and the write stage is free or frees up) the write enters the write");
    line("//   stage, a register of address, data and strobes; it is performed from that register in");
    line("//   the next cycle in which the B channel is free, and BVALID rises in the cycle after. So");
    line("//   the address decode and the storage's write enables start at flops, not at the AW");
    line("//   channel. A read goes through a pipeline, so that no clock period holds more");
    if (ram_snapshots_) {
      line("//   than a part of the read decode and mux: its address is registered (AR handshake) in");
      line("//   stage 0, where the RAM snapshots outside read the addressed element from that");
      line("//   register; stage 1 decodes it and, in each block, selects the addressed word by address");
      line("//   bits alone; stage 2 combines the blocks' registered words; RVALID rises four cycles");
      line("//   after the AR handshake. A stalled R channel holds the pipeline (and then AR).");
    } else {
      line("//   than a part of the read decode and mux: its address is registered (AR handshake);");
      line("//   stage 1 decodes it and, in each block, selects the addressed word by address bits");
      line("//   alone; stage 2 combines the blocks' registered words; RVALID rises three cycles after");
      line("//   the AR handshake. A stalled R channel holds the pipeline (and then AR).");
    }
    line("//   With BREADY/RREADY high, one write and one read complete every clock. Every VALID and");
    line("//   READY output comes from a flop: no combinational path from any input to any output.");
    line("//   Responses: DECERR where no register is mapped (or an array element >= its count),");
    line("//   SLVERR for a write to a register with no writable field or a read of a register with");
    line("//   only wo fields, OKAY otherwise. Byte strobes apply to rw and w1c fields; wo fields");
    line("//   take the whole word.");
    line("// Registers:");
    line("//   rw        <reg>_<field>_o: the value; in a shadowed register software writes (and reads");
    line("//             back) a shadow copy, and " + map_.commit.reg + "." + map_.commit.field +
         " = 1 copies every shadow to its active copy");
    line("//             (the port) at one clock edge.");
    line("//   ro        <reg>_<field>_i: read live, or, in a snapshot register, as latched by the last");
    line("//             " + map_.snapshot.reg + "." + map_.snapshot.field +
         " = 1 (every snapshot register at one clock edge). const fields have no port.");
    line("//   wo        <reg>_<field>_o holds the last written value, <reg>_<field>_we_o pulses for one");
    line("//             cycle after each write of the register (whatever the value); reads return 0.");
    line("//   w1c       <reg>_<field>_set_i sets bits (a set wins over a clear in the same cycle);");
    line("//             writing 1 clears them; <reg>_<field>_o is the sticky value.");
    line("//   Array blocks: one port carries every element, element i at [i*W +: W].");
    line("//   snapshot: ram  the snapshot is held outside this block (in RAM) and read by element index:");
    line("//             <block>_snap_idx_o is the element index of the read in stage 0 (from a flop);");
    line("//             in a clock with snap_load_o high (that read enters stage 1 at the edge),");
    line("//             <reg>_<field>_i (one element wide) must load that element's snapshot value as it");
    line("//             is before the edge (a snapshot_o at that edge not yet in it), and hold otherwise:");
    line("//             stage 1 reads it as a copy latched when the read entered stage 1. The read's AR");
    line("//             came before that edge, so a SNAPSHOT at it was not yet answered (B): either value");
    line("//             is the one of a legal order; a read whose AR comes after a SNAPSHOT is performed");
    line("//             always sees it.");
    line("//             snapshot_o is " + map_.snapshot.reg + "." + map_.snapshot.field +
         " = 1 in the clock whose edge latches the snapshot.");
    line("//             snapshot_o and snap_load_o follow the AXI inputs in the same clock (they go to");
    line("//             flop enables and RAM write enables of that block, not back to the bus).");
    line("//   Ports and registers change one cycle after the write's address and data are accepted.");
    line("`default_nettype none");
    line();
  }

  void ports() {
    line("module nicsched_csr #(");
    std::vector<const Param*> ps;
    for (const Param& p : map_.params) {
      if (p.expr.empty()) ps.push_back(&p);
    }
    for (std::size_t i = 0; i < ps.size(); ++i) {
      line(fmt::format("  parameter int {} = {}{}  // {}; 1..{}", ps[i]->name, ps[i]->default_value,
                       i + 1 < ps.size() ? "," : "", ps[i]->desc, ps[i]->max));
    }
    line(") (");
    std::vector<std::string> pl;
    const std::string a = range(aw_);
    pl.push_back("  input  logic        clk_i,");
    pl.push_back("  input  logic        rst_ni,");
    pl.push_back("  // AXI4-Lite slave");
    pl.push_back(fmt::format("  input  logic {:<7}s_axil_awaddr,", a));
    pl.push_back("  input  logic [2:0]  s_axil_awprot,");
    pl.push_back("  input  logic        s_axil_awvalid,");
    pl.push_back("  output logic        s_axil_awready,");
    pl.push_back("  input  logic [31:0] s_axil_wdata,");
    pl.push_back("  input  logic [3:0]  s_axil_wstrb,");
    pl.push_back("  input  logic        s_axil_wvalid,");
    pl.push_back("  output logic        s_axil_wready,");
    pl.push_back("  output logic [1:0]  s_axil_bresp,");
    pl.push_back("  output logic        s_axil_bvalid,");
    pl.push_back("  input  logic        s_axil_bready,");
    pl.push_back(fmt::format("  input  logic {:<7}s_axil_araddr,", a));
    pl.push_back("  input  logic [2:0]  s_axil_arprot,");
    pl.push_back("  input  logic        s_axil_arvalid,");
    pl.push_back("  output logic        s_axil_arready,");
    pl.push_back("  output logic [31:0] s_axil_rdata,");
    pl.push_back("  output logic [1:0]  s_axil_rresp,");
    pl.push_back("  output logic        s_axil_rvalid,");
    pl.push_back("  input  logic        s_axil_rready,");
    for (const Block& b : map_.blocks) {
      const std::string where =
          b.array ? fmt::format("{}[{}]", b.name, count_port(b)) : b.name;
      for (const Register& r : b.registers) {
        pl.push_back(fmt::format("  // {}.{}{}{}: {}", where, r.name, r.shadowed ? " (shadowed)" : "",
                                 r.snapshot ? " (snapshot)" : "", r.desc));
        for (const Field& f : r.fields) {
          const std::string s = stem(r, f);
          const std::string pr = r.snapshot_ram ? range(f.width) : port_range(b, f.width);
          const std::string pad = fmt::format("{:<6}", pr);
          switch (f.access) {
            case Access::kRw:
              pl.push_back(fmt::format("  output logic {} {}_o,  // {}", pad, s, f.desc));
              break;
            case Access::kRo:
              if (f.is_const) {
                pl.push_back(fmt::format("  // {}: const {} (no port)", f.name, sized(f.width, f.reset)));
              } else if (r.snapshot_ram) {
                pl.push_back(fmt::format("  input  logic {} {}_i,  // {}: snapshot of element {}_snap_idx_o", pad, s,
                                         f.desc, blk(b)));
              } else {
                pl.push_back(fmt::format("  input  logic {} {}_i,  // {}", pad, s, f.desc));
              }
              break;
            case Access::kWo:
              pl.push_back(fmt::format("  output logic {} {}_o,  // {}", pad, s, f.desc));
              pl.push_back(fmt::format("  output logic {} {}_we_o,", fmt::format("{:<6}", port_range(b, 1)), s));
              break;
            case Access::kW1c:
              pl.push_back(fmt::format("  input  logic {} {}_set_i,  // {}", pad, s, f.desc));
              pl.push_back(fmt::format("  output logic {} {}_o,", pad, s));
              break;
          }
        }
      }
    }
    if (ram_snapshots_) {
      pl.push_back("  // snapshot: ram registers");
      pl.push_back(fmt::format("  output logic        snapshot_o,  // {}.{} = 1: snapshot at this clock's edge",
                               map_.snapshot.reg, map_.snapshot.field));
      pl.push_back("  output logic        snap_load_o,  // the read in stage 0 enters stage 1 at this edge");
      for (const Block& b : map_.blocks) {
        if (!has_ram_snapshot(b)) continue;
        pl.push_back(fmt::format("  output logic {:<7}{}_snap_idx_o,  // element of {} in read stage 0",
                                 range(index_bits(b)), blk(b), b.name));
      }
    }
    // The last real port must not end with a comma.
    for (auto it = pl.rbegin(); it != pl.rend(); ++it) {
      const auto comma = it->find(',');
      if (it->rfind("  //", 0) == 0 || comma == std::string::npos) continue;
      it->erase(comma, 1);
      break;
    }
    for (const auto& s : pl) line(s);
    line(");");
    line();
  }

  void checks() {
    line("  localparam logic [1:0] RESP_OKAY   = 2'b00;");
    line("  localparam logic [1:0] RESP_SLVERR = 2'b10;");
    line("  localparam logic [1:0] RESP_DECERR = 2'b11;");
    for (const Param& p : map_.params) {
      bool used = false;  // derived parameters are declared where an array block counts with them
      for (const Block& b : map_.blocks) used = used || (b.array && b.array->count_param == p.name);
      if (!p.expr.empty() && used) line(fmt::format("  localparam int {} = {};  // {}", p.name, p.expr, p.desc));
    }
    line();
    for (const Param& p : map_.params) {
      if (!p.expr.empty()) continue;
      line(fmt::format("  if ({0} < 1 || {0} > {1}) begin : g_bad_{2}", p.name, p.max, to_lower(to_upper_snake(p.name))));
      line(fmt::format("    $error(\"nicsched_csr: {} must be 1..{} (the register map's maximum)\");", p.name, p.max));
      line("  end");
    }
    line();
  }

  void axi() {
    const std::string a = range(aw_);
    line("  // ---------------------------------------------------------------- AXI4-Lite channels");
    line("  logic        aw_full_q, w_full_q, ar_full_q;  // holding register in use");
    line(fmt::format("  logic {:<7}aw_addr_q, ar_addr_q;", a));
    line("  logic [31:0] w_data_q;");
    line("  logic [3:0]  w_strb_q;");
    line("  logic        bvalid_q, rvalid_q;");
    line("  logic [1:0]  bresp_q, rresp_q;");
    line("  logic [31:0] rdata_q;");
    line("  logic        wr_fire;  // the write in the write stage is performed this cycle");
    line("  logic        wr_take;  // a write (AW and W present) enters the write stage this cycle");
    line("  logic        wst_valid_q, wst_free;  // a write is in the write stage / it can take one now");
    line(fmt::format("  logic {:<7}wst_addr_q;", a));
    line("  logic [31:0] wst_data_q;");
    line("  logic [3:0]  wst_strb_q;");
    line(fmt::format("  logic        rd_fire;  // a read's address enters read stage {} this cycle", first_read_stage().back()));
    line(fmt::format("  logic {:<7}wr_addr, ar_addr;  // the staged write's address; the read address offered or held", a));
    line(fmt::format("  logic {:<7}rd_addr;  // the address of the read in stage 1", a));
    line("  logic [31:0] wr_data, wr_mask;  // wr_mask: wstrb as a bit mask");
    line("  logic [3:0]  wr_strb;");
    line("  logic [1:0]  wr_resp, rd_resp;  // rd_resp: of the read in stage 1");
    line("  logic [31:0] rd_data;  // of the read in stage 2");
    line("  logic        commit_fire, snapshot_fire;  // every shadow -> active / every snapshot latched");
    if (ram_snapshots_) {
      line("  // Read pipeline: AR holding register -> stage 0 (address: the RAM snapshots' element)");
      line("  // -> stage 1 (address) -> stage 2 (block words) -> R.");
      line(fmt::format("  logic {:<7}rd0_addr_q, rd0_addr;  // the address of the read in stage 0", a));
      line("  logic        rd0_valid_q;  // a read is in stage 0");
      line("  logic        rd0_free, rd0_adv;  // stage 0 can take a read now / its read moves to stage 1");
    } else {
      line("  // Read pipeline: AR holding register -> stage 1 (address) -> stage 2 (block words) -> R.");
    }
    line(fmt::format("  logic {:<7}rd1_addr_q;", a));
    line("  logic        rd1_valid_q, rd2_valid_q;  // a read is in stage 1 / stage 2");
    line("  logic [1:0]  rd2_resp_q;");
    line("  logic        rd_out_free, rd2_free, rd1_free;  // R / stage 2 / stage 1 can take a read now");
    line("  logic        rd1_adv;  // the read in stage 1 moves to stage 2 at this edge");
    line();
    line("  assign s_axil_awready = ~aw_full_q;");
    line("  assign s_axil_wready  = ~w_full_q;");
    line("  assign s_axil_arready = ~ar_full_q;");
    line("  assign s_axil_bvalid  = bvalid_q;");
    line("  assign s_axil_bresp   = bresp_q;");
    line("  assign s_axil_rvalid  = rvalid_q;");
    line("  assign s_axil_rresp   = rresp_q;");
    line("  assign s_axil_rdata   = rdata_q;");
    line();
    line("  assign wr_addr = wst_addr_q;");
    line("  assign wr_data = wst_data_q;");
    line("  assign wr_strb = wst_strb_q;");
    line("  assign wr_mask = {{8{wr_strb[3]}}, {8{wr_strb[2]}}, {8{wr_strb[1]}}, {8{wr_strb[0]}}};");
    line("  assign wr_fire = wst_valid_q & (~bvalid_q | s_axil_bready);");
    line("  assign wst_free = ~wst_valid_q | wr_fire;");
    line("  assign wr_take = (aw_full_q | s_axil_awvalid) & (w_full_q | s_axil_wvalid) & wst_free;");
    line("  assign ar_addr = ar_full_q ? ar_addr_q : s_axil_araddr;");
    line("  assign rd_addr = rd1_addr_q;");
    line("  assign rd_out_free = ~rvalid_q | s_axil_rready;");
    line("  assign rd2_free = ~rd2_valid_q | rd_out_free;");
    line("  assign rd1_free = ~rd1_valid_q | rd2_free;");
    line("  assign rd1_adv = rd1_valid_q & rd2_free;");
    if (ram_snapshots_) {
      line("  assign rd0_free = ~rd0_valid_q | rd1_free;");
      line("  assign rd0_adv = rd0_valid_q & rd1_free;");
      line("  assign rd0_addr = rd0_addr_q;");
    }
    line(fmt::format("  assign rd_fire = (ar_full_q | s_axil_arvalid) & {}_free;", first_read_stage()));
    if (wide_writes_) {
      line();
      line("  // Writes to 64-bit registers: the addressed word's data, strobe mask and word mask.");
      line("  logic [63:0] wr_data64, wr_mask64, wr_word64;");
      line("  assign wr_data64 = wr_addr[2] ? {wr_data, 32'h0} : {32'h0, wr_data};");
      line("  assign wr_mask64 = wr_addr[2] ? {wr_mask, 32'h0} : {32'h0, wr_mask};");
      line("  assign wr_word64 = wr_addr[2] ? {32'hFFFFFFFF, 32'h0} : {32'h0, 32'hFFFFFFFF};");
    }
    line();
    line("  always_ff @(posedge clk_i or negedge rst_ni) begin");
    line("    if (!rst_ni) begin");
    line("      aw_full_q   <= 1'b0;");
    line("      w_full_q    <= 1'b0;");
    line("      ar_full_q   <= 1'b0;");
    line(fmt::format("      aw_addr_q   <= {};", sized(aw_, 0)));
    line(fmt::format("      ar_addr_q   <= {};", sized(aw_, 0)));
    line("      w_data_q    <= 32'h0;");
    line("      w_strb_q    <= 4'h0;");
    line("      wst_valid_q <= 1'b0;");
    line(fmt::format("      wst_addr_q  <= {};", sized(aw_, 0)));
    line("      wst_data_q  <= 32'h0;");
    line("      wst_strb_q  <= 4'h0;");
    line("      bvalid_q    <= 1'b0;");
    line("      bresp_q     <= RESP_OKAY;");
    if (ram_snapshots_) {
      line(fmt::format("      rd0_addr_q  <= {};", sized(aw_, 0)));
      line("      rd0_valid_q <= 1'b0;");
    }
    line(fmt::format("      rd1_addr_q  <= {};", sized(aw_, 0)));
    line("      rd1_valid_q <= 1'b0;");
    line("      rd2_valid_q <= 1'b0;");
    line("      rd2_resp_q  <= RESP_OKAY;");
    line("      rvalid_q    <= 1'b0;");
    line("      rresp_q     <= RESP_OKAY;");
    line("      rdata_q     <= 32'h0;");
    line("    end else begin");
    line("      // A channel's beat is held when it arrives and cannot move on yet (into the write");
    line("      // stage, or into the read pipeline).");
    line("      aw_full_q <= (aw_full_q | s_axil_awvalid) & ~wr_take;");
    line("      w_full_q  <= (w_full_q | s_axil_wvalid) & ~wr_take;");
    line("      ar_full_q <= (ar_full_q | s_axil_arvalid) & ~rd_fire;");
    line("      if (!aw_full_q) aw_addr_q <= s_axil_awaddr;");
    line("      if (!w_full_q) begin");
    line("        w_data_q <= s_axil_wdata;");
    line("        w_strb_q <= s_axil_wstrb;");
    line("      end");
    line("      if (!ar_full_q) ar_addr_q <= s_axil_araddr;");
    line("      // The write stage: a write enters it as the last of its two beats is present, and");
    line("      // leaves it when it is performed (B free), taking the next one at the same edge.");
    line("      if (wst_free) wst_valid_q <= wr_take;");
    line("      if (wr_take) begin");
    line("        wst_addr_q <= aw_full_q ? aw_addr_q : s_axil_awaddr;");
    line("        wst_data_q <= w_full_q ? w_data_q : s_axil_wdata;");
    line("        wst_strb_q <= w_full_q ? w_strb_q : s_axil_wstrb;");
    line("      end");
    line("      if (wr_fire) begin");
    line("        bvalid_q <= 1'b1;");
    line("        bresp_q  <= wr_resp;");
    line("      end else if (s_axil_bready) begin");
    line("        bvalid_q <= 1'b0;");
    line("      end");
    line("      // Each read stage moves on when the next one is free or frees up at this edge.");
    line(fmt::format("      if (rd_fire) {}_addr_q <= ar_addr;", first_read_stage()));
    line(fmt::format("      if ({0}_free) {0}_valid_q <= rd_fire;", first_read_stage()));
    if (ram_snapshots_) {
      line("      if (rd0_adv) rd1_addr_q <= rd0_addr_q;");
      line("      if (rd1_free) rd1_valid_q <= rd0_valid_q;");
    }
    line("      if (rd2_free) rd2_valid_q <= rd1_valid_q;");
    line("      if (rd1_adv) rd2_resp_q <= rd_resp;");
    line("      if (rd_out_free) begin");
    line("        rvalid_q <= rd2_valid_q;");
    line("        if (rd2_valid_q) begin");
    line("          rresp_q <= rd2_resp_q;");
    line("          rdata_q <= rd_data;");
    line("        end");
    line("      end");
    line("    end");
    line("  end");
    line();
  }

  // Address decode of one block for one channel ("wr" or "rd").
  void decode(const Block& b, const std::string& ch) {
    const std::string n = blk(b);
    const std::string addr = ch + "_addr";
    line(fmt::format("  assign {}_blk_{}_rel = {} - {};", ch, n, addr, sized(aw_, b.base)));
    const std::uint32_t ob = offset_bits(b);
    if (const std::uint32_t k = window_bits(b); k != 0) {
      // The block lies in the 2^k-byte window from its base at any count: the address bits
      // above the window equal the base's, and the bits inside it (the element index, or
      // the offset of a single block) are below the span; no subtraction or 16-bit range
      // compare, whose carry chain Yosys would otherwise share with the whole-address hits.
      std::string hi = "1'b1";
      if (k < aw_) hi = fmt::format("({} == {})", bits_of(addr, aw_ - 1, k), sized(aw_ - k, b.base >> k));
      std::string lo;
      if (b.array) {
        const std::uint32_t iw = k - ob;
        lo = fmt::format("({{{}'h0, {}}} < {})", 32 - iw, bits_of(addr, k - 1, ob), count_body(b));
      } else {
        lo = fmt::format("({{{}'h0, {}}} < {}_SPAN)", 32 - k, bits_of(addr, k - 1, 0), b.name);
      }
      line(fmt::format("  assign {}_blk_{}_in = {} & {};", ch, n, hi, lo));
    } else {
      std::string in_range;
      if (b.base != 0) in_range = fmt::format("({} >= {}) & ", addr, sized(aw_, b.base));
      const std::string rel = aw_ < 32 ? fmt::format("{{{}'h0, {}_blk_{}_rel}}", 32 - aw_, ch, n) : ch + "_blk_" + n + "_rel";
      line(fmt::format("  assign {}_blk_{}_in = {}({} < {}_SPAN);", ch, n, in_range, rel, b.name));
    }
    for (const Register& r : b.registers) {
      const std::uint32_t lo = r.width == 64 ? 3 : 2;
      if (ch == "wr" && whole_address_hit(b, r)) {
        // The write's decode ends in every register's enable (and COMMIT's and SNAPSHOT's
        // fires): the register's whole address compared at once, which is `in` and the
        // offset match (the offset lies inside the span), without the subtraction and the
        // two range compares in the path.
        line(fmt::format("  assign wr_hit_{} = ({} == {});", reg(r), bits_of(addr, aw_ - 1, lo),
                         sized(aw_ - lo, (b.base + r.offset) >> lo)));
        continue;
      }
      std::string match;
      if (ob > lo) {
        match = fmt::format(" & ({} == {})", rel_bits(b, ch, ob - 1, lo), sized(ob - lo, r.offset >> lo));
      }
      line(fmt::format("  assign {}_hit_{} = {}_blk_{}_in{};", ch, reg(r), ch, n, match));
    }
  }

  // The read stage an accepted AR address enters: stage 0 (the RAM snapshots' element
  // register) where the map has snapshot: ram registers, else stage 1.
  std::string first_read_stage() const { return ram_snapshots_ ? "rd0" : "rd1"; }
  // Bits k of the power-of-two window that holds the block at its largest count, when its
  // base is a multiple of the window (and the window more than the word offset of a single
  // block or the stride of an array); 0 otherwise.
  std::uint32_t window_bits(const Block& b) const {
    const auto k = static_cast<std::uint32_t>(std::bit_width(std::max<std::uint32_t>(b.span(), 1) - 1));
    if (k > aw_ || k <= (b.array ? offset_bits(b) : 2U)) return 0;
    return b.base % (std::uint64_t{1} << k) == 0 ? k : 0;
  }
  // A register of a single block whose write hit compares the whole address: the block's
  // base is aligned to the register's width, so base + offset names its word exactly.
  static bool whole_address_hit(const Block& b, const Register& r) {
    return !b.array && b.base % (r.width == 64 ? 8 : 4) == 0;
  }
  static std::string bits_of(const std::string& v, std::uint32_t hi, std::uint32_t lo) {
    return fmt::format("{}[{}:{}]", v, hi, lo);
  }
  // An array block whose base is a multiple of its stride: an element's address bits above
  // the stride are (base >> stride bits) + its index, and the bits below are the word in it.
  static bool stride_aligned(const Block& b) { return b.array && b.base % b.array->stride == 0; }

  void block(const Block& b) {
    const std::string n = blk(b);
    const std::uint32_t ob = offset_bits(b);
    line(fmt::format("  // ---------------------------------------------------------------- block {}", b.name));
    if (b.array) {
      line(fmt::format("  // {} elements of {} bytes from {}; element i at base + i * stride.", count_body(b),
                       sized(32, b.array->stride), sized(aw_, b.base)));
      // (inside its address window, `in` compares the element index with the count instead)
      if (window_bits(b) == 0) {
        line(fmt::format("  localparam logic [31:0] {}_SPAN = {} * 'h{:X};", b.name, count_body(b), b.array->stride));
      }
    } else {
      line(fmt::format("  localparam logic [31:0] {}_SPAN = 'h{:X};", b.name, b.span()));
    }
    line(fmt::format("  logic {:<7}wr_blk_{}_rel, rd_blk_{}_rel;  // address relative to the block base", range(aw_), n, n));
    line(fmt::format("  logic        wr_blk_{0}_in, rd_blk_{0}_in;  // address inside the block's existing elements", n));
    for (const Register& r : b.registers) {
      line(fmt::format("  logic        wr_hit_{0}, rd_hit_{0};  // address is {1}", reg(r), r.name));
    }
    decode(b, "wr");
    decode(b, "rd");
    for (const Register& r : b.registers) {
      if (!r.writable()) continue;
      if (stride_aligned(b)) {
        // the word inside an element; the element's select (below) names the block and index
        const std::uint32_t lo = r.width == 64 ? 3 : 2;
        line(fmt::format("  logic        we_{0};  // {1}'s word of some element is written this cycle", reg(r), r.name));
        line(fmt::format("  assign we_{} = wr_fire{};", reg(r),
                         ob > lo ? fmt::format(" & ({} == {})", rel_bits(b, "wr", ob - 1, lo), sized(ob - lo, r.offset >> lo))
                                 : std::string{}));
      } else {
        line(fmt::format("  logic        we_{0};  // {1} is written this cycle", reg(r), r.name));
        line(fmt::format("  assign we_{0} = wr_fire & wr_hit_{0};", reg(r)));
      }
    }
    bool storage = false;
    for (const Register& r : b.registers) storage = storage || r.writable() || (r.snapshot && !r.snapshot_ram);
    if (b.array) {
      // As many index bits as the map's largest count needs (element_selects as well).
      const std::uint32_t hi = std::min(aw_ - 1, ob + index_bits(b) - 1);
      if (has_ram_snapshot(b)) {
        // The element index the RAM outside reads: the read's in stage 0 (flops).
        line(fmt::format("  logic {:<7}rd0_blk_{}_rel;  // rd0_addr relative to the block base", range(aw_), n));
        line(fmt::format("  assign rd0_blk_{}_rel = rd0_addr - {};", n, sized(aw_, b.base)));
        const std::uint32_t iw = hi - ob + 1;
        const std::string bits = rel_bits(b, "rd0", hi, ob);
        line(fmt::format("  assign {}_snap_idx_o = {};", n,
                         iw < index_bits(b) ? fmt::format("{{{}'h0, {}}}", index_bits(b) - iw, bits) : bits));
      }
    }
    // Flattened copies that the read mux indexes (arrays: driven by the element loop below).
    for (const Register& r : b.registers) {
      for (const Field& f : r.fields) {
        const std::string s = stem(r, f);
        const std::string fr = flat_range(b, f.width);
        if (f.access == Access::kRw && r.shadowed) line(fmt::format("  logic {:<6} {}_sh_q;  // shadow copy", fr, s));
        if ((f.access == Access::kRw && !r.shadowed) || f.access == Access::kW1c || f.access == Access::kWo) {
          line(fmt::format("  logic {:<6} {}_q;", fr, s));
        }
        if (f.access == Access::kRo && r.snapshot && !r.snapshot_ram && !f.is_const) {
          line(fmt::format("  logic {:<6} {}_snap_q;  // latched at snapshot", fr, s));
        }
      }
    }
    if (!storage) {
      line();
      return;
    }
    if (!b.array) {
      for (const Register& r : b.registers) storage_of(b, r, "  ", "we_" + reg(r));
      line();
      return;
    }
    const std::string cb = count_body(b);
    bool any_write = false;
    for (const Register& r : b.registers) any_write = any_write || r.writable();
    const std::uint32_t iw = aw_ - ob;
    if (any_write) {
      if (!stride_aligned(b)) {
        line(fmt::format("  logic {:<7}wr_blk_{}_idx;  // element addressed by the write", range(iw), n));
        line(fmt::format("  assign wr_blk_{0}_idx = wr_blk_{0}_rel[{1}:{2}];", n, aw_ - 1, ob));
      }
      line(fmt::format("  logic [{}-1:0] wr_blk_{}_sel;  // one-hot: element addressed by the write", cb, n));
    }
    line(fmt::format("  for (genvar i = 0; i < {}; i++) begin : g_{}", cb, n));
    if (any_write && stride_aligned(b)) {
      // element i's address bits above the stride, compared at once: the same as `in` and
      // index == i (i < the count), without the subtraction and range compares in the path
      line(fmt::format("    localparam logic [{}:0] ELEMENT = {}'(32'h{:X} + i);", iw - 1, iw, b.base >> ob));
      line(fmt::format("    assign wr_blk_{}_sel[i] = ({} == ELEMENT);", n, bits_of("wr_addr", aw_ - 1, ob)));
    } else if (any_write) {
      line("    localparam logic [31:0] IDX = i;");
      const std::string idx = iw < 32 ? fmt::format("{{{}'h0, wr_blk_{}_idx}}", 32 - iw, n) : "wr_blk_" + n + "_idx";
      line(fmt::format("    assign wr_blk_{0}_sel[i] = wr_blk_{0}_in & ({1} == IDX);", n, idx));
    }
    for (const Register& r : b.registers) storage_of(b, r, "    ", fmt::format("we_{} & wr_blk_{}_sel[i]", reg(r), n));
    line("  end");
    line();
  }

  // Flops of one register (one element of an array: indented inside the element loop).
  void storage_of(const Block& b, const Register& r, const std::string& ind, const std::string& we) {
    const bool arr = b.array.has_value();
    const std::string data = r.width == 64 ? "wr_data64" : "wr_data";
    const std::string mask = r.width == 64 ? "wr_mask64" : "wr_mask";
    for (const Field& f : r.fields) {
      const std::string s = stem(r, f);
      const std::string l = arr ? "el_" + s : s;  // local name of this element's flops
      const std::string w = std::to_string(f.width);
      const std::string bits = fmt::format("[{}:{}]", f.msb(), f.lsb);
      const std::string slice = arr ? fmt::format("[i*{} +: {}]", f.width, f.width) : "";
      const std::string rst = sized(f.width, f.reset);
      auto decl = [&](const std::string& name) {
        if (arr) line(fmt::format("{}logic {:<6} {};", ind, range(f.width), name));
      };
      auto ff_begin = [&]() {
        line(ind + "always_ff @(posedge clk_i or negedge rst_ni) begin");
        line(ind + "  if (!rst_ni) begin");
      };
      switch (f.access) {
        case Access::kRw: {
          const std::string q = r.shadowed ? l + "_sh_q" : l + "_q";
          decl(q);
          ff_begin();
          line(fmt::format("{}    {} <= {};", ind, q, rst));
          line(fmt::format("{}  end else if ({}) begin", ind, we));
          line(fmt::format("{}    {} <= ({} & ~{}{}) | ({}{} & {}{});", ind, q, q, mask, bits, data, bits, mask, bits));
          line(ind + "  end");
          line(ind + "end");
          if (r.shadowed) {
            const std::string act = l + "_act_q";
            line(fmt::format("{}logic {:<6} {};  // active copy, loaded at commit", ind, range(f.width), act));
            ff_begin();
            line(fmt::format("{}    {} <= {};", ind, act, rst));
            line(fmt::format("{}  end else if (commit_fire) begin", ind));
            line(fmt::format("{}    {} <= {};", ind, act, q));
            line(ind + "  end");
            line(ind + "end");
            if (arr) line(fmt::format("{}assign {}_sh_q{} = {};", ind, s, slice, q));
            line(fmt::format("{}assign {}_o{} = {};", ind, s, slice, act));
          } else {
            if (arr) line(fmt::format("{}assign {}_q{} = {};", ind, s, slice, q));
            line(fmt::format("{}assign {}_o{} = {};", ind, s, slice, q));
          }
          break;
        }
        case Access::kWo: {
          const std::string q = l + "_q";
          decl(q);
          const std::string we_q = l + "_we_q";
          line(fmt::format("{}logic        {};", ind, we_q));
          ff_begin();
          line(fmt::format("{}    {} <= {};", ind, q, rst));
          line(fmt::format("{}    {} <= 1'b0;", ind, we_q));
          line(ind + "  end else begin");
          line(fmt::format("{}    {} <= {};", ind, we_q, we));
          if (r.width == 64) {
            line(fmt::format("{}    if ({}) {} <= ({} & ~wr_word64{}) | (wr_data64{} & wr_word64{});", ind, we, q, q, bits,
                             bits, bits));
          } else {
            line(fmt::format("{}    if ({}) {} <= wr_data{};", ind, we, q, bits));
          }
          line(ind + "  end");
          line(ind + "end");
          if (arr) line(fmt::format("{}assign {}_q{} = {};", ind, s, slice, q));
          line(fmt::format("{}assign {}_o{} = {};", ind, s, slice, q));
          line(fmt::format("{}assign {}_we_o{} = {};", ind, s, arr ? "[i]" : "", we_q));
          break;
        }
        case Access::kW1c: {
          const std::string q = l + "_q";
          decl(q);
          ff_begin();
          line(fmt::format("{}    {} <= {};", ind, q, rst));
          line(ind + "  end else begin");
          line(fmt::format("{}    {} <= ({} & ~({{{}{{{}}}}} & {}{} & {}{})) | {}_set_i{};", ind, q, q, w, we, data, bits,
                           mask, bits, s, slice));
          line(ind + "  end");
          line(ind + "end");
          if (arr) line(fmt::format("{}assign {}_q{} = {};", ind, s, slice, q));
          line(fmt::format("{}assign {}_o{} = {};", ind, s, slice, q));
          break;
        }
        case Access::kRo: {
          if (!r.snapshot || r.snapshot_ram || f.is_const) break;
          const std::string q = l + "_snap_q";
          decl(q);
          ff_begin();
          line(fmt::format("{}    {} <= {};", ind, q, rst));
          line(fmt::format("{}  end else if (snapshot_fire) begin", ind));
          line(fmt::format("{}    {} <= {}_i{};", ind, q, s, slice));
          line(ind + "  end");
          line(ind + "end");
          if (arr) line(fmt::format("{}assign {}_snap_q{} = {};", ind, s, slice, q));
          break;
        }
      }
    }
  }

  void triggers() {
    line("  // ---------------------------------------------------------------- commit and snapshot");
    auto trig = [&](const FieldRef& ref, const std::string& name) {
      for (const Block& b : map_.blocks) {
        for (const Register& r : b.registers) {
          if (r.name != ref.reg) continue;
          for (const Field& f : r.fields) {
            if (f.name != ref.field) continue;
            line(fmt::format("  assign {} = we_{} & {}[{}];  // {}.{} written 1", name, reg(r),
                             r.width == 64 ? "wr_data64" : "wr_data", f.lsb, r.name, f.name));
          }
        }
      }
    };
    // Declared ahead of use in the register blocks above.
    trig(map_.commit, "commit_fire");
    trig(map_.snapshot, "snapshot_fire");
    if (ram_snapshots_) {
      line("  assign snapshot_o = snapshot_fire;");
      line("  assign snap_load_o = rd0_adv;");
    }
    line();
  }

  // The storage a read of field `f` of register `r` returns (flattened over the elements
  // for an array block); empty for a constant or a RAM snapshot (from outside, one element).
  static std::string read_source(const Register& r, const Field& f) {
    const std::string s = stem(r, f);
    if (f.access == Access::kRo && (f.is_const || r.snapshot_ram)) return {};
    if (f.access == Access::kRo) return s + (r.snapshot ? "_snap_q" : "_i");
    if (f.access == Access::kRw && r.shadowed) return s + "_sh_q";
    return s + "_q";
  }

  // For an array block: each readable field's value in the element the read addresses
  // (rd_el_<source>), an AND-OR of the elements with a one-hot of the element. An indexed
  // part-select (vec[idx*W +: W]) would be a multiply and a shifter over the whole
  // vector: ten levels with a carry chain in front of rd2_word_* at 16 classifier entries.
  // The one-hot is decoded from the address as the read enters stage 1 and registered
  // (rd1_<block>_sel_q), so stage 1 starts the select at flops (decoded in stage 1 itself,
  // ABC mapped the index compares as chains of two-input LUTs: 4.5 to 4.7 ns).
  void element_selects(const Block& b) {
    const std::string n = blk(b);
    const std::uint32_t ob = offset_bits(b);
    const std::uint32_t hi = std::min(aw_ - 1, ob + index_bits(b) - 1);
    const std::uint32_t iw = hi - ob + 1;  // index bits
    // the fields read from the block's own flops (not a constant or a RAM's)
    struct ElementField {
      std::string src;  // its storage
      const Register* reg;
      const Field* field;
    };
    std::vector<ElementField> fields;
    for (const Register& r : b.registers) {
      for (const Field& f : r.fields) {
        std::string src = read_source(r, f);
        if (f.readable() && !src.empty()) fields.push_back({std::move(src), &r, &f});
      }
    }
    if (fields.empty()) return;
    // An element at or beyond the count decodes to no element (word 0); the response is
    // DECERR (rd_blk_*_in) anyway.
    const std::string from = ram_snapshots_ ? "rd0" : "ar";  // the address entering stage 1
    const std::string idx = rel_bits(b, from, hi, ob);
    if (idx.find("_blk_") != std::string::npos && !(from == "rd0" && has_ram_snapshot(b))) {
      // a base that is no multiple of the index window: the index from the offset
      line(fmt::format("  logic {:<7}{}_blk_{}_rel;", range(aw_), from, n));
      line(fmt::format("  assign {0}_blk_{1}_rel = {0}_addr - {2};", from, n, sized(aw_, b.base)));
      part_used_.push_back(fmt::format("{}_blk_{}_rel", from, n));  // the index bits only
    }
    line(fmt::format("  logic [{}-1:0] rd1_{}_sel_q;  // one-hot: the element the read in stage 1 addresses", count_body(b), n));
    line("  always_ff @(posedge clk_i or negedge rst_ni) begin");
    line("    if (!rst_ni) begin");
    line(fmt::format("      rd1_{}_sel_q <= '0;", n));
    line(fmt::format("    end else if ({}) begin", ram_snapshots_ ? "rd0_adv" : "rd_fire"));
    line(fmt::format("      for (int i = 0; i < {}; i++) rd1_{}_sel_q[i] <= ({} == {}'(i));", count_body(b), n, idx, iw));
    line("    end");
    line("  end");
    // every field's value in the addressed element, in one loop over the elements
    for (const ElementField& e : fields) {
      line(fmt::format("  logic {:<7}rd_el_{};  // {}.{} of the element the read addresses", range(e.field->width),
                       e.src, e.reg->name, e.field->name));
    }
    line("  always_comb begin");
    for (const ElementField& e : fields) line(fmt::format("    rd_el_{} = '0;", e.src));
    line(fmt::format("    for (int i = 0; i < {}; i++) begin", count_body(b)));
    for (const ElementField& e : fields) {
      line(fmt::format("      rd_el_{0} = rd_el_{0} | ({{{1}{{rd1_{2}_sel_q[i]}}}} & {0}[i*{1} +: {1}]);", e.src,
                       e.field->width, n));
    }
    line("    end");
    line("  end");
  }

  // The 32-bit read word of register `r` for word `k` (0: LO, 1: HI).
  std::string read_word(const Block& b, const Register& r, std::uint32_t k) const {
    std::vector<std::string> parts;
    const std::uint32_t w0 = 32 * k;
    std::uint32_t next = w0 + 32;  // next bit (exclusive, from the top) still to fill
    for (auto it = r.fields.rbegin(); it != r.fields.rend(); ++it) {
      const Field& f = *it;
      if (!f.readable()) continue;
      const std::uint32_t lo = std::max(f.lsb, w0);
      const std::uint32_t hi = std::min(f.msb(), w0 + 31);
      if (lo > hi) continue;
      if (hi + 1 < next) parts.push_back(sized(next - hi - 1, 0));
      const std::uint32_t a = lo - f.lsb;
      const std::uint32_t n = hi - lo + 1;
      // bits a .. a + n - 1 of a field-wide vector
      auto part = [&](const std::string& v) {
        return (a == 0 && n == f.width) ? v : fmt::format("{}[{}:{}]", v, a + n - 1, a);
      };
      if (f.access == Access::kRo && f.is_const) {
        parts.push_back(sized(n, (f.reset >> a) & mask_of(n)));
      } else if (f.access == Access::kRo && r.snapshot_ram) {
        parts.push_back(part(stem(r, f) + "_i"));  // one element wide: the addressed one's, from outside
      } else if (b.array) {
        parts.push_back(part("rd_el_" + read_source(r, f)));  // the addressed element's (element_selects)
      } else {
        parts.push_back(part(read_source(r, f)));
      }
      next = lo;
    }
    if (next > w0) parts.push_back(sized(next - w0, 0));
    std::string out = "{";
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
    return out + "}";
  }

  void read_mux() {
    line("  // ---------------------------------------------------------------- responses and read data");
    std::vector<std::string> wr_ok, wr_err, rd_ok, rd_err;
    for (const Block& b : map_.blocks) {
      for (const Register& r : b.registers) {
        (r.writable() ? wr_ok : wr_err).push_back("wr_hit_" + reg(r));
        (r.readable() ? rd_ok : rd_err).push_back("rd_hit_" + reg(r));
      }
    }
    auto any = [](const std::vector<std::string>& v) {
      if (v.empty()) return std::string("1'b0");
      std::string s = "|{";
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
      return s + "}";
    };
    line(fmt::format("  assign wr_resp = {} ? RESP_OKAY :\n                   {} ? RESP_SLVERR : RESP_DECERR;", any(wr_ok),
                     any(wr_err)));
    line(fmt::format("  assign rd_resp = {} ? RESP_OKAY :\n                   {} ? RESP_SLVERR : RESP_DECERR;", any(rd_ok),
                     any(rd_err)));
    line();
    line("  // Read stage 1: in each block, the word at the read address, selected by the element");
    line("  // index and word-offset bits only (0 in holes and in registers with no readable field).");
    line("  // Stage 2: the word of the block the address lies in (none: 0).");
    std::vector<std::string> terms;
    for (const Block& b : map_.blocks) {
      bool readable = false;
      for (const Register& r : b.registers) readable = readable || r.readable();
      if (!readable) continue;
      const std::string n = blk(b);
      const std::uint32_t sb = word_sel_bits(b);
      if (b.array) element_selects(b);
      line(fmt::format("  logic [31:0] rd_word_{};  // block {}: the addressed word", n, b.name));
      if (sb <= 2) {
        // One 32-bit word per element: nothing to select inside it.
        for (const Register& r : b.registers) {
          if (r.readable()) line(fmt::format("  assign rd_word_{} = {};", n, read_word(b, r, 0)));
        }
      } else {
        const std::uint32_t w = sb - 2;
        line("  always_comb begin");
        line(fmt::format("    unique case ({})", rel_bits(b, "rd", sb - 1, 2)));
        for (const Register& r : b.registers) {
          if (!r.readable()) continue;
          for (std::uint32_t k = 0; k < r.width / 32; ++k) {
            line(fmt::format("      {}: rd_word_{} = {};", sized(w, (r.offset >> 2) + k), n, read_word(b, r, k)));
          }
        }
        line(fmt::format("      default: rd_word_{} = 32'h0;", n));
        line("    endcase");
        line("  end");
      }
      line(fmt::format("  logic [31:0] rd2_word_{}_q;", n));
      line(fmt::format("  logic        rd2_in_{}_q;  // the read lies in block {}", n, b.name));
      line("  always_ff @(posedge clk_i or negedge rst_ni) begin");
      line("    if (!rst_ni) begin");
      line(fmt::format("      rd2_word_{}_q <= 32'h0;", n));
      line(fmt::format("      rd2_in_{}_q   <= 1'b0;", n));
      line("    end else if (rd1_adv) begin");
      line(fmt::format("      rd2_word_{0}_q <= rd_word_{0};", n));
      line(fmt::format("      rd2_in_{0}_q   <= rd_blk_{0}_in;", n));
      line("    end");
      line("  end");
      terms.push_back(fmt::format("({{32{{rd2_in_{0}_q}}}} & rd2_word_{0}_q)", n));
    }
    if (terms.empty()) {
      line("  assign rd_data = 32'h0;");
    } else {
      std::string s = "  assign rd_data = ";
      for (std::size_t i = 0; i < terms.size(); ++i) s += (i ? "\n                 | " : "") + terms[i];
      line(s + ";");
    }
    line();
  }

  void unused() {
    std::string s = "s_axil_awprot, s_axil_arprot, wr_addr, rd_addr, wr_data, wr_mask";
    if (wide_writes_) s += ", wr_data64, wr_mask64, wr_word64";
    for (const Block& b : map_.blocks) {
      s += fmt::format(", wr_blk_{0}_rel, rd_blk_{0}_rel", blk(b));
      // the write's hits compare whole addresses (see decode)
      if (std::all_of(b.registers.begin(), b.registers.end(),
                      [&](const Register& r) { return whole_address_hit(b, r); })) {
        s += fmt::format(", wr_blk_{}_in", blk(b));
      }
      if (has_ram_snapshot(b)) s += fmt::format(", rd0_blk_{}_rel", blk(b));
    }
    for (const std::string& v : part_used_) s += ", " + v;
    line("  // Address bits [1:0] and unmapped data bits carry nothing.");
    line("  logic unused_bits;");
    line(fmt::format("  assign unused_bits = ^{{{}}};", s));
  }

  const RegisterMap& map_;
  std::uint32_t aw_;
  bool wide_writes_ = false;
  bool ram_snapshots_ = false;  // some register has snapshot: ram
  std::vector<std::string> part_used_;  // wires read in part only (element_selects), for unused_bits
  std::string o_;
};

}  // namespace

std::string emit_sv_csr(const RegisterMap& map) { return CsrWriter(map).run(); }

}  // namespace nicsched::regmapgen
