// Whole-scenario evaluation on the simulator (model backend): the stopping rule (every
// training tenant finished N iterations / rounds, or the scenario's end), the run score,
// and the oracle judged by the simulator, never worse than FIFO on a small fixture.
#include <catch2/catch.hpp>

#include <cmath>

#include "nicsched/control/oracle.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/sim/scenario.hpp"

using nicsched::control::make_scenario_entry;
using nicsched::control::run_controller;
using nicsched::control::ScenarioEntry;

namespace {

// Two DDP jobs that need more than the link together and one FL client on slow crypto
// engines; small sizes so that an iteration takes tens of simulated microseconds.
const char* const kFixture = R"(
name: eval_fixture
seed: 3
scale: 1000
duration_s: 3
nic: {backend: model, tenants: 4, crypto_slots: 2, crypto_bytes_per_cycle: 4, crypto_latency: 64}
tenants:
  - {name: a, type: ddp, model: custom, model_mb: 200, compute_ms: 20}
  - {name: b, type: ddp, model: custom, model_mb: 300, compute_ms: 25, start_ms: 2}
  - {name: fl, type: fl, update_mb: 10, train_ms: 30, expansion: 2.0}
)";

constexpr std::uint64_t kInterval = 2000;

const ScenarioEntry& fixture() {
  static const ScenarioEntry e =
      make_scenario_entry(nicsched::sim::parse_scenario(kFixture, "eval_fixture"), std::nullopt, std::nullopt, 4);
  return e;
}

std::uint64_t fewest_iterations(const nicsched::control::RunResult& r) {
  std::uint64_t fewest = ~0ULL;
  for (const auto& t : r.metrics.tenants) {
    if (t.kind == "ddp" || t.kind == "fl") fewest = std::min(fewest, t.completed);
  }
  return fewest;
}

}  // namespace

TEST_CASE("eval: a run stops at the first interval where every tenant did N iterations", "[eval]") {
  const auto& e = fixture();
  auto fifo = nicsched::control::make_baseline("fifo");
  const auto r = run_controller(e, 1, *fifo, kInterval, 5);
  const std::uint64_t end = e.scenario.duration_cycles;
  REQUIRE(r.metrics.cycles < end);  // the rule, not the scenario's end, stopped it
  CHECK(fewest_iterations(r) >= 5);
  // One interval earlier (the same seed replays the same run), some tenant had not.
  ScenarioEntry shorter = e;
  shorter.cycles = r.metrics.cycles - kInterval;
  const auto before = run_controller(shorter, 1, *fifo, kInterval);
  CHECK(before.metrics.cycles == r.metrics.cycles - kInterval);
  CHECK(fewest_iterations(before) < 5);
}

TEST_CASE("eval: a run that cannot reach N iterations ends with the scenario", "[eval]") {
  ScenarioEntry e = fixture();
  e.cycles = 400000;  // far too short for 1000 iterations
  auto fifo = nicsched::control::make_baseline("fifo");
  const auto r = run_controller(e, 1, *fifo, kInterval, 1000);
  CHECK(r.metrics.cycles == 400000);
  CHECK(fewest_iterations(r) < 1000);
}

TEST_CASE("eval: a tenant that left does not hold the run open", "[eval]") {
  auto s = nicsched::sim::parse_scenario(kFixture, "eval_fixture");
  s.name = "eval_fixture_leaves";   // its own solo-baseline cache entry
  s.tenants[2].stop_cycle = 20000;  // the FL client leaves after 80 us
  const auto e = make_scenario_entry(s, std::nullopt, std::nullopt, 4);
  auto fifo = nicsched::control::make_baseline("fifo");
  const auto r = run_controller(e, 1, *fifo, kInterval, 5);
  CHECK(r.metrics.cycles < e.scenario.duration_cycles);
  CHECK(r.metrics.tenants[2].completed < 5);
  CHECK(r.metrics.tenants[0].completed >= 5);
  CHECK(r.metrics.tenants[1].completed >= 5);
}

TEST_CASE("eval: the oracle judged by the simulator is never worse than FIFO", "[eval][oracle]") {
  const auto& e = fixture();
  nicsched::control::OracleSpace space;
  space.tenants = e.scenario.nic_tenants;
  space.crypto_slots = e.scenario.crypto_slots;
  space.active = {0, 1, 2};
  space.crypto = {2};
  auto judge = [&](const nicsched::control::StaticConfig& c) {
    double sum = 0;
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      nicsched::control::StaticController ctl(c, "oracle");
      sum += nicsched::control::score_run(run_controller(e, seed, ctl, kInterval, 4), e.scenario).norm_time;
    }
    return sum / 2;
  };
  nicsched::control::OracleBudget b;
  b.evaluations = 6;
  const auto r = nicsched::control::search_oracle(space, judge, b);
  // FIFO judged independently: the fifo baseline on the same seeds and stopping rule.
  double fifo_sum = 0;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    auto fifo = nicsched::control::make_baseline("fifo");
    fifo_sum += nicsched::control::score_run(run_controller(e, seed, *fifo, kInterval, 4), e.scenario).norm_time;
  }
  REQUIRE(std::isfinite(fifo_sum));
  CHECK(r.fifo_score == Approx(fifo_sum / 2));
  CHECK(r.best_score <= r.fifo_score);
  CHECK(r.best_score == Approx(judge(r.best)));
  CHECK(r.evaluations == 6);
  CHECK(fifo_sum / 2 > 1.0);  // contended: FIFO is slower than solo
}

TEST_CASE("eval: a run's score is its tenants' iteration time over their solo time", "[eval]") {
  const auto& e = fixture();
  auto fifo = nicsched::control::make_baseline("fifo");
  const auto r = run_controller(e, 1, *fifo, kInterval, 4);
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& t = r.metrics.tenants[i];
    REQUIRE(t.iter_mean_us);
    REQUIRE(e.solo[i]);
    sum += *t.iter_mean_us / (*e.solo[i]->iter_mean_cycles / e.scenario.clock_mhz);
    ++n;
  }
  const auto s = nicsched::control::score_run(r, e.scenario);
  CHECK(s.norm_time == Approx(sum / n));
  CHECK(s.speed <= 1.0 + 1e-9);
}
