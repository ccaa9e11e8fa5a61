#include "nicsched/control/tracker.hpp"

#include <algorithm>

#include "nicsched/control/error.hpp"

namespace nicsched::control {
namespace {

constexpr std::size_t kControl = 0, kBulk = 1;
constexpr double kPeriodEma = 0.5;  // weight of the newest start-to-start time

// Counter difference; a counter that went down (cleared) counts from zero.
double delta(std::uint64_t before, std::uint64_t after) {
  return static_cast<double>(after >= before ? after - before : after);
}

}  // namespace

double TenantState::remaining_burst_bytes() const {
  if (!in_burst) return 0.0;
  if (last_burst_bytes <= 0.0) return burst_bytes;
  return std::max(0.0, last_burst_bytes - burst_bytes);
}

TelemetryTracker::TelemetryTracker(const host::Capabilities& caps, double link_bytes_per_cycle)
    : caps_(caps), link_bytes_per_cycle_(link_bytes_per_cycle), tenants_(caps.tenants) {
  if (caps.tenants == 0 || caps.classes < 2) {
    throw EnvError("TelemetryTracker: the NIC reports " + std::to_string(caps.tenants) +
                   " tenants and " + std::to_string(caps.classes) +
                   " classes; at least 1 tenant and 2 classes are needed");
  }
  if (link_bytes_per_cycle <= 0.0) throw EnvError("TelemetryTracker: link rate must be positive");
}

void TelemetryTracker::reset(const host::Telemetry& first) {
  if (first.queues.size() != caps_.queues() || first.crypto.size() != caps_.tenants) {
    throw EnvError("TelemetryTracker: snapshot has " + std::to_string(first.queues.size()) +
                   " queues and " + std::to_string(first.crypto.size()) +
                   " crypto entries, the capabilities say " + std::to_string(caps_.queues()) +
                   " and " + std::to_string(caps_.tenants));
  }
  last_ = first;
  tenants_.assign(caps_.tenants, TenantState{});
  interval_ = 0;
  link_fraction_ = crypto_busy_ = 0.0;
  updates_ = 0;
}

void TelemetryTracker::update(const host::Telemetry& next) {
  if (next.queues.size() != caps_.queues() || next.crypto.size() != caps_.tenants) {
    throw EnvError("TelemetryTracker: snapshot does not match the capabilities");
  }
  interval_ = next.cycle > last_.cycle ? next.cycle - last_.cycle : 0;
  const double cycles = std::max<double>(1.0, static_cast<double>(interval_));
  const double slots = std::max<double>(1.0, caps_.crypto_slots);
  double total_bytes = 0.0, total_busy = 0.0;
  for (std::size_t t = 0; t < caps_.tenants; ++t) {
    auto& s = tenants_[t];
    const auto& qc0 = last_.queues[t * caps_.classes + kControl];
    const auto& qc1 = next.queues[t * caps_.classes + kControl];
    const auto& qb0 = last_.queues[t * caps_.classes + kBulk];
    const auto& qb1 = next.queues[t * caps_.classes + kBulk];
    const auto& c0 = last_.crypto[t];
    const auto& c1 = next.crypto[t];
    s.bytes = delta(qb0.tx_bytes, qb1.tx_bytes) + delta(c0.rx_bytes, c1.rx_bytes);
    s.enq_bytes = delta(qb0.enq_bytes, qb1.enq_bytes);
    s.bulk_depth_bytes = qb1.depth_bytes;
    s.control_depth_bytes = qc1.depth_bytes;
    s.control_bytes = delta(qc0.tx_bytes, qc1.tx_bytes);
    s.drops = delta(qb0.drop_pkts, qb1.drop_pkts) + delta(qc0.drop_pkts, qc1.drop_pkts);
    s.packets = delta(qb0.tx_pkts, qb1.tx_pkts) + delta(qc0.tx_pkts, qc1.tx_pkts);
    const double busy = delta(c0.tx_busy, c1.tx_busy) + delta(c0.rx_busy, c1.rx_busy);
    const double wait = delta(c0.tx_wait, c1.tx_wait) + delta(c0.rx_wait, c1.rx_wait);
    s.crypto_busy_fraction = busy / (cycles * slots);
    s.crypto_wait_fraction = std::min(1.0, wait / cycles);
    s.crypto_demand = busy + wait;
    const double lat_n = delta(qc0.lat_count, qc1.lat_count);
    s.control_latency_cycles = lat_n > 0 ? delta(qc0.lat_sum, qc1.lat_sum) / lat_n : 0.0;
    s.link_fraction = s.bytes / (cycles * link_bytes_per_cycle_);
    s.attained_bytes += s.bytes;
    total_bytes += s.bytes;
    total_busy += busy;
    const bool active = s.bytes > 0.0 || s.enq_bytes > 0.0 || s.bulk_depth_bytes > 0.0 ||
                        delta(c0.rx_pkts, c1.rx_pkts) > 0.0 || busy + wait > 0.0;
    if (active || delta(qc0.enq_pkts, qc1.enq_pkts) > 0.0) s.present = true;
    // Phase: a burst is a run of intervals with bulk activity (TX offered/queued/sent
    // or RX decrypted); it ends at the first interval without any.
    if (active && !s.in_burst) {
      const auto start = last_.cycle;
      if (s.bursts > 0) {
        const double gap = static_cast<double>(start - s.burst_start_cycle);
        s.period_cycles = s.period_cycles <= 0.0 ? gap : kPeriodEma * gap + (1 - kPeriodEma) * s.period_cycles;
      }
      s.in_burst = true;
      s.burst_start_cycle = start;
      s.burst_bytes = 0.0;
      ++s.bursts;
    }
    if (s.in_burst) {
      s.burst_bytes += s.bytes;
      if (!active) {
        s.in_burst = false;
        s.last_burst_bytes = s.burst_bytes;
      }
    }
  }
  for (auto& s : tenants_) s.share = total_bytes > 0.0 ? s.bytes / total_bytes : 0.0;
  link_fraction_ = total_bytes / (cycles * link_bytes_per_cycle_);
  crypto_busy_ = total_busy / (cycles * slots);
  last_ = next;
  ++updates_;
}

std::size_t TelemetryTracker::present_count() const {
  return static_cast<std::size_t>(
      std::count_if(tenants_.begin(), tenants_.end(), [](const TenantState& s) { return s.present; }));
}

}  // namespace nicsched::control
