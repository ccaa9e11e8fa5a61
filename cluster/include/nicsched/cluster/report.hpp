// What a cluster run printed: `nicsim cluster` and `nicagent cluster` write the same table and
// JSON (docs/cluster.md, "Run it"). Times in real milliseconds (the scenario's time scale
// undone, docs/scaling.md).
#pragma once

#include <string>

#include "nicsched/cluster/cluster_sim.hpp"

namespace nicsched::cluster {

// Per job its placement, wait, iterations (mean and 95 % CI) and JCT; then the fabric's
// shared links, drops and busiest link.
[[nodiscard]] std::string table(const ClusterResult& r);
// Everything: jobs (every iteration), links that carried frames, every server's NIC metrics.
[[nodiscard]] std::string to_json(const ClusterResult& r);

}  // namespace nicsched::cluster
