// The lookahead oracle (control::run_lookahead) on the simulator (model backend): at every
// decision it commits the best of the copies it played, so the run scores at most what any
// candidate scored on any copy, and at most every candidate played alone for the whole
// run; the same scenario and seed give the same choices and the same run; bad settings
// are refused naming what is wrong.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "nicsched/control/error.hpp"
#include "nicsched/control/lookahead.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/sim/scenario.hpp"

using namespace nicsched::control;

namespace {

constexpr std::uint64_t kInterval = 2000;
constexpr std::uint64_t kIterations = 6;

// Three DDP jobs whose bursts collide (what the order of service decides), a fourth joining
// later, and an FL client that uses the crypto engine: no single rule is best throughout.
const char* const kMixed = R"(
name: lookahead_mixed
seed: 3
scale: 1000
duration_s: 10
nic: {backend: model, tenants: 8, crypto_slots: 4, crypto_bytes_per_cycle: 8, crypto_latency: 64}
tenants:
  - {name: resnet-a, type: ddp, model: resnet50, compute_ms: 40, start_ms: 0, jitter: 0.02}
  - {name: resnet-b, type: ddp, model: resnet50, compute_ms: 40, start_ms: 2, jitter: 0.02}
  - {name: bert, type: ddp, model: bert, compute_ms: 60, start_ms: 4, jitter: 0.02}
  - {name: fl, type: fl, update_mb: 20, train_ms: 20, expansion: 1.0, start_ms: 1}
  - {name: late, type: ddp, model: resnet50, compute_ms: 40, start_ms: 120, jitter: 0.02}
)";

const ScenarioEntry& mixed() {
  static const ScenarioEntry e =
      make_scenario_entry(nicsched::sim::parse_scenario(kMixed, "lookahead_mixed"), std::nullopt,
                          nicsched::sim::NicBackend::kModel, 4);
  return e;
}

const std::vector<std::string> kArms = {"fifo", "progress+guard", "sp", "las", "crypto-prop"};

std::vector<std::unique_ptr<Controller>> arms(const ScenarioEntry& e) {
  std::vector<std::unique_ptr<Controller>> out;
  for (const auto& n : kArms) out.push_back(make_scenario_baseline(n, e.scenario));
  return out;
}

LookaheadConfig config() {
  LookaheadConfig c;
  c.every = 24;
  c.horizon = 24;
  return c;
}

}  // namespace

TEST_CASE("the lookahead oracle never scores worse than any candidate it played", "[lookahead]") {
  const ScenarioEntry& e = mixed();
  for (const std::uint64_t seed : {1ULL, 2ULL}) {
    INFO("seed " << seed);
    const LookaheadResult r = run_lookahead(e, seed, arms(e), kInterval, kIterations, config());
    REQUIRE(r.arms.size() == kArms.size() + 1);
    CHECK(r.arms.back() == kHoldArm);
    REQUIRE(r.decisions.size() >= 3);
    REQUIRE_FALSE(std::isnan(r.score));
    // Each decision commits the best copy; the run scores what its last commitment projected.
    for (const auto& d : r.decisions) {
      INFO("decision " << d.decision);
      REQUIRE(d.arm_scores.size() == r.arms.size());
      for (const double s : d.arm_scores) {
        CHECK_FALSE(s < d.best_score);
        CHECK_FALSE(s < r.score);
      }
      CHECK_FALSE(d.incumbent_score < d.best_score);
      CHECK(r.score <= d.best_score);
    }
    CHECK(r.score == r.decisions.back().best_score);
    // Every arm played alone from reset to the end, outside the lookahead: what its first
    // decision's copies scored, and never better than the lookahead run.
    for (std::size_t a = 0; a < kArms.size(); ++a) {
      INFO("arm " << kArms[a]);
      auto c = make_scenario_baseline(kArms[a], e.scenario);
      const double alone = score_run(run_controller(e, seed, *c, kInterval, kIterations), e.scenario).norm_time;
      CHECK(alone == r.decisions.front().arm_scores[a]);
      CHECK(r.score <= alone);
    }
  }
}

TEST_CASE("the lookahead oracle is deterministic: the same seed, the same choices and run", "[lookahead]") {
  const ScenarioEntry& e = mixed();
  const LookaheadResult a = run_lookahead(e, 3, arms(e), kInterval, kIterations, config());
  const LookaheadResult b = run_lookahead(e, 3, arms(e), kInterval, kIterations, config());
  REQUIRE(a.decisions.size() == b.decisions.size());
  for (std::size_t d = 0; d < a.decisions.size(); ++d) {
    CHECK(a.decisions[d].decision == b.decisions[d].decision);
    CHECK(a.decisions[d].arm_scores == b.decisions[d].arm_scores);
    CHECK(a.decisions[d].chosen == b.decisions[d].chosen);
  }
  CHECK(a.score == b.score);
  CHECK(a.run.metrics.cycles == b.run.metrics.cycles);
  CHECK(a.run.bandwidth_gbps == b.run.bandwidth_gbps);
  CHECK(a.forks == b.forks);
}

TEST_CASE("the lookahead oracle refuses bad settings, naming them", "[lookahead]") {
  const ScenarioEntry& e = mixed();
  LookaheadConfig c = config();
  c.every = 0;
  CHECK_THROWS_WITH(run_lookahead(e, 1, arms(e), kInterval, kIterations, c), Catch::Contains("every (k)"));
  c = config();
  c.horizon = 0;
  CHECK_THROWS_WITH(run_lookahead(e, 1, arms(e), kInterval, kIterations, c), Catch::Contains("horizon (H)"));
  CHECK_THROWS_WITH(run_lookahead(e, 1, {}, kInterval, kIterations, config()), Catch::Contains("no candidate"));
}
