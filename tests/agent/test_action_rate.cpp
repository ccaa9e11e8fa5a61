// The rate head of NicEnv's action (NicEnvConfig::rate_levels > 1): level 0 keeps the
// scenario's rate limit, level k limits the tenant to line rate / 2^k; absent tenants are
// pinned to level 0; rate_levels = 1 leaves the action as the committed policy knows it.
#include <catch2/catch.hpp>

#include "nicsched/control/nic_env.hpp"
#include "telemetry_fixture.hpp"

using namespace nicsched::control;
using namespace nicsched::testing;

namespace {
NicEnvConfig with_rate(std::uint32_t levels) {
  NicEnvConfig c;
  c.rate_levels = levels;
  return c;
}
}  // namespace

TEST_CASE("nic_env rate head: decode, encode, levels as fractions of the line rate", "[nic_env][rate]") {
  const auto caps = test_caps(2, 4, 4);
  const ActionCodec codec(with_rate(4), caps, 50.0);  // 50 bytes per cycle = 51,200 per kcycle
  CHECK(codec.heads_per_tenant() == 4);
  CHECK(codec.logits_per_tenant() == 16);
  CHECK(codec.space().head_sizes == std::vector<int>{4, 4, 4, 4, 4, 4, 4, 4});
  nicsched::host::Policy base;
  base.tenants.resize(2);
  base.tenants[0].rate_limited = true;  // the scenario's own limit on tenant 0
  base.tenants[0].rate_bytes_per_kcycle = 999;
  const std::vector<int> action{1, 2, 3, 0, 0, 0, 0, 2};
  const auto p = codec.decode(action, base);
  CHECK(p.tenants[0].rate_limited);  // level 0: the scenario's setting stays
  CHECK(p.tenants[0].rate_bytes_per_kcycle == 999);
  CHECK(p.tenants[1].rate_limited);
  CHECK(p.tenants[1].rate_bytes_per_kcycle == 51200 / 4);
  CHECK(codec.rate_of_level(1) == 25600);
  CHECK(codec.rate_of_level(3) == 6400);
  auto q = p;
  q.tenants[0].rate_limited = false;  // unlimited encodes as level 0
  CHECK(codec.encode(q) == action);
  const std::vector<int> out_of_range{0, 0, 0, 4, 0, 0, 0, 0};
  CHECK_THROWS_AS(codec.decode(out_of_range, base), EnvError);
  const std::vector<int> three_heads{0, 0, 0, 0, 0, 0};
  CHECK_THROWS_AS(codec.decode(three_heads, base), EnvError);
}

TEST_CASE("nic_env rate head: masks pin absent tenants, one level means no head", "[nic_env][rate]") {
  TrackedNic nic(test_caps(2, 2, 3));
  auto& [caps, s, tr] = nic;
  const ActionCodec codec(with_rate(3), caps, 50.0);
  tr.update(s.bulk(0, 1000).next(1000));  // tenant 1 absent
  std::vector<std::uint8_t> m(2 * 15);
  codec.mask(tr, m);
  CHECK(std::vector<std::uint8_t>(m.begin() + 12, m.begin() + 15) == std::vector<std::uint8_t>{1, 1, 1});
  CHECK(std::vector<std::uint8_t>(m.begin() + 27, m.end()) == std::vector<std::uint8_t>{1, 0, 0});

  const ActionCodec plain(NicEnvConfig{}, caps);
  CHECK(plain.heads_per_tenant() == 3);
  CHECK(plain.space().heads() == 6);
  NicEnvConfig bad;
  bad.rate_levels = 0;
  CHECK_THROWS_AS(bad.validate(), EnvError);
  bad.rate_levels = 12;
  CHECK_THROWS_AS(bad.validate(), EnvError);
  const auto parsed = nicsched::control::parse_env_config("rate_levels: 5\n", "test");
  CHECK(parsed.rate_levels == 5);
  CHECK(nicsched::control::parse_env_config(nicsched::control::env_config_yaml(parsed), "round trip").rate_levels == 5);
}
