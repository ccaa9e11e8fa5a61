// Baseline controllers: each sets what it controls from the tracked telemetry.
#include <catch2/catch.hpp>

#include <algorithm>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/env.hpp"
#include "telemetry_fixture.hpp"

using namespace nicsched::control;
using namespace nicsched::testing;
using nicsched::host::ArbMode;
using nicsched::host::Policy;

namespace {

Policy base_policy(std::uint32_t tenants) {
  Policy p;
  p.enable = false;  // a base setting the controllers must keep
  p.tenants.resize(tenants);
  for (auto& t : p.tenants) t.qlimit_bulk_bytes = 100000;
  return p;
}

}  // namespace

TEST_CASE("baselines: fifo and fair keep the base settings and treat tenants alike", "[baselines]") {
  TrackedNic nic;
  auto& [caps, s, tr] = nic;
  tr.update(s.bulk(0, 1000).next(1000));
  const auto fifo = make_baseline("fifo")->decide(tr, base_policy(4));
  CHECK(fifo.arb_mode == ArbMode::kFifo);
  CHECK_FALSE(fifo.enable);
  const auto fair = make_baseline("fair")->decide(tr, base_policy(4));
  CHECK(fair.arb_mode == ArbMode::kDwrr);
  for (const auto& t : fair.tenants) {
    CHECK(t.weight == 1500);
    CHECK(t.priority == 0);
    CHECK(t.crypto_quota == 4);
    CHECK(t.qlimit_bulk_bytes == 100000);
  }
}

TEST_CASE("baselines: static priority follows the given levels, capped to the NIC's", "[baselines]") {
  TrackedNic nic(test_caps(4, 2));
  auto& [caps, s, tr] = nic;
  tr.update(s.next(1000));
  auto p = make_baseline("sp")->decide(tr, base_policy(4));
  CHECK(p.arb_mode == ArbMode::kSpDwrr);
  CHECK(p.tenants[0].priority == 0);
  CHECK(p.tenants[3].priority == 1);  // index order, capped at the lowest level
  p = make_baseline("sp", {1, 0, 1, 0})->decide(tr, base_policy(4));
  CHECK(p.tenants[0].priority == 1);
  CHECK(p.tenants[1].priority == 0);
}

TEST_CASE("baselines: stagger ranks bursts by start, earliest first", "[baselines]") {
  TrackedNic nic;
  auto& [caps, s, tr] = nic;
  tr.update(s.bulk(2, 1000).next(1000));                // tenant 2 starts first
  tr.update(s.bulk(2, 1000).bulk(0, 1000).next(1000));  // then tenant 0
  const auto p = make_baseline("stagger")->decide(tr, base_policy(4));
  CHECK(p.tenants[2].priority == 0);
  CHECK(p.tenants[0].priority == 1);
  CHECK(p.tenants[1].priority == 3);  // idle: lowest
  CHECK(p.tenants[3].priority == 3);
}

TEST_CASE("baselines: las demotes bursts that have sent more", "[baselines]") {
  TrackedNic nic;
  auto& [caps, s, tr] = nic;  // one interval at line rate = 50000 bytes
  tr.update(s.bulk(0, 40000).bulk(1, 40000).next(1000));
  tr.update(s.bulk(0, 50000).bulk(1, 1000).next(1000));  // t0: 90000 (> 1 level), t1: 41000
  tr.update(s.bulk(0, 150000).bulk(1, 1000).bulk(3, 100).next(1000));  // t0: 240000 > 4 levels
  const auto p = make_baseline("las")->decide(tr, base_policy(4));
  CHECK(p.tenants[3].priority == 0);  // fresh burst
  CHECK(p.tenants[1].priority == 0);  // 42000 < 50000
  CHECK(p.tenants[0].priority == 2);  // 240000 > 4 * 50000: two thresholds passed
  CHECK(p.tenants[2].priority == 3);  // idle
}

TEST_CASE("baselines: progress-aware serves the least remaining burst first", "[baselines]") {
  TrackedNic nic;
  auto& [caps, s, tr] = nic;
  tr.update(s.bulk(0, 100000).bulk(1, 10000).next(1000));  // first bursts: sizes learnt
  tr.update(s.next(1000));
  tr.update(s.bulk(0, 90000).bulk(1, 2000).next(1000));  // t0 10000 left, t1 8000 left
  auto p = make_baseline("progress")->decide(tr, base_policy(4));
  CHECK(p.tenants[1].priority == 0);
  CHECK(p.tenants[0].priority == 1);
  tr.update(s.bulk(0, 9000).bulk(1, 1000).next(1000));  // t0 1000 left, t1 7000 left
  p = make_baseline("progress")->decide(tr, base_policy(4));
  CHECK(p.tenants[0].priority == 0);
  CHECK(p.tenants[1].priority == 1);
}

TEST_CASE("baselines: crypto splits, equal and by demand", "[baselines]") {
  TrackedNic nic(test_caps(4, 4, 4));
  auto& [caps, s, tr] = nic;
  tr.update(s.crypto(0, 3000, 0).crypto(1, 1000, 0).bulk(2, 1000).next(1000));
  auto p = make_baseline("crypto-equal")->decide(tr, base_policy(4));
  CHECK(p.tenants[0].crypto_quota == 2);
  CHECK(p.tenants[1].crypto_quota == 2);
  CHECK(p.tenants[2].crypto_quota == 4);  // no crypto use: not limited
  p = make_baseline("crypto-prop")->decide(tr, base_policy(4));
  CHECK(p.tenants[0].crypto_quota == 3);
  CHECK(p.tenants[1].crypto_quota == 1);
}

TEST_CASE("baselines: rank_to_levels keeps the lowest level for unranked tenants", "[baselines]") {
  CHECK(rank_to_levels({5, -1, 2, 9, 7}, 4) == std::vector<std::uint32_t>{1, 3, 0, 2, 2});
  CHECK(rank_to_levels({1, -1}, 1) == std::vector<std::uint32_t>{0, 0});
}

TEST_CASE("baselines: an unknown name lists the known ones", "[baselines]") {
  try {
    (void)make_baseline("round-robin");
    FAIL("no error");
  } catch (const nicsched::control::EnvError& e) {
    CHECK_THAT(e.what(), Catch::Contains("round-robin") && Catch::Contains("stagger"));
  }
  for (const auto& name : nicsched::control::baseline_names()) CHECK(make_baseline(name)->name() == name);
}

TEST_CASE("baselines: the static ones decide the same with or without telemetry", "[baselines]") {
  // nicsim writes a static baseline's decision once, before any telemetry exists.
  const auto caps = test_caps();
  TelemetryScript s(caps);
  const TelemetryTracker none(caps, 50.0);
  TelemetryTracker busy(caps, 50.0);
  busy.reset(s.now());
  busy.update(s.bulk(0, 40000).bulk(2, 90000).crypto(1, 3000, 500).next(1000));
  const auto& all = nicsched::control::baseline_names();
  for (const auto& name : nicsched::control::static_baseline_names()) {
    INFO(name);
    CHECK(std::find(all.begin(), all.end(), name) != all.end());
    CHECK(make_baseline(name, {2, 0, 1})->decide(none, base_policy(4)) ==
          make_baseline(name, {2, 0, 1})->decide(busy, base_policy(4)));
  }
  CHECK(nicsched::control::static_baseline_names() == std::vector<std::string>{"fifo", "fair", "sp"});
}

TEST_CASE("baselines: the base quantum is the register map's reset value", "[baselines]") {
  CHECK(nicsched::control::kBaseQuantum == 1500);
  CHECK(nicsched::control::kBaseQuantum == nicsched::host::TenantPolicy{}.weight);
}
