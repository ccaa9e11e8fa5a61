// cluster.routing: ring flows, the ECMP hash, ECMP's collisions counted by hand, balanced routing.
#include <catch2/catch.hpp>

#include "nicsched/cluster/routing.hpp"

using namespace nicsched::cluster;

namespace {
// 2 leaves x 2 spines, 2 hosts per leaf, 2 GPUs per host: host h holds GPUs 2h and 2h + 1;
// hosts 0 and 1 sit under leaf 0, hosts 2 and 3 under leaf 1.
Fabric tiny() {
  return Fabric({.leaves = 2, .spines = 2, .hosts_per_leaf = 2, .gpus_per_host = 2});
}

std::vector<Flow> jobs_flows(const Fabric& f, const std::vector<std::vector<unsigned>>& gpus) {
  std::vector<Flow> all;
  for (unsigned j = 0; j < gpus.size(); ++j) {
    const auto flows = ring_flows(f, j, gpus[j], 1e6);
    all.insert(all.end(), flows.begin(), flows.end());
  }
  return all;
}
}  // namespace

TEST_CASE("a ring's network flows are the edges between workers on different hosts", "[cluster]") {
  const Fabric f = tiny();
  // Workers on GPUs 0, 1 (host 0), 4 (host 2), 7 (host 3): edges 0->1 inside host 0, then
  // host 0 -> 2, 2 -> 3, 3 -> 0.
  const auto flows = ring_flows(f, 5, {7, 0, 4, 1}, 1000.0);
  REQUIRE(flows.size() == 3);
  CHECK(flows[0].src_host == 0);
  CHECK(flows[0].dst_host == 2);
  CHECK(flows[1].src_host == 2);
  CHECK(flows[1].dst_host == 3);
  CHECK(flows[2].src_host == 3);
  CHECK(flows[2].dst_host == 0);
  for (const Flow& fl : flows) {
    CHECK(fl.job == 5);
    CHECK(fl.dst_port == 4791);
    CHECK(fl.bytes == Approx(2.0 * 3 / 4 * 1000.0));  // 2 (n - 1) / n of the gradient, n = 4
  }
  CHECK(flows[0].src_port != flows[1].src_port);
  CHECK(ring_flows(f, 0, {2, 3}, 1000.0).empty());  // one server: NVLink only
  CHECK_THROWS_AS(ring_flows(f, 0, {2, 2}, 1000.0), std::invalid_argument);
  CHECK_THROWS_AS(ring_flows(f, 0, {2, 8}, 1000.0), std::out_of_range);
}

TEST_CASE("the ECMP hash is CRC-32 of the 5-tuple", "[cluster]") {
  // Expected value from an independent implementation, Python's zlib:
  //   zlib.crc32(bytes([10,0,0,1, 10,0,0,3, 17]) + (49152).to_bytes(2,'big') + (4791).to_bytes(2,'big'))
  Flow f;
  f.src_host = 0;
  f.dst_host = 2;
  f.src_port = 49152;
  CHECK(ecmp_hash(f) == 0xcf6fb562u);
  CHECK(host_ip(0) == 0x0a000001u);
}

TEST_CASE("ECMP collisions on a small fabric equal the hand count, and balanced routing removes them", "[cluster]") {
  const Fabric f = tiny();
  // Spines by hand (CRC-32 mod 2, from Python's zlib as above):
  //   job 0 {GPU 0, 4}: host0->host2 port 49152 -> 0xcf6fb562 -> spine 0; host2->host0 49153 -> 0x8790ae63 -> 1
  //   job 1 {GPU 2, 6}: host1->host3 port 50176 -> 0xb63fa98e -> spine 0; host3->host1 50177 -> 0x6cba50e3 -> 1
  //   job 2 {GPU 1, 7}: host0->host3 port 51200 -> 0x17dead35 -> spine 1; host3->host0 51201 -> 0xa0f89df5 -> 1
  //   job 3 {GPU 3, 5}: host1->host2 port 52224 -> 0x6e8eb1d9 -> spine 1; host2->host1 52225 -> 0x4bd26375 -> 1
  SECTION("two jobs: both take spine 0 one way and spine 1 the other, so all four fabric links collide") {
    const auto flows = jobs_flows(f, {{0, 4}, {2, 6}});
    const FabricUse ecmp = tally(f, flows, route(f, flows, Routing::kEcmp));
    CHECK(ecmp.collisions(f) == 4);
    CHECK(ecmp.links[f.leaf_up(0, 0)].jobs == std::vector<unsigned>{0, 1});
    CHECK(ecmp.links[f.leaf_up(0, 1)].flows == 0);
    const FabricUse balanced = tally(f, flows, route(f, flows, Routing::kBalanced));
    CHECK(balanced.collisions(f) == 0);
  }
  SECTION("four jobs: leaf0->spine0, spine0->leaf1 (jobs 0, 1), leaf0->spine1, spine1->leaf1 (jobs 2, 3), "
          "leaf1->spine1 and spine1->leaf0 (all four): six links") {
    const auto flows = jobs_flows(f, {{0, 4}, {2, 6}, {1, 7}, {3, 5}});
    const FabricUse ecmp = tally(f, flows, route(f, flows, Routing::kEcmp));
    CHECK(ecmp.collisions(f) == 6);
    CHECK(ecmp.links[f.leaf_up(1, 1)].jobs.size() == 4);
    CHECK(ecmp.links[f.leaf_up(1, 0)].flows == 0);
    // Eight equal flows, four each way, two spines: balanced routing puts two on every fabric link.
    const FabricUse balanced = tally(f, flows, route(f, flows, Routing::kBalanced));
    for (LinkId id = 0; id < f.links(); ++id)
      if (f.is_fabric_link(id)) CHECK(balanced.links[id].flows == 2);
  }
}

TEST_CASE("a pinned spine is kept by both routing policies", "[cluster]") {
  const Fabric f = tiny();
  auto flows = ring_flows(f, 0, {0, 4}, 1e6);
  for (Flow& fl : flows) fl.spine = 1;
  for (Routing r : {Routing::kEcmp, Routing::kBalanced}) {
    const auto paths = route(f, flows, r);
    CHECK(paths[0] == f.path(0, 2, 1));
    CHECK(paths[1] == f.path(2, 0, 1));
  }
  flows[0].spine = 2;
  CHECK_THROWS_AS(route(f, flows, Routing::kEcmp), std::out_of_range);
}

TEST_CASE("routing policy names parse both ways", "[cluster]") {
  for (Routing r : {Routing::kEcmp, Routing::kBalanced}) CHECK(routing_from(to_string(r)) == r);
  CHECK_FALSE(routing_from("ECMP").has_value());
}
