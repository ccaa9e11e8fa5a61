// SimClient: the client side of the nicsim wire protocol (docs/protocol.md), i.e. the
// sim://HOST:PORT and unix:///PATH transports. It is a SimTarget: register access,
// simulated time (step / cycle) and the scenario's metrics, plus the server's mode.
//
// Every request has a timeout (BusOptions::timeout; STEP: step_timeout). A connection
// that fails is closed; the next request reconnects (connect_attempts tries).
// Idempotent requests (reads, status, metrics) that fail on a broken connection are
// retried once on a fresh one; writes and steps are not (the error says the write may or
// may not have reached the target).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/drivers/sim_protocol.hpp"
#include "nicsched/drivers/sim_target.hpp"

namespace nicsched::drivers {

// What the server said in HELLO_OK.
struct ServerInfo {
  std::uint16_t version_major = 0;
  std::uint16_t version_minor = 0;
  proto::Mode mode = proto::Mode::kLockStep;
  std::uint32_t max_burst_words = 0;
  std::string description;
};

class SimClient final : public SimTarget {
 public:
  // Connects now (throws BusError if the server cannot be reached).
  static std::unique_ptr<SimClient> connect_tcp(const std::string& host, std::uint16_t port,
                                                const BusOptions& options = {});
  static std::unique_ptr<SimClient> connect_unix(const std::string& path,
                                                 const BusOptions& options = {});
  ~SimClient() override;

  std::uint32_t read32(std::uint32_t addr) override;
  void write32(std::uint32_t addr, std::uint32_t value) override;
  void read_block(std::uint32_t addr, std::span<std::uint32_t> out) override;
  void write_then_read(std::uint32_t trigger_addr, std::uint32_t trigger_value,
                       std::span<const BlockRange> ranges, std::span<std::uint32_t> out) override;
  void read_ranges(std::span<const BlockRange> ranges, std::span<std::uint32_t> out) override;
  void write_batch(std::span<const RegWrite> writes) override;
  [[nodiscard]] std::string describe() const override;

  void step(std::uint64_t cycles) override;
  [[nodiscard]] std::uint64_t cycle() override;
  [[nodiscard]] std::string metrics_json() override;

  // Switches the server between lock-step and free-running (for every client).
  void set_mode(proto::Mode mode);
  [[nodiscard]] proto::Mode mode();
  [[nodiscard]] const ServerInfo& server_info() const;

 private:
  class Impl;
  explicit SimClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nicsched::drivers
