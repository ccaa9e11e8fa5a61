// cluster.fabric: the leaf-spine topology, its link numbering and paths.
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>

#include "nicsched/cluster/fabric.hpp"

using namespace nicsched::cluster;

namespace {
FabricSpec small() {
  return {.leaves = 3, .spines = 2, .hosts_per_leaf = 2, .gpus_per_host = 4, .host_gbps = 100, .uplink_gbps = 50};
}
}  // namespace

TEST_CASE("a fabric numbers every directional link once and names its ends", "[cluster]") {
  const Fabric f(small());
  CHECK(f.hosts() == 6);
  CHECK(f.gpus() == 24);
  CHECK(f.links() == 2 * 6 + 2 * 3 * 2);
  std::set<std::string> names;
  for (LinkId id = 0; id < f.links(); ++id) names.insert(f.name(id));
  CHECK(names.size() == f.links());
  CHECK(f.name(f.host_up(5)) == "host5->leaf2");
  CHECK(f.name(f.host_down(0)) == "leaf0->host0");
  CHECK(f.name(f.leaf_up(1, 1)) == "leaf1->spine1");
  CHECK(f.name(f.spine_down(0, 2)) == "spine0->leaf2");
  CHECK(f.link(f.leaf_up(2, 0)).gbps == 50);
  CHECK(f.link(f.host_up(3)).gbps == 100);
  CHECK(f.is_fabric_link(f.spine_down(1, 0)));
  CHECK_FALSE(f.is_fabric_link(f.host_down(2)));
  // 2 hosts x 100 Gbit/s into a leaf over 2 spines x 50 Gbit/s out of it.
  CHECK(small().oversubscription() == Approx(2.0));
}

TEST_CASE("a path stays under its leaf or crosses the spine it is given", "[cluster]") {
  const Fabric f(small());
  CHECK(f.path(0, 1, 1) == Path{f.host_up(0), f.host_down(1)});
  CHECK(f.path(1, 4, 1) == Path{f.host_up(1), f.leaf_up(0, 1), f.spine_down(1, 2), f.host_down(4)});
  CHECK_THROWS_AS(f.path(2, 2, 0), std::invalid_argument);
  CHECK_THROWS_AS(f.path(0, 6, 0), std::out_of_range);
  CHECK_THROWS_AS(f.path(0, 5, 2), std::out_of_range);
}

TEST_CASE("a fabric with a zero count or rate is refused, naming the field", "[cluster]") {
  FabricSpec s = small();
  s.spines = 0;
  CHECK_THROWS_WITH(Fabric(s), Catch::Contains("fabric.spines"));
  s = small();
  s.uplink_gbps = 0;
  CHECK_THROWS_WITH(Fabric(s), Catch::Contains("fabric.uplink_gbps"));
  s = small();
  s.gpus_per_host = 0;
  CHECK_THROWS_WITH(Fabric(s), Catch::Contains("fabric.gpus_per_host"));
}
