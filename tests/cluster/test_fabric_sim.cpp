// cluster.fabric_sim: frames through output-queued ports, timed and dropped by hand.
#include <catch2/catch.hpp>

#include <map>

#include "nicsched/cluster/fabric_sim.hpp"

using namespace nicsched::cluster;

namespace {
// 2 leaves x 2 spines, 2 hosts per leaf, every link 100 Gbit/s: a 1500-byte frame takes
// 1500 x 8 / 100e9 s = 120 ns = 120,000 ps on any link.
constexpr std::uint64_t kSer = 120'000;
constexpr std::uint64_t kLat = 1'000;
constexpr std::uint32_t kFrame = 1500;

Fabric tiny(std::uint64_t buffer_frames) {
  return Fabric({.leaves = 2, .spines = 2, .hosts_per_leaf = 2, .gpus_per_host = 1,
                 .port_buffer_bytes = buffer_frames * kFrame});
}

struct Outcome {
  std::map<unsigned, std::uint64_t> last_delivery;  // by job
  std::map<unsigned, std::uint64_t> delivered;      // frames, by job
  std::map<unsigned, std::uint64_t> dropped;        // frames, by job
};

// Jobs 0 and 1 (when `both`) each send `n` frames from a host under leaf 0 to a host under
// leaf 1 at their NICs' line rate (one frame every kSer), both through spine 0; job 0's frame
// of each instant is injected first.
Outcome two_flows(const Fabric& f, unsigned n, bool both) {
  FabricSim sim(f, kLat);
  const unsigned jobs = both ? 2 : 1;
  std::uint64_t id = 0;
  for (unsigned j = 0; j < jobs; ++j)
    for (unsigned k = 0; k < n; ++k)
      sim.inject({id++, j, j, 2 + j, kFrame, f.path(j, 2 + j, 0)}, k * kSer);
  Outcome out;
  sim.run_until(
      UINT64_MAX,
      [&](const FabricFrame& fr, std::uint64_t at) {
        out.last_delivery[fr.job] = std::max(out.last_delivery[fr.job], at);
        ++out.delivered[fr.job];
      },
      [&](const FabricFrame& fr, LinkId, std::uint64_t) { ++out.dropped[fr.job]; });
  CHECK(sim.in_flight() == 0);
  return out;
}
}  // namespace

TEST_CASE("a frame crosses leaf, spine and leaf in the time its hops take", "[cluster]") {
  const Fabric f = tiny(100);
  FabricSim sim(f, kLat);
  CHECK(sim.serialisation_ps(f.leaf_up(0, 1), kFrame) == kSer);
  sim.inject({7, 0, 0, 3, kFrame, f.path(0, 3, 1)}, 5'000);
  std::uint64_t at = 0;
  sim.run_until(UINT64_MAX, [&](const FabricFrame& fr, std::uint64_t t) { CHECK(fr.id == 7); at = t; }, {});
  // The NIC put its last byte out at 5,000 ps; then three store-and-forward hops (leaf ->
  // spine, spine -> leaf, leaf -> host), each a latency and a serialisation, and a last latency.
  CHECK(at == 5'000 + kLat + 3 * (kSer + kLat));
  CHECK(sim.port(f.leaf_up(0, 1)).frames == 1);
  CHECK(sim.port(f.host_up(0)).bytes == kFrame);
  CHECK(sim.port(f.leaf_up(0, 0)).frames == 0);
}

TEST_CASE("two jobs colliding on one uplink take twice as long, as the analytic model says", "[cluster]") {
  const unsigned n = 200;
  const Fabric f = tiny(n + 1);  // room for the whole backlog: no drops
  const Outcome alone = two_flows(f, n, false);
  const Outcome shared = two_flows(f, n, true);
  // Alone: the uplink is busy from kLat for n frames; then spine -> leaf and leaf -> host add
  // a serialisation each, and four latencies in all.
  CHECK(alone.last_delivery.at(0) == kLat + n * kSer + 2 * kSer + 3 * kLat);
  // Shared: the uplink carries 2n frames back to back (job 0's first at each instant); job 1's
  // last frame is the last of them.
  CHECK(shared.last_delivery.at(1) == kLat + 2 * n * kSer + 2 * kSer + 3 * kLat);
  CHECK(shared.last_delivery.at(0) == kLat + (2 * n - 1) * kSer + 2 * kSer + 3 * kLat);
  const double slowdown = static_cast<double>(shared.last_delivery.at(1)) / static_cast<double>(alone.last_delivery.at(0));
  CHECK(slowdown == Approx(2.0).epsilon(0.01));
  CHECK(shared.dropped.empty());
}

TEST_CASE("a full port drops at its tail: one frame an instant once the backlog reaches the buffer", "[cluster]") {
  // Two frames arrive every kSer and one leaves; with a buffer of B frames the backlog before
  // instant k is k frames, so job 1's frame is first dropped at k = B - 1 and then at every
  // instant: n - (B - 1) drops, all job 1's (job 0's frame comes first at each instant).
  const unsigned n = 50;
  const unsigned b = 10;
  const Fabric f = tiny(b);
  Outcome o = two_flows(f, n, true);
  CHECK(o.dropped[1] == n - (b - 1));
  CHECK(o.dropped[0] == 0);
  CHECK(o.delivered[0] == n);
  CHECK(o.delivered[1] == b - 1);
}

TEST_CASE("the fabric refuses a frame with a wrong path, no bytes, or from the past", "[cluster]") {
  const Fabric f = tiny(10);
  FabricSim sim(f, kLat);
  CHECK_THROWS_AS(sim.inject({1, 0, 0, 3, kFrame, f.path(1, 3, 0)}, 0), std::invalid_argument);
  CHECK_THROWS_AS(sim.inject({1, 0, 0, 3, 0, f.path(0, 3, 0)}, 0), std::invalid_argument);
  sim.run_until(1'000'000, {}, {});
  // It would reach its leaf at 999,999 ps, before the time the fabric has run to.
  CHECK_THROWS_AS(sim.inject({1, 0, 0, 3, kFrame, f.path(0, 3, 0)}, 1'000'000 - kLat - 1), std::invalid_argument);
  sim.inject({1, 0, 0, 3, kFrame, f.path(0, 3, 0)}, 1'000'000 - kLat);  // reaches it at 1,000,000 ps
  CHECK(sim.next_event_ps() == 1'000'000);
}
