// The oracle's search over static configurations, against judges whose answers are known:
// it judges FIFO first and never returns anything judged worse, it finds a better
// configuration where one exists, it is deterministic, and its FIFO candidate is exactly
// what the fifo baseline writes.
#include <catch2/catch.hpp>

#include <cmath>

#include "nicsched/control/env.hpp"
#include "nicsched/control/oracle.hpp"
#include "telemetry_fixture.hpp"

using namespace nicsched::control;
using nicsched::host::ArbMode;

namespace {

OracleSpace space4() {
  return {.tenants = 4, .prio_levels = 4, .weight_levels = 4, .crypto_slots = 4, .active = {0, 1, 2}, .crypto = {2}};
}

// A judge with a known best: strict priority with tenant 1 above tenant 0 above tenant 2,
// heavier weights slightly better, and tenant 2's quota at 2 slots. FIFO scores 100.
double known_judge(const StaticConfig& c) {
  if (c.arb_mode == ArbMode::kFifo) return 100.0;
  double score = 50.0;
  if (c.arb_mode == ArbMode::kSpDwrr) {
    if (c.priority[1] < c.priority[0]) score -= 20;
    if (c.priority[0] < c.priority[2]) score -= 10;
  }
  score -= 0.5 * (c.weight_level[0] + c.weight_level[1] + c.weight_level[2]);
  score += std::abs(static_cast<double>(c.crypto_quota[2]) - 2.0);
  return score;
}

// A baseline's decision on a 4-tenant NIC after one interval of telemetry, from `base`.
struct BaselineDecision {
  nicsched::testing::TrackedNic nic;
  TelemetryTracker& tracker = nic.tr;
  nicsched::host::Policy base;
  BaselineDecision() {
    tracker.update(nic.s.bulk(0, 1000).next(1000));
    base.tenants.resize(4);
  }
  nicsched::host::Policy of(const std::string& name, const std::vector<std::uint32_t>& levels = {}) {
    return make_baseline(name, levels)->decide(tracker, base);
  }
};

}  // namespace

TEST_CASE("oracle: FIFO is judged first and the result is never judged worse", "[oracle]") {
  std::vector<StaticConfig> seen;
  // Everything here is worse than FIFO: the oracle must keep FIFO.
  auto worse = [&](const StaticConfig& c) {
    seen.push_back(c);
    return c.arb_mode == ArbMode::kFifo ? 1.0 : 2.0 + static_cast<double>(c.priority[0]);
  };
  OracleBudget b;
  b.evaluations = 12;
  const auto r = search_oracle(space4(), worse, b);
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.front() == fifo_config(space4()));
  CHECK(r.evaluations == seen.size());
  CHECK(r.evaluations == 12);
  // No configuration is judged twice.
  for (std::size_t i = 0; i < seen.size(); ++i) {
    for (std::size_t j = i + 1; j < seen.size(); ++j) CHECK_FALSE(seen[i] == seen[j]);
  }
  CHECK(r.fifo_score == worse(fifo_config(space4())));
  CHECK(r.best == fifo_config(space4()));
  CHECK(r.best_score == r.fifo_score);
  CHECK(r.improvements == 0);
}

TEST_CASE("oracle: finds a better static configuration where one exists", "[oracle]") {
  OracleBudget b;
  b.evaluations = 60;
  const auto r = search_oracle(space4(), known_judge, b);
  CHECK(r.fifo_score == 100.0);
  CHECK(r.best_score == known_judge(r.best));  // the reported score is the judged one
  CHECK(r.best_score < r.fifo_score);
  CHECK(r.improvements > 0);
  CHECK(r.evaluations == 60);
  // Tenants the scenario does not use keep the defaults; quotas move only for crypto users.
  CHECK(r.best.priority[3] == 0);
  CHECK(r.best.weight_level[3] == 0);
  CHECK(r.best.crypto_quota[0] == 4);
  CHECK(r.best.crypto_quota[1] == 4);
}

TEST_CASE("oracle: with work per tenant, two priority orders are fixed candidates", "[oracle]") {
  OracleSpace s = space4();
  s.active = {0, 1, 2, 3};
  s.work = {300.0, 100.0, 0.0, 200.0};  // tenant 2: background
  std::vector<StaticConfig> seen;
  OracleBudget b;
  b.evaluations = 4;
  (void)search_oracle(s, [&](const StaticConfig& c) { seen.push_back(c); return 1.0; }, b);
  REQUIRE(seen.size() == 4);
  CHECK(seen[1].arb_mode == ArbMode::kDwrr);
  CHECK(seen[2].arb_mode == ArbMode::kSpDwrr);
  CHECK(seen[2].priority == std::vector<std::uint32_t>{0, 0, 3, 0});  // training above background
  CHECK(seen[3].arb_mode == ArbMode::kSpDwrr);
  CHECK(seen[3].priority == std::vector<std::uint32_t>{2, 0, 3, 1});  // smallest work first
}

TEST_CASE("oracle: the same seed gives the same search", "[oracle]") {
  OracleBudget b;
  b.evaluations = 20;
  b.seed = 7;
  const auto a = search_oracle(space4(), known_judge, b);
  const auto c = search_oracle(space4(), known_judge, b);
  CHECK(a.best == c.best);
  CHECK(a.best_score == c.best_score);
}

TEST_CASE("oracle: a space smaller than the budget ends the search", "[oracle]") {
  OracleSpace s;
  s.tenants = 1;
  s.prio_levels = 1;
  s.weight_levels = 1;
  s.crypto_slots = 1;
  s.active = {0};
  OracleBudget b;
  b.evaluations = 50;
  const auto r = search_oracle(s, [](const StaticConfig& c) { return c.arb_mode == ArbMode::kDwrr ? 1.0 : 2.0; }, b);
  CHECK(r.evaluations == 3);  // fifo, dwrr, sp-dwrr: all there is
  CHECK(r.best.arb_mode == ArbMode::kDwrr);
}

TEST_CASE("oracle: bad spaces are refused", "[oracle]") {
  auto judge = [](const StaticConfig&) { return 0.0; };
  OracleSpace s = space4();
  s.active.clear();
  CHECK_THROWS_AS(search_oracle(s, judge, {}), EnvError);
  s = space4();
  s.active.push_back(4);
  CHECK_THROWS_AS(search_oracle(s, judge, {}), EnvError);
  s = space4();
  s.crypto = {3};  // not active
  CHECK_THROWS_AS(search_oracle(s, judge, {}), EnvError);
}

TEST_CASE("oracle: its FIFO candidate is what the fifo baseline writes", "[oracle]") {
  BaselineDecision d;
  for (auto& t : d.base.tenants) t.qlimit_bulk_bytes = 12345;  // kept by both
  const auto fifo = d.of("fifo");
  CHECK(to_policy(fifo_config(space4()), d.base) == fifo);
  StaticController ctl(fifo_config(space4()), "oracle");
  CHECK(ctl.decide(d.tracker, d.base) == fifo);
  CHECK(ctl.name() == "oracle");
}

TEST_CASE("oracle: its sp candidate is what the sp baseline writes, judged third", "[oracle]") {
  BaselineDecision d;
  OracleSpace s = space4();
  s.sp_priority = {2, 0, 1, 4};  // tenant 3 unused: past the lowest level, clamped to 3
  CHECK(to_policy(sp_config(s), d.base) == d.of("sp", s.sp_priority));
  CHECK(sp_config(s).priority == std::vector<std::uint32_t>{2, 0, 1, 3});

  // A judge under which the sp configuration is the best there is: the oracle returns it.
  std::vector<StaticConfig> seen;
  OracleBudget b;
  b.evaluations = 6;
  const auto r = search_oracle(s, [&](const StaticConfig& c) {
    seen.push_back(c);
    return c == sp_config(s) ? 0.0 : 1.0;
  }, b);
  REQUIRE(seen.size() >= 3);
  CHECK(seen[2] == sp_config(s));
  CHECK(r.best == sp_config(s));
  CHECK(r.best_score == 0.0);

  s.sp_priority = {0, 1};  // not one per NIC tenant
  CHECK_THROWS_AS(search_oracle(s, [](const StaticConfig&) { return 0.0; }, b), EnvError);
}

TEST_CASE("oracle: configurations are described over the active tenants", "[oracle]") {
  CHECK(describe(fifo_config(space4()), space4()) == "fifo q=[4]");
  StaticConfig c = fifo_config(space4());
  c.arb_mode = ArbMode::kSpDwrr;
  c.priority = {1, 0, 3, 0};
  c.weight_level = {2, 0, 1, 0};
  c.crypto_quota = {4, 4, 2, 4};
  CHECK(describe(c, space4()) == "sp-dwrr p=[1,0,3] w=[2,0,1] q=[2]");
}
