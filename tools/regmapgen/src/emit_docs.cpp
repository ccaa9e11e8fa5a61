// docs/registers.md: the register map for operators and software authors.
#include <fmt/format.h>

#include "nicsched/regmapgen/generate.hpp"

namespace nicsched::regmapgen {

namespace {

// Markdown table cells must not contain '|'.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string bits(const Field& f) {
  return f.width == 1 ? fmt::format("[{}]", f.lsb) : fmt::format("[{}:{}]", f.msb(), f.lsb);
}

}  // namespace

std::string emit_docs(const RegisterMap& map) {
  std::string o;
  auto line = [&o](const std::string& s = {}) { o += s + "\n"; };
  line("<!-- " + generated_banner(map) + " -->");
  line("# " + map.name + " registers");
  line();
  line(map.desc + ".");
  line();
  line(fmt::format("AXI4-Lite, {}-bit byte addresses, 32-bit data. How to change this map: docs/regmap.md.", map.addr_width));
  line();
  line("- Access: `rw` read/write; `ro` read-only (hardware value; `const` fields always read their reset);");
  line("  `wo` write-only (a write drives the value to the hardware for one cycle; reads return 0);");
  line("  `w1c` sticky bits set by hardware, cleared by writing 1.");
  line(fmt::format("- Shadowed registers: writes go to a shadow copy (reads return it); writing 1 to `{}.{}`",
                   map.commit.reg, map.commit.field));
  line("  applies every shadow to the hardware at one clock edge.");
  line(fmt::format("- Snapshot registers: reads return a copy latched when 1 is written to `{}.{}`; every",
                   map.snapshot.reg, map.snapshot.field));
  line("  snapshot register is latched at the same clock edge, so one snapshot is one consistent view.");
  line("- 64-bit registers: the low word at the offset, the high word at offset + 4.");
  line("- Array blocks: element `i` at `base + i * stride`; elements at or beyond the instance's count");
  line("  (read its parameters from CAPS0) do not exist.");
  line("- Responses: DECERR for an address with no register (or an element beyond the count), SLVERR for a");
  line("  write to a register with no writable field or a read of a register with only `wo` fields.");
  line("  Byte strobes apply to `rw` and `w1c` fields; `wo` fields take the whole word.");
  line();
  line("## Parameters");
  line();
  line("| parameter | default | max | description |");
  line("| --- | --- | --- | --- |");
  for (const Param& p : map.params) {
    line(fmt::format("| {} | {} | {} | {} |", p.name, p.expr.empty() ? std::to_string(p.default_value) : "`" + p.expr + "`",
                     p.max, cell(p.desc)));
  }
  line();
  line("## Blocks");
  line();
  line("| block | addresses | elements | description |");
  line("| --- | --- | --- | --- |");
  for (const Block& b : map.blocks) {
    const std::string elems =
        b.array ? (b.array->count_param.empty() ? std::to_string(b.array->max_count)
                                                : fmt::format("{} (max {})", b.array->count_param, b.array->max_count)) +
                      fmt::format(", stride 0x{:X}", b.array->stride)
                : "1";
    line(fmt::format("| [{}](#{}) | 0x{:04X}..0x{:04X} | {} | {} |", b.name, to_lower(b.name), b.base,
                     b.base + b.span() - 1, elems, cell(b.desc)));
  }
  for (const Block& b : map.blocks) {
    line();
    line("## " + b.name);
    line();
    line(b.desc);
    if (b.array) {
      line();
      line(fmt::format("Array: element `i` (0 <= i < {}) at `0x{:04X} + i * 0x{:X}`; offsets below are element 0.",
                       b.array->count_param.empty() ? std::to_string(b.array->max_count) : b.array->count_param, b.base,
                       b.array->stride));
    }
    line();
    line("| offset | name | width | access | reset | description | fields |");
    line("| --- | --- | --- | --- | --- | --- | --- |");
    for (const Register& r : b.registers) {
      std::string desc = cell(r.desc);
      if (r.shadowed) desc += " *Shadowed.*";
      if (r.snapshot) desc += r.snapshot_ram ? " *Snapshot (held in RAM).*" : " *Snapshot.*";
      std::string fields;
      for (const Field& f : r.fields) {
        if (!fields.empty()) fields += "<br>";
        fields += fmt::format("`{}` **{}** {}", bits(f), f.name, to_string(f.access));
        if (f.is_const) fields += " const";
        if (f.access != Access::kWo) fields += fmt::format(", reset {}", f.reset);
        fields += ": " + cell(f.desc);
        if (!f.enum_values.empty()) {
          fields += " (";
          for (std::size_t i = 0; i < f.enum_values.size(); ++i) {
            fields += fmt::format("{}{} = {}", i ? ", " : "", f.enum_values[i].name, f.enum_values[i].value);
          }
          fields += ")";
        }
      }
      line(fmt::format("| 0x{:04X} | {} | {} | {} | 0x{:0{}X} | {} | {} |", b.base + r.offset, r.name, r.width,
                       r.access_summary(), r.reset_value(), r.width / 4, desc, fields));
    }
  }
  return o;
}

}  // namespace nicsched::regmapgen
