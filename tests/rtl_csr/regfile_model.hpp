// Reference model of the CSR block's register file, written from the contract
// (docs/architecture.md "Register map conventions", rtl/regmap/nicsched.yaml header) and
// driven by the generated table nicsched::regmap::kRegisters. It knows nothing of the RTL.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nicsched/regmap.hpp"

namespace nicsched::test {

namespace rm = nicsched::regmap;

// Response codes as the AXI bus encodes them.
enum class Resp : std::uint8_t { kOkay = 0, kSlvErr = 2, kDecErr = 3 };

// Instance counts per parameter name (NumTenants, NumQueues, ...).
using Counts = std::map<std::string, std::uint32_t, std::less<>>;

inline std::uint64_t field_max(const rm::FieldInfo& f) {
  return f.width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.width) - 1;
}

// A register address decoded: which register, which element, which 32-bit word.
struct Decoded {
  std::size_t reg = 0;  // index into kRegisters
  std::uint32_t elem = 0;
  std::uint32_t word = 0;  // 0: LO (or the only word), 1: HI of a 64-bit register
};

class RegFileModel {
 public:
  explicit RegFileModel(Counts counts) : counts_(std::move(counts)) {
    for (const rm::RegisterInfo& r : rm::kRegisters) {
      const std::uint32_t n = count_of(r);
      std::vector<std::vector<FieldState>> elems(n);
      for (auto& e : elems) {
        for (const rm::FieldInfo& f : r.fields) {
          FieldState s;
          s.sw = s.active = s.snap = f.reset;
          s.sticky = f.reset;
          s.wo = f.reset;
          e.push_back(s);
        }
      }
      state_.push_back(std::move(elems));
    }
  }

  // Elements of `r` that exist in the instance.
  [[nodiscard]] std::uint32_t count_of(const rm::RegisterInfo& r) const {
    if (!r.is_array()) return 1;
    if (r.count_param.empty()) return r.max_count;
    const auto it = counts_.find(r.count_param);
    if (it == counts_.end()) throw std::logic_error("no instance count for parameter " + std::string(r.count_param));
    return it->second;
  }

  // Bits [1:0] of the address are ignored; nullopt: no register there (DECERR).
  [[nodiscard]] std::optional<Decoded> decode(std::uint32_t addr) const {
    addr &= ~3U;
    for (std::size_t i = 0; i < rm::kRegisters.size(); ++i) {
      const rm::RegisterInfo& r = rm::kRegisters[i];
      if (addr < r.offset) continue;
      const std::uint32_t rel = addr - r.offset;
      const std::uint32_t elem = r.is_array() ? rel / r.stride : 0;
      const std::uint32_t within = r.is_array() ? rel % r.stride : rel;
      if (within >= r.width / 8 || elem >= count_of(r)) continue;
      return Decoded{i, elem, within / 4};
    }
    return std::nullopt;
  }

  Resp write(std::uint32_t addr, std::uint32_t data, std::uint8_t strb = 0xF) {
    const auto d = decode(addr);
    if (!d) return Resp::kDecErr;
    const rm::RegisterInfo& r = rm::kRegisters[d->reg];
    if (!r.writable()) return Resp::kSlvErr;
    std::uint64_t strobe_mask = 0;
    for (unsigned b = 0; b < 4; ++b) {
      if ((strb >> b) & 1U) strobe_mask |= std::uint64_t{0xFF} << (8 * b);
    }
    const unsigned shift = 32 * d->word;
    const std::uint64_t word_mask = std::uint64_t{0xFFFFFFFF} << shift;
    const std::uint64_t wdata = std::uint64_t{data} << shift;
    const std::uint64_t smask = strobe_mask << shift;
    bool commit = false;
    bool snapshot = false;
    for (std::size_t k = 0; k < r.fields.size(); ++k) {
      const rm::FieldInfo& f = r.fields[k];
      FieldState& s = state_[d->reg][d->elem][k];
      const std::uint64_t fm = field_max(f);
      const std::uint64_t in_word = (word_mask >> f.lsb) & fm;  // field bits in this word
      const std::uint64_t strobed = (smask >> f.lsb) & fm;
      const std::uint64_t v = (wdata >> f.lsb) & fm;
      switch (f.access) {
        case rm::Access::kRw:
          s.sw = (s.sw & ~strobed) | (v & strobed);
          if (!r.shadowed) s.active = s.sw;
          break;
        case rm::Access::kW1c:
          s.sticky &= ~(v & strobed);
          break;
        case rm::Access::kWo:
          if (in_word == 0) break;
          s.wo = (s.wo & ~in_word) | (v & in_word);
          s.we_count++;
          if (is_trigger(r, f, rm::kCommitField) && (v & 1U)) commit = true;
          if (is_trigger(r, f, rm::kSnapshotField) && (v & 1U)) snapshot = true;
          break;
        case rm::Access::kRo:
          break;
      }
    }
    if (commit) apply_commit();
    if (snapshot) apply_snapshot();
    return Resp::kOkay;
  }

  [[nodiscard]] std::pair<std::uint32_t, Resp> read(std::uint32_t addr) const {
    const auto d = decode(addr);
    if (!d) return {0, Resp::kDecErr};
    const rm::RegisterInfo& r = rm::kRegisters[d->reg];
    if (!r.readable()) return {0, Resp::kSlvErr};
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < r.fields.size(); ++k) {
      v |= read_field(d->reg, d->elem, k) << r.fields[k].lsb;
    }
    return {static_cast<std::uint32_t>(v >> (32 * d->word)), Resp::kOkay};
  }

  // The value software reads from one field.
  [[nodiscard]] std::uint64_t read_field(std::size_t reg, std::uint32_t elem, std::size_t k) const {
    const rm::RegisterInfo& r = rm::kRegisters[reg];
    const rm::FieldInfo& f = r.fields[k];
    const FieldState& s = state_[reg][elem][k];
    switch (f.access) {
      case rm::Access::kRw: return s.sw;
      case rm::Access::kW1c: return s.sticky;
      case rm::Access::kWo: return 0;
      case rm::Access::kRo: return f.is_const ? f.reset : (r.snapshot ? s.snap : s.live);
    }
    return 0;
  }

  // What the field's output port shows: rw active copy, w1c sticky bits, wo last value.
  [[nodiscard]] std::uint64_t port(std::size_t reg, std::uint32_t elem, std::size_t k) const {
    const FieldState& s = state_[reg][elem][k];
    switch (rm::kRegisters[reg].fields[k].access) {
      case rm::Access::kRw: return s.active;
      case rm::Access::kW1c: return s.sticky;
      case rm::Access::kWo: return s.wo;
      case rm::Access::kRo: return s.live;
    }
    return 0;
  }
  // Writes of a wo field so far (each gives one cycle of its _we_o).
  [[nodiscard]] std::uint64_t we_count(std::size_t reg, std::uint32_t elem, std::size_t k) const {
    return state_[reg][elem][k].we_count;
  }

  // Hardware side: the live value of an ro field, and w1c set pulses.
  void set_live(std::size_t reg, std::uint32_t elem, std::size_t k, std::uint64_t v) {
    state_[reg][elem][k].live = v & field_max(rm::kRegisters[reg].fields[k]);
  }
  void hw_set(std::size_t reg, std::uint32_t elem, std::size_t k, std::uint64_t bits) {
    state_[reg][elem][k].sticky |= bits & field_max(rm::kRegisters[reg].fields[k]);
  }

 private:
  struct FieldState {
    std::uint64_t sw = 0;      // rw: the value software reads (the shadow of a shadowed register)
    std::uint64_t active = 0;  // rw: what the hardware sees
    std::uint64_t live = 0;    // ro: hardware input
    std::uint64_t snap = 0;    // ro in a snapshot register: latched copy
    std::uint64_t sticky = 0;  // w1c
    std::uint64_t wo = 0;      // wo: last written value
    std::uint64_t we_count = 0;
  };

  static bool is_trigger(const rm::RegisterInfo& r, const rm::FieldInfo& f, std::string_view name) {
    return name == std::string(r.name) + "." + std::string(f.name);
  }

  void apply_commit() {
    for (std::size_t i = 0; i < rm::kRegisters.size(); ++i) {
      if (!rm::kRegisters[i].shadowed) continue;
      for (auto& e : state_[i]) {
        for (auto& s : e) s.active = s.sw;
      }
    }
  }
  void apply_snapshot() {
    for (std::size_t i = 0; i < rm::kRegisters.size(); ++i) {
      if (!rm::kRegisters[i].snapshot) continue;
      for (auto& e : state_[i]) {
        for (auto& s : e) s.snap = s.live;
      }
    }
  }

  Counts counts_;
  std::vector<std::vector<std::vector<FieldState>>> state_;  // [reg][elem][field]
};

}  // namespace nicsched::test
