// regmap.*: a good map generates the four files with the addresses, fields and names the
// contract fixes (expected values worked out by hand from the YAML, not from the generator).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "nicsched/regmapgen/generate.hpp"
#include "tiny_map.hpp"

namespace rg = nicsched::regmapgen;
using Catch::Contains;
using nicsched::test::kTinyMap;
using nicsched::test::replaced;

namespace {

// Every file the tiny map generates, its source named tiny.yaml.
std::vector<rg::GeneratedFile> tiny_files() { return rg::generate(rg::parse_map(kTinyMap, "tiny.yaml")); }

std::string file_of(const std::vector<rg::GeneratedFile>& files, const std::string& rel) {
  for (const auto& f : files) {
    if (f.relative_path == rel) return f.content;
  }
  FAIL("no generated file " << rel);
  return {};
}

// Every one of `parts` stands somewhere in `text`.
void check_contains(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) CHECK_THAT(text, Contains(part));
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// SystemVerilog without its // comments.
std::string code_only(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out += l.substr(0, l.find("//")) + "\n";
  return out;
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("nicsched-regmap-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("tiny map: loaded model holds the YAML's values") {
  const rg::RegisterMap m = rg::parse_map(kTinyMap, "tiny.yaml");
  REQUIRE(m.blocks.size() == 2);
  CHECK(m.find_param("NumLanes")->default_value == 4);  // NumPorts * 2 at NumPorts = 2
  const rg::Block& port = m.blocks[1];
  REQUIRE(port.array);
  CHECK(port.array->max_count == 4);
  CHECK(port.span() == 0x40);
  const rg::Register& mode = m.blocks[0].registers[1];
  CHECK(mode.name == "MODE");
  CHECK(mode.fields[0].name == "ON");  // sorted by lsb
  CHECK(mode.reset_value() == 0x21);   // ON = 1, SPEED = 2 << 4
  CHECK(mode.access_summary() == "rw");
}

TEST_CASE("tiny map: every generated file names its source and says not to edit it") {
  const auto files = rg::generate(rg::parse_map(kTinyMap, "maps/tiny.yaml"));
  REQUIRE(files.size() == 4);
  for (const auto& f : files) {
    INFO(f.relative_path);
    CHECK_THAT(first_line(f.content), Contains("GENERATED") && Contains("maps/tiny.yaml") && Contains("do not edit"));
  }
}

TEST_CASE("tiny map: SystemVerilog package") {
  const auto pkg = file_of(tiny_files(), "rtl/generated/nicsched_regs_pkg.sv");
  check_contains(pkg, {"package nicsched_regs_pkg;",
                       "localparam int MODE_OFFSET = 'h4;",
                       "localparam int P_CFG_OFFSET = 'h104;",  // base 0x100 + offset 0x4
                       "localparam int PORT_STRIDE = 'h10;",
                       "localparam int P_CFG_LIMIT_LSB = 8;",
                       "localparam int P_CFG_LIMIT_WIDTH = 12;",
                       "localparam logic [1:0] MODE_SPEED_FAST = 2'h2;",
                       "localparam int NUM_PORTS_MAX = 4;",
                       "localparam int NUM_LANES_MAX = 8;",
                       "localparam int TIME_OFFSET = 'h8;"});
  CHECK_THAT(code_only(pkg), !Contains("import") && !Contains("'{"));
}

TEST_CASE("tiny map: CSR module ports follow the contract") {
  const auto csr = file_of(tiny_files(), "rtl/generated/nicsched_csr.sv");
  check_contains(csr, {"module nicsched_csr #(",
                       "parameter int NumPorts = 2",
                       "input  logic [11:0] s_axil_awaddr,",
                       "output logic [NumPorts*12-1:0] p_cfg_limit_o,",
                       "input  logic [NumPorts*16-1:0] p_stat_depth_i  // Depth",
                       "input  logic [63:0] time_count_i,",
                       "output logic [1:0]  mode_speed_o,",
                       "output logic        cmd_commit_we_o,",
                       "input  logic [3:0]  limit64_flags_set_i,",
                       "output logic [39:0] limit64_val_o,"});
  CHECK_THAT(code_only(csr), !Contains("import") && !Contains("return") && !Contains("'{"));
}

TEST_CASE("tiny map: a snapshot: ram register is read by element index from outside the CSR") {
  const std::string stat = "      - name: P_STAT\n        offset: 0x8\n";
  const auto files = rg::generate(rg::parse_map(replaced(kTinyMap, stat, stat + "        snapshot: ram\n"), "tiny.yaml"));
  const auto csr = file_of(files, "rtl/generated/nicsched_csr.sv");
  // One element wide (no NumPorts*16 vector), the index of the read and the snapshot trigger out.
  // The read has a stage 0 whose address register gives the element (from flops, not from
  // the AR channel and the pipeline's stalls), and the value loads as the read leaves it.
  check_contains(csr, {"input  logic [15:0] p_stat_depth_i,",
                       "output logic        snapshot_o,",
                       "output logic        snap_load_o,",
                       "output logic [1:0]  port_snap_idx_o",
                       "assign rd_fire = (ar_full_q | s_axil_arvalid) & rd0_free;",
                       "if (rd0_adv) rd1_addr_q <= rd0_addr_q;",
                       "assign port_snap_idx_o = rd0_addr[",
                       "assign snapshot_o = snapshot_fire;",
                       "assign snap_load_o = rd0_adv;",
                       "rd_word_port = {16'h0, p_stat_depth_i};"});
  CHECK_THAT(code_only(csr), !Contains("p_stat_depth_snap_q"));
  // Without snapshot: ram registers the read has no stage 0 (three clocks, not four).
  const auto plain = file_of(tiny_files(), "rtl/generated/nicsched_csr.sv");
  check_contains(plain, {"assign rd_fire = (ar_full_q | s_axil_arvalid) & rd1_free;", "RVALID rises three cycles"});
  CHECK_THAT(code_only(plain), !Contains("rd0_"));
  // The flop snapshot of TIME stays in the CSR.
  CHECK_THAT(code_only(csr), Contains("time_count_snap_q"));
  CHECK_THAT(file_of(files, "docs/registers.md"), Contains("*Snapshot (held in RAM).*"));
}

TEST_CASE("tiny map: C++ header constants") {
  const auto hpp = file_of(tiny_files(), "include/nicsched/regmap.hpp");
  check_contains(hpp, {"namespace nicsched::regmap {",
                       "namespace P_CFG {",
                       "inline constexpr std::uint32_t kBase = 0x0104;",
                       "inline constexpr std::uint32_t kStride = 0x10;",
                       "inline constexpr std::uint32_t kMaxCount = 4;",
                       "inline constexpr std::string_view kCountParam = \"NumPorts\";",
                       "inline constexpr Field LIMIT{8, 12};",
                       "inline constexpr Field64 VAL{0, 40};",
                       "enum class Speed : std::uint32_t {",
                       "kFast = 2,",
                       "inline constexpr std::array<EnumName<Speed>, 2> kSpeedNames{{",
                       "{Speed::kSlow, \"SLOW\"},",
                       "{Speed::kFast, \"FAST\"},",
                       "constexpr std::string_view to_string(Speed v)",
                       "constexpr std::optional<Speed> parse_speed(std::string_view name)",
                       "inline constexpr std::uint32_t kReset = 0x21;",
                       "{\"MODE\", 0x0004, 0x0, 1, \"\", 32, \"rw\", true, false, false, \"TOP\""});
}

TEST_CASE("tiny map: docs table") {
  const auto md = file_of(tiny_files(), "docs/registers.md");
  check_contains(md, {"| 0x0004 | MODE | 32 | rw | 0x00000021 |",
                      "| 0x0104 | P_CFG | 32 | rw | 0x00012300 |",
                      "`[5:4]` **SPEED** rw, reset 2: Speed (SLOW = 0, FAST = 2)",
                      "| 0x0010 | LIMIT64 | 64 | rw/w1c |"});
}

TEST_CASE("tiny map: generated RTL is lint-clean under verilator -Wall at several counts") {
  const auto dir = fresh_dir("lint");
  rg::write_files(tiny_files(), dir);
  for (const char* p : {"-GNumPorts=1", "-GNumPorts=3", "-GNumPorts=4"}) {
    const std::string cmd = std::string("verilator --lint-only -Wall ") + p + " " +
                            (dir / "rtl/generated/nicsched_regs_pkg.sv").string() + " " +
                            (dir / "rtl/generated/nicsched_csr.sv").string() + " --top-module nicsched_csr 2>&1";
    INFO(cmd);
    CHECK(std::system(cmd.c_str()) == 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("tiny map: a write decodes whole addresses, and an array off its stride keeps the subtraction") {
  // PORT at 0x100 (a multiple of its 0x10 stride): element i is address bits [11:4] ==
  // 0x10 + i, no subtraction; TOP's registers are their word addresses.
  const auto aligned = code_only(file_of(tiny_files(), "rtl/generated/nicsched_csr.sv"));
  check_contains(aligned, {"assign wr_hit_mode = (wr_addr[11:2] == 10'h1);",
                           "assign wr_hit_limit64 = (wr_addr[11:3] == 9'h2);",
                           "localparam logic [7:0] ELEMENT = 8'(32'h10 + i);",
                           "assign wr_blk_port_sel[i] = (wr_addr[11:4] == ELEMENT);",
                           "assign we_p_cfg = wr_fire & (wr_addr[3:2] == 2'h1);"});
  CHECK_THAT(aligned, !Contains("wr_blk_port_idx"));
  // At 0x104 the element's bits are not the address's: the select subtracts the base.
  const auto files = rg::generate(rg::parse_map(replaced(kTinyMap, "base: 0x100", "base: 0x104"), "tiny.yaml"));
  const auto off = code_only(file_of(files, "rtl/generated/nicsched_csr.sv"));
  check_contains(off, {"assign wr_blk_port_idx = wr_blk_port_rel[11:4];",
                       "assign wr_blk_port_sel[i] = wr_blk_port_in & ({24'h0, wr_blk_port_idx} == IDX);",
                       "assign we_p_cfg = wr_fire & wr_hit_p_cfg;"});
  const auto dir = fresh_dir("offstride");
  rg::write_files(files, dir);
  const std::string cmd = "verilator --lint-only -Wall -GNumPorts=3 " +
                          (dir / "rtl/generated/nicsched_regs_pkg.sv").string() + " " +
                          (dir / "rtl/generated/nicsched_csr.sv").string() + " --top-module nicsched_csr 2>&1";
  INFO(cmd);
  CHECK(std::system(cmd.c_str()) == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("write_files writes every file once and leaves unchanged files untouched") {
  const auto dir = fresh_dir("write");
  const auto files = tiny_files();
  CHECK(rg::write_files(files, dir).size() == 4);
  for (const auto& f : files) {
    std::ifstream in(dir / f.relative_path);
    std::stringstream s;
    s << in.rdbuf();
    CHECK(s.str() == f.content);
  }
  CHECK(rg::write_files(files, dir).empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("write_files refuses a generated path that is not a regular file, naming it, without reading it") {
  const auto dir = fresh_dir("notreg");
  const auto files = tiny_files();
  const auto first = dir / files.front().relative_path;
  std::filesystem::create_directories(first);  // a directory where a generated file goes
  CHECK_THROWS_WITH(rg::write_files(files, dir), Contains(first.string()) && Contains("it is a directory"));
  CHECK(rg::read_generated_file(dir / "absent.sv") == std::nullopt);
  std::filesystem::remove_all(dir);
}

TEST_CASE("adding a register to the YAML changes all four outputs") {
  const std::string extra =
      "      - {name: NEWREG, offset: 0x18, desc: Added., fields: [{name: KNOB, lsb: 3, width: 5, access: rw, reset: 7, "
      "desc: k}]}\n";
  const auto files = rg::generate(rg::parse_map(replaced(kTinyMap, "  - name: PORT\n", extra + "  - name: PORT\n"), "t.yaml"));
  CHECK_THAT(file_of(files, "rtl/generated/nicsched_regs_pkg.sv"), Contains("localparam int NEWREG_OFFSET = 'h18;"));
  CHECK_THAT(file_of(files, "rtl/generated/nicsched_csr.sv"), Contains("output logic [4:0]  newreg_knob_o,"));
  CHECK_THAT(file_of(files, "include/nicsched/regmap.hpp"), Contains("inline constexpr Field KNOB{3, 5};"));
  CHECK_THAT(file_of(files, "docs/registers.md"), Contains("| 0x0018 | NEWREG | 32 | rw | 0x00000038 |"));
}
