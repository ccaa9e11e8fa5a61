// Statistics and metric output.
#include "nicsched/sim/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

namespace nicsched::sim {

std::optional<double> percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(samples.size()));
  const auto idx = static_cast<std::size_t>(std::clamp(rank, 1.0, static_cast<double>(samples.size()))) - 1;
  return samples[idx];
}

std::optional<double> mean(const std::vector<double>& samples) {
  if (samples.empty()) return std::nullopt;
  return std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
}

std::optional<double> jain_index(const std::vector<double>& x) {
  if (x.empty()) return std::nullopt;
  double sum = 0;
  double sq = 0;
  for (double v : x) {
    sum += v;
    sq += v * v;
  }
  if (sq <= 0) return std::nullopt;
  return sum * sum / (static_cast<double>(x.size()) * sq);
}

namespace {

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::string fmt_opt(const std::optional<double>& v, const char* spec = "{:.1f}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

}  // namespace

std::string to_json(const RunMetrics& m) {
  nlohmann::json j;
  j["scenario"] = m.scenario;
  j["policy"] = m.policy;
  j["cycles"] = m.cycles;
  j["clock_mhz"] = m.clock_mhz;
  j["simulated_ms"] = m.simulated_ms;
  j["wall_seconds"] = m.wall_seconds;
  j["cycles_per_second"] = m.cycles_per_second;
  j["link_utilisation_tx"] = m.link_utilisation_tx;
  j["link_utilisation_rx"] = m.link_utilisation_rx;
  j["crypto_utilisation"] = m.crypto_utilisation;
  j["jain"] = opt(m.jain);
  j["frames_checked"] = m.frames_checked;
  j["foreign_frames"] = m.foreign_frames;
  nlohmann::json ts = nlohmann::json::array();
  for (const auto& t : m.tenants) {
    nlohmann::json o;
    o["name"] = t.name;
    o["kind"] = t.kind;
    o["tenant"] = t.tenant;
    o["completed"] = t.completed;
    o["iter_mean_us"] = opt(t.iter_mean_us);
    o["iter_p99_us"] = opt(t.iter_p99_us);
    o["solo_iter_mean_us"] = opt(t.solo_iter_mean_us);
    o["slowdown"] = opt(t.slowdown);
    o["progress_units"] = t.progress_units;
    o["normalised_progress"] = opt(t.normalised_progress);
    o["control_sent"] = t.control_sent;
    o["control_delivered"] = t.control_delivered;
    o["control_p50_us"] = opt(t.control_p50_us);
    o["control_p99_us"] = opt(t.control_p99_us);
    o["deadline_misses"] = t.deadline_misses;
    o["nic_drops"] = t.nic_drops;
    o["retransmits"] = t.retransmits;
    o["host_drops"] = t.host_drops;
    o["crypto_wait_cycles"] = t.crypto_wait_cycles;
    o["crypto_busy_cycles"] = t.crypto_busy_cycles;
    o["offered_bytes"] = t.offered_bytes;
    o["delivered_bytes"] = t.delivered_bytes;
    o["throughput_gbps"] = t.throughput_gbps;
    ts.push_back(std::move(o));
  }
  j["tenants"] = std::move(ts);
  return j.dump();
}

void write_table(std::ostream& os, const RunMetrics& m) {
  os << fmt::format("scenario {}  policy {}  {:.3f} ms simulated ({} cycles) in {:.2f} s ({:.2f} M cycles/s)\n",
                    m.scenario, m.policy, m.simulated_ms, m.cycles, m.wall_seconds, m.cycles_per_second / 1e6);
  os << fmt::format("{:<14} {:<10} {:>5} {:>10} {:>10} {:>8} {:>9} {:>9} {:>6} {:>6} {:>6} {:>11} {:>8}\n", "tenant",
                    "kind", "iters", "iter_us", "p99_us", "slowdn", "ctl50_us", "ctl99_us", "miss", "drops", "retx",
                    "crypto_wait", "Gbit/s");
  for (const auto& t : m.tenants) {
    os << fmt::format("{:<14} {:<10} {:>5} {:>10} {:>10} {:>8} {:>9} {:>9} {:>6} {:>6} {:>6} {:>11} {:>8.2f}\n",
                      t.name.substr(0, 14), t.kind, t.completed, fmt_opt(t.iter_mean_us), fmt_opt(t.iter_p99_us),
                      fmt_opt(t.slowdown, "{:.2f}"), fmt_opt(t.control_p50_us, "{:.2f}"),
                      fmt_opt(t.control_p99_us, "{:.2f}"), t.deadline_misses, t.nic_drops, t.retransmits,
                      t.crypto_wait_cycles, t.throughput_gbps);
  }
  os << fmt::format("link tx {:.1f} %  rx {:.1f} %  crypto {:.1f} %  Jain {}  frames checked {}\n",
                    100 * m.link_utilisation_tx, 100 * m.link_utilisation_rx, 100 * m.crypto_utilisation,
                    fmt_opt(m.jain, "{:.3f}"), m.frames_checked);
}

void write_comparison(std::ostream& os, const std::vector<RunMetrics>& runs) {
  if (runs.empty()) return;
  os << fmt::format("scenario {}: {:.3f} ms simulated per run\n", runs.front().scenario, runs.front().simulated_ms);
  os << fmt::format("{:<8} {:<14} {:<10} {:>5} {:>10} {:>8} {:>9} {:>6} {:>6} {:>11}\n", "policy", "tenant", "kind",
                    "iters", "iter_us", "slowdn", "ctl99_us", "miss", "drops", "crypto_wait");
  for (const auto& m : runs) {
    for (const auto& t : m.tenants) {
      os << fmt::format("{:<8} {:<14} {:<10} {:>5} {:>10} {:>8} {:>9} {:>6} {:>6} {:>11}\n", m.policy.substr(0, 8),
                        t.name.substr(0, 14), t.kind, t.completed, fmt_opt(t.iter_mean_us),
                        fmt_opt(t.slowdown, "{:.2f}"), fmt_opt(t.control_p99_us, "{:.2f}"), t.deadline_misses,
                        t.nic_drops, t.crypto_wait_cycles);
    }
  }
  os << fmt::format("{:<8} {:>8} {:>8} {:>8} {:>7}\n", "policy", "link_tx", "link_rx", "crypto", "Jain");
  for (const auto& m : runs) {
    os << fmt::format("{:<8} {:>7.1f}% {:>7.1f}% {:>7.1f}% {:>7}\n", m.policy.substr(0, 8), 100 * m.link_utilisation_tx,
                      100 * m.link_utilisation_rx, 100 * m.crypto_utilisation, fmt_opt(m.jain, "{:.3f}"));
  }
}

}  // namespace nicsched::sim
