// RegisterBus: the one way software reaches the NIC's AXI4-Lite register space,
// whatever carries it (in-process Verilated model, nicsim socket, PCIe BAR, XDMA).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "nicsched/interface.hpp"

namespace nicsched::drivers {

// Any failure to complete a register access: transport down, timeout, AXI SLVERR/DECERR,
// bad address. The message names the URI and the address.
class BusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The access itself reached the NIC and the NIC answered with an AXI error response.
class BusResponseError : public BusError {
 public:
  enum class Resp : std::uint8_t { kSlvErr = 2, kDecErr = 3 };
  BusResponseError(const std::string& what, std::uint32_t addr, Resp resp)
      : BusError(what), addr_(addr), resp_(resp) {}
  [[nodiscard]] std::uint32_t addr() const { return addr_; }
  [[nodiscard]] Resp resp() const { return resp_; }

 private:
  std::uint32_t addr_;
  Resp resp_;
};

// A run of consecutive 32-bit words: `count` words starting at byte address `addr`.
struct BlockRange {
  std::uint32_t addr = 0;
  std::uint32_t count = 0;
};

// One register write of a batch.
struct RegWrite {
  std::uint32_t addr = 0;
  std::uint32_t value = 0;
};

// Byte-addressed, 32-bit-word register access. Addresses must be 4-byte aligned.
class RegisterBus : public Interface {
 public:
  virtual std::uint32_t read32(std::uint32_t addr) = 0;
  virtual void write32(std::uint32_t addr, std::uint32_t value) = 0;

  // Reads out.size() consecutive words starting at addr. Transports with a burst
  // operation override this; the default reads word by word.
  virtual void read_block(std::uint32_t addr, std::span<std::uint32_t> out) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = read32(addr + static_cast<std::uint32_t>(4 * i));
    }
  }

  // Writes `trigger_value` to `trigger_addr` (e.g. SNAPSHOT.GO), then reads every range,
  // in order, into `out` (concatenated; out.size() must equal the sum of the counts).
  // Transports that can do this in one exchange (the nicsim protocol) override it.
  virtual void write_then_read(std::uint32_t trigger_addr, std::uint32_t trigger_value,
                               std::span<const BlockRange> ranges, std::span<std::uint32_t> out) {
    std::size_t total = 0;
    for (const BlockRange& r : ranges) total += r.count;
    if (total != out.size()) {
      throw BusError(describe() + ": write_then_read: output holds " + std::to_string(out.size()) +
                     " words, ranges ask for " + std::to_string(total));
    }
    write32(trigger_addr, trigger_value);
    std::size_t at = 0;
    for (const BlockRange& r : ranges) {
      read_block(r.addr, out.subspan(at, r.count));
      at += r.count;
    }
  }

  // Reads every range, in order, into `out` (concatenated; out.size() must equal the sum
  // of the counts). Transports that can do this in one exchange override it.
  virtual void read_ranges(std::span<const BlockRange> ranges, std::span<std::uint32_t> out) {
    std::size_t total = 0;
    for (const BlockRange& r : ranges) total += r.count;
    if (total != out.size()) {
      throw BusError(describe() + ": read_ranges: output holds " + std::to_string(out.size()) +
                     " words, ranges ask for " + std::to_string(total));
    }
    std::size_t at = 0;
    for (const BlockRange& r : ranges) {
      read_block(r.addr, out.subspan(at, r.count));
      at += r.count;
    }
  }

  // Writes every register of the batch in order; stops at the first failure (which
  // throws). Transports that can send a batch in one exchange override it.
  virtual void write_batch(std::span<const RegWrite> writes) {
    for (const RegWrite& w : writes) write32(w.addr, w.value);
  }

  // Reads a 64-bit register as LO (addr) then HI (addr + 4).
  std::uint64_t read64(std::uint32_t addr) {
    const std::uint64_t lo = read32(addr);
    const std::uint64_t hi = read32(addr + 4);
    return (hi << 32) | lo;
  }

  // Human-readable description of the target, e.g. the URI it was opened with.
  [[nodiscard]] virtual std::string describe() const = 0;
};

// Control of simulated time, offered by simulated targets only (in-process model,
// nicsim in lock-step mode). A real card has no such interface: time just passes.
class SimControl {
 public:
  virtual ~SimControl() = default;
  virtual void step(std::uint64_t cycles) = 0;         // advance the clock
  [[nodiscard]] virtual std::uint64_t cycle() = 0;     // cycles since reset
};

}  // namespace nicsched::drivers
