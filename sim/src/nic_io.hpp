// The narrow telemetry read the run metrics need, through the generated register map
// (include/nicsched/regmap.hpp). Discovery and policy writes are nicsched::host's
// (host::discover, host::apply_policy), the same code nicctl and the agent use.
#pragma once

#include <cstdint>
#include <vector>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::sim::nic_io {

// The counters the run metrics need, latched by one SNAPSHOT and read narrowly (about
// 100 register reads, a few hundred cycles): per queue tail drops, per tenant crypto
// busy and wait cycles.
struct MetricCounters {
  std::uint64_t cycle = 0;
  std::vector<std::uint64_t> drop_pkts;                  // per queue (tenant * 2 + class)
  std::vector<std::uint64_t> crypto_busy, crypto_wait;   // per tenant, TX + RX
  std::vector<std::uint64_t> spoofed;                    // per TX source (SRC_SPOOF)
};
[[nodiscard]] MetricCounters metric_counters(drivers::RegisterBus& bus, const host::Capabilities& caps);

}  // namespace nicsched::sim::nic_io
