// Telemetry: one consistent SNAPSHOT of every counter, and rates between two of them.
#pragma once

#include <cstdint>
#include <vector>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::host {

// Writes SNAPSHOT.GO, then reads every latched counter (burst reads: the whole snapshot
// is one exchange on the nicsim socket). The result has caps.queues() queues and
// caps.tenants crypto entries.
[[nodiscard]] Telemetry read_snapshot(drivers::RegisterBus& bus, const Capabilities& caps);

// Per tenant, between two snapshots (both classes together unless named).
struct TenantRates {
  double tx_gbps = 0;           // bytes that left the NIC, Gbit/s
  double tx_pps = 0;            // packets that left, per second
  double enq_gbps = 0;          // offered load accepted into the queues, Gbit/s
  double drop_pps = 0;          // tail drops per second
  double tx_share = 0;          // fraction of all tenants' transmitted bytes, 0..1
  double control_lat_cycles = 0;  // mean enqueue-to-egress latency, control class
  double bulk_lat_cycles = 0;     // mean enqueue-to-egress latency, bulk class
  double crypto_wait_frac = 0;  // cycles a head packet waited for a slot / cycles elapsed (TX+RX)
  double crypto_gbps = 0;       // bytes encrypted + decrypted, Gbit/s
};

struct Rates {
  std::uint64_t cycles = 0;  // cycles between the snapshots
  double seconds = 0;        // cycles / clock_hz
  double link_gbps = 0;      // all tenants' transmitted Gbit/s
  std::vector<TenantRates> tenants;
};

// Rates from `before` to `after` at clock `clock_hz`. A counter that went down (cleared
// in between) counts from zero. With no cycles between them every rate is 0.
[[nodiscard]] Rates compute_rates(const Telemetry& before, const Telemetry& after, const Capabilities& caps,
                                  double clock_hz);

}  // namespace nicsched::host
