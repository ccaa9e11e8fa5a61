// Metrics of a run: per tenant and overall, with the statistics they are built from.
// Collected by Simulation::metrics() (simulation_metrics.cpp), printed by report.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nicsched/sim/workload.hpp"  // Phase

namespace nicsched::sim {

// Nearest-rank percentile: the value at 1-based rank ceil(p/100 * n) of the sorted
// samples (p in (0, 100]). nullopt for no samples.
[[nodiscard]] std::optional<double> percentile(std::vector<double> samples, double p);
[[nodiscard]] std::optional<double> mean(const std::vector<double>& samples);
// The 0.975 quantile of Student's t distribution with `df` degrees of freedom (df >= 1):
// tabulated to df 30, a Cornish-Fisher expansion above (error < 1e-3).
[[nodiscard]] double student_t_975(std::uint64_t df);
// Half-width of the two-sided 95 % confidence interval of the mean of `samples`:
// t(0.975, n-1) x sample standard deviation / sqrt(n). nullopt for fewer than two samples.
[[nodiscard]] std::optional<double> ci95_half_width(const std::vector<double>& samples);
// A paired comparison of two controllers over the same scenarios: per scenario i,
// gain_i = (reference_i - x_i) / reference_i x 100 (% lower, i.e. faster, than the
// reference); the mean gain, the half-width of its 95 % CI (ci95_half_width of the gains;
// nullopt for one scenario) and how many gains are above / below zero. Scenarios where
// either value is NaN are left out (`n` counts the others). Throws std::invalid_argument
// when the two have different lengths.
struct PairedGain {
  std::size_t n = 0, faster = 0, slower = 0;
  double mean = 0;
  std::optional<double> ci;
};
[[nodiscard]] PairedGain paired_gain(const std::vector<double>& x, const std::vector<double>& reference);
// Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when all equal, 1/n when one tenant
// gets everything. nullopt for no values or all zero.
[[nodiscard]] std::optional<double> jain_index(const std::vector<double>& x);

struct TenantMetrics {
  std::string name;
  std::string kind;                       // ddp, fl, background, pcap
  std::uint32_t tenant = 0;               // NIC tenant index
  std::uint64_t completed = 0;            // iterations / rounds
  std::optional<double> iter_mean_us;     // iteration (round) time
  std::optional<double> iter_p99_us;
  std::optional<double> comm_mean_us;     // iteration less its compute (training) time: communication and waiting
  std::optional<double> solo_iter_mean_us;  // the same tenant alone on the NIC
  std::optional<double> slowdown;         // iter_mean / solo_iter_mean
  double progress_units = 0;              // completed + fraction of current communication
  std::optional<double> normalised_progress;  // progress rate / solo progress rate
  std::uint64_t control_sent = 0;
  std::uint64_t control_delivered = 0;
  std::optional<double> control_p50_us;   // creation -> left the NIC
  std::optional<double> control_p99_us;
  std::uint64_t deadline_misses = 0;      // delivered late, or never delivered by the end
  std::uint64_t nic_drops = 0;            // tail drops counted by the NIC (both classes)
  std::uint64_t retransmits = 0;          // frames the sender declared lost (RTO)
  std::uint64_t host_drops = 0;           // open-loop frames the host could not queue
  std::uint64_t spoofed_frames = 0;       // TX frames from its source whose headers named another tenant (nic.tx_identity: source)
  std::uint64_t crypto_wait_cycles = 0;   // TX + RX, from CRYPTO_STATS
  std::uint64_t crypto_busy_cycles = 0;
  std::uint64_t offered_bytes = 0;        // payload
  std::uint64_t delivered_bytes = 0;
  double throughput_gbps = 0;             // delivered payload over the tenant's active time
};

struct RunMetrics {
  std::string scenario;
  std::string policy;                     // baseline name or policy file
  std::string tx_identity;                // "headers" (header-only), "source, spoofs kept" or "source, spoofs dropped"
  std::uint64_t cycles = 0;
  double clock_mhz = 0;
  double simulated_ms = 0;
  double wall_seconds = 0;
  double cycles_per_second = 0;
  double link_utilisation_tx = 0;         // wire bytes (with preamble, IFG, FCS) / capacity
  double link_utilisation_rx = 0;
  double crypto_utilisation = 0;          // slot-busy cycles / (slots * cycles)
  std::optional<double> jain;             // over tenants' normalised progress
  std::uint64_t frames_checked = 0;       // tagged frames compared byte for byte
  std::uint64_t foreign_frames = 0;       // untagged (pcap) frames out
  std::vector<TenantMetrics> tenants;
};

// One point of a tenant's progress time series (nicsim run --csv, report.hpp).
struct ProgressSample {
  std::uint64_t cycle = 0;
  std::uint32_t tenant = 0;               // NIC tenant index
  Phase phase = Phase::kNotArrived;
  std::uint64_t completed = 0;
  double units = 0;                       // Progress::units()
  std::uint64_t delivered_bytes = 0;
  std::uint64_t wire_bytes_tx = 0;        // the link's, all tenants
};

}  // namespace nicsched::sim
