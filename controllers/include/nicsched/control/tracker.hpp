// TelemetryTracker: what a controller knows about each tenant, estimated from successive
// telemetry snapshots alone (no access to the simulator's internals, so the same code
// runs against a card): per-interval rates and shares, queue depths, drops, crypto
// busy/wait, and the tenant's communication phase (burst start, bytes sent in the burst,
// estimated period and burst size, attained service).
#pragma once

#include <cstdint>
#include <vector>

#include "nicsched/host/types.hpp"

namespace nicsched::control {

struct TenantState {
  bool present = false;               // has sent or received anything in this episode
  // --- the last interval ---
  double bytes = 0;                   // bulk TX bytes out + RX bytes decrypted
  double share = 0;                   // of all tenants' bytes in the interval, 0..1
  double link_fraction = 0;           // bytes / what the link could carry in the interval
  double enq_bytes = 0;               // bulk bytes offered into the TX queue
  double bulk_depth_bytes = 0;        // now
  double control_depth_bytes = 0;     // now
  double drops = 0;                   // tail-dropped packets, both classes
  double packets = 0;                 // packets that left the NIC, both classes
  double crypto_busy_fraction = 0;    // slot-busy cycles / (cycles * slots)
  double crypto_wait_fraction = 0;    // head-of-line wait cycles for a slot / cycles
  double crypto_demand = 0;           // busy + wait cycles: what it would have used
  double control_latency_cycles = 0;  // mean enqueue-to-egress latency of control packets
  double control_bytes = 0;           // control-class TX bytes out
  // --- phase, estimated ---
  bool in_burst = false;              // communicating now
  std::uint64_t burst_start_cycle = 0;  // when the current (or last) burst began
  double burst_bytes = 0;             // bytes sent in the current burst so far
  double last_burst_bytes = 0;        // size of the previous complete burst (0: none yet)
  double period_cycles = 0;           // EMA of start-to-start time of bursts (0: unknown)
  double attained_bytes = 0;          // all bytes since the episode began
  std::uint64_t bursts = 0;           // bursts begun in the episode
  // Cycles since the current burst began (0 when not in a burst).
  [[nodiscard]] double burst_age(std::uint64_t now) const {
    return in_burst ? static_cast<double>(now - burst_start_cycle) : 0.0;
  }
  // Estimated bytes left in the current burst: previous burst's size minus what has been
  // sent (at least 0); unknown size: what has been sent so far (it is at least half way).
  [[nodiscard]] double remaining_burst_bytes() const;
};

class TelemetryTracker {
 public:
  // link_bytes_per_cycle: the port's capacity, for link fractions.
  TelemetryTracker(const host::Capabilities& caps, double link_bytes_per_cycle);

  // Starts an episode from this snapshot (counters are taken as the origin).
  void reset(const host::Telemetry& first);
  // Folds in the next snapshot.
  void update(const host::Telemetry& next);

  [[nodiscard]] const host::Capabilities& caps() const { return caps_; }
  [[nodiscard]] const std::vector<TenantState>& tenants() const { return tenants_; }
  [[nodiscard]] std::uint64_t now() const { return last_.cycle; }
  [[nodiscard]] std::uint64_t interval_cycles() const { return interval_; }
  [[nodiscard]] double link_bytes_per_cycle() const { return link_bytes_per_cycle_; }
  [[nodiscard]] double link_fraction() const { return link_fraction_; }      // all tenants
  [[nodiscard]] double crypto_busy_fraction() const { return crypto_busy_; }  // all tenants
  [[nodiscard]] std::size_t present_count() const;
  [[nodiscard]] std::uint64_t updates() const { return updates_; }

 private:
  host::Capabilities caps_;
  double link_bytes_per_cycle_;
  host::Telemetry last_;
  std::vector<TenantState> tenants_;
  std::uint64_t interval_ = 0;
  double link_fraction_ = 0, crypto_busy_ = 0;
  std::uint64_t updates_ = 0;
};

}  // namespace nicsched::control
