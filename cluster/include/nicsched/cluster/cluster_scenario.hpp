// A cluster scenario: hosts with nicsched NICs on a leaf-spine fabric, and their tenants.
// The file is a scenario file (docs/simulation.md, "Scenario files": seed, scale, duration,
// clock, the host link as link_gbps, the NIC every host has, mac, tenants) with three more
// top-level keys and two more tenant keys (docs/cluster.md, "Cluster scenario files"):
//
//   fabric: {leaves, spines, hosts_per_leaf, gpus_per_host, uplink_gbps, port_buffer_kb,
//            link_latency_ns}
//   placement: random | packed | vclos      (default vclos)
//   routing: ecmp | balanced                (default ecmp)
//   tenants:
//     - a DDP tenant without `host` is a job: its `workers` are placed on GPUs and its ring
//       all-reduce crosses the fabric; with `iterations: K` it completes after K iterations;
//     - any tenant with `host: H` is pinned to host H and talks to peers outside the fabric,
//       as in `nicsim run`, or with `to_host: D` (background only) sends through the fabric
//       to host D.
// Errors name the file, the line and the key, as a scenario's do.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nicsched/cluster/fabric.hpp"
#include "nicsched/cluster/placement.hpp"
#include "nicsched/cluster/routing.hpp"
#include "nicsched/sim/scenario.hpp"

namespace nicsched::cluster {

// Where a tenant of the file runs.
struct TenantPlacement {
  std::optional<unsigned> host;     // pinned; nullopt: a DDP job placed by the policy
  std::optional<unsigned> to_host;  // pinned background through the fabric
  std::uint64_t iterations = 0;     // a job: completes after this many ring iterations (0: runs on)
  [[nodiscard]] bool is_job() const { return !host.has_value(); }
};

struct ClusterScenario {
  sim::Scenario base;                  // settings, the hosts' NIC and every tenant (index = position)
  std::vector<TenantPlacement> where;  // parallel to base.tenants
  FabricSpec fabric;                   // host_gbps = base.link_gbps
  std::uint64_t link_latency_ps = 1'000'000;
  PlacementPolicy placement = PlacementPolicy::kVclos;
  Routing routing = Routing::kEcmp;
};

// Throws sim::ScenarioError naming the file, the line and the key.
[[nodiscard]] ClusterScenario load_cluster_scenario(const std::filesystem::path& file);
[[nodiscard]] ClusterScenario parse_cluster_scenario(const std::string& yaml_text, const std::string& file_name);

}  // namespace nicsched::cluster
