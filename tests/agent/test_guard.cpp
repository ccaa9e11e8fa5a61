// The starvation guard (guard.hpp): which tenants it lifts, when, and what it changes.
#include <catch2/catch.hpp>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/error.hpp"
#include "nicsched/control/guard.hpp"
#include "nicsched/control/nic_env.hpp"
#include "telemetry_fixture.hpp"

using namespace nicsched::control;
using namespace nicsched::testing;
using nicsched::host::Policy;

namespace {

// Tenant 0 at the top level with a large quantum, tenants 1-3 below it.
Policy ordered_policy() {
  Policy p;
  p.tenants.resize(4);
  for (std::uint32_t t = 0; t < 4; ++t) {
    p.tenants[t].priority = t == 0 ? 0 : 2;
    p.tenants[t].weight = t == 0 ? 12000 : 1500;
  }
  return p;
}

// One interval: tenant 0 sends 40000 bytes and keeps a backlog, tenant 1 sends `t1_bytes`
// and keeps `t1_depth` bytes queued.
void interval(TrackedNic& nic, std::uint64_t t1_bytes, std::uint32_t t1_depth) {
  auto& s = nic.s;
  if (t1_bytes) s.bulk(1, t1_bytes);
  nic.tr.update(s.bulk(0, 40000).depth(0, 30000).depth(1, t1_depth).next(1000));
}

}  // namespace

TEST_CASE("guard: off leaves every decision as it is", "[guard]") {
  TrackedNic nic;
  StarvationGuard off;
  for (int i = 0; i < 50; ++i) {
    interval(nic, 0, 9000);
    auto p = ordered_policy();
    off.apply(nic.tr, p);
    CHECK(p == ordered_policy());
  }
  CHECK(off.lifts() == 0);
}

TEST_CASE("guard: a tenant held back for N intervals in a row is lifted until its queue drains", "[guard]") {
  TrackedNic nic;
  StarvationGuard g({.intervals = 3, .share = 0.25});
  auto decide = [&](std::uint64_t bytes, std::uint32_t depth) {
    interval(nic, bytes, depth);
    auto p = ordered_policy();
    g.apply(nic.tr, p);
    return p;
  };
  // Two held-back intervals, then one where it carries 12000 of the backlogged mean
  // 26000 (>= 0.25 x): the count starts again.
  CHECK(decide(0, 9000) == ordered_policy());
  CHECK(decide(100, 9000) == ordered_policy());  // 100 < 0.25 x 20050
  CHECK(decide(12000, 9000) == ordered_policy());
  CHECK(decide(0, 9000) == ordered_policy());
  CHECK(decide(0, 9000) == ordered_policy());
  auto p = decide(0, 9000);  // the third in a row
  CHECK(g.lifted()[1]);
  CHECK(g.lifts() == 1);
  CHECK(p.tenants[1].priority == 0);
  CHECK(p.tenants[1].weight == 12000);  // the largest quantum at the top level
  CHECK(p.tenants[0] == ordered_policy().tenants[0]);
  CHECK(p.tenants[2] == ordered_policy().tenants[2]);  // idle: untouched
  // Lifted, it is served; it stays lifted while it has a backlog ...
  p = decide(20000, 5000);
  CHECK(p.tenants[1].priority == 0);
  // ... and goes back to the controller's decision once its bulk queue is empty.
  p = decide(5000, 0);
  CHECK_FALSE(g.lifted()[1]);
  CHECK(p == ordered_policy());
  CHECK(g.lifts() == 1);
  g.reset();
  CHECK(g.lifts() == 0);
}

TEST_CASE("guard: tenants served alike are never held back, however little they carry", "[guard]") {
  TrackedNic nic;
  auto& s = nic.s;
  StarvationGuard g({.intervals = 1, .share = 1.0});
  for (int i = 0; i < 10; ++i) {
    for (std::size_t t = 0; t < 4; ++t) s.bulk(t, 100).depth(t, 50000);  // a crypto-bound stall
    nic.tr.update(s.next(1000));
    auto p = ordered_policy();
    g.apply(nic.tr, p);
    CHECK(p == ordered_policy());
  }
}

TEST_CASE("guard: NAME+guard wraps a baseline and names bad suffixes", "[guard]") {
  CHECK(make_baseline("progress+guard")->name() == "progress+guard");
  CHECK(kDefaultGuardIntervals == 32);
  CHECK(make_baseline("sp+guard2")->name() == "sp+guard2");
  // sp puts tenant 1 below tenant 0; two held-back intervals lift it.
  TrackedNic nic;
  auto sp = make_baseline("sp");
  auto guarded = make_baseline("sp+guard2");
  Policy base;
  base.tenants.resize(4);
  interval(nic, 0, 9000);
  CHECK(guarded->decide(nic.tr, base) == sp->decide(nic.tr, base));
  interval(nic, 0, 9000);
  const auto p = guarded->decide(nic.tr, base);
  CHECK(sp->decide(nic.tr, base).tenants[1].priority == 1);
  CHECK(p.tenants[1].priority == 0);
  guarded->reset();
  interval(nic, 0, 9000);
  CHECK(guarded->decide(nic.tr, base) == sp->decide(nic.tr, base));
  for (const std::string bad : {"sp+guard0", "sp+guardx", "sp+guard-1", "sp+guard1234567"}) {
    INFO(bad);
    CHECK_THROWS_WITH(make_baseline(bad), Catch::Contains(bad) && Catch::Contains("interval count"));
  }
  CHECK_THROWS_WITH(make_baseline("lifo+guard"), Catch::Contains("'lifo'") && Catch::Contains("NAME+guard"));
}

TEST_CASE("guard: the env config's guard keys", "[guard]") {
  const auto c = parse_env_config("guard_intervals: 32\nguard_share: 0.5\n", "t.yaml");
  CHECK(c.guard().intervals == 32);
  CHECK(c.guard().share == 0.5);
  CHECK(parse_env_config(env_config_yaml(c), "again") .guard_intervals == 32);
  CHECK_FALSE(parse_env_config("history: 4\n", "t.yaml").guard().on());  // absent: off
  CHECK_THROWS_WITH(parse_env_config("guard_share: 0\n", "t.yaml"),
                    Catch::Contains("t.yaml") && Catch::Contains("guard_share"));
  CHECK_THROWS_WITH(parse_env_config("guard_share: 1.5\n", "t.yaml"), Catch::Contains("guard_share"));
  CHECK_THROWS_WITH(parse_env_config("guard_intervals: -3\n", "t.yaml"), Catch::Contains("guard_intervals"));
  CHECK_THROWS_WITH(StarvationGuard({.intervals = 1, .share = 0.0}), Catch::Contains("share"));
}
