// The reward's progress term: `speed` (mean of speed vs solo per interval) and `slowdown`
// (potential-based: the episode's rewards sum to episode_steps x (1 - the running mean
// normalised iteration time)), and the starvation term (the same, with the worst tenant in
// place of the mean), against values computed by hand, and the `reward` and
// `starvation_coef` keys of env config files.
#include <catch2/catch.hpp>

#include <vector>

#include "nicsched/control/nic_env.hpp"
#include "telemetry_fixture.hpp"

using namespace nicsched::control;
using namespace nicsched::testing;

namespace {

// A training tenant at solo rate 1e-3 units per cycle (one unit = 1000 solo cycles).
TenantProgress tenant(double units, std::uint64_t present_cycles) {
  TenantProgress p{true, units, 1e-3, 0};
  p.present_cycles = present_cycles;
  return p;
}

NicEnvConfig slowdown_cfg() {
  NicEnvConfig cfg;
  cfg.reward = RewardKind::kSlowdown;
  cfg.slowdown_prior_iterations = 1.0;
  cfg.episode_steps = 10;
  cfg.fairness_coef = 0;
  cfg.drop_coef = 0;
  cfg.deadline_coef = 0;
  return cfg;
}

}  // namespace

TEST_CASE("reward: the slowdown potential is minus the mean running normalised iteration time", "[reward]") {
  const NicEnvConfig cfg = slowdown_cfg();  // prior: 1 iteration at solo speed
  const std::vector<TenantProgress> start{tenant(0, 0), tenant(0, 0)};
  // At the start every tenant is at its prior (solo speed): -1.
  CHECK(slowdown_potential(cfg, start, start) == Approx(-1.0));
  // After 3000 cycles (3 solo iterations): tenant 0 made 3 units, tenant 1 made 1:
  // (3 + 1) / (3 + 1) = 1 and (3 + 1) / (1 + 1) = 2: potential -(1 + 2) / 2 = -1.5.
  const std::vector<TenantProgress> now{tenant(3, 3000), tenant(1, 3000)};
  CHECK(slowdown_potential(cfg, start, now) == Approx(-1.5));
  // A tenant that made nothing in 1000 solo iterations' time: (1000 + 1) / 1, about the
  // time it was there over a solo iteration, as the metric counts it.
  const std::vector<TenantProgress> starved{tenant(3, 3000), tenant(0, 1000000)};
  CHECK(slowdown_potential(cfg, start, starved) == Approx(-(1.0 + 1001.0) / 2.0));
  // Not yet arrived (no present cycles): solo speed; background tenants do not count;
  // no training tenant at all: 0.
  auto background = tenant(0, 5000);
  background.training = false;
  const std::vector<TenantProgress> later{tenant(0, 0), tenant(1, 3000), background};
  const std::vector<TenantProgress> start3{tenant(0, 0), tenant(0, 0), tenant(0, 0)};
  CHECK(slowdown_potential(cfg, start3, later) == Approx(-(1.0 + 2.0) / 2.0));
  const std::vector<TenantProgress> only_background{background};
  CHECK(slowdown_potential(cfg, std::vector<TenantProgress>{tenant(0, 0)}, only_background) == 0.0);
}

TEST_CASE("reward: slowdown rewards of a hand-computed episode", "[reward]") {
  TrackedNic nic(test_caps(2));
  auto& [caps, s, tr] = nic;
  tr.update(s.next(1000));
  const NicEnvConfig cfg = slowdown_cfg();  // prior 1 iteration, 10 steps
  const std::vector<TenantProgress> start{tenant(0, 0), tenant(0, 0)};
  // Interval 1 (1000 cycles, one solo iteration): tenant 0 at solo speed (1 unit), tenant 1
  // nothing: (1 + 1) / (1 + 1) = 1 and (1 + 1) / (0 + 1) = 2: potential -1.5, from -1.
  const std::vector<TenantProgress> one{tenant(1, 1000), tenant(0, 1000)};
  const auto r1 = compute_reward(cfg, start, start, one, 1000, 1000, tr);
  CHECK(r1.progress == Approx(10 * (-1.5 + 1.0)));
  CHECK(r1.total == Approx(r1.progress));
  // Interval 2: tenant 1 catches up 3 units: (2 + 1) / (2 + 1) = 1 and (2 + 1) / (3 + 1) =
  // 0.75, potential -(1 + 0.75) / 2 = -0.875.
  const std::vector<TenantProgress> two{tenant(2, 2000), tenant(3, 2000)};
  const auto r2 = compute_reward(cfg, start, one, two, 1000, 2000, tr);
  CHECK(r2.progress == Approx(10 * (-0.875 + 1.5)));
  // The return so far: 10 x (-0.875 + 1), the running estimate of 1 - mean slowdown.
  CHECK(r1.total + r2.total == Approx(10 * (1.0 - 0.875)));
  // The speed reward of the same intervals: mean speed per interval, 0.5 then 2.
  NicEnvConfig speed = cfg;
  speed.reward = RewardKind::kSpeed;
  CHECK(compute_reward(speed, start, start, one, 1000, 1000, tr).progress == Approx(0.5));
  CHECK(compute_reward(speed, start, one, two, 1000, 2000, tr).progress == Approx(2.0));
}

TEST_CASE("reward: the starvation potential is minus the worst running normalised iteration time", "[reward]") {
  const NicEnvConfig cfg = slowdown_cfg();  // prior: 1 iteration at solo speed
  const std::vector<TenantProgress> start{tenant(0, 0), tenant(0, 0)};
  CHECK(starvation_potential(cfg, start, start) == Approx(-1.0));
  // The cases of the slowdown potential's test: running normalised times 1 and 2 -> -2 (the
  // mean's -1.5); 1 and 1001 -> -1001 (the mean's -501).
  CHECK(starvation_potential(cfg, start, std::vector<TenantProgress>{tenant(3, 3000), tenant(1, 3000)}) ==
        Approx(-2.0));
  CHECK(starvation_potential(cfg, start, std::vector<TenantProgress>{tenant(3, 3000), tenant(0, 1000000)}) ==
        Approx(-1001.0));
  // Faster than solo (the prior keeps it above 0): (2 + 1) / (5 + 1) = 0.5 and 1 -> -1.
  CHECK(starvation_potential(cfg, start, std::vector<TenantProgress>{tenant(5, 2000), tenant(2, 2000)}) ==
        Approx(-1.0));
  // A background tenant does not count even when it makes nothing; no training tenant: 0.
  auto background = tenant(0, 500000);
  background.training = false;
  const std::vector<TenantProgress> start3{tenant(0, 0), tenant(0, 0), tenant(0, 0)};
  CHECK(starvation_potential(cfg, start3, std::vector<TenantProgress>{tenant(0, 0), tenant(1, 3000), background}) ==
        Approx(-2.0));
  CHECK(starvation_potential(cfg, std::vector<TenantProgress>{tenant(0, 0)}, std::vector<TenantProgress>{background}) ==
        0.0);
}

TEST_CASE("reward: starvation rewards of a hand-computed episode", "[reward]") {
  TrackedNic nic(test_caps(2));
  auto& [caps, s, tr] = nic;
  tr.update(s.next(1000));
  NicEnvConfig cfg = slowdown_cfg();  // prior 1 iteration, 10 steps
  const std::vector<TenantProgress> start{tenant(0, 0), tenant(0, 0)};
  // The intervals of "slowdown rewards of a hand-computed episode": after interval 1 the
  // running times are 1 and 2 (worst 2, from 1 at the start), after interval 2 1 and 0.75
  // (worst 1).
  const std::vector<TenantProgress> one{tenant(1, 1000), tenant(0, 1000)};
  const std::vector<TenantProgress> two{tenant(2, 2000), tenant(3, 2000)};
  // Off by default: computed, not counted.
  CHECK(cfg.starvation_coef == 0.0);
  const auto off = compute_reward(cfg, start, start, one, 1000, 1000, tr);
  CHECK(off.starvation == Approx(10 * (-2.0 + 1.0)));
  CHECK(off.total == Approx(off.progress));
  cfg.starvation_coef = 0.5;
  const auto r1 = compute_reward(cfg, start, start, one, 1000, 1000, tr);
  CHECK(r1.starvation == Approx(-10.0));
  CHECK(r1.total == Approx(10 * (-1.5 + 1.0) + 0.5 * -10.0));  // progress -5, starvation -10
  const auto r2 = compute_reward(cfg, start, one, two, 1000, 2000, tr);
  CHECK(r2.starvation == Approx(10 * (-1.0 + 2.0)));
  CHECK(r2.total == Approx(10 * (-0.875 + 1.5) + 0.5 * 10.0));
  // The two intervals' starvation return: 10 x (1 - the worst running time, 1) = 0.
  CHECK(r1.starvation + r2.starvation == Approx(0.0).margin(1e-12));
  // It is added to whichever progress term: with `speed`, 0.5 then 2, plus the same.
  cfg.reward = RewardKind::kSpeed;
  CHECK(compute_reward(cfg, start, start, one, 1000, 1000, tr).total == Approx(0.5 + 0.5 * -10.0));
  // Summed term by term like the others (eval's --reward-config return).
  RewardTerms sum;
  sum += r1;
  sum += r2;
  CHECK(sum.starvation == Approx(0.0).margin(1e-12));
  CHECK(sum.total == Approx(r1.total + r2.total));
}

TEST_CASE("reward: slowdown rewards telescope to the final potential over any episode", "[reward]") {
  TrackedNic nic(test_caps(4));
  auto& [caps, s, tr] = nic;
  tr.update(s.next(2000));
  NicEnvConfig cfg = slowdown_cfg();
  cfg.episode_steps = 500;
  cfg.slowdown_prior_iterations = 1.5;
  // Four tenants: one at solo speed, one bursty (only every third interval, at 2x), one
  // arriving at step 100 and leaving at step 300, one that never progresses. Episode not
  // started at zero progress (a policy can begin mid-run).
  std::vector<TenantProgress> start{tenant(5, 7000), tenant(2, 7000), tenant(0, 0), tenant(1, 7000)};
  std::vector<TenantProgress> before = start;
  cfg.starvation_coef = 0.25;
  double total = 0.0, starvation = 0.0, sum_of_totals = 0.0;
  for (int step = 1; step <= 500; ++step) {
    std::vector<TenantProgress> after = before;
    after[0].units += 2.0;
    after[0].present_cycles += 2000;
    if (step % 3 == 0) after[1].units += 12.0;
    after[1].present_cycles += 2000;
    if (step >= 100 && step < 300) {
      after[2].units += 1.0;
      after[2].present_cycles += 2000;
    }
    after[3].present_cycles += 2000;
    const auto r = compute_reward(cfg, start, before, after, 2000, static_cast<std::uint64_t>(step) * 2000, tr);
    total += r.progress;
    starvation += r.starvation;
    sum_of_totals += r.total;
    before = after;
  }
  const double end = slowdown_potential(cfg, start, before);
  CHECK(total == Approx(500.0 * (end + 1.0)).epsilon(1e-9));
  // The starvation term telescopes to its own final potential: the starved tenant 3's
  // (1000 + 1.5) / (0 + 1.5), the worst of the four.
  const double worst = starvation_potential(cfg, start, before);
  CHECK(worst == Approx(-1001.5 / 1.5));
  CHECK(starvation == Approx(500.0 * (worst + 1.0)).epsilon(1e-9));
  CHECK(sum_of_totals == Approx(total + 0.25 * starvation).epsilon(1e-9));
  // By hand (n: present cycles x solo rate, u: units, both since the start; (n + 1.5) /
  // (u + 1.5)): tenant 0 n = u = 1000; tenant 1 n = 1000, u = 166 bursts x 12 = 1992;
  // tenant 2 n = 400 (200 steps), u = 200; tenant 3 n = 1000, u = 0.
  CHECK(end == Approx(-(1.0 + 1001.5 / 1993.5 + 401.5 / 201.5 + 1001.5 / 1.5) / 4.0));
}

TEST_CASE("reward: the reward key of env config files", "[reward]") {
  CHECK(parse_env_config("reward: slowdown\nslowdown_prior_iterations: 2\n", "x").reward == RewardKind::kSlowdown);
  CHECK(parse_env_config("progress_coef: 1\n", "x").reward == RewardKind::kSpeed);  // the default
  NicEnvConfig cfg;
  cfg.reward = RewardKind::kSlowdown;
  cfg.slowdown_prior_iterations = 2.5;
  const auto back = parse_env_config(env_config_yaml(cfg), "round trip");
  CHECK(back.reward == RewardKind::kSlowdown);
  CHECK(back.slowdown_prior_iterations == 2.5);
  CHECK_THROWS_WITH(parse_env_config("history: 4\nreward: slowdwn\n", "env.yaml"),
                    Catch::Contains("env.yaml:2") && Catch::Contains("reward") &&
                        Catch::Contains("speed or slowdown") && Catch::Contains("slowdwn"));
  CHECK_THROWS_WITH(parse_env_config("reward: 3\n", "env.yaml"), Catch::Contains("speed or slowdown"));
  CHECK_THROWS_WITH(parse_env_config("slowdown_prior_iterations: 0\n", "env.yaml"),
                    Catch::Contains("env.yaml") && Catch::Contains("slowdown_prior_iterations"));
  // starvation_coef: a number >= 0, round trip, bad values refused naming the key.
  CHECK(parse_env_config("reward: slowdown\n", "x").starvation_coef == 0.0);  // the default: off
  cfg.starvation_coef = 0.75;
  CHECK(parse_env_config(env_config_yaml(cfg), "round trip").starvation_coef == 0.75);
  CHECK_THROWS_WITH(parse_env_config("starvation_coef: -0.5\n", "env.yaml"),
                    Catch::Contains("env.yaml") && Catch::Contains("starvation_coef") && Catch::Contains(">= 0"));
  CHECK_THROWS_WITH(parse_env_config("starvation_coef: .inf\n", "env.yaml"),
                    Catch::Contains("env.yaml") && Catch::Contains("starvation_coef") && Catch::Contains("finite"));
  CHECK_THROWS_WITH(parse_env_config("history: 4\nstarvation_coef: lots\n", "env.yaml"),
                    Catch::Contains("env.yaml:2") && Catch::Contains("starvation_coef"));
}
