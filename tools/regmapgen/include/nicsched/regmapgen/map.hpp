// The register map as regmapgen understands it: a validated, in-memory copy of
// rtl/regmap/nicsched.yaml (schema in that file's header comment), and the loader that
// builds it. Every check that can fail names the file, the line and the reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nicsched::regmapgen {

// The map (or the generator's input) is wrong. what() is "FILE:LINE:COL: REASON".
class RegmapError : public std::runtime_error {
 public:
  RegmapError(std::string file, int line, int column, std::string reason);
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] int line() const { return line_; }      // 1-based; 0 when not known
  [[nodiscard]] int column() const { return column_; }  // 1-based; 0 when not known
  [[nodiscard]] const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string reason_;
};

// Writing an output file failed.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Access : std::uint8_t { kRw, kRo, kWo, kW1c };
[[nodiscard]] std::string_view to_string(Access a);

struct SourceLoc {
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

struct EnumValue {
  std::string name;  // UPPER_SNAKE
  std::uint64_t value = 0;
  SourceLoc loc;
};

struct Field {
  std::string name;  // UPPER_SNAKE
  std::uint32_t lsb = 0;
  std::uint32_t width = 0;
  Access access = Access::kRw;
  std::uint64_t reset = 0;
  std::string desc;
  bool is_const = false;  // ro only: reads `reset`, no port
  std::vector<EnumValue> enum_values;
  SourceLoc loc;

  [[nodiscard]] bool readable() const { return access == Access::kRw || access == Access::kRo || access == Access::kW1c; }
  [[nodiscard]] bool writable() const { return access != Access::kRo; }
  [[nodiscard]] std::uint32_t msb() const { return lsb + width - 1; }
};

struct Register {
  std::string name;  // UPPER_SNAKE, unique in the whole map
  std::uint32_t offset = 0;  // inside the block (inside one element for arrays)
  std::uint32_t width = 32;  // 32 or 64 (64: LO word at offset, HI at offset + 4)
  std::string desc;
  bool shadowed = false;
  bool snapshot = false;
  bool snapshot_ram = false;  // snapshot: ram, the snapshot lives outside the CSR, read by element index
  std::vector<Field> fields;  // sorted by lsb
  SourceLoc loc;

  [[nodiscard]] std::uint32_t bytes() const { return width / 8; }
  [[nodiscard]] bool has_access(Access a) const;
  [[nodiscard]] bool readable() const;  // some field reads back (rw, ro, w1c)
  [[nodiscard]] bool writable() const;  // some field takes writes (rw, wo, w1c)
  [[nodiscard]] std::uint64_t reset_value() const;  // every field's reset at its position
  [[nodiscard]] std::string access_summary() const;  // e.g. "rw", "ro", "rw/ro"
};

struct Param {
  std::string name;  // UpperCamel, e.g. NumTenants
  bool has_default = false;
  std::uint64_t default_value = 0;  // the default (for expr params: the expr at the defaults)
  std::string expr;  // non-empty: derived from other params, e.g. "NumTenants * 2"
  std::uint64_t max = 0;
  std::string desc;
  SourceLoc loc;
};

struct ArraySpec {
  std::string count_param;  // empty: fixed count
  std::uint32_t max_count = 1;  // the map's maximum (param max, or the fixed count)
  std::uint32_t stride = 0;  // bytes, power of two
};

struct Block {
  std::string name;  // UPPER_SNAKE
  std::uint32_t base = 0;
  std::string desc;
  std::optional<ArraySpec> array;
  std::vector<Register> registers;  // sorted by offset
  SourceLoc loc;

  [[nodiscard]] std::uint32_t span() const;  // bytes covered, arrays at their max count
};

struct FieldRef {
  std::string reg;
  std::string field;
  SourceLoc loc;
};

struct RegisterMap {
  std::string name;
  std::string desc;
  std::uint32_t addr_width = 16;
  FieldRef commit;
  FieldRef snapshot;
  std::vector<Param> params;
  std::vector<Block> blocks;  // in YAML order
  std::string source;  // how the generated files name their source, e.g. rtl/regmap/nicsched.yaml

  [[nodiscard]] const Param* find_param(std::string_view name) const;
};

// Parses and validates YAML text. `file` is used in error messages and as `source`.
[[nodiscard]] RegisterMap parse_map(const std::string& yaml_text, const std::string& file);
// Reads and validates a YAML file; errors name `path` as given.
[[nodiscard]] RegisterMap load_map(const std::filesystem::path& path);

// Helpers shared by the emitters.
[[nodiscard]] std::string to_lower(std::string_view s);
[[nodiscard]] std::string to_upper_snake(std::string_view camel);  // NumTenants -> NUM_TENANTS
[[nodiscard]] std::string to_camel(std::string_view upper_snake);  // SP_DWRR -> SpDwrr

}  // namespace nicsched::regmapgen
