// Simulation, the metrics stage: what the run achieved (RunMetrics, metrics.hpp),
// collected from the simulated host, the workloads, the solo baselines and the NIC's own
// counters. Formatting them is report.cpp's job.
#include <algorithm>

#include "nic_io.hpp"
#include "nicsched/sim/report.hpp"
#include "nicsched/sim/simulation.hpp"

namespace nicsched::sim {

std::string Simulation::metrics_json() { return to_json(metrics()); }

double Simulation::progress_rate(std::size_t i) {
  const Tenant& t = tenants_.at(i);
  const Progress& p = t.progress();
  if (t.spec.kind == WorkloadKind::kBackground || t.spec.kind == WorkloadKind::kPcap) {
    return p.offered_bytes == 0 ? 0.0 : static_cast<double>(p.delivered_bytes) / static_cast<double>(p.offered_bytes);
  }
  const std::uint64_t now = nic_->cycle();
  const std::uint64_t stop = std::min(now, t.spec.stop_cycle);
  if (stop <= t.spec.start_cycle) return 0.0;
  return p.units() / static_cast<double>(stop - t.spec.start_cycle);
}

RunMetrics Simulation::metrics() {
  RunMetrics m;
  m.scenario = scenario_.name;
  m.policy = options_.policy_name;
  m.tx_identity = scenario_.tx_identity == TxIdentity::kHeaders ? "headers"
                  : scenario_.drop_spoofed                      ? "source, spoofs dropped"
                                                                : "source, spoofs kept";
  m.cycles = nic_->cycle();
  m.clock_mhz = scenario_.clock_mhz;
  m.simulated_ms = static_cast<double>(m.cycles) / scenario_.clock_mhz / 1e3;
  m.wall_seconds = static_cast<double>(wall_ns_) * 1e-9;
  m.cycles_per_second = m.wall_seconds > 0 ? static_cast<double>(m.cycles) / m.wall_seconds : 0.0;
  const double capacity = scenario_.link_bytes_per_cycle() * static_cast<double>(std::max<std::uint64_t>(1, m.cycles));
  m.link_utilisation_tx = static_cast<double>(nic_->mac_stats().wire_bytes_out_tx) / capacity;
  m.link_utilisation_rx = static_cast<double>(nic_->mac_stats().wire_bytes_in_rx) / capacity;
  m.frames_checked = frames_checked_;
  m.foreign_frames = foreign_frames_;

  // Register reads take cycles: the counters are read after the cycle count is taken.
  const nic_io::MetricCounters tel = nic_io::metric_counters(*nic_, caps_);
  std::uint64_t busy_total = 0;
  for (auto b : tel.crypto_busy) busy_total += b;
  m.crypto_utilisation = static_cast<double>(busy_total) /
                         (static_cast<double>(caps_.crypto_slots) * static_cast<double>(std::max<std::uint64_t>(1, tel.cycle)));

  const double us_per_cycle = 1.0 / scenario_.clock_mhz;
  std::vector<double> normalised;
  for (std::size_t i = 0; i < tenants_.size(); ++i) {
    const Tenant& t = tenants_[i];
    const Host& h = host_[i];
    const Progress& p = t.progress();
    TenantMetrics tm;
    tm.name = t.spec.name;
    tm.kind = to_string(t.spec.kind);
    tm.tenant = t.spec.index;
    tm.completed = p.completed;
    std::vector<double> iters;
    for (auto c : t.workload->iteration_cycles()) iters.push_back(static_cast<double>(c) * us_per_cycle);
    tm.iter_mean_us = mean(iters);
    tm.iter_p99_us = percentile(iters, 99);
    const auto& computes = t.workload->compute_cycles();
    std::vector<double> comm;
    for (std::size_t k = 0; k < computes.size(); ++k) {
      comm.push_back(static_cast<double>(t.workload->iteration_cycles()[k] - computes[k]) * us_per_cycle);
    }
    tm.comm_mean_us = mean(comm);
    tm.progress_units = p.units();
    std::vector<double> lat;
    for (double c : h.control_latency) lat.push_back(c * us_per_cycle);
    tm.control_p50_us = percentile(lat, 50);
    tm.control_p99_us = percentile(lat, 99);
    tm.control_sent = h.control_sent;
    tm.control_delivered = h.control_delivered;
    // Control frames still undelivered past their deadline count as misses.
    std::uint64_t overdue = 0;
    for (const auto& [id, f] : inflight_) {
      if (f.tenant == t.spec.index && f.flow == Flow::kControl && m.cycles - f.created > t.spec.control.deadline_cycles) {
        ++overdue;
      }
    }
    tm.deadline_misses = h.deadline_misses + overdue;
    const std::size_t qc = 2 * t.spec.index;
    if (qc + 1 < tel.drop_pkts.size()) tm.nic_drops = tel.drop_pkts[qc] + tel.drop_pkts[qc + 1];
    if (t.spec.index < tel.crypto_busy.size()) {
      tm.crypto_wait_cycles = tel.crypto_wait[t.spec.index];
      tm.crypto_busy_cycles = tel.crypto_busy[t.spec.index];
    }
    tm.retransmits = h.retransmits;
    tm.host_drops = h.host_drops;
    // Its source is its tenant index (a binding beyond the NIC's sources is refused).
    if (t.spec.index < tel.spoofed.size()) tm.spoofed_frames = tel.spoofed[t.spec.index];
    tm.offered_bytes = p.offered_bytes;
    tm.delivered_bytes = p.delivered_bytes;
    const std::uint64_t stop = std::min(m.cycles, t.spec.stop_cycle);
    if (stop > t.spec.start_cycle) {
      tm.throughput_gbps = static_cast<double>(p.delivered_bytes) * 8.0 /
                           (static_cast<double>(stop - t.spec.start_cycle) * us_per_cycle * 1e3);
    }
    if (i < options_.solo.size() && options_.solo[i]) {
      const SoloResult& solo = *options_.solo[i];
      if (solo.iter_mean_cycles) {
        tm.solo_iter_mean_us = *solo.iter_mean_cycles * us_per_cycle;
        if (tm.iter_mean_us) tm.slowdown = *tm.iter_mean_us / *tm.solo_iter_mean_us;
      }
      if (solo.progress_rate > 0 && stop > t.spec.start_cycle) {
        tm.normalised_progress = progress_rate(i) / solo.progress_rate;
        normalised.push_back(*tm.normalised_progress);
      }
    }
    m.tenants.push_back(std::move(tm));
  }
  m.jain = jain_index(normalised);
  return m;
}

}  // namespace nicsched::sim
