// How policy files and nicctl write the values of enumerated register fields: the register
// map's names (nicsched/regmap.hpp, from rtl/regmap/nicsched.yaml) in lower case,
// ArbMode::kSpDwrr <-> "sp_dwrr", CryptoOp::kEncrypt <-> "encrypt". Reading and writing
// both go through here, so the spelling is derived in this one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nicsched/regmap.hpp"

namespace nicsched::host {

// The spelling of the map name `name` ("SP_DWRR" -> "sp_dwrr").
[[nodiscard]] inline std::string spelling_of(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// The spelling of `value`, or `unnamed` for a value the map does not name.
template <typename E>
[[nodiscard]] std::string spelling(E value, std::string_view unnamed = "?") {
  for (const auto& n : enum_names(value)) {
    if (n.value == value) return spelling_of(n.name);
  }
  return std::string(unnamed);
}

// The value spelled `text` (exactly), or nullopt.
template <typename E>
[[nodiscard]] std::optional<E> parse_spelling(std::string_view text) {
  for (const auto& n : enum_names(E{})) {
    if (spelling_of(n.name) == text) return n.value;
  }
  return std::nullopt;
}

// Every spelling of E, in map order (for ArbMode: fifo, sp, dwrr, sp_dwrr).
template <typename E>
[[nodiscard]] std::vector<std::string> spellings() {
  std::vector<std::string> out;
  for (const auto& n : enum_names(E{})) out.push_back(spelling_of(n.name));
  return out;
}

}  // namespace nicsched::host
