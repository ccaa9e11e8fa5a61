// StandInNic: the NIC's CSR block in the host tests, a SimTarget around the one register
// file model (nicsched/nic/register_file.hpp, driven by the generated register table):
// shadowed rw registers take effect at COMMIT (CONFIG_GEN counts commits), snapshot
// registers read the copy latched by SNAPSHOT (CYCLE: the stand-in's cycle then),
// COUNTER_CLEAR zeroes the counters, unmapped addresses and elements beyond the instance's
// count answer DECERR, writes to ro-only registers and reads of wo-only registers answer
// SLVERR. Counters are set by the test (set_live). It counts every write, so tests can
// check that nothing was written.
#pragma once

#include <fmt/format.h>

#include <string>

#include "nic_params.hpp"
#include "nicsched/drivers/sim_target.hpp"
#include "nicsched/host/types.hpp"
#include "nicsched/nic/register_file.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::test {

class StandInNic final : public drivers::SimTarget {
 public:
  using Params = NicParams;

  explicit StandInNic(Params p = {}) : p_(p), regs_(nic::instance_counts(p.tenants, p.cls_entries)) {
    namespace rm = regmap;
    std::uint32_t caps0 = 0;
    caps0 = rm::CAPS0::TENANTS.set(caps0, p_.tenants);
    caps0 = rm::CAPS0::CLASSES.set(caps0, nic::kNumClasses);
    caps0 = rm::CAPS0::PRIO_LEVELS.set(caps0, p_.prio_levels);
    caps0 = rm::CAPS0::CRYPTO_SLOTS.set(caps0, p_.crypto_slots);
    caps0 = rm::CAPS0::CLS_ENTRIES.set(caps0, p_.cls_entries);
    regs_.set_live_value(rm::CAPS0::kOffset, caps0);
    regs_.set_live_value(rm::CAPS1::kOffset, rm::CAPS1::BUFFER_KIB.set(rm::CAPS1::DATA_BYTES.set(0, p_.data_bytes),
                                                                        p_.buffer_kib));
  }

  std::uint32_t read32(std::uint32_t addr) override {
    namespace rm = regmap;
    aligned(addr, "read");
    // ID and VERSION are constants of the map; the stand-in may claim others (discovery tests).
    if (addr == rm::ID::kOffset) return p_.id;
    if (addr == rm::VERSION::kOffset) return rm::VERSION::MAJOR.set(rm::VERSION::kReset, p_.version_major);
    const auto [value, resp] = regs_.read(addr);
    answer(resp, addr, "read");
    return addr == corrupt_ ? value ^ 1U : value;
  }

  void write32(std::uint32_t addr, std::uint32_t value) override {
    namespace rm = regmap;
    ++writes_;
    aligned(addr, "write");
    if (addr == rm::SNAPSHOT::kOffset && rm::SNAPSHOT::GO.get(value)) regs_.set_live_value(rm::CYCLE::kOffset, cycle_);
    answer(regs_.write(addr, value), addr, "write");
    if (addr == rm::COMMIT::kOffset && rm::COMMIT::GO.get(value)) {
      regs_.set_live_value(rm::CONFIG_GEN::kOffset, ++config_gen_);
    }
    if (addr == rm::COUNTER_CLEAR::kOffset && rm::COUNTER_CLEAR::GO.get(value)) {
      for (const rm::RegisterInfo& r : rm::kRegisters) {
        if (!r.snapshot) continue;
        for (std::uint32_t e = 0; e < regs_.count_of(r); ++e) regs_.set_live_value(r.address(e), 0);
      }
    }
  }

  [[nodiscard]] std::string describe() const override { return "stand-in NIC"; }
  void step(std::uint64_t cycles) override { cycle_ += cycles; }
  [[nodiscard]] std::uint64_t cycle() override { return cycle_; }
  [[nodiscard]] std::string metrics_json() override { return "{}"; }

  // Test hooks.
  void set_live(std::uint32_t addr, std::uint64_t v) { regs_.set_live_value(addr, v); }
  [[nodiscard]] std::uint64_t active(std::uint32_t addr) const { return regs_.active_value(addr); }
  [[nodiscard]] std::uint64_t writes() const { return writes_; }
  [[nodiscard]] std::uint32_t config_gen() const { return config_gen_; }
  // Break a register so that it reads back something else (to test read-back checks).
  void corrupt_on_read(std::uint32_t addr) { corrupt_ = addr; }

 private:
  static void aligned(std::uint32_t addr, const char* op) {
    if (addr % 4 != 0) throw drivers::BusError(fmt::format("stand-in NIC: {} at 0x{:04x} unaligned", op, addr));
  }
  static void answer(regmap::Resp r, std::uint32_t addr, const char* op) {
    using BusResp = drivers::BusResponseError::Resp;
    if (r == regmap::Resp::kDecErr) {
      throw drivers::BusResponseError(fmt::format("stand-in NIC: {}: no register (DECERR) at 0x{:04x}", op, addr),
                                      addr, BusResp::kDecErr);
    }
    if (r == regmap::Resp::kSlvErr) {
      throw drivers::BusResponseError(
          fmt::format("stand-in NIC: {} of a register without such fields (SLVERR) at 0x{:04x}", op, addr), addr,
          BusResp::kSlvErr);
    }
  }

  Params p_;
  nic::RegisterFile regs_;
  std::uint64_t cycle_ = 0, writes_ = 0;
  std::uint32_t config_gen_ = 0;
  std::uint32_t corrupt_ = 0xFFFFFFFF;
};

}  // namespace nicsched::test
