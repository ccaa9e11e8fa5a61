// SystemVerilog package nicsched_regs_pkg: offsets, strides, field positions, resets,
// enum values and parameter maxima (names fixed by docs/architecture.md).
#include <map>

#include <fmt/format.h>

#include "nicsched/regmapgen/generate.hpp"

namespace nicsched::regmapgen {

namespace {

class PkgWriter {
 public:
  explicit PkgWriter(const RegisterMap& map) : map_(map) {}

  // Emits `localparam TYPE NAME = VALUE;` and refuses a name used twice.
  void param(const std::string& type, const std::string& name, const std::string& value, SourceLoc loc,
             const std::string& comment = {}) {
    if (auto [it, ok] = names_.emplace(name, loc); !ok) {
      throw RegmapError(map_.source, loc.line, loc.column,
                        "SystemVerilog constant " + name + " would be defined twice (also from line " +
                            std::to_string(it->second.line) + "); rename a register, field or block");
    }
    out_ += fmt::format("  localparam {} {} = {};{}\n", type, name, value, comment.empty() ? "" : "  // " + comment);
  }
  void text(const std::string& s) { out_ += s; }
  [[nodiscard]] const std::string& str() const { return out_; }

 private:
  const RegisterMap& map_;
  std::map<std::string, SourceLoc> names_;
  std::string out_;
};

std::string sized(std::uint32_t width, std::uint64_t v) { return fmt::format("{}'h{:X}", width, v); }

}  // namespace

std::string emit_sv_package(const RegisterMap& map) {
  PkgWriter w(map);
  w.text(fmt::format("// {}\n", generated_banner(map)));
  w.text("// nicsched_regs_pkg: addresses, field positions, reset and enum values of the register map.\n");
  w.text("// Offsets are byte addresses; an array register's <REG>_OFFSET is its element 0 and\n");
  w.text("// element i sits at <REG>_OFFSET + i * <BLOCK>_STRIDE. 64-bit registers: LO word at the\n");
  w.text("// offset, HI word at offset + 4.\n");
  w.text("`default_nettype none\n\npackage nicsched_regs_pkg;\n\n");
  w.text("  // A block uses the constants it needs; the rest are there for the next one.\n");
  w.text("  /* verilator lint_off UNUSEDPARAM */\n");
  w.param("int", "ADDR_WIDTH", std::to_string(map.addr_width), {}, "AXI4-Lite address bits");
  w.param("int", "DATA_WIDTH", "32", {}, "AXI4-Lite data bits");
  w.param("logic [1:0]", "RESP_OKAY", "2'b00", {});
  w.param("logic [1:0]", "RESP_SLVERR", "2'b10", {}, "write to a register with no writable field, read of a wo-only register");
  w.param("logic [1:0]", "RESP_DECERR", "2'b11", {}, "address maps to no register (or an element beyond the count)");
  w.text("\n  // Parameters: the map's maxima fix the address space.\n");
  for (const Param& p : map.params) {
    const std::string up = to_upper_snake(p.name);
    w.param("int", up + "_MAX", std::to_string(p.max), p.loc, p.desc);
    w.param("int", up + "_DEFAULT", std::to_string(p.default_value), p.loc,
            p.expr.empty() ? std::string("default of parameter ") + p.name : p.expr + " at the defaults");
  }
  for (const Block& b : map.blocks) {
    w.text(fmt::format("\n  // ---- Block {}: {}\n", b.name, b.desc));
    w.param("int", b.name + "_BASE", fmt::format("'h{:X}", b.base), b.loc);
    if (b.array) {
      w.param("int", b.name + "_STRIDE", fmt::format("'h{:X}", b.array->stride), b.loc);
      w.param("int", b.name + "_MAX_COUNT", std::to_string(b.array->max_count), b.loc,
              b.array->count_param.empty() ? "fixed count" : "elements that exist: " + b.array->count_param);
    }
    for (const Register& r : b.registers) {
      w.text(fmt::format("  // {}: {}\n", r.name, r.desc));
      w.param("int", r.name + "_OFFSET", fmt::format("'h{:X}", b.base + r.offset), r.loc);
      w.param(fmt::format("logic [{}:0]", r.width - 1), r.name + "_RESET", sized(r.width, r.reset_value()), r.loc);
      for (const Field& f : r.fields) {
        const std::string fn = r.name + "_" + f.name;
        w.param("int", fn + "_LSB", std::to_string(f.lsb), f.loc,
                fmt::format("{} {}{}", to_string(f.access), f.desc, f.is_const ? " (const)" : ""));
        w.param("int", fn + "_WIDTH", std::to_string(f.width), f.loc);
        w.param(fmt::format("logic [{}:0]", f.width - 1), fn + "_RESET", sized(f.width, f.reset), f.loc);
        for (const EnumValue& e : f.enum_values) {
          w.param(fmt::format("logic [{}:0]", f.width - 1), fn + "_" + e.name, sized(f.width, e.value), e.loc);
        }
      }
    }
  }
  w.text("\n  /* verilator lint_on UNUSEDPARAM */\n\nendpackage\n\n`default_nettype wire\n");
  return w.str();
}

}  // namespace nicsched::regmapgen
