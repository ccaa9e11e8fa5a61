// NicEnv and the evaluation loop on the real simulated NIC (Verilated RTL): actions
// arrive in the NIC's registers with one COMMIT, observations and rewards come back,
// episodes are truncated, and every controller runs a scenario to its end.
#include <catch2/catch.hpp>

#include <cmath>

#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/regmap.hpp"

using nicsched::control::EnvTarget;
using nicsched::control::NicEnv;
using nicsched::control::NicEnvConfig;

namespace {

const nicsched::control::ScenarioEntry& default_entry() {
  static const auto entry =
      nicsched::control::load_scenario_entry(NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml", 300000);
  return entry;
}

}  // namespace

TEST_CASE("nic_env_sim: actions are committed to the NIC and observed back", "[nic_env_sim]") {
  EnvTarget* current = nullptr;
  NicEnvConfig cfg;
  cfg.episode_steps = 40;
  NicEnv env(cfg, [&](std::uint64_t seed) {
    auto t = nicsched::control::make_sim_target(default_entry(), seed);
    current = t.get();
    return t;
  });
  REQUIRE(env.caps().tenants == 8);
  CHECK(env.action_space().heads() == 24);
  std::vector<float> obs(env.observation_size());
  std::vector<std::uint8_t> mask(env.action_space().total());
  env.reset(7, obs);
  // tenant t: priority t % 4, weight level 2, quota level 1 (2 slots)
  std::vector<int> action;
  for (int t = 0; t < 8; ++t) action.insert(action.end(), {t % 4, 2, 1});
  const auto gen_before = current->bus().read32(nicsched::regmap::CONFIG_GEN::kOffset);
  bool truncated = false;
  int steps = 0;
  double reward_sum = 0.0;
  while (!truncated) {
    env.action_mask(mask);
    const auto r = env.step(action, obs);
    REQUIRE(std::isfinite(r.reward));
    reward_sum += static_cast<double>(r.reward);
    truncated = r.truncated;
    CHECK_FALSE(r.terminated);
    ++steps;
  }
  CHECK(steps == 40);
  CHECK(current->bus().read32(nicsched::regmap::CONFIG_GEN::kOffset) == gen_before + 40);  // one COMMIT each
  const auto caps = nicsched::host::discover(current->bus());
  const auto applied = nicsched::host::read_policy(current->bus(), caps);
  CHECK(applied.arb_mode == nicsched::host::ArbMode::kSpDwrr);
  for (std::uint32_t t = 0; t < 8; ++t) {
    CHECK(applied.tenants[t].priority == t % 4);
    CHECK(applied.tenants[t].weight == 6000);
    CHECK(applied.tenants[t].crypto_quota == 2);
  }
  // The newest frame shows the action in force and at least one tenant present.
  using nicsched::control::ObservationEncoder;
  using nicsched::control::TenantFeature;
  CHECK(obs[3 * ObservationEncoder::kTenantFeatures + TenantFeature::kPriority] == Approx(1.0));
  int present = 0;
  for (std::size_t t = 0; t < 8; ++t) {
    present += obs[t * ObservationEncoder::kTenantFeatures + TenantFeature::kPresent] > 0.5F ? 1 : 0;
  }
  CHECK(present >= 1);
  CHECK(reward_sum > 0.0);  // tenants made progress
}

TEST_CASE("nic_env_sim: the starvation guard changes the committed levels only when on", "[nic_env_sim][guard]") {
  // Tenant t at priority t % 4: the tenants below the top wait behind it. With the guard at
  // its most eager (lift after one interval below the backlogged mean) some are lifted to
  // level 0 at some point of the episode; only the priority (and, lifted, the quantum) moves.
  for (const std::uint32_t guard : {0U, 1U}) {
    INFO("guard_intervals " << guard);
    EnvTarget* current = nullptr;
    NicEnvConfig cfg;
    cfg.episode_steps = 60;
    cfg.guard_intervals = guard;
    cfg.guard_share = 1.0;
    NicEnv env(cfg, [&](std::uint64_t seed) {
      auto t = nicsched::control::make_sim_target(default_entry(), seed);
      current = t.get();
      return t;
    });
    std::vector<float> obs(env.observation_size());
    env.reset(7, obs);
    std::vector<int> action;
    for (int t = 0; t < 8; ++t) action.insert(action.end(), {t % 4, 0, 3});
    int lifted = 0;
    for (int step = 0; step < 60; ++step) {
      (void)env.step(action, obs);
      const auto applied = nicsched::host::read_policy(current->bus(), env.caps());
      for (std::uint32_t t = 0; t < 8; ++t) {
        CHECK(applied.tenants[t].crypto_quota == 4);
        if (applied.tenants[t].priority != t % 4) {
          CHECK(applied.tenants[t].priority == 0);
          ++lifted;
        }
      }
    }
    if (guard == 0) {
      CHECK(lifted == 0);
    } else {
      CHECK(lifted > 0);
    }
  }
}

TEST_CASE("nic_env_sim: the eval loop runs a controller to the scenario's end", "[nic_env_sim]") {
  auto fair = nicsched::control::make_baseline("fair");
  const auto r = nicsched::control::run_controller(default_entry(), 1, *fair, 2000);
  CHECK(r.metrics.cycles >= 300000);
  // One decision per interval (none after the last, unless the decision's register
  // accesses themselves reached the end); an interval is 2000 cycles plus the cycles the
  // register accesses (snapshot, policy write and read-back) take.
  CHECK(r.decisions <= r.bandwidth_gbps.size());
  CHECK(r.decisions + 1 >= r.bandwidth_gbps.size());
  CHECK(r.time_us.size() == r.bandwidth_gbps.size());
  CHECK(r.time_us.back() >= 300000 / 250.0 - 1.0);
  CHECK(r.bandwidth_gbps.size() <= 150);
  CHECK(r.bandwidth_gbps.size() >= 50);
  CHECK(r.metrics.policy == "fair");
  CHECK(r.tenant_names[0] == "resnet50");
  double total = 0;
  for (const auto& row : r.bandwidth_gbps) {
    for (double g : row) total += g;
  }
  CHECK(total > 0.0);
  // Shares of the crypto slots: per interval, per tenant, and together at most every slot.
  REQUIRE(r.crypto_share.size() == r.bandwidth_gbps.size());
  double crypto_total = 0;
  for (const auto& row : r.crypto_share) {
    REQUIRE(row.size() == r.tenant_names.size());
    double interval_sum = 0;
    for (double s : row) {
      CHECK(s >= 0.0);
      interval_sum += s;
    }
    CHECK(interval_sum <= 1.0 + 1e-9);
    crypto_total += interval_sum;
  }
  CHECK(crypto_total > 0.0);  // the default scenario's FL tenants encrypt
}

TEST_CASE("nic_env_sim: the teacher's action is its decision, limited to the mask", "[nic_env_sim]") {
  NicEnvConfig cfg;
  cfg.episode_steps = 30;
  NicEnv env(cfg, [&](std::uint64_t seed) { return nicsched::control::make_sim_target(default_entry(), seed); });
  std::vector<float> obs(env.observation_size());
  std::vector<int> action(env.action_space().heads());
  env.reset(3, obs);
  CHECK_FALSE(env.expert_action(action));  // no teacher yet
  env.set_teacher(nicsched::control::make_baseline("sp"));  // tenant t -> level min(t, 3)
  std::vector<std::uint8_t> mask(env.action_space().total());
  for (int s = 0; s < 30; ++s) {
    REQUIRE(env.expert_action(action));
    (void)env.step(action, obs);
  }
  REQUIRE(env.expert_action(action));
  env.action_mask(mask);
  int present = 0;
  for (std::size_t t = 0; t < 8; ++t) {
    INFO("tenant " << t);
    const bool is_present = mask[t * 12 + 1] != 0;  // a second priority allowed: the tenant is present
    present += is_present ? 1 : 0;
    CHECK(action[t * 3] == (is_present ? static_cast<int>(std::min<std::size_t>(t, 3)) : 0));
    CHECK(action[t * 3 + 1] == 0);                  // base quantum
    CHECK(action[t * 3 + 2] == (is_present ? 3 : 0));  // all 4 crypto slots
  }
  CHECK(present >= 4);
}

namespace {

// Decides the same encoded action every interval, as NicEnv applies it.
class FixedAction final : public nicsched::control::Controller {
 public:
  FixedAction(nicsched::control::ActionCodec codec, std::vector<int> action)
      : codec_(std::move(codec)), action_(std::move(action)) {}
  [[nodiscard]] std::string name() const override { return "fixed"; }
  [[nodiscard]] std::unique_ptr<nicsched::control::Controller> clone() const override {
    return std::make_unique<FixedAction>(*this);
  }
  nicsched::host::Policy decide(const nicsched::control::TelemetryTracker& /*tracker*/,
                                const nicsched::host::Policy& base) override {
    return codec_.decode(action_, base);
  }

 private:
  nicsched::control::ActionCodec codec_;
  std::vector<int> action_;
};

}  // namespace

TEST_CASE("nic_env_sim: the eval loop's episode return is NicEnv's, for both rewards", "[nic_env_sim]") {
  // Model backend (register accesses take no cycles), 41 intervals: NicEnv's reset takes
  // the first, its 40 steps the rest; the eval loop decides after each of the first 40.
  const auto entry = nicsched::control::load_scenario_entry(NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml",
                                                            41 * 2000, nicsched::sim::NicBackend::kModel);
  std::vector<int> action;
  for (int t = 0; t < 8; ++t) action.insert(action.end(), {t % 4, 3 - t % 4, 3});
  for (const auto kind : {nicsched::control::RewardKind::kSpeed, nicsched::control::RewardKind::kSlowdown}) {
    INFO(nicsched::control::reward_kind_name(kind));
    NicEnvConfig cfg;
    cfg.episode_steps = 40;
    cfg.reward = kind;
    cfg.starvation_coef = 0.3;  // counted in the total as the other terms are
    NicEnv env(cfg, [&](std::uint64_t seed) { return nicsched::control::make_sim_target(entry, seed); });
    std::vector<float> obs(env.observation_size());
    env.reset(5, obs);
    nicsched::control::RewardTerms sum;
    int steps = 0;
    for (bool truncated = false; !truncated; ++steps) {
      truncated = env.step(action, obs).truncated;
      const auto& r = env.last_reward();
      sum.progress += r.progress;
      sum.fairness += r.fairness;
      sum.drops += r.drops;
      sum.deadline += r.deadline;
      sum.starvation += r.starvation;
      sum.total += r.total;
    }
    REQUIRE(steps == 40);
    FixedAction fixed(nicsched::control::ActionCodec(cfg, env.caps(), entry.scenario.link_bytes_per_cycle()), action);
    const auto run = nicsched::control::run_controller(entry, 5, fixed, 2000, std::nullopt, cfg);
    REQUIRE(run.episode_return);
    CHECK(run.reward_steps == 40);
    CHECK(run.episode_return->progress == Approx(sum.progress).epsilon(1e-12));
    CHECK(run.episode_return->fairness == Approx(sum.fairness).epsilon(1e-12));
    CHECK(run.episode_return->drops == Approx(sum.drops).epsilon(1e-12));
    CHECK(run.episode_return->deadline == Approx(sum.deadline).epsilon(1e-12));
    CHECK(run.episode_return->starvation == Approx(sum.starvation).epsilon(1e-12));
    CHECK(run.episode_return->total == Approx(sum.total).epsilon(1e-12));
    CHECK(sum.progress != 0.0);  // the tenants moved
  }
  // Without a reward config no return is summed.
  auto fifo = nicsched::control::make_baseline("fifo");
  CHECK_FALSE(nicsched::control::run_controller(entry, 5, *fifo, 2000).episode_return);
}
