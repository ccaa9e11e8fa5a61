// Register-level configuration and telemetry of the simulated NIC, through the generated
// register map (include/nicsched/regmap.hpp): discovery, a complete policy with one
// COMMIT, and one SNAPSHOT of the counters.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::sim::nic_io {

[[nodiscard]] host::Capabilities discover(drivers::RegisterBus& bus);
// Writes every shadow register of the policy, then COMMIT. Throws SimError for a policy
// the capabilities cannot hold.
void apply(drivers::RegisterBus& bus, const host::Capabilities& caps, const host::Policy& p);
// A policy file, validated against the capabilities (nicsched::host's loader; errors are
// host::PolicyError naming file, line and key).
[[nodiscard]] host::Policy load_policy(const std::filesystem::path& file, const host::Capabilities& caps);
// The counters the run metrics need, latched by one SNAPSHOT and read narrowly (about
// 100 register reads, a few hundred cycles): per queue tail drops, per tenant crypto
// busy and wait cycles.
struct MetricCounters {
  std::uint64_t cycle = 0;
  std::vector<std::uint64_t> drop_pkts;                  // per queue (tenant * 2 + class)
  std::vector<std::uint64_t> crypto_busy, crypto_wait;   // per tenant, TX + RX
};
[[nodiscard]] MetricCounters metric_counters(drivers::RegisterBus& bus, const host::Capabilities& caps);

}  // namespace nicsched::sim::nic_io
