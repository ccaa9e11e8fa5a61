// Synthetic telemetry for the control tests: counters advanced by hand, snapshot by
// snapshot, the way the NIC's would be.
#pragma once

#include "nic_params.hpp"
#include "nicsched/control/tracker.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::testing {

// A NIC of the default build but for the tenants, priority levels and crypto slots given.
inline host::Capabilities test_caps(std::uint32_t tenants = 4, std::uint32_t prio = 4, std::uint32_t slots = 4) {
  return test::capabilities({.tenants = tenants, .prio_levels = prio, .crypto_slots = slots});
}

// Holds the running counters; next(cycles) returns the snapshot after `cycles` more.
class TelemetryScript {
 public:
  explicit TelemetryScript(const host::Capabilities& caps) {
    t_.queues.resize(caps.queues());
    t_.crypto.resize(caps.tenants);
  }
  // Tenant t sends `bytes` of bulk in the coming interval (offered and sent).
  TelemetryScript& bulk(std::size_t t, std::uint64_t bytes, std::uint64_t pkts = 1) {
    return sent(t * 2 + 1, bytes, pkts);
  }
  // Tenant t sends `bytes` of control traffic in the coming interval.
  TelemetryScript& control(std::size_t t, std::uint64_t bytes, std::uint64_t pkts = 1) {
    return sent(t * 2, bytes, pkts);
  }
  TelemetryScript& drops(std::size_t t, std::uint64_t pkts) {
    t_.queues[t * 2 + 1].drop_pkts += pkts;
    return *this;
  }
  TelemetryScript& depth(std::size_t t, std::uint32_t bytes) {
    t_.queues[t * 2 + 1].depth_bytes = bytes;
    return *this;
  }
  TelemetryScript& crypto(std::size_t t, std::uint64_t busy, std::uint64_t wait) {
    t_.crypto[t].tx_busy += busy;
    t_.crypto[t].tx_wait += wait;
    return *this;
  }
  TelemetryScript& control_latency(std::size_t t, std::uint64_t count, std::uint64_t sum) {
    auto& q = t_.queues[t * 2];
    q.lat_count += count;
    q.lat_sum += sum;
    q.enq_pkts += count;
    q.tx_pkts += count;
    return *this;
  }
  host::Telemetry next(std::uint64_t cycles) {
    t_.cycle += cycles;
    auto out = t_;
    for (auto& q : t_.queues) q.depth_bytes = 0;
    return out;
  }
  [[nodiscard]] host::Telemetry now() const { return t_; }

 private:
  // Queue `queue` offered and sent `bytes` in `pkts` frames.
  TelemetryScript& sent(std::size_t queue, std::uint64_t bytes, std::uint64_t pkts) {
    auto& q = t_.queues[queue];
    q.enq_bytes += bytes;
    q.tx_bytes += bytes;
    q.enq_pkts += pkts;
    q.tx_pkts += pkts;
    return *this;
  }
  host::Telemetry t_;
};

// A NIC with `caps` whose telemetry a script drives, and a tracker of it (50 bytes per
// cycle: 100 Gbit/s at 250 MHz) reset to the first snapshot. Tests take it apart with
// `auto& [caps, s, tr] = nic;`.
struct TrackedNic {
  explicit TrackedNic(const host::Capabilities& c = test_caps()) : caps(c), s(caps), tr(caps, 50.0) {
    tr.reset(s.now());
  }
  host::Capabilities caps;
  TelemetryScript s;
  control::TelemetryTracker tr;
};

}  // namespace nicsched::testing
