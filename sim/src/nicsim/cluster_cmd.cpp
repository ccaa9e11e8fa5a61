// `nicsim cluster FILE [--baseline B] [--interval N] [--placement P] [--routing R] [--cycles N]
// [--json]`: a
// cluster scenario (docs/cluster.md): each server's NIC under the baseline, the fabric between
// them; per job its placement and iteration times, per link its load, drops and collisions.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "nicsched/cluster/cluster_sim.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/sim/metrics.hpp"
#include "nicsched/sim/report.hpp"

namespace nicsched::nicsim_cli {

namespace {

// Simulated cycles as real milliseconds (the scenario's time scale undone, docs/scaling.md).
double real_ms(const cluster::ClusterResult& r, double cycles) { return cycles / r.clock_mhz * r.scale / 1e3; }

std::vector<double> iterations_ms(const cluster::ClusterResult& r, const cluster::JobResult& j) {
  std::vector<double> v;
  for (auto c : j.iteration_cycles) v.push_back(real_ms(r, static_cast<double>(c)));
  return v;
}

nlohmann::json to_json(const cluster::ClusterResult& r) {
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
  for (const auto& [id, m] : r.hosts) hosts.push_back({{"host", id}, {"nic", nlohmann::json::parse(sim::to_json(m))}});
  return {{"scenario", r.scenario}, {"placement", r.placement}, {"routing", r.routing}, {"baseline", r.baseline},
          {"simulated_cycles", r.cycles}, {"collisions", r.collisions}, {"jobs", jobs}, {"links", links},
          {"hosts", hosts}};
}

void print_table(const cluster::ClusterResult& r) {
  std::cout << fmt::format("{}: placement {}, routing {}, NIC baseline {}; {} simulated cycles\n", r.scenario, r.placement,
                           r.routing, r.baseline, r.cycles);
  std::cout << fmt::format("{:<16} {:>7} {:>8} {:>6} {:>5} {:>9} {:>6} {:>22}\n", "job", "workers", "servers", "leaves",
                           "spine", "wait ms", "iters", "iteration ms (95% CI)");
  for (const auto& j : r.jobs) {
    const auto it = iterations_ms(r, j);
    std::string iter = j.placed && j.hosts.size() == 1 ? "one server: no network" : "-";
    if (auto m = sim::mean(it)) {
      const auto ci = sim::ci95_half_width(it);
      iter = ci ? fmt::format("{:.3f} +- {:.3f}", *m, *ci) : fmt::format("{:.3f}", *m);
    }
    std::cout << fmt::format("{:<16} {:>7} {:>8} {:>6} {:>5} {:>9} {:>6} {:>22}\n", j.name, j.workers,
                             j.placed ? std::to_string(j.hosts.size()) : std::string("-"),
                             j.placed ? std::to_string(j.leaves) : std::string("-"),
                             j.spine ? std::to_string(*j.spine) : std::string("-"),
                             j.placed ? fmt::format("{:.3f}", real_ms(r, static_cast<double>(j.placed_cycle - j.arrival_cycle)))
                                      : std::string("never"),
                             it.size(), iter);
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
  std::cout << fmt::format("fabric: {} leaf-spine links shared by two or more jobs, {} frames dropped, busiest link {} "
                           "at {:.1f} % of its rate\n",
                           r.collisions, drops, busiest, 100 * max_util);
}

}  // namespace

CLI::App* add_cluster_command(CLI::App& app, ClusterOptions& o) {
  CLI::App* sub = app.add_subcommand("cluster", "Run a cluster scenario: servers with nicsched NICs on a leaf-spine fabric");
  sub->add_option("scenario", o.scenario, "Cluster scenario YAML file (docs/cluster.md)")->required();
  sub->add_option("--baseline", o.baseline,
                  "Every server's NIC controller: a baseline (the dynamic ones decide every --interval cycles)")
      ->check(CLI::IsMember(control::baseline_names()))
      ->capture_default_str();
  sub->add_option("--interval", o.interval_cycles, "Cycles between a dynamic controller's decisions")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--placement", o.placement, "Override the scenario's placement policy")
      ->check(CLI::IsMember({"random", "packed", "vclos"}));
  sub->add_option("--routing", o.routing, "Override the scenario's routing policy")->check(CLI::IsMember({"ecmp", "balanced"}));
  sub->add_option("--cycles", o.cycles, "Run this many simulated cycles instead of the scenario's duration")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--json", o.json, "Print the results as JSON");
  return sub;
}

int cluster(const ClusterOptions& o) {
  cluster::ClusterScenario c = cluster::load_cluster_scenario(o.scenario);
  if (!o.placement.empty()) c.placement = *cluster::placement_from(o.placement);
  if (!o.routing.empty()) c.routing = *cluster::routing_from(o.routing);
  cluster::ClusterOptions options;
  options.baseline = o.baseline;
  options.interval_cycles = o.interval_cycles;
  options.cycles = o.cycles;
  cluster::ClusterSim cs(std::move(c), options);
  cs.run();
  const cluster::ClusterResult r = cs.result();
  if (o.json) {
    std::cout << to_json(r).dump(2) << "\n";
  } else {
    print_table(r);
  }
  return kOk;
}

}  // namespace nicsched::nicsim_cli
