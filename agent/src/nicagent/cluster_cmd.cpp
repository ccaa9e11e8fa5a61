// nicagent cluster FILE [--policy DIR] [--placement P] [--routing R] [--cycles N] [--json]: a
// cluster scenario (docs/cluster.md) with the exported policy as every server's NIC
// controller, deciding every interval of its env config; the same table and JSON as
// `nicsim cluster` (cluster/report.hpp), which runs the baselines.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "nicsched/cluster/cluster_sim.hpp"
#include "nicsched/cluster/report.hpp"
#include "nicsched/control/env_config.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/ppo_controller.hpp"

namespace nicsched::agent_cli {

int cluster(const ClusterOptions& o) {
  cluster::ClusterScenario c = cluster::load_cluster_scenario(o.scenario);
  if (!o.placement.empty()) c.placement = *cluster::placement_from(o.placement);
  if (!o.routing.empty()) c.routing = *cluster::routing_from(o.routing);
  const auto policy = std::make_shared<const ppo::TrainedPolicy>(o.policy);
  cluster::ClusterOptions options;
  options.baseline = "policy";
  options.interval_cycles =
      control::parse_env_config(policy->env_yaml(), (o.policy / "policy.yaml").string()).interval_cycles;
  options.make_controller = [policy] { return std::make_unique<ppo::PpoController>(policy); };
  options.cycles = o.cycles;
  cluster::ClusterSim cs(std::move(c), options);
  cs.run();
  const cluster::ClusterResult r = cs.result();
  std::cout << (o.json ? cluster::to_json(r) : cluster::table(r));
  return kOk;
}

}  // namespace nicsched::agent_cli
