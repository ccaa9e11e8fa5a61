// The lookahead oracle (control::run_lookahead) on the simulator (model backend): at every
// decision it commits the best of the copies it played, so the run scores at most what any
// candidate scored on any copy, and at most every candidate played alone for the whole
// run; the same scenario and seed give the same choices and the same run; bad settings
// are refused naming what is wrong.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "nicsched/control/error.hpp"
#include "nicsched/control/lookahead.hpp"
#include "nicsched/control/panel.hpp"
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

TEST_CASE("the lookahead oracle takes k from the run's length with per_run", "[lookahead]") {
  const ScenarioEntry& e = mixed();
  LookaheadConfig c;
  c.every = 1;  // not used with per_run
  c.per_run = 4;
  c.horizon_k = 3;
  const std::uint64_t seed = 2;
  const LookaheadResult r = run_lookahead(e, seed, arms(e), kInterval, kIterations, c);
  // The default rule alone, outside the lookahead: its run's length in decisions.
  ControlledRun alone(e, seed, make_scenario_baseline(kArms[r.default_arm], e.scenario), kInterval, kIterations);
  std::uint64_t length = 0;
  while (alone.step()) ++length;
  CHECK(score_run(alone.result(), e.scenario).norm_time == r.decisions.front().best_score);
  CHECK(r.every == length / (c.per_run + 1));
  CHECK(r.horizon == c.horizon_k * r.every);
  // About per_run decisions after the first (the committed run may end a little earlier or
  // later than the default rule's), each at a multiple of k.
  REQUIRE(r.decisions.size() >= c.per_run);
  CHECK(r.decisions.size() <= c.per_run + 2);
  for (std::size_t d = 1; d < r.decisions.size(); ++d) CHECK(r.decisions[d].decision == d * r.every);
  // The guarantee is the same: never worse than any copy or any arm alone.
  for (const auto& d : r.decisions) {
    for (const double s : d.arm_scores) CHECK_FALSE(s < r.score);
  }
  CHECK(r.score == r.decisions.back().best_score);
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
  c = config();
  c.per_run = 4;
  c.horizon_k = 0;
  CHECK_THROWS_WITH(run_lookahead(e, 1, arms(e), kInterval, kIterations, c), Catch::Contains("horizon_k"));
}

namespace {

// The strategy action over three strategies; the student is `sp`, none of them.
NicEnvConfig strategy_env() {
  NicEnvConfig env;
  env.interval_cycles = kInterval;
  env.action = ActionKind::kStrategy;
  env.strategies = {"fifo", "progress+guard", "las"};
  return env;
}

// Written apart from the oracle: every strategy and the student decide every interval (a
// Panel), the student is committed before decision `from`, `arm` for `horizon` decisions
// from it, then `then` to the end.
class Schedule final : public Controller {
 public:
  Schedule(const NicEnvConfig& env, std::uint64_t from, std::uint64_t horizon, std::size_t arm, std::size_t then)
      : from_(from), horizon_(horizon), arm_(arm), then_(then) {
    for (const auto& s : env.strategies) panel_.add(make_baseline(s));
    panel_.add(make_baseline("sp"));
  }
  [[nodiscard]] std::string name() const override { return "schedule"; }
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<Schedule>(*this); }
  nicsched::host::Policy decide(const TelemetryTracker& tracker, const nicsched::host::Policy& base) override {
    panel_.decide_all(tracker, base);
    const std::uint64_t n = n_++;
    return panel_.decision(n < from_ ? panel_.size() - 1 : n < from_ + horizon_ ? arm_ : then_);
  }

 private:
  Panel panel_;
  std::uint64_t from_, horizon_;
  std::size_t arm_, then_;
  std::uint64_t n_ = 0;
};

// The labels of the student `sp`'s run, checked against plans written apart from the
// oracle: each strategy's copy scores what "sp, then the strategy for H, then `then`"
// scores on a run of its own, and the label is the lowest (first on a tie).
void check_labels(const NicEnvConfig& env, const LookaheadConfig& cfg, LabelContinuation then) {
  const ScenarioEntry& e = mixed();
  const LabelledRun r = run_labelled(e, 1, make_baseline("sp"), env, kIterations, cfg, then);
  REQUIRE(r.states.size() >= 2);
  // The student's run is what it runs alone: labelling forks, it does not steer.
  auto sp = make_baseline("sp");
  CHECK(r.score == score_run(run_controller(e, 1, *sp, kInterval, kIterations), e.scenario).norm_time);
  // The default rule: each strategy alone from the start.
  for (std::size_t a = 0; a < env.strategies.size(); ++a) {
    auto c = make_baseline(env.strategies[a]);
    CHECK(r.default_scores[a] == score_run(run_controller(e, 1, *c, kInterval, kIterations), e.scenario).norm_time);
    CHECK_FALSE(r.default_scores[a] < r.default_scores[r.default_arm]);
  }
  const std::size_t after = then == LabelContinuation::kStudent ? env.strategies.size() : r.default_arm;
  for (std::size_t i = 0; i < 2; ++i) {
    const LabelledState& st = r.states[i];
    INFO("decision " << st.decision);
    CHECK(st.decision == (i + 1) * cfg.every);
    REQUIRE(st.arm_scores.size() == env.strategies.size());
    CHECK(st.observation.size() == r.states.front().observation.size());
    CHECK(std::any_of(st.observation.begin(), st.observation.end(), [](float x) { return x != 0.0F; }));
    CHECK(st.mask == std::vector<std::uint8_t>(env.strategies.size(), 1));
    for (std::size_t a = 0; a < env.strategies.size(); ++a) {
      INFO("strategy " << env.strategies[a]);
      Schedule plan(env, st.decision, cfg.horizon, a, after);
      CHECK(st.arm_scores[a] == score_run(run_controller(e, 1, plan, kInterval, kIterations), e.scenario).norm_time);
      CHECK_FALSE(st.arm_scores[a] < st.arm_scores[st.label]);
    }
    for (std::size_t a = 0; a < st.label; ++a) CHECK(st.arm_scores[a] > st.arm_scores[st.label]);  // first on a tie
  }
}

}  // namespace

TEST_CASE("DAgger labels are the oracle's choice among the strategies on the same fork", "[lookahead][dagger]") {
  check_labels(strategy_env(), config(), LabelContinuation::kDefaultRule);
}

TEST_CASE("DAgger labels with the student's continuation: the copies continue with the student",
          "[lookahead][dagger]") {
  check_labels(strategy_env(), config(), LabelContinuation::kStudent);
  // The continuation matters on this scenario, so the check above says something.
  const LabelledRun by_default =
      run_labelled(mixed(), 1, make_baseline("sp"), strategy_env(), kIterations, config(), LabelContinuation::kDefaultRule);
  const LabelledRun by_student =
      run_labelled(mixed(), 1, make_baseline("sp"), strategy_env(), kIterations, config(), LabelContinuation::kStudent);
  CHECK(by_default.states.front().arm_scores != by_student.states.front().arm_scores);
}

TEST_CASE("DAgger labels under a strategy hold: at the student's decisions only", "[lookahead][dagger]") {
  NicEnvConfig env = strategy_env();
  env.strategy_hold = 12;
  check_labels(env, config(), LabelContinuation::kDefaultRule);  // k = 24, a multiple of 12
  LookaheadConfig c = config();
  c.every = 18;
  CHECK_THROWS_WITH(run_labelled(mixed(), 1, make_baseline("sp"), env, kIterations, c),
                    Catch::Contains("strategy_hold") && Catch::Contains("every (k = 18)"));
}

TEST_CASE("DAgger rows weigh by how much their choice matters", "[lookahead][dagger]") {
  LabelledState st;
  st.arm_scores = {2.0, 1.0, 1.5};
  CHECK(st.gap() == Approx(0.5));
  st.arm_scores = {1.0, 1.2, 1.0};
  CHECK(st.gap() == 0.0);  // a tie: the choice does not matter
  st.arm_scores = {1.0, NAN};
  CHECK(st.gap() == 0.0);
  DaggerData data;
  data.gaps = {0.0F, 0.01F, 0.03F};
  data.labels = {0, 1, 2};
  const std::vector<float> w = data.gap_weights();
  REQUIRE(w.size() == 3);
  CHECK(w[0] == 0.0F);
  CHECK(w[1] == Approx(0.75));
  CHECK(w[2] == Approx(2.25));
  data.gaps = {0.0F, 0.0F, 0.0F};
  CHECK_THROWS_WITH(data.gap_weights(), Catch::Contains("gap"));
}

TEST_CASE("DAgger data keeps every iteration's rows", "[lookahead][dagger]") {
  const ScenarioEntry& e = mixed();
  const NicEnvConfig env = strategy_env();
  const LabelledRun first = run_labelled(e, 1, make_baseline("sp"), env, kIterations, config());
  const LabelledRun second = run_labelled(e, 2, make_baseline("fifo"), env, kIterations, config());
  REQUIRE_FALSE(first.states.empty());
  REQUIRE_FALSE(second.states.empty());
  DaggerData data;
  data.append(first, 0);
  const std::vector<float> before = data.observations;
  data.append(second, 1);
  REQUIRE(data.rows() == first.states.size() + second.states.size());
  CHECK(std::equal(before.begin(), before.end(), data.observations.begin()));
  for (std::size_t i = 0; i < data.rows(); ++i) {
    const bool earlier = i < first.states.size();
    const LabelledState& st = earlier ? first.states[i] : second.states[i - first.states.size()];
    CHECK(data.iterations[i] == (earlier ? 0U : 1U));
    CHECK(data.labels[i] == static_cast<int>(st.label));
    CHECK(data.gaps[i] == static_cast<float>(st.gap()));
    CHECK(std::equal(st.observation.begin(), st.observation.end(),
                     data.observations.begin() + static_cast<std::ptrdiff_t>(i * data.observation_size)));
  }
  LabelledRun other = first;
  other.states.front().observation.push_back(0.0F);
  CHECK_THROWS_WITH(data.append(other, 2), Catch::Contains("observation of"));
}

TEST_CASE("DAgger labels refuse an env without the strategy action and a k from the run's length", "[lookahead][dagger]") {
  NicEnvConfig env = strategy_env();
  env.action = ActionKind::kTenant;
  CHECK_THROWS_WITH(run_labelled(mixed(), 1, make_baseline("sp"), env, kIterations, config()),
                    Catch::Contains("action must be `strategy`"));
  LookaheadConfig c = config();
  c.per_run = 4;
  CHECK_THROWS_WITH(run_labelled(mixed(), 1, make_baseline("sp"), strategy_env(), kIterations, c),
                    Catch::Contains("per_run"));
}

TEST_CASE("DAgger scenario labels: the draw's best strategy over whole runs on the label seeds, at every student decision",
          "[lookahead][dagger]") {
  const ScenarioEntry& e = mixed();
  NicEnvConfig env = strategy_env();
  env.strategy_hold = 12;
  constexpr std::uint64_t kEvery = 24;
  constexpr std::uint32_t kSeeds = 2;
  ParallelFor serial(1);
  const BaselineChoice label = best_baseline(e, env.strategies, kSeeds, kInterval, kIterations, serial);
  // Written apart: each strategy alone for the whole run on seeds 1 and 2, the mean of the
  // two scores; the label is the lowest mean (first on a tie).
  std::vector<double> mean;
  for (const auto& s : env.strategies) {
    double sum = 0;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      auto c = make_baseline(s);
      sum += score_run(run_controller(e, seed, *c, kInterval, kIterations), e.scenario).norm_time;
    }
    mean.push_back(sum / kSeeds);
  }
  std::size_t lowest = 0;
  for (std::size_t a = 1; a < mean.size(); ++a) {
    if (mean[a] < mean[lowest]) lowest = a;
  }
  std::vector<double> sorted = mean;
  std::sort(sorted.begin(), sorted.end());
  REQUIRE(sorted[1] > sorted[0] * 1.001);  // the best and the second-best differ: a label that is not the best fails
  REQUIRE(label.scores.size() == mean.size());
  for (std::size_t a = 0; a < mean.size(); ++a) CHECK(label.scores[a] == Approx(mean[a]).epsilon(1e-12));

  const LabelledRun r = run_scenario_labelled(e, 1, make_baseline("sp"), env, kIterations, kEvery, label);
  // The student's run is what it runs alone; the default rule is the label.
  auto sp = make_baseline("sp");
  CHECK(r.score == score_run(run_controller(e, 1, *sp, kInterval, kIterations), e.scenario).norm_time);
  CHECK(r.default_arm == lowest);
  CHECK(r.default_scores == label.scores);
  CHECK(r.forks == 0);
  // A state at every k-th decision from the first, each with the draw's label and gap.
  REQUIRE(r.states.size() == (r.run.decisions + kEvery - 1) / kEvery);
  for (std::size_t i = 0; i < r.states.size(); ++i) {
    const LabelledState& st = r.states[i];
    INFO("decision " << st.decision);
    CHECK(st.decision == i * kEvery);
    CHECK(st.label == lowest);
    CHECK(st.arm_scores == label.scores);
    CHECK(st.gap() == Approx((sorted[1] - sorted[0]) / sorted[0]).epsilon(1e-9));
    CHECK(st.mask == std::vector<std::uint8_t>(env.strategies.size(), 1));
  }
  // The observations are the student's, as the oracle's labelling records them at the same decisions.
  const LabelledRun oracle = run_labelled(e, 1, make_baseline("sp"), env, kIterations, config());
  REQUIRE(oracle.states.size() >= 2);
  for (std::size_t i = 0; i < 2; ++i) {
    REQUIRE(oracle.states[i].decision == r.states[i + 1].decision);
    CHECK(oracle.states[i].observation == r.states[i + 1].observation);
  }
}

TEST_CASE("DAgger scenario labels refuse a label of another size and a stride off the hold", "[lookahead][dagger]") {
  NicEnvConfig env = strategy_env();
  BaselineChoice label;
  label.scores = {1.0, 2.0};
  CHECK_THROWS_WITH(run_scenario_labelled(mixed(), 1, make_baseline("sp"), env, kIterations, 24, label),
                    Catch::Contains("2 scores for 3 strategies"));
  label.scores = {1.0, 2.0, 3.0};
  env.strategy_hold = 12;
  CHECK_THROWS_WITH(run_scenario_labelled(mixed(), 1, make_baseline("sp"), env, kIterations, 18, label),
                    Catch::Contains("strategy_hold") && Catch::Contains("every (k = 18)"));
  CHECK_THROWS_WITH(run_scenario_labelled(mixed(), 1, make_baseline("sp"), env, kIterations, 0, label),
                    Catch::Contains("every (k)"));
  env.action = ActionKind::kTenant;
  CHECK_THROWS_WITH(run_scenario_labelled(mixed(), 1, make_baseline("sp"), env, kIterations, 24, label),
                    Catch::Contains("action must be `strategy`"));
}
