// The types the generated register map (nicsched/regmap.hpp, written by tools/regmapgen
// from rtl/regmap/nicsched.yaml) is made of: typed fields, the register and parameter
// tables, access kinds and AXI responses. Hand-written; the generated header includes it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace nicsched::regmap {

// AXI4-Lite responses of the CSR block.
enum class Resp : std::uint8_t { kOkay = 0, kSlvErr = 2, kDecErr = 3 };

// Field access kinds (rtl/regmap/nicsched.yaml): rw, ro (hardware value), wo (write
// pulse, reads 0), w1c (sticky, write 1 to clear).
enum class Access : std::uint8_t { kRw, kRo, kWo, kW1c };

// A field of a register whose word type is Word (uint32_t for 32-bit registers,
// uint64_t for 64-bit ones, whose LO word is at the offset and HI word at offset + 4).
template <typename Word>
struct BasicField {
  std::uint32_t lsb;
  std::uint32_t width;
  // Largest value the field holds.
  [[nodiscard]] constexpr Word max() const {
    return width >= sizeof(Word) * 8 ? static_cast<Word>(~Word{0}) : static_cast<Word>((Word{1} << width) - 1U);
  }
  // The field's bits in the register word.
  [[nodiscard]] constexpr Word mask() const { return static_cast<Word>(max() << lsb); }
  // The field's value in `word`.
  [[nodiscard]] constexpr Word get(Word word) const { return static_cast<Word>((word >> lsb) & max()); }
  // `word` with the field replaced by `value` (truncated to the field's width).
  [[nodiscard]] constexpr Word set(Word word, Word value) const {
    return static_cast<Word>((word & static_cast<Word>(~mask())) | (static_cast<Word>(value << lsb) & mask()));
  }
  // Whether `value` fits the field without truncation.
  [[nodiscard]] constexpr bool fits(Word value) const { return value <= max(); }
};
using Field = BasicField<std::uint32_t>;
using Field64 = BasicField<std::uint64_t>;

// A field whose values are an enum class: get()/set() on raw values as BasicField, plus
// decode() and set() with the enum.
template <typename Word, typename E>
struct BasicEnumField : BasicField<Word> {
  using BasicField<Word>::set;
  [[nodiscard]] constexpr E decode(Word word) const { return static_cast<E>(this->get(word)); }
  [[nodiscard]] constexpr Word set(Word word, E value) const { return this->set(word, static_cast<Word>(value)); }
};

// One value of an enumerated field and its name in the register map (UPPER_SNAKE, as in
// rtl/regmap/nicsched.yaml). The generated header has a table of them per enum class E, in
// the map's order, and `enum_names(E)` returning it (found by argument-dependent lookup).
template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

// The map's name of `value`, or "?" for a value the map does not name.
template <typename E>
[[nodiscard]] constexpr std::string_view enum_to_string(std::span<const EnumName<E>> names, E value) {
  for (const EnumName<E>& n : names) {
    if (n.value == value) return n.name;
  }
  return "?";
}
// The value the map names `name` (exact, upper case), or nullopt.
template <typename E>
[[nodiscard]] constexpr std::optional<E> enum_parse(std::span<const EnumName<E>> names, std::string_view name) {
  for (const EnumName<E>& n : names) {
    if (n.name == name) return n.value;
  }
  return std::nullopt;
}

// One field, for tables and register walks.
struct FieldInfo {
  std::string_view name;
  std::uint32_t lsb;
  std::uint32_t width;
  Access access;
  std::uint64_t reset;  // value after reset (ro: the snapshot copy's; const: the value read)
  bool is_const;        // ro field that always reads `reset`
  std::string_view desc;
};

// One register (an array register once, with its element 0 address and stride).
struct RegisterInfo {
  std::string_view name;
  std::uint32_t offset;          // byte address (array: element 0)
  std::uint32_t stride;          // bytes between elements; 0 for a single register
  std::uint32_t max_count;       // elements in the map (1 for a single register)
  std::string_view count_param;  // parameter giving the instance's count ("" when fixed)
  std::uint32_t width;           // 32 or 64 (LO word at offset, HI at offset + 4)
  std::string_view access;       // access kinds of its fields, e.g. "rw", "ro", "rw/ro"
  bool shadowed;                 // written to a shadow copy, applied by COMMIT
  bool snapshot;                 // reads return the copy latched by SNAPSHOT
  bool snapshot_ram;             // snapshot held outside the CSR, in RAM (same semantics)
  std::string_view block;
  std::string_view desc;
  std::span<const FieldInfo> fields;

  [[nodiscard]] constexpr bool is_array() const { return stride != 0; }
  // Byte address of element i (i < the instance's count; single registers: i = 0).
  [[nodiscard]] constexpr std::uint32_t address(std::uint32_t i = 0) const { return offset + i * stride; }
  // Some field reads back (rw, ro, w1c); a read of a register without one answers SLVERR.
  [[nodiscard]] constexpr bool readable() const {
    for (const FieldInfo& f : fields) {
      if (f.access != Access::kWo) return true;
    }
    return false;
  }
  // Some field takes writes (rw, wo, w1c); a write to a register without one answers SLVERR.
  [[nodiscard]] constexpr bool writable() const {
    for (const FieldInfo& f : fields) {
      if (f.access != Access::kRo) return true;
    }
    return false;
  }
  // Value read after reset (wo fields read 0).
  [[nodiscard]] constexpr std::uint64_t reset() const {
    std::uint64_t v = 0;
    for (const FieldInfo& f : fields) {
      if (f.access != Access::kWo) v |= f.reset << f.lsb;
    }
    return v;
  }
};

// One elaboration parameter.
struct ParamInfo {
  std::string_view name;
  std::uint32_t default_value;
  std::uint32_t max;
  std::string_view expr;  // non-empty: derived from other parameters
  std::string_view desc;
};

}  // namespace nicsched::regmap
