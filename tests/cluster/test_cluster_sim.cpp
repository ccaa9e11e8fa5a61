// cluster.sim: servers with their NIC models on the fabric, against nicsim run and against
// analytic figures.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "nicsched/cluster/cluster_sim.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/sim/simulation.hpp"

using namespace nicsched;

namespace {
cluster::ClusterOptions with(const std::string& baseline) {
  cluster::ClusterOptions o;
  o.baseline = baseline;
  return o;
}

// Every tenant of a cluster server ran as it did in the run it is compared with.
void check_same_tenants(const sim::RunMetrics& server, const sim::RunMetrics& reference) {
  REQUIRE(server.tenants.size() == reference.tenants.size());
  for (std::size_t i = 0; i < server.tenants.size(); ++i) {
    INFO(reference.tenants[i].name);
    CHECK(server.tenants[i].completed == reference.tenants[i].completed);
    CHECK(server.tenants[i].delivered_bytes == reference.tenants[i].delivered_bytes);
    CHECK(server.tenants[i].iter_mean_us == reference.tenants[i].iter_mean_us);
    CHECK(server.tenants[i].control_p99_us == reference.tenants[i].control_p99_us);
    CHECK(server.tenants[i].crypto_wait_cycles == reference.tenants[i].crypto_wait_cycles);
  }
}

double mean(const std::vector<std::uint64_t>& v) {
  REQUIRE(!v.empty());
  return static_cast<double>(std::accumulate(v.begin(), v.end(), std::uint64_t{0})) / static_cast<double>(v.size());
}

// Two leaves, `spines` spines, two servers per leaf with one GPU each; 100 Gbit/s links
// everywhere; buffers large enough that nothing drops. Scale 1: sizes and times as written.
std::string fabric_head(unsigned spines) {
  return "name: t\nseed: 3\nscale: 1\nduration_s: 0.002\nlink_gbps: 100\nnic: {tenants: 4, backend: model}\n"
         "fabric: {leaves: 2, spines: " + std::to_string(spines) +
         ", hosts_per_leaf: 2, gpus_per_host: 1, port_buffer_kb: 65536}\n";
}
// A DDP job of two workers, 1 MB of gradient, no compute: its iteration is its ring's
// communication, one 1 MB burst each way between its two servers.
const std::string kJob = "type: ddp, model_mb: 1, compute_ms: 0, workers: 2, window_bytes: 65536";
}  // namespace

TEST_CASE("a server in cluster mode gives the same per-tenant results as nicsim run on its tenants", "[cluster]") {
  const std::string tenants =
      "tenants:\n"
      "  - {name: bg, type: background, host: 1, pattern: poisson, rate_gbps: 30}\n"
      "  - {name: fl, type: fl, host: 1, update_mb: 0.2, train_ms: 0.05}\n"
      "  - {name: ddp, type: ddp, host: 1, model_mb: 0.5, compute_ms: 0.1, workers: 8}\n";
  const auto c = cluster::parse_cluster_scenario(fabric_head(1) + tenants, "c.yaml");
  cluster::ClusterSim cs(c, with("fair"));
  cs.run();
  cluster::ClusterResult r = cs.result();
  REQUIRE(r.hosts.size() == 1);
  CHECK(r.hosts[0].first == 1u);

  sim::SimOptions o;
  o.baseline = "fair";
  sim::Simulation alone(c.base, o);
  alone.run_to_end();
  const sim::RunMetrics m = alone.metrics();
  CHECK(m.tenants.at(0).delivered_bytes > 0);
  CHECK(m.tenants.at(1).completed > 0);
  CHECK(m.tenants.at(2).completed > 0);
  check_same_tenants(r.hosts[0].second, m);
}

TEST_CASE("a server under a dynamic controller decides as nicagent eval's run does", "[cluster]") {
  const std::string tenants =
      "tenants:\n"
      "  - {name: bg, type: background, host: 2, pattern: poisson, rate_gbps: 40}\n"
      "  - {name: a, type: ddp, host: 2, model_mb: 0.5, compute_ms: 0.1, workers: 8, control: {period_us: 20, bytes: 128, deadline_us: 5}}\n"
      "  - {name: b, type: ddp, host: 2, model_mb: 1, compute_ms: 0.05, workers: 8}\n";
  const auto c = cluster::parse_cluster_scenario(fabric_head(1) + tenants, "c.yaml");
  for (const std::string name : {"progress+guard", "las"}) {
    INFO(name);
    cluster::ClusterSim cs(c, with(name));
    cs.run();
    const cluster::ClusterResult r = cs.result();
    REQUIRE(r.hosts.size() == 1);
    const auto controller = control::make_baseline(name);
    const control::RunResult run = control::run_controller({c.base, {}, std::nullopt}, 0, *controller, 2000);
    check_same_tenants(r.hosts[0].second, run.metrics);
  }
}

TEST_CASE("two rings on one spine take twice as long as one alone, as the link's share says", "[cluster]") {
  // One spine: job a and job b, each on a server under each leaf, both cross leaf0 -> spine0
  // -> leaf1 one way and back the other: two bursts through one uplink take twice as long.
  const std::string one = "tenants:\n  - {name: a, " + kJob + "}\n";
  const std::string two = one + "  - {name: b, " + kJob + "}\n";
  auto run = [](const std::string& text) {
    auto c = cluster::parse_cluster_scenario(text, "c.yaml");
    c.placement = cluster::PlacementPolicy::kRandom;  // vClos would keep b waiting for a's spine
    cluster::ClusterSim cs(c, with("fifo"));
    cs.run();
    return cs.result();
  };
  const auto alone = run(fabric_head(1) + one);
  const auto both = run(fabric_head(1) + two);
  REQUIRE(alone.jobs.size() == 1);
  REQUIRE(both.jobs.size() == 2);
  const double cycles_per_us = 250.0;
  // The burst on the wire: 1,000,000 payload bytes in frames of at most 1518 bytes with 46
  // bytes of headers: 679 full frames and one of 512 + 46 bytes.
  const double wire_bytes = 679.0 * 1518 + 558;
  const double burst_us = wire_bytes * 8 / 100e3;  // 82.42 us at 100 Gbit/s
  // After the NIC sent a burst's last frame, it still crosses the fabric: four link latencies
  // (1 us each) and three store-and-forward serialisations of a 1518-byte frame.
  const double pipeline_us = 4 * 1.0 + 3 * 1518 * 8 / 100e3;
  const double t_alone = mean(alone.jobs[0].iteration_cycles) / cycles_per_us;
  // Alone, the NIC paces the burst: never faster than the link, and within a few percent.
  CHECK(t_alone >= burst_us + pipeline_us);
  CHECK(t_alone <= 1.03 * burst_us + pipeline_us);
  REQUIRE(alone.jobs[0].leaves == 2);
  for (const auto& j : both.jobs) {
    REQUIRE(j.leaves == 2);  // random placement (seed 3) put each job's servers under both leaves
    const double t = mean(j.iteration_cycles) / cycles_per_us;
    INFO(j.name << ": " << t << " us against " << t_alone << " us alone");
    // Together, the shared uplink carries both bursts back to back at exactly its rate.
    CHECK(t == Approx(2 * burst_us + pipeline_us).epsilon(0.005));
    CHECK(t / t_alone > 1.9);
  }
  unsigned drops = 0;
  for (const auto& l : both.links) drops += static_cast<unsigned>(l.stats.drops);
  CHECK(drops == 0);
}

TEST_CASE("a job that finds no room waits until one leaves, and its wait is counted", "[cluster]") {
  // Four GPUs: job a takes them all until 0.5 ms; job b arrives at 0.1 ms and must wait.
  const std::string tenants = "tenants:\n  - {name: a, stop_ms: 0.5, " + kJob.substr(0, kJob.find("workers")) +
                              "workers: 4}\n  - {name: b, start_ms: 0.1, " + kJob + "}\n";
  const auto c = cluster::parse_cluster_scenario(fabric_head(2) + tenants, "c.yaml");
  cluster::ClusterSim cs(c, with("fifo"));
  cs.run();
  const auto r = cs.result();
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].placed);
  CHECK(r.jobs[0].placed_cycle == 0);
  CHECK(r.jobs[1].placed);
  CHECK(r.jobs[1].arrival_cycle == 25'000);   // 0.1 ms at 250 MHz
  CHECK(r.jobs[1].placed_cycle == 125'000);   // when a left, 0.5 ms
  CHECK_FALSE(r.jobs[1].iteration_cycles.empty());
}

TEST_CASE("a job completes after its iterations, the next one takes its GPUs then, and its JCT counts the wait",
          "[cluster]") {
  // Four GPUs. Job a needs all four for 3 iterations; job b arrives at 0.01 ms, needs all four
  // for 2 iterations, and waits for a to complete.
  const std::string a = "  - {name: a, iterations: 3, " + kJob.substr(0, kJob.find("workers")) + "workers: 4}\n";
  const std::string b = "  - {name: b, iterations: 2, start_ms: 0.01, " + kJob.substr(0, kJob.find("workers")) + "workers: 4}\n";
  auto run = [](const std::string& text) {
    auto c = cluster::parse_cluster_scenario(text, "c.yaml");
    c.placement = cluster::PlacementPolicy::kPacked;
    cluster::ClusterSim cs(c, with("fifo"));
    cs.run();
    return cs.result();
  };
  const auto both = run(fabric_head(2) + "tenants:\n" + a + b);
  const auto alone = run(fabric_head(2) + "tenants:\n" + b);
  REQUIRE(both.jobs.size() == 2);
  const auto& ja = both.jobs[0];
  const auto& jb = both.jobs[1];
  REQUIRE(ja.completion_cycle);
  CHECK(ja.iteration_cycles.size() == 3);
  CHECK(*ja.jct_cycles() == std::accumulate(ja.iteration_cycles.begin(), ja.iteration_cycles.end(), std::uint64_t{0}));
  CHECK(jb.arrival_cycle == 2'500);          // 0.01 ms at 250 MHz
  CHECK(jb.placed_cycle == *ja.completion_cycle);
  REQUIRE(jb.completion_cycle);
  CHECK(jb.iteration_cycles.size() == 2);
  const std::uint64_t run_b = std::accumulate(jb.iteration_cycles.begin(), jb.iteration_cycles.end(), std::uint64_t{0});
  CHECK(*jb.jct_cycles() == (jb.placed_cycle - jb.arrival_cycle) + run_b);
  // Alone, b starts on arrival and runs as long (the same GPUs, the same NIC slots).
  REQUIRE(alone.jobs[0].completion_cycle);
  CHECK(alone.jobs[0].placed_cycle == alone.jobs[0].arrival_cycle);
  CHECK(static_cast<double>(*alone.jobs[0].jct_cycles()) == Approx(static_cast<double>(run_b)).epsilon(0.01));
  CHECK(*jb.jct_cycles() > *alone.jobs[0].jct_cycles() + (jb.placed_cycle - jb.arrival_cycle) / 2);
}

TEST_CASE("a cluster run is deterministic", "[cluster]") {
  const std::string text = fabric_head(2) + "tenants:\n  - {name: a, " + kJob + ", jitter: 0.1}\n  - {name: b, " + kJob +
                           ", jitter: 0.1}\n  - {name: bg, type: background, host: 0, to_host: 3, pattern: poisson, rate_gbps: 40}\n";
  auto once = [&] {
    auto c = cluster::parse_cluster_scenario(text, "c.yaml");
    c.placement = cluster::PlacementPolicy::kRandom;
    cluster::ClusterSim cs(c, with("fair"));
    cs.run();
    return cs.result();
  };
  const auto x = once();
  const auto y = once();
  REQUIRE(x.jobs.size() == y.jobs.size());
  for (std::size_t i = 0; i < x.jobs.size(); ++i) CHECK(x.jobs[i].iteration_cycles == y.jobs[i].iteration_cycles);
  for (std::size_t i = 0; i < x.links.size(); ++i) CHECK(x.links[i].stats.bytes == y.links[i].stats.bytes);
}
