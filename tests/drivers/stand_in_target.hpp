// StandInRegisterFile: a small C++ register file standing in for the simulated NIC in the
// drivers' socket tests (the real target is nicsim's Simulation). It follows the parts of
// the CSR contract the transports care about:
//   0x0000          ID, read-only constant kId (a write answers SLVERR)
//   0x0008          SNAPSHOT trigger: a write latches the cycle counter into 0x0030/0x0034
//   0x0030, 0x0034  latched cycle counter LO, HI
//   others < size   plain read-write words
//   >= size         DECERR
// It also checks that the server never enters it from two threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "nicsched/drivers/sim_target.hpp"

namespace nicsched::test {

class StandInRegisterFile final : public drivers::SimTarget {
 public:
  static constexpr std::uint32_t kId = 0x4E534348;
  static constexpr std::uint32_t kSnapshotAddr = 0x0008;
  static constexpr std::uint32_t kLatchedCycleAddr = 0x0030;

  explicit StandInRegisterFile(std::uint32_t bytes = 0x1000) : words_(bytes / 4, 0) {}

  std::uint32_t read32(std::uint32_t addr) override {
    Guard g(*this);
    check(addr, "read");
    if (addr == 0) return kId;
    return words_[addr / 4];
  }
  void write32(std::uint32_t addr, std::uint32_t value) override {
    Guard g(*this);
    check(addr, "write");
    ++writes_;
    if (addr == 0) {
      throw drivers::BusResponseError(fmt::format("stand-in: write to read-only ID at 0x{:04x}", addr), addr,
                                      drivers::BusResponseError::Resp::kSlvErr);
    }
    if (addr == kSnapshotAddr) {
      words_[kLatchedCycleAddr / 4] = static_cast<std::uint32_t>(cycle_);
      words_[kLatchedCycleAddr / 4 + 1] = static_cast<std::uint32_t>(cycle_ >> 32);
      return;
    }
    words_[addr / 4] = value;
  }
  [[nodiscard]] std::string describe() const override { return "stand-in register file"; }

  void step(std::uint64_t cycles) override {
    Guard g(*this);
    cycle_ += cycles;
    ++steps_;
  }
  [[nodiscard]] std::uint64_t cycle() override {
    Guard g(*this);
    return cycle_;
  }
  [[nodiscard]] std::string metrics_json() override {
    Guard g(*this);
    return fmt::format(R"({{"cycle": {}, "writes": {}}})", cycle_, writes_);
  }

  [[nodiscard]] int overlapping_entries() const { return overlaps_.load(); }
  [[nodiscard]] std::uint64_t step_calls() const { return steps_.load(); }
  // Direct access for checks, bypassing the bus.
  [[nodiscard]] std::uint32_t peek(std::uint32_t addr) const { return words_.at(addr / 4); }

 private:
  struct Guard {
    explicit Guard(StandInRegisterFile& f) : f_(f) {
      if (f_.inside_.fetch_add(1) != 0) f_.overlaps_.fetch_add(1);
    }
    ~Guard() { f_.inside_.fetch_sub(1); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    StandInRegisterFile& f_;
  };

  void check(std::uint32_t addr, const char* op) const {
    if (addr % 4 != 0) throw drivers::BusError(fmt::format("stand-in: {} at 0x{:04x} is unaligned", op, addr));
    if (addr / 4 >= words_.size()) {
      throw drivers::BusResponseError(fmt::format("stand-in: {} at 0x{:04x}: no register (DECERR)", op, addr),
                                      addr, drivers::BusResponseError::Resp::kDecErr);
    }
  }

  std::vector<std::uint32_t> words_;
  std::uint64_t cycle_ = 0;
  std::uint64_t writes_ = 0;
  std::atomic<std::uint64_t> steps_{0};
  std::atomic<int> inside_{0};
  std::atomic<int> overlaps_{0};
};

}  // namespace nicsched::test
