// Report: the last stage of a run, RunMetrics and the progress time series as JSON, text
// tables and CSV (report.hpp).
#include "nicsched/sim/report.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "nicsched/sim/error.hpp"

namespace nicsched::sim {

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
  j["tx_identity"] = m.tx_identity;
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
    o["comm_mean_us"] = opt(t.comm_mean_us);
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
    o["spoofed_frames"] = t.spoofed_frames;
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
  os << fmt::format("TX identity: {}\n", m.tx_identity == "headers" ? "headers only (no source binding)" : m.tx_identity);
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

void write_time_series(const std::filesystem::path& file, const std::vector<ProgressSample>& samples,
                       const Scenario& s) {
  std::ofstream out(file);
  if (!out) throw SimError(file.string() + ": cannot write the time series");
  std::unordered_map<std::uint32_t, const std::string*> name;  // by NIC tenant
  for (const auto& t : s.tenants) name[t.index] = &t.name;
  out << "cycle,time_us,tenant,name,phase,completed,progress_units,delivered_bytes,link_wire_bytes_tx\n";
  for (const auto& p : samples) {
    out << p.cycle << ',' << fmt::format("{:.3f}", static_cast<double>(p.cycle) / s.clock_mhz) << ',' << p.tenant
        << ',' << *name.at(p.tenant) << ',' << to_string(p.phase) << ',' << p.completed << ','
        << fmt::format("{:.4f}", p.units) << ',' << p.delivered_bytes << ',' << p.wire_bytes_tx << '\n';
  }
}

}  // namespace nicsched::sim
