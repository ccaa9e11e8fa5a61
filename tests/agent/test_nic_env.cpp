// NicEnv's pieces: the action codec and its masks, the observation encoder, the reward
// (against hand-computed values) and the env config file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "nicsched/control/nic_env.hpp"
#include "telemetry_fixture.hpp"

using namespace nicsched::control;
using namespace nicsched::testing;

TEST_CASE("nic_env: actions decode to per-tenant priority, quantum and quota", "[nic_env]") {
  const auto caps = test_caps(2, 4, 4);
  const ActionCodec codec(NicEnvConfig{}, caps);
  CHECK(codec.space().head_sizes == std::vector<int>{4, 4, 4, 4, 4, 4});
  nicsched::host::Policy base;
  base.enable = false;  // kept from the base
  base.tenants.resize(2);
  const std::vector<int> action{2, 3, 0, 0, 1, 3};
  const auto p = codec.decode(action, base);
  CHECK(p.arb_mode == nicsched::host::ArbMode::kSpDwrr);
  CHECK_FALSE(p.enable);
  CHECK(p.tenants[0].priority == 2);
  CHECK(p.tenants[0].weight == 12000);  // 1500 * 2^3
  CHECK(p.tenants[0].crypto_quota == 1);
  CHECK(p.tenants[1].weight == 3000);
  CHECK(p.tenants[1].crypto_quota == 4);
  CHECK(codec.encode(p) == action);
  const std::vector<int> bad{4, 0, 0, 0, 0, 0};
  CHECK_THROWS_AS(codec.decode(bad, base), EnvError);
}

TEST_CASE("nic_env: masks follow the capabilities and pin absent tenants", "[nic_env]") {
  TrackedNic nic(test_caps(2, 2, 3));  // 2 priority levels, 3 crypto slots
  auto& [caps, s, tr] = nic;
  const ActionCodec codec(NicEnvConfig{}, caps);
  tr.update(s.bulk(0, 1000).next(1000));  // tenant 1 never seen: absent
  std::vector<std::uint8_t> m(24);
  codec.mask(tr, m);
  // tenant 0: priority {1,1,0,0}, weight {1,1,1,1}, quota {1,1,1,0}
  CHECK(std::vector<std::uint8_t>(m.begin(), m.begin() + 12) ==
        std::vector<std::uint8_t>{1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0});
  // tenant 1: only index 0 of every head
  CHECK(std::vector<std::uint8_t>(m.begin() + 12, m.end()) ==
        std::vector<std::uint8_t>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
}

TEST_CASE("nic_env: observations stack frames newest first", "[nic_env]") {
  const auto caps = test_caps(2);
  NicEnvConfig cfg;
  cfg.history = 2;
  ObservationEncoder enc(cfg, caps);
  const std::size_t frame = 2 * ObservationEncoder::kTenantFeatures + ObservationEncoder::kGlobalFeatures;
  REQUIRE(enc.size() == 2 * frame);
  TelemetryScript s(caps);
  TelemetryTracker tr(caps, 50.0);
  tr.reset(s.now());
  nicsched::host::Policy in_force;
  in_force.tenants.resize(2);
  tr.update(s.bulk(0, 25000).next(1000));
  enc.push(tr, in_force);
  tr.update(s.bulk(1, 50000).next(1000));
  enc.push(tr, in_force);
  std::vector<float> obs(enc.size());
  enc.write(obs);
  const std::size_t t1 = ObservationEncoder::kTenantFeatures;
  constexpr auto kLink = TenantFeature::kLinkFraction;
  CHECK(obs[kLink] == Approx(0.0));               // newest frame: tenant 0 sent nothing
  CHECK(obs[t1 + kLink] == Approx(1.0));          // newest frame: tenant 1 at line rate
  CHECK(obs[frame + kLink] == Approx(0.5));       // older frame: tenant 0 at half the line rate
  CHECK(obs[frame + t1 + TenantFeature::kPresent] == Approx(0.0));  // tenant 1 was not present then
  CHECK(obs[t1 + TenantFeature::kPresent] == Approx(1.0));
}

TEST_CASE("nic_env: the reward adds progress, fairness, drops and deadlines", "[nic_env]") {
  TrackedNic nic(test_caps(3));
  auto& [caps, s, tr] = nic;
  // tenant 0: 6 packets out, 2 dropped; tenant 1 control latency 300 > deadline 200
  tr.update(s.bulk(0, 6000, 6).drops(0, 2).control_latency(1, 2, 600).next(1000));
  NicEnvConfig cfg;  // coefficients 1, 0.5, 1, 0.5
  std::vector<TenantProgress> start(3), before(3), after(3);
  for (std::size_t t = 0; t < 2; ++t) {
    start[t] = before[t] = after[t] = TenantProgress{true, 0.0, 1e-4, 0};
  }
  after[1].control_deadline_cycles = 200;
  before[0].units = 0.5;  // interval 1000 cycles at solo rate 1e-4: 0.1 units is "solo speed"
  after[0].units = 0.6;   // tenant 0: 1.0 of solo speed
  before[1].units = 0.2;
  after[1].units = 0.25;  // tenant 1: 0.5 of solo speed
  const auto r = compute_reward(cfg, start, before, after, 1000, 10000, tr);
  CHECK(r.progress == Approx(0.75));
  // cumulative over 10000 cycles: 0.6 / 1.0 and 0.25 / 1.0 -> Jain = 0.85^2 / (2 * 0.4225)
  CHECK(r.fairness == Approx(0.7225 / 0.845 - 1.0));
  CHECK(r.drops == Approx(2.0 / 10.0));  // 2 dropped of 2 + 6 bulk + 2 control sent
  CHECK(r.deadline == Approx(0.5));      // 1 of the 2 present tenants missed
  CHECK(r.total == Approx(0.75 + 0.5 * r.fairness - 0.2 - 0.25));
}

TEST_CASE("nic_env: env config files are checked key by key", "[nic_env]") {
  const auto dir = std::filesystem::temp_directory_path();
  const auto good = dir / "nicsched_agent_env_ok.yaml";
  std::ofstream(good) << "interval_cycles: 4000\nhistory: 2\nfairness_coef: 0.1\n";
  const auto cfg = nicsched::control::load_env_config(good);
  CHECK(cfg.interval_cycles == 4000);
  CHECK(cfg.history == 2);
  CHECK(nicsched::control::parse_env_config(nicsched::control::env_config_yaml(cfg), "x").fairness_coef ==
        Approx(0.1));
  const auto bad = dir / "nicsched_agent_env_bad.yaml";
  std::ofstream(bad) << "history: 2\nintervall: 5\n";
  try {
    (void)nicsched::control::load_env_config(bad);
    FAIL("no error");
  } catch (const EnvError& e) {
    CHECK_THAT(e.what(), Catch::Contains("nicsched_agent_env_bad.yaml:2") && Catch::Contains("intervall"));
  }
  const auto range = dir / "nicsched_agent_env_range.yaml";
  std::ofstream(range) << "priority_levels: 9\n";
  CHECK_THROWS_WITH(nicsched::control::load_env_config(range), Catch::Contains("priority_levels"));
}
