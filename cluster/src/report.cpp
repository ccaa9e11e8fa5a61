#include "nicsched/cluster/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <vector>

#include "nicsched/sim/metrics.hpp"

namespace nicsched::cluster {

namespace {

// Simulated cycles as real milliseconds (the scenario's time scale undone, docs/scaling.md).
double real_ms(const ClusterResult& r, double cycles) { return cycles / r.clock_mhz * r.scale / 1e3; }

std::vector<double> iterations_ms(const ClusterResult& r, const JobResult& j) {
  std::vector<double> v;
  for (auto c : j.iteration_cycles) v.push_back(real_ms(r, static_cast<double>(c)));
  return v;
}

nlohmann::json as_json(const ClusterResult& r) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& j : r.jobs) {
    const auto it = iterations_ms(r, j);
    nlohmann::json o = {{"name", j.name},
                        {"workers", j.workers},
                        {"placed", j.placed},
                        {"arrival_ms", real_ms(r, static_cast<double>(j.arrival_cycle))},
                        {"wait_ms", j.placed ? real_ms(r, static_cast<double>(j.placed_cycle - j.arrival_cycle)) : 0.0},
                        {"hosts", j.hosts},
                        {"leaves", j.leaves},
                        {"iterations", it.size()},
                        {"iteration_ms", it}};
    if (j.spine) o["spine"] = *j.spine;
    if (j.iterations_target) o["iterations_target"] = j.iterations_target;
    if (auto jct = j.jct_cycles()) o["jct_ms"] = real_ms(r, static_cast<double>(*jct));
    if (auto m = sim::mean(it)) o["iteration_mean_ms"] = *m;
    if (auto ci = sim::ci95_half_width(it)) o["iteration_ci95_ms"] = *ci;
    jobs.push_back(o);
  }
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : r.links) {
    if (l.stats.frames == 0 && l.stats.drops == 0) continue;
    links.push_back({{"link", l.name},
                     {"gbps", l.gbps},
                     {"frames", l.stats.frames},
                     {"bytes", l.stats.bytes},
                     {"drops", l.stats.drops},
                     {"max_backlog_bytes", l.stats.max_backlog_bytes},
                     {"utilisation", l.utilisation},
                     {"jobs", l.jobs}});
  }
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : r.host_json) hosts.push_back({{"host", h.host}, {"nic", nlohmann::json::parse(h.json)}});
  return {{"scenario", r.scenario}, {"placement", r.placement}, {"routing", r.routing}, {"baseline", r.baseline},
          {"simulated_cycles", r.cycles}, {"collisions", r.collisions}, {"jobs", jobs}, {"links", links},
          {"hosts", hosts}};
}

}  // namespace

std::string table(const ClusterResult& r) {
  std::string out;
  out += fmt::format("{}: placement {}, routing {}, NIC controller {}; {} simulated cycles\n", r.scenario, r.placement,
                     r.routing, r.baseline, r.cycles);
  out += fmt::format("{:<16} {:>7} {:>8} {:>6} {:>5} {:>9} {:>6} {:>22} {:>10}\n", "job", "workers", "servers",
                     "leaves", "spine", "wait ms", "iters", "iteration ms (95% CI)", "JCT ms");
  for (const auto& j : r.jobs) {
    const auto it = iterations_ms(r, j);
    std::string iter = j.placed && j.hosts.size() == 1 ? "one server: no network" : "-";
    if (auto m = sim::mean(it)) {
      const auto ci = sim::ci95_half_width(it);
      iter = ci ? fmt::format("{:.3f} +- {:.3f}", *m, *ci) : fmt::format("{:.3f}", *m);
    }
    const auto jct = j.jct_cycles();
    out += fmt::format("{:<16} {:>7} {:>8} {:>6} {:>5} {:>9} {:>6} {:>22} {:>10}\n", j.name, j.workers,
                       j.placed ? std::to_string(j.hosts.size()) : std::string("-"),
                       j.placed ? std::to_string(j.leaves) : std::string("-"),
                       j.spine ? std::to_string(*j.spine) : std::string("-"),
                       j.placed ? fmt::format("{:.3f}", real_ms(r, static_cast<double>(j.placed_cycle - j.arrival_cycle)))
                                : std::string("never"),
                       it.size(), iter, jct ? fmt::format("{:.3f}", real_ms(r, static_cast<double>(*jct))) : "-");
  }
  double max_util = 0;
  std::string busiest = "-";
  std::uint64_t drops = 0;
  for (const auto& l : r.links) {
    drops += l.stats.drops;
    if (l.utilisation > max_util) {
      max_util = l.utilisation;
      busiest = l.name;
    }
  }
  out += fmt::format("fabric: {} leaf-spine links shared by two or more jobs, {} frames dropped, busiest link {} "
                     "at {:.1f} % of its rate\n",
                     r.collisions, drops, busiest, 100 * max_util);
  return out;
}

std::string to_json(const ClusterResult& r) { return as_json(r).dump(2) + "\n"; }

}  // namespace nicsched::cluster
