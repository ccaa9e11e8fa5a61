// cluster.placement: random, packed and vClos placement; vClos never shares a fabric link.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

#include "nicsched/cluster/placement.hpp"
#include "nicsched/cluster/routing.hpp"

using namespace nicsched::cluster;

namespace {
// 4 leaves x 2 spines, 2 hosts per leaf, 4 GPUs per host: 8 GPUs per leaf, 32 in all.
Fabric four_by_two() {
  return Fabric({.leaves = 4, .spines = 2, .hosts_per_leaf = 2, .gpus_per_host = 4});
}

std::set<unsigned> leaves_of(const Fabric& f, const Allocation& a) {
  std::set<unsigned> out;
  for (unsigned g : a.gpus) out.insert(f.leaf_of(f.host_of_gpu(g)));
  return out;
}
}  // namespace

TEST_CASE("every policy gives a job distinct free GPUs, and release frees them", "[cluster]") {
  const Fabric f = four_by_two();
  for (PlacementPolicy p : {PlacementPolicy::kRandom, PlacementPolicy::kPacked, PlacementPolicy::kVclos}) {
    Placer placer(f, p, 7);
    const auto a = placer.place(0, 6);
    REQUIRE(a);
    CHECK(a->gpus.size() == 6);
    CHECK(std::set<unsigned>(a->gpus.begin(), a->gpus.end()).size() == 6);
    const auto b = placer.place(1, 26);
    REQUIRE(b);
    for (unsigned g : b->gpus) CHECK(std::find(a->gpus.begin(), a->gpus.end(), g) == a->gpus.end());
    CHECK(placer.free_gpus() == 0);
    CHECK_FALSE(placer.place(2, 1));  // full: the job waits
    placer.release(0);
    CHECK(placer.free_gpus() == 6);
    CHECK(placer.place(2, 6));
    CHECK_THROWS_AS(placer.place(2, 1), std::invalid_argument);   // placed already
    CHECK_THROWS_AS(placer.release(0), std::invalid_argument);    // released already
    CHECK_THROWS_AS(placer.place(3, 33), std::invalid_argument);  // more than the fabric has
    CHECK_THROWS_AS(placer.place(3, 0), std::invalid_argument);
  }
}

TEST_CASE("packed placement fills servers and leaves in order", "[cluster]") {
  const Fabric f = four_by_two();
  Placer placer(f, PlacementPolicy::kPacked, 1);
  CHECK(placer.place(0, 5)->gpus == std::vector<unsigned>{0, 1, 2, 3, 4});
  CHECK(placer.place(1, 4)->gpus == std::vector<unsigned>{5, 6, 7, 8});
}

TEST_CASE("random placement draws from the whole fabric, and its seed decides the draw", "[cluster]") {
  const Fabric f = four_by_two();
  std::set<unsigned> seen_leaves;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Placer a(f, PlacementPolicy::kRandom, seed);
    Placer b(f, PlacementPolicy::kRandom, seed);
    const auto x = a.place(0, 4);
    CHECK(x->gpus == b.place(0, 4)->gpus);
    for (unsigned l : leaves_of(f, *x)) seen_leaves.insert(l);
  }
  CHECK(seen_leaves.size() == 4);
}

TEST_CASE("vClos puts a job that fits under one leaf there, and a larger one on its own spine", "[cluster]") {
  const Fabric f = four_by_two();
  Placer placer(f, PlacementPolicy::kVclos, 1);
  const auto small = placer.place(0, 6);  // fits leaf 0
  REQUIRE(small);
  CHECK(leaves_of(f, *small) == std::set<unsigned>{0});
  CHECK_FALSE(small->spine);
  const auto hole = placer.place(1, 2);  // the fewest free GPUs that still fit: leaf 0's last two
  CHECK(leaves_of(f, *hole) == std::set<unsigned>{0});
  const auto big = placer.place(2, 12);  // two leaves (1, 2), spine 0
  REQUIRE(big);
  CHECK(leaves_of(f, *big) == std::set<unsigned>{1, 2});
  CHECK(big->spine == 0u);
  // 12 GPUs are left (leaf 2: 4, leaf 3: 8); spine 0's links to leaf 2 are the job 2's, so a
  // 12-worker job takes spine 1 on leaves 2 and 3.
  const auto next = placer.place(3, 12);
  REQUIRE(next);
  CHECK(next->spine == 1u);
  CHECK(leaves_of(f, *next) == std::set<unsigned>{2, 3});
  CHECK_FALSE(placer.place(4, 1));  // full
}

TEST_CASE("vClos never puts two jobs on one fabric link, under random arrivals and departures", "[cluster]") {
  const Fabric f({.leaves = 4, .spines = 2, .hosts_per_leaf = 4, .gpus_per_host = 2});
  std::mt19937_64 rng(12345);
  Placer placer(f, PlacementPolicy::kVclos, 99);
  std::vector<std::pair<unsigned, Allocation>> running;
  unsigned placed_across = 0;
  for (unsigned job = 0; job < 400; ++job) {
    if (!running.empty() && rng() % 3 == 0) {
      const std::size_t i = rng() % running.size();
      placer.release(running[i].first);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
    const unsigned workers = 1 + static_cast<unsigned>(rng() % 20);
    if (auto a = placer.place(job, workers)) {
      if (leaves_of(f, *a).size() > 1) ++placed_across;
      running.emplace_back(job, *a);
    }
    std::vector<Flow> flows;
    for (const auto& [id, alloc] : running) {
      auto jf = ring_flows(f, id, alloc.gpus, 1e6);
      for (Flow& fl : jf) fl.spine = alloc.spine;
      flows.insert(flows.end(), jf.begin(), jf.end());
    }
    for (Routing r : {Routing::kEcmp, Routing::kBalanced}) REQUIRE(tally(f, flows, route(f, flows, r)).collisions(f) == 0);
  }
  CHECK(placed_across > 20);  // the check above saw jobs that cross the spines
}

TEST_CASE("a server whose NIC has no tenant left gets no more jobs, until one leaves", "[cluster]") {
  const Fabric f = four_by_two();
  for (PlacementPolicy p : {PlacementPolicy::kRandom, PlacementPolicy::kPacked, PlacementPolicy::kVclos}) {
    Placer placer(f, p, 5);
    std::vector<unsigned> slots(f.hosts(), 1);
    slots.at(0) = 2;
    placer.set_job_slots(slots);
    // Server 0 takes two one-GPU jobs, every other server one: 9 jobs, then no more.
    for (unsigned j = 0; j < 9; ++j) REQUIRE(placer.place(j, 1));
    CHECK(placer.free_gpus() == 0);  // 23 GPUs idle, but on servers without a tenant left
    CHECK_FALSE(placer.place(9, 1));
    placer.release(3);
    CHECK(placer.place(9, 1));
    CHECK_THROWS_AS(placer.set_job_slots(slots), std::invalid_argument);  // after placing
  }
}

TEST_CASE("placement policy names parse both ways", "[cluster]") {
  for (PlacementPolicy p : {PlacementPolicy::kRandom, PlacementPolicy::kPacked, PlacementPolicy::kVclos})
    CHECK(placement_from(to_string(p)) == p);
  CHECK_FALSE(placement_from("best").has_value());
}
