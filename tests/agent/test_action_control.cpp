// The control-bucket head of NicEnv's action (NicEnvConfig::control_levels > 1): per
// tenant, 0 keeps the scenario's control bucket (T_CTRL_RATE, T_CTRL_BURST), 1 closes the
// control level to the tenant (rate 0, the smallest burst), 2 is a quarter and 3 four
// times the registers' reset; absent tenants are pinned to 0; control_levels = 1 (the
// default) leaves the action space as the committed policy knows it. The decoded policy
// is written to a stand-in NIC and the committed registers are read back.
#include <catch2/catch.hpp>

#include "nicsched/control/nic_env.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/regmap.hpp"
#include "stand_in_nic.hpp"
#include "telemetry_fixture.hpp"

using namespace nicsched::control;
using namespace nicsched::testing;
namespace rm = nicsched::regmap;

namespace {
NicEnvConfig with_heads(std::uint32_t rate_levels, std::uint32_t control_levels) {
  NicEnvConfig c;
  c.rate_levels = rate_levels;
  c.control_levels = control_levels;
  return c;
}
}  // namespace

TEST_CASE("nic_env control head: each level decodes into its T_CTRL_RATE / T_CTRL_BURST writes", "[nic_env][control]") {
  nicsched::test::StandInNic nic;
  const auto caps = nicsched::host::discover(nic);
  REQUIRE(caps.tenants >= 5);
  const ActionCodec codec(with_heads(1, 4), caps);
  CHECK(codec.heads_per_tenant() == 4);
  CHECK(codec.logits_per_tenant() == 16);
  auto base = nicsched::host::default_policy(caps);
  base.tenants[3].ctrl_rate_bytes_per_kcycle = 999;  // the scenario's own bucket for tenant 3
  base.tenants[3].ctrl_burst_bytes = 5000;
  std::vector<int> action(4 * caps.tenants, 0);
  for (std::uint32_t t = 0; t < 3; ++t) action[t * 4 + 3] = static_cast<int>(t + 1);  // off, low, high
  action[4 * 4 + 0] = 2;                                                              // tenant 4: priority 2
  const auto p = codec.decode(action, base);
  nicsched::host::apply_policy(nic, caps, p);
  // T_CTRL_RATE bytes per 1024 cycles, T_CTRL_BURST bytes, as committed.
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> want{{0, 64}, {64, 1024}, {1024, 16384}, {999, 5000}};
  for (std::uint32_t t = 0; t < 4; ++t) {
    INFO("tenant " << t);
    CHECK(rm::T_CTRL_RATE::BYTES_PER_KCYCLE.get(static_cast<std::uint32_t>(nic.active(rm::T_CTRL_RATE::offset(t)))) ==
          want[t].first);
    CHECK(rm::T_CTRL_BURST::BYTES.get(static_cast<std::uint32_t>(nic.active(rm::T_CTRL_BURST::offset(t)))) ==
          want[t].second);
  }
  // Level 0 on a tenant with the reset bucket: the reset values stay.
  CHECK(nic.active(rm::T_CTRL_RATE::offset(4)) == rm::T_CTRL_RATE::kReset);
  CHECK(nic.active(rm::T_CTRL_BURST::offset(4)) == rm::T_CTRL_BURST::kReset);
  CHECK(rm::T_CTRL::PRIORITY.get(static_cast<std::uint32_t>(nic.active(rm::T_CTRL::offset(4)))) == 2);
  // CTRL.CONTROL_LEVEL is the NIC's, not the action's: it stays on.
  CHECK(rm::CTRL::CONTROL_LEVEL.get(static_cast<std::uint32_t>(nic.active(rm::CTRL::kOffset))) == 1);

  // encode: the levels come back; a bucket that is none of them (the scenario's) is level 0.
  CHECK(codec.encode(p) == [&] {
    auto a = action;
    a[3 * 4 + 3] = 0;
    return a;
  }());
  std::vector<int> bad(action);
  bad[1 * 4 + 3] = 4;
  CHECK_THROWS_WITH(codec.decode(bad, base), Catch::Contains("tenant 1") && Catch::Contains("(0, 0, 0, 4)"));
}

TEST_CASE("nic_env control head: after the rate head, masks pin absent tenants, one level means no head",
          "[nic_env][control]") {
  TrackedNic nic(test_caps(2, 4, 4));
  auto& [caps, s, tr] = nic;
  const ActionCodec codec(with_heads(3, 3), caps, 50.0);
  CHECK(codec.space().head_sizes == std::vector<int>{4, 4, 4, 3, 3, 4, 4, 4, 3, 3});
  nicsched::host::Policy base;
  base.tenants.resize(2);
  const std::vector<int> action{0, 0, 0, 2, 1, 0, 0, 0, 0, 2};
  const auto p = codec.decode(action, base);
  CHECK(p.tenants[0].rate_limited);
  CHECK(p.tenants[0].rate_bytes_per_kcycle == 51200 / 4);
  CHECK(p.tenants[0].ctrl_rate_bytes_per_kcycle == 0);  // off
  CHECK(p.tenants[0].ctrl_burst_bytes == 64);
  CHECK_FALSE(p.tenants[1].rate_limited);
  CHECK(p.tenants[1].ctrl_rate_bytes_per_kcycle == 64);  // low
  CHECK(p.tenants[1].ctrl_burst_bytes == 1024);
  CHECK(codec.encode(p) == action);

  tr.update(s.bulk(0, 1000).next(1000));  // tenant 1 absent
  std::vector<std::uint8_t> m(2 * 18);
  codec.mask(tr, m);
  CHECK(std::vector<std::uint8_t>(m.begin() + 15, m.begin() + 18) == std::vector<std::uint8_t>{1, 1, 1});
  CHECK(std::vector<std::uint8_t>(m.begin() + 30, m.begin() + 33) == std::vector<std::uint8_t>{1, 0, 0});  // rate
  CHECK(std::vector<std::uint8_t>(m.begin() + 33, m.end()) == std::vector<std::uint8_t>{1, 0, 0});        // control

  const ActionCodec plain(NicEnvConfig{}, caps);
  CHECK(plain.heads_per_tenant() == 3);
  CHECK(plain.decode(std::vector<int>(6, 0), base).tenants[0].ctrl_burst_bytes == base.tenants[0].ctrl_burst_bytes);
  NicEnvConfig bad;
  bad.control_levels = 0;
  CHECK_THROWS_AS(bad.validate(), EnvError);
  bad.control_levels = 5;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("control_levels"));
  const auto parsed = parse_env_config("control_levels: 4\n", "test");
  CHECK(parsed.control_levels == 4);
  CHECK(parse_env_config(env_config_yaml(parsed), "round trip").control_levels == 4);
  // The committed policy's env (no control_levels key): no control head.
  CHECK(parse_env_config("rate_levels: 1\n", "old policy").control_levels == 1);
}

TEST_CASE("nic_env control head: two more tenant features, control bytes and the level in force", "[nic_env][control]") {
  const auto caps = test_caps(2);
  NicEnvConfig cfg = with_heads(1, 4);
  cfg.history = 1;
  ObservationEncoder enc(cfg, caps);
  CHECK(ObservationEncoder::tenant_features(cfg) == 21);
  CHECK(ObservationEncoder::tenant_features(NicEnvConfig{}) == 19);  // the committed policy's observation
  REQUIRE(enc.size() == 2 * 21 + ObservationEncoder::kGlobalFeatures);
  TelemetryScript s(caps);
  TelemetryTracker tr(caps, 50.0);
  tr.reset(s.now());
  // 2048 cycles: the reset bucket (256 bytes per 1024 cycles) passes 512 bytes; tenant 0
  // sends 1024 bytes of control traffic, tenant 1 none.
  tr.update(s.bulk(0, 1000).control(0, 1024, 8).bulk(1, 1000).next(2048));
  nicsched::host::Policy in_force;
  in_force.tenants.resize(2);
  const auto low = ActionCodec::control_bucket_of_level(2);
  in_force.tenants[1].ctrl_rate_bytes_per_kcycle = low.rate_bytes_per_kcycle;
  in_force.tenants[1].ctrl_burst_bytes = low.burst_bytes;
  enc.push(tr, in_force);
  std::vector<float> obs(enc.size());
  enc.write(obs);
  CHECK(obs[19] == Approx(2.0));        // tenant 0: twice what the reset bucket passes
  CHECK(obs[20] == Approx(0.0));        // tenant 0: the scenario's bucket (the reset)
  CHECK(obs[21 + 0] == Approx(1.0));    // tenant 1 present
  CHECK(obs[21 + 19] == Approx(0.0));   // tenant 1: no control bytes
  CHECK(obs[21 + 20] == Approx(2.0 / 3.0));  // tenant 1: level 2 (low) of 0..3
  CHECK(obs[42] == Approx(2000.0 / (2048.0 * 50.0)));  // the first global (bulk link use) follows both tenant blocks
  CHECK(obs[44] == Approx(1.0));                        // the last: both tenants present
}
