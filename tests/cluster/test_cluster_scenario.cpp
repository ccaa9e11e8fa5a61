// cluster.scenario: cluster scenario files, and their errors naming file, line and key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "nicsched/cluster/cluster_scenario.hpp"
#include "nicsched/sim/error.hpp"

using namespace nicsched;
using cluster::parse_cluster_scenario;

namespace {
const std::string kHead = R"(name: t
duration_s: 1
nic: {tenants: 2}
)";
const std::string kFabric = R"(fabric: {leaves: 2, spines: 2, hosts_per_leaf: 2, gpus_per_host: 2}
)";

// The error parsing `text` gives, as "LINE: KEY: problem".
std::string error_of(const std::string& text) {
  try {
    (void)parse_cluster_scenario(text, "c.yaml");
  } catch (const sim::ScenarioError& e) {
    CHECK(e.file() == "c.yaml");
    return std::to_string(e.line()) + ": " + e.key() + ": " + e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("the example cluster scenario loads: fabric, policies, jobs and pinned tenants", "[cluster]") {
  const auto c = cluster::load_cluster_scenario(std::filesystem::path(NICSCHED_SOURCE_DIR) / "cluster/scenarios/small.yaml");
  CHECK(c.fabric.leaves == 4);
  CHECK(c.fabric.spines == 2);
  CHECK(c.fabric.host_gbps == 100.0);
  CHECK(c.fabric.port_buffer_bytes == 1024u * 1024u);
  CHECK(c.link_latency_ps == 1'000'000u);
  CHECK(c.placement == cluster::PlacementPolicy::kVclos);
  CHECK(c.routing == cluster::Routing::kEcmp);
  REQUIRE(c.base.tenants.size() == 6);
  REQUIRE(c.where.size() == 6);
  CHECK(c.where[0].is_job());
  CHECK(c.base.tenants[0].workers == 12);
  CHECK(c.where[0].iterations == 0);
  CHECK(c.where[2].iterations == 10);
  CHECK(c.where[4].host == 1u);
  CHECK(c.where[5].host == 2u);
  CHECK(c.where[5].to_host == 5u);
}

TEST_CASE("cluster scenario errors name the line and the key", "[cluster]") {
  const std::string ddp = "tenants:\n  - {name: a, type: ddp, model: resnet50, workers: 4}\n";
  // Lines: 1 name, 2 duration_s, 3 nic, 4 fabric, 5 tenants:, 6 the first tenant.
  CHECK_THAT(error_of(kHead + ddp), Catch::Contains("fabric: required key is missing"));
  CHECK_THAT(error_of(kHead + "fabric: {leaves: 2, spines: 2, hosts_per_leaf: 2, gpus: 2}\n" + ddp),
             Catch::StartsWith("4: fabric.gpus: ") && Catch::Contains("unknown key"));
  CHECK_THAT(error_of(kHead + kFabric + "placement: best\n" + ddp), Catch::StartsWith("5: placement: "));
  CHECK_THAT(error_of(kHead + kFabric + "tenants:\n  - {name: a, type: ddp, model: resnet50, workers: 9}\n"),
             Catch::StartsWith("6: tenants[0].workers: ") && Catch::Contains("at most the fabric's 8 GPUs"));
  CHECK_THAT(error_of(kHead + kFabric + "tenants:\n  - {name: f, type: fl, update_mb: 1, train_ms: 1}\n"),
             Catch::StartsWith("6: tenants[0].host: ") && Catch::Contains("required for a fl tenant"));
  CHECK_THAT(error_of(kHead + kFabric + "tenants:\n  - name: b\n    type: background\n    rate_gbps: 1\n    host: 4\n"),
             Catch::StartsWith("9: tenants[0].host: ") && Catch::Contains("(0..3), got 4"));
  CHECK_THAT(error_of(kHead + kFabric + "tenants:\n  - {name: a, type: ddp, model: resnet50, workers: 4, to_host: 1}\n"),
             Catch::StartsWith("6: tenants[0].to_host: ") && Catch::Contains("only allowed for a background tenant"));
  CHECK_THAT(error_of(kHead + kFabric + "tenants:\n  - {name: b, type: background, rate_gbps: 1, host: 1, to_host: 1}\n"),
             Catch::Contains("tenants[0].to_host: ") && Catch::Contains("other than the tenant's own"));
  const std::string three_on_host0 =
      "tenants:\n  - {name: a, type: background, rate_gbps: 1, host: 0}\n  - {name: b, type: background, rate_gbps: 1, host: 0}\n"
      "  - {name: c, type: background, rate_gbps: 1, host: 0}\n";
  CHECK_THAT(error_of(kHead + kFabric + three_on_host0),
             Catch::StartsWith("8: tenants[2].host: ") && Catch::Contains("at most nic.tenants (2) tenants pinned to host 0"));
  // More tenants than one NIC has is fine in a cluster: they spread over hosts.
  const std::string three_jobs = "tenants:\n  - {name: a, type: ddp, model: resnet50, workers: 2}\n  - {name: b, type: ddp, model: resnet50, workers: 2}\n"
                                 "  - {name: c, type: ddp, model: resnet50, workers: 2}\n";
  CHECK(error_of(kHead + kFabric + three_jobs) == "no error");
  CHECK_THAT(error_of(kHead + kFabric + "tenants:\n  - {name: b, type: background, rate_gbps: 1, host: 1, iterations: 3}\n"),
             Catch::StartsWith("6: tenants[0].iterations: ") && Catch::Contains("only allowed for a job"));
  CHECK_THAT(error_of(kHead + kFabric + "tenants:\n  - {name: a, type: ddp, model: resnet50, workers: 2, iterations: 0}\n"),
             Catch::StartsWith("6: tenants[0].iterations: "));
  // The scenario's own checks still hold.
  CHECK_THAT(error_of(kHead + kFabric + "tenants:\n  - {name: a, type: ddp, model: resnet50, workers: 1}\n"),
             Catch::StartsWith("6: tenants[0].workers: "));
}
