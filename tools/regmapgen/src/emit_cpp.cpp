// C++ header include/nicsched/regmap.hpp: constexpr addresses, typed fields, enum classes
// with their name tables (to_string, parse_<field>) and the kRegisters table (names fixed
// by docs/architecture.md).
#include <map>
#include <set>

#include <fmt/format.h>

#include "nicsched/regmapgen/generate.hpp"

namespace nicsched::regmapgen {

namespace {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string access_enum(Access a) {
  switch (a) {
    case Access::kRw: return "Access::kRw";
    case Access::kRo: return "Access::kRo";
    case Access::kWo: return "Access::kWo";
    case Access::kW1c: return "Access::kW1c";
  }
  return "";
}

const char* kPrelude = R"(#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "nicsched/regmap_types.hpp"  // BasicField, RegisterInfo, ...: the types this header is made of

namespace nicsched::regmap {
)";

}  // namespace

std::string emit_cpp_header(const RegisterMap& map) {
  std::string o;
  auto line = [&o](const std::string& s = {}) { o += s + "\n"; };
  line("// " + generated_banner(map));
  line("// nicsched::regmap: every register address, field and reset value of the " + map.name +
       " register map, for drivers, host and agent. Header-only, made of the types of nicsched/regmap_types.hpp.");
  o += kPrelude;
  line();
  line(fmt::format("inline constexpr std::uint32_t kAddrWidth = {};  // AXI4-Lite address bits", map.addr_width));
  line(fmt::format("inline constexpr std::string_view kCommitField = {};    // write 1: apply every shadow",
                   quote(map.commit.reg + "." + map.commit.field)));
  line(fmt::format("inline constexpr std::string_view kSnapshotField = {};  // write 1: latch every snapshot",
                   quote(map.snapshot.reg + "." + map.snapshot.field)));
  line();
  line("// Parameters: the map's maxima fix the address space; the instance's values come from CAPS.");
  for (const Param& p : map.params) {
    line(fmt::format("inline constexpr std::uint32_t k{}Max = {};  // {}", p.name, p.max, p.desc));
    line(fmt::format("inline constexpr std::uint32_t k{}Default = {};", p.name, p.default_value));
  }
  line(fmt::format("inline constexpr std::array<ParamInfo, {}> kParams{{{{", map.params.size()));
  for (const Param& p : map.params) {
    line(fmt::format("    {{{}, {}, {}, {}, {}}},", quote(p.name), p.default_value, p.max, quote(p.expr), quote(p.desc)));
  }
  line("}};");
  line();

  // Enum classes, one per field name (fields of the same name share it; checked by the loader).
  std::set<std::string> enums;
  line("// Enumerated field values.");
  for (const Block& b : map.blocks) {
    for (const Register& r : b.registers) {
      for (const Field& f : r.fields) {
        if (f.enum_values.empty() || !enums.insert(to_camel(f.name)).second) continue;
        const std::string ut = r.width == 64 ? "std::uint64_t" : "std::uint32_t";
        line(fmt::format("enum class {} : {} {{  // {}.{}: {}", to_camel(f.name), ut, r.name, f.name, f.desc));
        const std::string type = to_camel(f.name);
        const EnumValue& first = f.enum_values.front();
        for (const EnumValue& e : f.enum_values) line(fmt::format("  k{} = {},", to_camel(e.name), e.value));
        line("};");
        line(fmt::format("// {0}'s values and their names in the map, in map order; enum_names({0}{{}}) is the table for",
                         type));
        line("// generic code (found by argument-dependent lookup).");
        line(fmt::format("inline constexpr std::array<EnumName<{0}>, {1}> k{0}Names{{{{", type, f.enum_values.size()));
        for (const EnumValue& e : f.enum_values) {
          line(fmt::format("    {{{}::k{}, {}}},", type, to_camel(e.name), quote(e.name)));
        }
        line("}};");
        line(fmt::format("[[nodiscard]] constexpr std::span<const EnumName<{0}>> enum_names({0} /*unused*/) {{ return k{0}Names; }}",
                         type));
        line(fmt::format("// {}::k{} -> {}; \"?\" for a value the map does not name.", type, to_camel(first.name),
                         quote(first.name)));
        line(fmt::format("[[nodiscard]] constexpr std::string_view to_string({0} v) {{ return enum_to_string(enum_names(v), v); }}",
                         type));
        line(fmt::format("// {} -> {}::k{}; nullopt for any other text (the names are upper case).", quote(first.name),
                         type, to_camel(first.name)));
        line(fmt::format("[[nodiscard]] constexpr std::optional<{}> parse_{}(std::string_view name) {{", type,
                         to_lower(f.name)));
        line(fmt::format("  return enum_parse(enum_names({}{{}}), name);", type));
        line("}");
      }
    }
  }
  line();

  std::size_t count = 0;
  for (const Block& b : map.blocks) {
    line(fmt::format("// ============================================================ block {}", b.name));
    line("// " + b.desc);
    for (const Register& r : b.registers) {
      ++count;
      const std::string word = r.width == 64 ? "std::uint64_t" : "std::uint32_t";
      const std::string field_t = r.width == 64 ? "Field64" : "Field";
      std::string flags;
      if (r.shadowed) flags += " Shadowed: written to a shadow copy, applied by COMMIT.";
      if (r.snapshot) flags += " Snapshot: reads return the copy latched by SNAPSHOT.";
      if (r.snapshot_ram) flags += " The snapshot is held in RAM outside the CSR block.";
      line(fmt::format("// {}: {}{}", r.name, r.desc, flags));
      line(fmt::format("namespace {} {{", r.name));
      if (b.array) {
        line(fmt::format("inline constexpr std::uint32_t kBase = 0x{:04X};    // element 0", b.base + r.offset));
        line("inline constexpr std::uint32_t kOffset = kBase;  // element 0 (use offset(i))");
        line(fmt::format("inline constexpr std::uint32_t kStride = 0x{:X};", b.array->stride));
        line(fmt::format("inline constexpr std::uint32_t kMaxCount = {};", b.array->max_count));
        line(fmt::format("inline constexpr std::string_view kCountParam = {};  // the instance's count: {}",
                         quote(b.array->count_param),
                         b.array->count_param.empty() ? "fixed" : "from CAPS0 (" + b.array->count_param + ")"));
        line("[[nodiscard]] constexpr std::uint32_t offset(std::uint32_t i) { return kBase + i * kStride; }");
      } else {
        line(fmt::format("inline constexpr std::uint32_t kOffset = 0x{:04X};", b.base + r.offset));
      }
      line(fmt::format("inline constexpr std::uint32_t kWidth = {};", r.width));
      line(fmt::format("inline constexpr {} kReset = 0x{:X};", word, r.reset_value()));
      for (const Field& f : r.fields) {
        const std::string comment = fmt::format("  // [{}:{}] {}: {}", f.msb(), f.lsb, to_string(f.access), f.desc);
        if (f.enum_values.empty()) {
          line(fmt::format("inline constexpr {} {}{{{}, {}}};{}", field_t, f.name, f.lsb, f.width, comment));
        } else {
          line(fmt::format("inline constexpr BasicEnumField<{}, {}> {}{{{{{}, {}}}}};{}", word, to_camel(f.name), f.name,
                           f.lsb, f.width, comment));
        }
      }
      line(fmt::format("inline constexpr std::array<FieldInfo, {}> kFields{{{{", r.fields.size()));
      for (const Field& f : r.fields) {
        line(fmt::format("    {{{}, {}, {}, {}, 0x{:X}, {}, {}}},", quote(f.name), f.lsb, f.width, access_enum(f.access),
                         f.reset, f.is_const ? "true" : "false", quote(f.desc)));
      }
      line("}};");
      line(fmt::format("}}  // namespace {}", r.name));
      line();
    }
  }

  line("// Every register, in map order (array registers once, with stride and count).");
  line(fmt::format("inline constexpr std::array<RegisterInfo, {}> kRegisters{{{{", count));
  for (const Block& b : map.blocks) {
    for (const Register& r : b.registers) {
      line(fmt::format("    {{{}, 0x{:04X}, 0x{:X}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}::kFields}},", quote(r.name),
                       b.base + r.offset, b.array ? b.array->stride : 0, b.array ? b.array->max_count : 1,
                       quote(b.array ? b.array->count_param : ""), r.width, quote(r.access_summary()),
                       r.shadowed ? "true" : "false", r.snapshot ? "true" : "false",
                       r.snapshot_ram ? "true" : "false", quote(b.name), quote(r.desc),
                       r.name));
    }
  }
  line("}};");
  line();
  line("// The register named `name`, or nullptr.");
  line("[[nodiscard]] constexpr const RegisterInfo* find_register(std::string_view name) {");
  line("  for (const RegisterInfo& r : kRegisters) {");
  line("    if (r.name == name) return &r;");
  line("  }");
  line("  return nullptr;");
  line("}");
  line();
  line("}  // namespace nicsched::regmap");
  return o;
}

}  // namespace nicsched::regmapgen
