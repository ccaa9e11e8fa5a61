// The strategy action (env.yaml `action: strategy`): one categorical head whose value k
// hands the interval's decision to strategies[k]. A policy that always picks k runs
// exactly controller k's run; a switch mid-run hands over to a controller whose state
// followed the run all along, as if both had run side by side.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"

using nicsched::control::ActionKind;
using nicsched::control::NicEnv;
using nicsched::control::NicEnvConfig;
using nicsched::control::RewardTerms;

namespace {

constexpr std::uint32_t kSteps = 400;
constexpr std::uint64_t kSeed = 5;

// The model backend (register accesses take no cycles) over kSteps + 1 intervals: NicEnv's
// reset takes the first, its steps the rest; the eval loop decides after each but the last.
const nicsched::control::ScenarioEntry& entry() {
  static const auto e = nicsched::control::load_scenario_entry(
      NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml", (kSteps + 1) * 2000, nicsched::sim::NicBackend::kModel);
  return e;
}

NicEnvConfig strategy_config() {
  NicEnvConfig cfg;
  cfg.action = ActionKind::kStrategy;
  cfg.episode_steps = kSteps;
  cfg.reward = nicsched::control::RewardKind::kSlowdown;
  return cfg;
}

// NicEnv's episode return when the action at step s is choose(s).
template <class Choose>
RewardTerms env_return(const NicEnvConfig& cfg, Choose choose) {
  NicEnv env(cfg, [](std::uint64_t seed) { return nicsched::control::make_sim_target(entry(), seed); });
  std::vector<float> obs(env.observation_size());
  env.reset(kSeed, obs);
  RewardTerms sum;
  std::uint32_t steps = 0;
  for (bool truncated = false; !truncated; ++steps) {
    const std::vector<int> action{choose(steps)};
    truncated = env.step(action, obs).truncated;
    sum.progress += env.last_reward().progress;
    sum.drops += env.last_reward().drops;
    sum.fairness += env.last_reward().fairness;
    sum.total += env.last_reward().total;
  }
  REQUIRE(steps == kSteps);
  return sum;
}

RewardTerms run_return(nicsched::control::Controller& c, const NicEnvConfig& cfg) {
  const auto run = nicsched::control::run_controller(entry(), kSeed, c, 2000, std::nullopt, cfg);
  REQUIRE(run.episode_return);
  REQUIRE(run.reward_steps == kSteps);
  return *run.episode_return;
}

void check_same(const RewardTerms& a, const RewardTerms& b) {
  CHECK(a.progress == Approx(b.progress).epsilon(1e-12));
  CHECK(a.drops == Approx(b.drops).epsilon(1e-12));
  CHECK(a.fairness == Approx(b.fairness).epsilon(1e-12));
  CHECK(a.total == Approx(b.total).epsilon(1e-12));
}

// The reference for a switch, written without StrategySet: two baselines that both decide
// every interval; the first's decisions are committed for `switch_at` decisions, then the
// second's.
class SideBySide final : public nicsched::control::Controller {
 public:
  SideBySide(const std::string& first, const std::string& second, std::uint32_t switch_at)
      : first_(nicsched::control::make_baseline(first)),
        second_(nicsched::control::make_baseline(second)),
        switch_at_(switch_at) {}
  [[nodiscard]] std::string name() const override { return "side-by-side"; }
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<SideBySide>(*this); }
  void reset() override {
    first_->reset();
    second_->reset();
    decisions_ = 0;
  }
  nicsched::host::Policy decide(const nicsched::control::TelemetryTracker& tr,
                                const nicsched::host::Policy& base) override {
    auto a = first_->decide(tr, base);
    auto b = second_->decide(tr, base);
    return decisions_++ < switch_at_ ? a : b;
  }

 private:
  nicsched::ClonePtr<Controller> first_, second_;
  std::uint32_t switch_at_;
  std::uint32_t decisions_ = 0;
};

int index_of(const NicEnvConfig& cfg, const std::string& name) {
  for (std::size_t i = 0; i < cfg.strategies.size(); ++i) {
    if (cfg.strategies[i] == name) return static_cast<int>(i);
  }
  FAIL("no strategy " << name);
  return -1;
}

}  // namespace

TEST_CASE("strategy action: one head with a value per strategy, every value allowed", "[strategy]") {
  const auto cfg = strategy_config();
  NicEnv env(cfg, [](std::uint64_t seed) { return nicsched::control::make_sim_target(entry(), seed); });
  const auto space = env.action_space();
  REQUIRE(space.heads() == 1);
  CHECK(space.head_sizes[0] == static_cast<int>(cfg.strategies.size()));
  std::vector<float> obs(env.observation_size());
  env.reset(kSeed, obs);
  std::vector<std::uint8_t> mask(space.total(), 0);
  env.action_mask(mask);
  for (const auto m : mask) CHECK(m == 1);
  // The observation is the per-tenant action's (the same encoder).
  NicEnvConfig tenant_cfg = cfg;
  tenant_cfg.action = ActionKind::kTenant;
  NicEnv tenant_env(tenant_cfg, [](std::uint64_t seed) { return nicsched::control::make_sim_target(entry(), seed); });
  CHECK(tenant_env.observation_size() == env.observation_size());
  const std::vector<int> out_of_range{static_cast<int>(cfg.strategies.size())};
  CHECK_THROWS_WITH(env.step(out_of_range, obs), Catch::Contains("out of range"));
}

TEST_CASE("strategy action: always choosing k runs exactly controller k's run", "[strategy]") {
  const auto cfg = strategy_config();
  std::vector<RewardTerms> returns;
  for (const std::string name : {"progress+guard", "fifo", "las+guard", "sp"}) {
    INFO(name);
    const int k = index_of(cfg, name);
    const auto env_sum = env_return(cfg, [k](std::uint32_t) { return k; });
    auto alone = nicsched::control::make_baseline(name);
    check_same(env_sum, run_return(*alone, cfg));
    returns.push_back(env_sum);
  }
  // The strategies differ on this scenario, so the equalities above say something.
  CHECK(returns[0].progress != Approx(returns[1].progress).epsilon(1e-6));
  CHECK(returns[1].progress != Approx(returns[2].progress).epsilon(1e-6));
}

TEST_CASE("strategy action: a switch mid-run hands over to a controller that followed the run", "[strategy]") {
  const auto cfg = strategy_config();
  const int fifo = index_of(cfg, "fifo");
  const int progress = index_of(cfg, "progress+guard");
  constexpr std::uint32_t kSwitch = kSteps / 2;
  const auto switched = env_return(cfg, [&](std::uint32_t s) { return s < kSwitch ? fifo : progress; });
  SideBySide reference("fifo", "progress+guard", kSwitch);
  check_same(switched, run_return(reference, cfg));
  // ... and the switch changed the run: it is neither strategy's alone.
  const auto only_fifo = env_return(cfg, [&](std::uint32_t) { return fifo; });
  const auto only_progress = env_return(cfg, [&](std::uint32_t) { return progress; });
  CHECK(switched.progress != Approx(only_fifo.progress).epsilon(1e-6));
  CHECK(switched.progress != Approx(only_progress.progress).epsilon(1e-6));
}

TEST_CASE("strategy action: a hold keeps the strategy chosen at the start of each period", "[strategy]") {
  auto cfg = strategy_config();
  const int fifo = index_of(cfg, "fifo");
  const int progress = index_of(cfg, "progress+guard");
  constexpr std::uint32_t kHold = 50;
  // A policy that changes its mind every 7 decisions.
  const auto restless = [&](std::uint32_t s) { return (s / 7) % 2 == 0 ? fifo : progress; };
  cfg.strategy_hold = kHold;
  const auto held = env_return(cfg, restless);
  // The same run without a hold, choosing at each period's start what the hold kept.
  cfg.strategy_hold = 1;
  check_same(held, env_return(cfg, [&](std::uint32_t s) { return restless(s - s % kHold); }));
  // ... and the hold changed the run: the restless choices alone give another.
  CHECK(held.progress != Approx(env_return(cfg, restless).progress).epsilon(1e-6));
  // The hold is part of env.yaml; 0 is refused naming the key.
  cfg.strategy_hold = kHold;
  CHECK(nicsched::control::parse_env_config(nicsched::control::env_config_yaml(cfg), "round trip").strategy_hold ==
        kHold);
  CHECK_THROWS_WITH(nicsched::control::parse_env_config("action: strategy\nstrategy_hold: 0\n", "h.yaml"),
                    Catch::Contains("h.yaml") && Catch::Contains("strategy_hold"));
}

TEST_CASE("strategy action: a fork continues with every strategy's state", "[strategy]") {
  const auto cfg = strategy_config();
  NicEnv env(cfg, [](std::uint64_t seed) { return nicsched::control::make_sim_target(entry(), seed); });
  std::vector<float> obs(env.observation_size()), obs_fork(env.observation_size());
  env.reset(kSeed, obs);
  const std::vector<int> first{index_of(cfg, "las+guard")}, then{index_of(cfg, "progress+guard")};
  for (int s = 0; s < 20; ++s) (void)env.step(first, obs);
  auto copy = env.fork();
  for (int s = 0; s < 20; ++s) {
    const auto r = env.step(then, obs);
    const auto rf = copy->step(then, obs_fork);
    REQUIRE(r.reward == rf.reward);
    REQUIRE(obs == obs_fork);
  }
}

TEST_CASE("strategy action: the teacher's action is the strategy it runs", "[strategy]") {
  const auto cfg = strategy_config();
  NicEnv env(cfg, [](std::uint64_t seed) { return nicsched::control::make_sim_target(entry(), seed); });
  std::vector<float> obs(env.observation_size());
  std::vector<int> action(1);
  env.set_teacher(nicsched::control::make_baseline("las+guard"));
  env.reset(kSeed, obs);
  REQUIRE(env.expert_action(action));
  CHECK(action[0] == index_of(cfg, "las+guard"));
  // The online selector: the arm it runs now, one of its candidates.
  env.set_teacher(nicsched::control::make_baseline("select"));
  env.reset(kSeed, obs);
  std::vector<int> seen;
  for (std::uint32_t s = 0; s < kSteps - 1; ++s) {
    REQUIRE(env.expert_action(action));
    seen.push_back(action[0]);
    (void)env.step(action, obs);
  }
  for (const int k : seen) {
    const auto& name = cfg.strategies[static_cast<std::size_t>(k)];
    CHECK((name == "progress+guard" || name == "progress" || name == "sp" || name == "fifo"));
  }
  // A teacher that is none of the strategies is refused, naming it.
  NicEnvConfig two = cfg;
  two.strategies = {"fifo", "fair"};
  NicEnv small(two, [](std::uint64_t seed) { return nicsched::control::make_sim_target(entry(), seed); });
  small.set_teacher(nicsched::control::make_baseline("las"));
  small.reset(kSeed, obs);
  CHECK_THROWS_WITH(small.expert_action(action), Catch::Contains("'las'"));
}

TEST_CASE("strategy action: env.yaml names the action and strategies, bad ones are refused naming the entry",
          "[strategy]") {
  auto cfg = strategy_config();
  cfg.strategies = {"fifo", "progress+guard16", "select:fifo,sp"};
  const auto back = nicsched::control::parse_env_config(nicsched::control::env_config_yaml(cfg), "round trip");
  CHECK(back.action == ActionKind::kStrategy);
  CHECK(back.strategies == cfg.strategies);
  CHECK(nicsched::control::parse_env_config("{}", "empty").action == ActionKind::kTenant);  // the default
  CHECK_THROWS_WITH(nicsched::control::parse_env_config("action: strategies\n", "a.yaml"),
                    Catch::Contains("a.yaml") && Catch::Contains("tenant or strategy"));
  CHECK_THROWS_WITH(nicsched::control::parse_env_config("action: strategy\nstrategies: [fifo, nope]\n", "b.yaml"),
                    Catch::Contains("b.yaml") && Catch::Contains("entry 2") && Catch::Contains("nope"));
  CHECK_THROWS_WITH(nicsched::control::parse_env_config("action: strategy\nstrategies: [fifo, fifo]\n", "c.yaml"),
                    Catch::Contains("twice"));
  CHECK_THROWS_WITH(nicsched::control::parse_env_config("action: strategy\nstrategies: [fifo]\n", "d.yaml"),
                    Catch::Contains("at least two"));
}
