// `nicsim cluster FILE [--baseline B] [--interval N] [--placement P] [--routing R] [--cycles N]
// [--json]`: a cluster scenario (docs/cluster.md), each server's NIC under a baseline, the
// fabric between them (cluster/report.hpp prints it; `nicagent cluster` runs the learned policy).
#include <iostream>

#include "commands.hpp"
#include "nicsched/cluster/cluster_sim.hpp"
#include "nicsched/cluster/report.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/mpi/comm.hpp"

namespace nicsched::nicsim_cli {

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
  options.mpi = true;  // under mpirun, the servers spread over the ranks
  cluster::ClusterSim cs(std::move(c), options);
  cs.run();
  const cluster::ClusterResult r = cs.result();
  if (mpi::Comm::world().rank() != 0) return kOk;  // rank 0 speaks for all
  std::cout << (o.json ? cluster::to_json(r) : cluster::table(r));
  return kOk;
}

}  // namespace nicsched::nicsim_cli
