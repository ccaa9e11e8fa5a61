// RegisterFile: the one C++ model of the CSR block's register file, driven by the
// generated register table (nicsched::regmap::kRegisters, from rtl/regmap/nicsched.yaml),
// so that it follows every register-map edit without code. It implements the CSR
// contract (docs/regmap.md, "Conventions of the generated CSR block"; the YAML's header):
//   - rw fields: software writes a value (byte strobes honoured); a shadowed register's
//     hardware copy takes it when COMMIT.GO is written 1, an unshadowed one at once;
//     reads return what software wrote;
//   - ro fields: the hardware's value (set_live); in a snapshot register the copy latched
//     when SNAPSHOT.GO is written 1; const fields read their reset value;
//   - wo fields read 0; a write drives the value for one cycle (counted);
//   - w1c fields: hardware sets bits (hw_set), software writes 1 to clear them;
//   - DECERR where no register element of the instance is, SLVERR for a write to a
//     register without writable fields or a read of one without readable fields.
// Used by the model backend of the simulator (sim/src/model_backend.cpp), the host tests'
// stand-in NIC and, as the reference, by the RTL CSR test bench (tests/rtl_csr).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nicsched/nic/types.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::nic {

// Instance counts of the map's parameters (NumTenants, NumQueues, NumClsEntries).
using Counts = std::map<std::string, std::uint32_t, std::less<>>;

// The counts of an instance with `tenants` tenants, `cls_entries` classifier entries and
// `sources` TX sources.
[[nodiscard]] inline Counts instance_counts(std::uint32_t tenants, std::uint32_t cls_entries,
                                           std::uint32_t sources = regmap::kNumSourcesDefault) {
  return {{"NumTenants", tenants}, {"NumQueues", tenants * kNumClasses}, {"NumClsEntries", cls_entries},
          {"NumSources", sources}};
}

[[nodiscard]] inline std::uint64_t field_max(const regmap::FieldInfo& f) {
  return f.width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.width) - 1;
}

// A register address decoded: which register, which element, which 32-bit word.
struct Decoded {
  std::size_t reg = 0;  // index into regmap::kRegisters
  std::uint32_t elem = 0;
  std::uint32_t word = 0;  // 0: LO (or the only word), 1: HI of a 64-bit register
};

class RegisterFile {
 public:
  using Resp = regmap::Resp;

  explicit RegisterFile(Counts counts) : counts_(std::move(counts)), index_(kWords, -1) {
    for (std::size_t i = 0; i < regmap::kRegisters.size(); ++i) {
      const regmap::RegisterInfo& r = regmap::kRegisters[i];
      const std::uint32_t n = count_of(r);
      std::vector<std::vector<FieldState>> elems(n);
      for (std::uint32_t e = 0; e < n; ++e) {
        for (const regmap::FieldInfo& f : r.fields) {
          FieldState s;
          s.sw = s.active = s.snap = s.sticky = s.wo = f.reset;
          elems[e].push_back(s);
        }
        for (std::uint32_t w = 0; w < r.width / 32; ++w) {
          const std::uint32_t word = (r.address(e) >> 2) + w;
          if (word >= kWords || index_[word] >= 0) {
            throw std::logic_error("register map: " + std::string(r.name) + " overlaps another register");
          }
          index_[word] = static_cast<std::int32_t>(slots_.size());
        }
        slots_.push_back({i, e});
      }
      state_.push_back(std::move(elems));
    }
  }

  // Elements of `r` that exist in the instance.
  [[nodiscard]] std::uint32_t count_of(const regmap::RegisterInfo& r) const {
    if (!r.is_array()) return 1;
    if (r.count_param.empty()) return r.max_count;
    const auto it = counts_.find(r.count_param);
    if (it == counts_.end()) throw std::logic_error("no instance count for parameter " + std::string(r.count_param));
    return it->second;
  }

  // Bits [1:0] of the address are ignored; nullopt: no register element there (DECERR).
  [[nodiscard]] std::optional<Decoded> decode(std::uint32_t addr) const {
    const std::uint32_t word = addr >> 2;
    if (word >= kWords || index_[word] < 0) return std::nullopt;
    const Slot& s = slots_[static_cast<std::size_t>(index_[word])];
    return Decoded{s.reg, s.elem, word - (regmap::kRegisters[s.reg].address(s.elem) >> 2)};
  }

  // A bus write: what the CSR block answers, with the effects on the fields.
  Resp write(std::uint32_t addr, std::uint32_t data, std::uint8_t strb = 0xF) {
    const auto d = decode(addr);
    if (!d) return Resp::kDecErr;
    const regmap::RegisterInfo& r = regmap::kRegisters[d->reg];
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
      const regmap::FieldInfo& f = r.fields[k];
      FieldState& s = state_[d->reg][d->elem][k];
      const std::uint64_t fm = field_max(f);
      const std::uint64_t in_word = (word_mask >> f.lsb) & fm;  // field bits in this word
      const std::uint64_t strobed = (smask >> f.lsb) & fm;
      const std::uint64_t v = (wdata >> f.lsb) & fm;
      switch (f.access) {
        case regmap::Access::kRw:
          s.sw = (s.sw & ~strobed) | (v & strobed);
          if (!r.shadowed) s.active = s.sw;
          break;
        case regmap::Access::kW1c:
          s.sticky &= ~(v & strobed);
          break;
        case regmap::Access::kWo:
          if (in_word == 0) break;
          s.wo = (s.wo & ~in_word) | (v & in_word);
          s.we_count++;
          if (is_field(r, f, regmap::kCommitField) && (v & 1U)) commit = true;
          if (is_field(r, f, regmap::kSnapshotField) && (v & 1U)) snapshot = true;
          break;
        case regmap::Access::kRo:
          break;
      }
    }
    if (commit) apply_commit();
    if (snapshot) apply_snapshot();
    return Resp::kOkay;
  }

  // A bus read: the word and the response.
  [[nodiscard]] std::pair<std::uint32_t, Resp> read(std::uint32_t addr) const {
    const auto d = decode(addr);
    if (!d) return {0, Resp::kDecErr};
    const regmap::RegisterInfo& r = regmap::kRegisters[d->reg];
    if (!r.readable()) return {0, Resp::kSlvErr};
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < r.fields.size(); ++k) v |= read_field(d->reg, d->elem, k) << r.fields[k].lsb;
    return {static_cast<std::uint32_t>(v >> (32 * d->word)), Resp::kOkay};
  }

  // The value software reads from one field.
  [[nodiscard]] std::uint64_t read_field(std::size_t reg, std::uint32_t elem, std::size_t k) const {
    const regmap::RegisterInfo& r = regmap::kRegisters[reg];
    const regmap::FieldInfo& f = r.fields[k];
    const FieldState& s = state_[reg][elem][k];
    switch (f.access) {
      case regmap::Access::kRw: return s.sw;
      case regmap::Access::kW1c: return s.sticky;
      case regmap::Access::kWo: return 0;
      case regmap::Access::kRo: return f.is_const ? f.reset : (r.snapshot ? s.snap : s.live);
    }
    return 0;
  }

  // What the field's output port shows: rw active copy, w1c sticky bits, wo last value.
  [[nodiscard]] std::uint64_t port(std::size_t reg, std::uint32_t elem, std::size_t k) const {
    const FieldState& s = state_[reg][elem][k];
    switch (regmap::kRegisters[reg].fields[k].access) {
      case regmap::Access::kRw: return s.active;
      case regmap::Access::kW1c: return s.sticky;
      case regmap::Access::kWo: return s.wo;
      case regmap::Access::kRo: return s.live;
    }
    return 0;
  }
  // Writes of a wo field so far (each gives one cycle of its _we_o).
  [[nodiscard]] std::uint64_t we_count(std::size_t reg, std::uint32_t elem, std::size_t k) const {
    return state_[reg][elem][k].we_count;
  }

  // Hardware side: the live value of an ro field, and w1c set pulses.
  void set_live(std::size_t reg, std::uint32_t elem, std::size_t k, std::uint64_t v) {
    state_[reg][elem][k].live = v & field_max(regmap::kRegisters[reg].fields[k]);
  }
  void hw_set(std::size_t reg, std::uint32_t elem, std::size_t k, std::uint64_t bits) {
    state_[reg][elem][k].sticky |= bits & field_max(regmap::kRegisters[reg].fields[k]);
  }

  // The same by register address (the register's LO word), for whole registers: the live
  // value of every ro field, w1c bits to set, and the hardware copy of the rw fields.
  void set_live_value(std::uint32_t addr, std::uint64_t value) {
    for_fields(addr, regmap::Access::kRo, [&](std::size_t reg, std::uint32_t e, std::size_t k, std::uint32_t lsb) {
      set_live(reg, e, k, value >> lsb);
    });
  }
  void hw_set_value(std::uint32_t addr, std::uint64_t bits) {
    for_fields(addr, regmap::Access::kW1c, [&](std::size_t reg, std::uint32_t e, std::size_t k, std::uint32_t lsb) {
      hw_set(reg, e, k, bits >> lsb);
    });
  }
  // The ro fields' bits in the 32-bit word at `addr` (either word of a 64-bit register).
  void set_live_word(std::uint32_t addr, std::uint32_t word) {
    const auto d = decode(addr);
    if (!d) throw std::out_of_range("register file: no register at " + std::to_string(addr));
    const regmap::RegisterInfo& r = regmap::kRegisters[d->reg];
    const unsigned shift = 32 * d->word;
    for (std::size_t k = 0; k < r.fields.size(); ++k) {
      const regmap::FieldInfo& f = r.fields[k];
      if (f.access != regmap::Access::kRo) continue;
      const std::uint64_t in_word = ((std::uint64_t{0xFFFFFFFF} << shift) >> f.lsb) & field_max(f);
      FieldState& s = state_[d->reg][d->elem][k];
      s.live = (s.live & ~in_word) | (((std::uint64_t{word} << shift) >> f.lsb) & in_word);
    }
  }
  [[nodiscard]] std::uint64_t active_value(std::uint32_t addr) const {
    std::uint64_t v = 0;
    const auto d = element_at(addr);
    const regmap::RegisterInfo& r = regmap::kRegisters[d.reg];
    for (std::size_t k = 0; k < r.fields.size(); ++k) {
      if (r.fields[k].access == regmap::Access::kRw) v |= state_[d.reg][d.elem][k].active << r.fields[k].lsb;
    }
    return v;
  }

 private:
  static constexpr std::uint32_t kWords = (1U << regmap::kAddrWidth) / 4;

  struct FieldState {
    std::uint64_t sw = 0;      // rw: the value software reads (the shadow of a shadowed register)
    std::uint64_t active = 0;  // rw: what the hardware sees
    std::uint64_t live = 0;    // ro: hardware input
    std::uint64_t snap = 0;    // ro in a snapshot register: latched copy
    std::uint64_t sticky = 0;  // w1c
    std::uint64_t wo = 0;      // wo: last written value
    std::uint64_t we_count = 0;
  };
  struct Slot {
    std::size_t reg = 0;
    std::uint32_t elem = 0;
  };

  static bool is_field(const regmap::RegisterInfo& r, const regmap::FieldInfo& f, std::string_view name) {
    return name.size() == r.name.size() + 1 + f.name.size() && name.substr(0, r.name.size()) == r.name &&
           name[r.name.size()] == '.' && name.substr(r.name.size() + 1) == f.name;
  }

  // The register element whose LO word is at `addr`; throws where there is none.
  [[nodiscard]] Decoded element_at(std::uint32_t addr) const {
    const auto d = decode(addr);
    if (!d || d->word != 0) throw std::out_of_range("register file: no register starts at " + std::to_string(addr));
    return *d;
  }

  template <class Fn>
  void for_fields(std::uint32_t addr, regmap::Access access, Fn fn) {
    const Decoded d = element_at(addr);
    const regmap::RegisterInfo& r = regmap::kRegisters[d.reg];
    for (std::size_t k = 0; k < r.fields.size(); ++k) {
      if (r.fields[k].access == access) fn(d.reg, d.elem, k, r.fields[k].lsb);
    }
  }

  void apply_commit() {
    for (std::size_t i = 0; i < regmap::kRegisters.size(); ++i) {
      if (!regmap::kRegisters[i].shadowed) continue;
      for (auto& e : state_[i]) {
        for (auto& s : e) s.active = s.sw;
      }
    }
  }
  void apply_snapshot() {
    for (std::size_t i = 0; i < regmap::kRegisters.size(); ++i) {
      if (!regmap::kRegisters[i].snapshot) continue;
      for (auto& e : state_[i]) {
        for (auto& s : e) s.snap = s.live;
      }
    }
  }

  Counts counts_;
  std::vector<std::vector<std::vector<FieldState>>> state_;  // [reg][elem][field]
  std::vector<Slot> slots_;                                  // every register element
  std::vector<std::int32_t> index_;                          // word address -> slot, -1: none
};

}  // namespace nicsched::nic
