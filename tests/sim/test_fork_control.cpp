// ControlledRun::fork: a closed control loop (simulation, telemetry tracker, controller
// with its own state, reward progress) forked at a decision continues exactly as the
// original, and a copy run under another controller leaves the original as an unforked run.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <random>
#include <string>
#include <vector>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/report.hpp"

using namespace nicsched;
using namespace nicsched::control;
using nlohmann::json;

namespace {

constexpr std::uint64_t kInterval = 2000;

// No solo baselines (the comparison needs none; slowdowns are then null on both sides).
ScenarioEntry entry(sim::Scenario s, std::uint64_t cycles) {
  s.backend = sim::NicBackend::kModel;
  ScenarioEntry e;
  e.solo.resize(s.tenants.size());
  e.scenario = std::move(s);
  e.cycles = cycles;
  return e;
}

ScenarioEntry scenario_entry(const char* name, std::uint64_t cycles) {
  return entry(sim::load_scenario(std::string(NICSCHED_SOURCE_DIR) + "/sim/scenarios/" + name), cycles);
}

// The first train-family draw with FL clients and background traffic beside DDP.
ScenarioEntry mixed_family_entry(std::uint64_t cycles) {
  const sim::Family f = sim::load_family(std::string(NICSCHED_SOURCE_DIR) + "/sim/families/train.yaml");
  for (std::uint64_t seed = f.seed_first; seed < f.seed_first + 200; ++seed) {
    sim::Scenario s = f.draw(seed);
    bool fl = false, background = false;
    for (const auto& t : s.tenants) {
      fl = fl || t.kind == sim::WorkloadKind::kFl;
      background = background || t.kind == sim::WorkloadKind::kBackground;
    }
    if (fl && background) return entry(std::move(s), cycles);
  }
  FAIL("no train draw among the first 200 seeds has both FL and background tenants");
  return {};
}

// A controller whose decisions depend on its own history only: each decision moves the top
// priority to the next tenant, so a copy that lost its count would decide otherwise.
class Rotating final : public Controller {
 public:
  [[nodiscard]] std::string name() const override { return "rotating"; }
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<Rotating>(*this); }
  void reset() override { turn_ = 0; }
  host::Policy decide(const TelemetryTracker& tr, const host::Policy& base) override {
    host::Policy p = base;
    p.arb_mode = host::ArbMode::kSpDwrr;
    p.tenants.resize(tr.caps().tenants);
    for (std::size_t t = 0; t < p.tenants.size(); ++t) {
      p.tenants[t].priority = t == turn_ % p.tenants.size() ? 0 : tr.caps().prio_levels - 1;
    }
    turn_ += tr.link_fraction() > 0.5 ? 2U : 1U;
    return p;
  }

 private:
  std::size_t turn_ = 0;
};

std::unique_ptr<Controller> make(const std::string& name) {
  if (name == "rotating") return std::make_unique<Rotating>();
  return make_baseline(name);
}

// Everything the run recorded, wall-clock times aside.
json observe(ControlledRun& run) {
  const RunResult r = run.result();
  json j = json::parse(sim::to_json(r.metrics));
  j.erase("wall_seconds");
  j.erase("cycles_per_second");
  j["controller"] = r.controller;
  j["decisions"] = r.decisions;
  j["bandwidth"] = r.bandwidth_gbps;
  j["crypto"] = r.crypto_share;
  j["time_us"] = r.time_us;
  if (r.episode_return) {
    const RewardTerms& e = *r.episode_return;
    j["return"] = {e.progress, e.fairness, e.drops, e.deadline, e.starvation, e.total, r.reward_steps};
  }
  return j;
}

void run_out(ControlledRun& run) {
  while (run.step()) {
  }
}

}  // namespace

TEST_CASE("a forked control loop continues exactly as the original", "[fork]") {
  NicEnvConfig reward;
  reward.reward = RewardKind::kSlowdown;
  reward.starvation_coef = 0.5;
  struct Case {
    const char* what;
    ScenarioEntry e;
  };
  const std::vector<Case> cases = {
      {"default", scenario_entry("default.yaml", 200000)},
      {"train family draw with FL and background", mixed_family_entry(300000)},
  };
  for (const auto& c : cases) {
    for (const char* name : {"progress+guard2", "rotating", "crypto-prop"}) {
      for (const std::uint64_t seed : {1ULL, 2ULL}) {
        INFO(c.what << ", " << name << ", seed " << seed);
        const std::uint64_t decisions = *c.e.cycles / kInterval;
        std::mt19937_64 rng(seed * 7919 + std::hash<std::string>{}(name));
        std::vector<std::uint64_t> at;
        for (int k = 0; k < 3; ++k) at.push_back(1 + rng() % (decisions - 2));
        std::sort(at.begin(), at.end());

        ControlledRun original(c.e, seed, make(name), kInterval, std::nullopt, reward);
        std::vector<std::unique_ptr<ControlledRun>> copies;
        std::uint64_t steps = 0;
        for (const std::uint64_t k : at) {
          while (steps < k && original.step()) ++steps;
          copies.push_back(original.fork());
        }
        run_out(original);
        const json expected = observe(original);
        CHECK(expected["decisions"].get<std::uint64_t>() + 1 >= decisions);
        for (std::size_t k = 0; k < copies.size(); ++k) {
          INFO("forked after " << at[k] << " decisions");
          run_out(*copies[k]);
          CHECK(observe(*copies[k]) == expected);
        }
        ControlledRun unforked(c.e, seed, make(name), kInterval, std::nullopt, reward);
        run_out(unforked);
        CHECK(observe(unforked) == expected);
      }
    }
  }
}

TEST_CASE("a forked control loop run by another controller leaves the original unchanged", "[fork]") {
  const ScenarioEntry e = mixed_family_entry(300000);
  ControlledRun original(e, 3, make("progress+guard2"), kInterval);
  for (int k = 0; k < 40; ++k) REQUIRE(original.step());
  const auto copy = original.fork();
  auto fifo = make("rotating");
  copy->set_controller(std::move(fifo));
  run_out(*copy);
  run_out(original);
  const json kept = observe(original);
  ControlledRun unforked(e, 3, make("progress+guard2"), kInterval);
  run_out(unforked);
  CHECK(kept == observe(unforked));
  CHECK(observe(*copy)["tenants"] != kept["tenants"]);  // the copy really ran another controller
  CHECK(copy->controller().name() == "rotating");
  CHECK(original.controller().name() == "progress+guard2");
}

TEST_CASE("a control loop on the rtl backend cannot be forked, and says why", "[fork]") {
  ScenarioEntry e = scenario_entry("default.yaml", 20000);
  e.scenario.backend = sim::NicBackend::kRtl;
  ControlledRun run(e, 1, make("fair"), kInterval);
  REQUIRE(run.step());
  CHECK_THROWS_AS(run.fork(), sim::SimError);
  CHECK_THROWS_WITH(run.fork(), Catch::Contains("rtl backend cannot be forked"));
}

namespace {

// One legal action per step, drawn from `rng` over what the mask allows.
std::vector<int> legal_action(NicEnv& env, std::mt19937_64& rng) {
  const ActionSpace space = env.action_space();
  std::vector<std::uint8_t> mask(space.total());
  env.action_mask(mask);
  std::vector<int> action;
  std::size_t offset = 0;
  for (const int size : space.head_sizes) {
    std::vector<int> allowed;
    for (int v = 0; v < size; ++v) {
      if (mask[offset + static_cast<std::size_t>(v)] != 0) allowed.push_back(v);
    }
    action.push_back(allowed[rng() % allowed.size()]);
    offset += static_cast<std::size_t>(size);
  }
  return action;
}

// `steps` steps of random legal actions drawn from `action_seed`, each held for 8 steps (so
// one order of priorities lasts long enough for the guard to lift a tenant): every
// observation and reward.
std::vector<float> play(NicEnv& env, std::uint64_t action_seed, int steps) {
  std::mt19937_64 rng(action_seed);
  std::vector<float> obs(env.observation_size()), trace;
  std::vector<int> action;
  for (int k = 0; k < steps; ++k) {
    if (k % 8 == 0) action = legal_action(env, rng);
    const StepResult r = env.step(action, obs);
    trace.insert(trace.end(), obs.begin(), obs.end());
    trace.push_back(r.reward);
    trace.push_back(static_cast<float>(env.last_reward().total));
  }
  return trace;
}

NicEnvConfig env_config() {
  NicEnvConfig cfg;
  cfg.episode_steps = 200;
  cfg.guard_intervals = 3;  // the guard's counts are part of what a fork copies
  cfg.reward = RewardKind::kSlowdown;
  cfg.starvation_coef = 0.5;
  return cfg;
}

}  // namespace

TEST_CASE("a forked training env continues exactly as the original under the same actions", "[fork]") {
  const auto entries = std::make_shared<const std::vector<ScenarioEntry>>(
      std::vector<ScenarioEntry>{mixed_family_entry(600000)});
  NicEnv env(env_config(), sim_target_factory(entries, 0));
  std::vector<float> obs(env.observation_size());
  env.reset(7, obs);
  (void)play(env, 11, 40);
  const auto copy = env.fork();
  const std::vector<float> original_trace = play(env, 12, 100);
  CHECK(play(*copy, 12, 100) == original_trace);

  // Independence: a fork played with other actions leaves the original as an unforked env.
  NicEnv again(env_config(), sim_target_factory(entries, 0));
  again.reset(7, obs);
  (void)play(again, 11, 40);
  const auto other = again.fork();
  const std::vector<float> other_trace = play(*other, 99, 100);
  CHECK(play(again, 12, 100) == original_trace);
  CHECK(other_trace != original_trace);
}
