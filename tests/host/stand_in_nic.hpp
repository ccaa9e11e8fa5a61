// StandInNic: a C++ stand-in for the NIC's CSR block in the host tests, built from the
// register table (regmap::kRegisters) and the CSR contract of docs/architecture.md:
// shadowed rw registers read their shadow and take effect at COMMIT (CONFIG_GEN counts
// commits), snapshot registers read the copy latched by SNAPSHOT, unmapped addresses and
// elements beyond the instance's count answer DECERR, writes to ro-only registers and
// reads of wo-only registers answer SLVERR. Counters are set by the test (set_live).
// It counts every write, so tests can check that nothing was written.
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>

#include "nicsched/drivers/sim_target.hpp"
#include "nicsched/host/types.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::test {

struct StandInNicParams {
  std::uint32_t tenants = 8, cls_entries = 16, prio_levels = 4, crypto_slots = 4, data_bytes = 64,
                buffer_kib = 256, version_major = regmap::VERSION::MAJOR.get(regmap::VERSION::kReset);
  std::uint32_t id = regmap::ID::VALUE.get(regmap::ID::kReset);
};

class StandInNic final : public drivers::SimTarget {
 public:
  using Params = StandInNicParams;

  explicit StandInNic(Params p = {}) : p_(p) {
    for (const regmap::RegisterInfo& r : regmap::kRegisters) {
      std::uint32_t count = 1;
      if (r.is_array()) {
        if (r.count_param == "NumTenants") count = p_.tenants;
        else if (r.count_param == "NumQueues") count = p_.tenants * 2;
        else if (r.count_param == "NumClsEntries") count = p_.cls_entries;
        else count = r.max_count;
      }
      for (std::uint32_t i = 0; i < count; ++i) {
        Reg reg{&r, r.reset(), r.reset(), 0, 0};
        regs_[r.address(i)] = reg;
      }
    }
  }

  std::uint32_t read32(std::uint32_t addr) override {
    ++reads_;
    auto [reg, hi] = find(addr, "read");
    if (!reg->info->readable()) resp_error(addr, "read of a write-only register", drivers::BusResponseError::Resp::kSlvErr);
    const std::uint64_t v = value(addr - (hi ? 4 : 0), *reg);
    return static_cast<std::uint32_t>(hi ? v >> 32 : v);
  }

  void write32(std::uint32_t addr, std::uint32_t value) override {
    ++writes_;
    auto [reg, hi] = find(addr, "write");
    if (!reg->info->writable()) resp_error(addr, "write to a read-only register", drivers::BusResponseError::Resp::kSlvErr);
    namespace rm = regmap;
    if (addr == rm::COMMIT::kOffset && rm::COMMIT::GO.get(value)) {
      for (auto& [a, r] : regs_) r.active = r.shadow;
      ++config_gen_;
      return;
    }
    if (addr == rm::SNAPSHOT::kOffset && rm::SNAPSHOT::GO.get(value)) {
      for (auto& [a, r] : regs_) r.latched = r.live;
      latched_cycle_ = cycle_;
      return;
    }
    if (addr == rm::COUNTER_CLEAR::kOffset && rm::COUNTER_CLEAR::GO.get(value)) {
      for (auto& [a, r] : regs_) {
        if (r.info->snapshot) r.live = 0;
      }
      return;
    }
    // rw fields only (the word written carries them at their positions).
    std::uint64_t mask = 0;
    for (const auto& f : reg->info->fields) {
      if (f.access == rm::Access::kRw) mask |= ((f.width >= 64 ? ~0ULL : ((1ULL << f.width) - 1)) << f.lsb);
    }
    const std::uint64_t v = static_cast<std::uint64_t>(value) << (hi ? 32 : 0);
    const std::uint64_t word_mask = hi ? 0xFFFFFFFF00000000ULL : 0xFFFFFFFFULL;
    const std::uint64_t m = mask & word_mask;
    reg->shadow = (reg->shadow & ~m) | (v & m);
    if (!reg->info->shadowed) reg->active = reg->shadow;
  }

  [[nodiscard]] std::string describe() const override { return "stand-in NIC"; }
  void step(std::uint64_t cycles) override { cycle_ += cycles; }
  [[nodiscard]] std::uint64_t cycle() override { return cycle_; }
  [[nodiscard]] std::string metrics_json() override { return "{}"; }

  // Test hooks.
  void set_live(std::uint32_t addr, std::uint64_t v) { regs_.at(addr).live = v; }
  [[nodiscard]] std::uint64_t active(std::uint32_t addr) const { return regs_.at(addr).active; }
  [[nodiscard]] std::uint64_t writes() const { return writes_; }
  [[nodiscard]] std::uint32_t config_gen() const { return config_gen_; }
  // Break a register so that it reads back something else (to test read-back checks).
  void corrupt_on_read(std::uint32_t addr) { corrupt_ = addr; }

 private:
  struct Reg {
    const regmap::RegisterInfo* info = nullptr;
    std::uint64_t shadow = 0;  // rw: what software wrote (also the value of unshadowed rw)
    std::uint64_t active = 0;  // rw: what the hardware uses (after COMMIT)
    std::uint64_t live = 0;    // ro: the hardware's value now
    std::uint64_t latched = 0;  // ro snapshot: the copy latched by SNAPSHOT
  };

  [[noreturn]] static void resp_error(std::uint32_t addr, const char* what, drivers::BusResponseError::Resp r) {
    throw drivers::BusResponseError(fmt::format("stand-in NIC: {} at 0x{:04x}", what, addr), addr, r);
  }

  std::pair<Reg*, bool> find(std::uint32_t addr, const char* op) {
    if (addr % 4 != 0) throw drivers::BusError(fmt::format("stand-in NIC: {} at 0x{:04x} unaligned", op, addr));
    if (auto it = regs_.find(addr); it != regs_.end()) return {&it->second, false};
    if (auto it = regs_.find(addr - 4); addr >= 4 && it != regs_.end() && it->second.info->width == 64) {
      return {&it->second, true};
    }
    resp_error(addr, "no register (DECERR)", drivers::BusResponseError::Resp::kDecErr);
  }

  std::uint64_t value(std::uint32_t base, const Reg& r) const {
    namespace rm = regmap;
    if (corrupt_ == base) return r.shadow ^ 1;
    if (base == rm::ID::kOffset) return p_.id;
    if (base == rm::VERSION::kOffset) return rm::VERSION::MAJOR.set(rm::VERSION::kReset, p_.version_major);
    if (base == rm::CAPS0::kOffset) {
      std::uint32_t v = 0;
      v = rm::CAPS0::TENANTS.set(v, p_.tenants);
      v = rm::CAPS0::CLASSES.set(v, 2);
      v = rm::CAPS0::PRIO_LEVELS.set(v, p_.prio_levels);
      v = rm::CAPS0::CRYPTO_SLOTS.set(v, p_.crypto_slots);
      v = rm::CAPS0::CLS_ENTRIES.set(v, p_.cls_entries);
      return v;
    }
    if (base == rm::CAPS1::kOffset) {
      return rm::CAPS1::BUFFER_KIB.set(rm::CAPS1::DATA_BYTES.set(0, p_.data_bytes), p_.buffer_kib);
    }
    if (base == rm::CONFIG_GEN::kOffset) return config_gen_;
    if (base == rm::CYCLE::kOffset) return latched_cycle_;
    if (r.info->snapshot) return r.latched;
    bool has_rw = false;
    for (const auto& f : r.info->fields) has_rw = has_rw || f.access == rm::Access::kRw;
    if (has_rw) return r.shadow;
    return 0;  // wo
  }

  Params p_;
  std::map<std::uint32_t, Reg> regs_;
  std::uint64_t cycle_ = 0, latched_cycle_ = 0, writes_ = 0, reads_ = 0;
  std::uint32_t config_gen_ = 0;
  std::uint32_t corrupt_ = 0xFFFFFFFF;
};

}  // namespace nicsched::test
