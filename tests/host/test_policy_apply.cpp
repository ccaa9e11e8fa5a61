// apply_policy / read_policy against the stand-in CSR block: the registers take the
// policy's values only at COMMIT, an invalid policy writes nothing, a register that reads
// back wrong is named, and everything works the same through the nicsim protocol.
#include <catch2/catch.hpp>
#include <thread>

#include "nicsched/drivers/sim_client.hpp"
#include "nicsched/drivers/sim_server.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "stand_in_nic.hpp"

using namespace nicsched;
namespace rm = nicsched::regmap;
using Catch::Contains;
using test::StandInNic;

namespace {

host::Policy sample_policy(const host::Capabilities& caps) {
  host::Policy p = host::default_policy(caps);
  p.arb_mode = host::ArbMode::kDwrr;
  for (std::uint32_t t = 0; t < caps.tenants; ++t) {
    auto& tp = p.tenants[t];
    tp.priority = t % caps.prio_levels;
    tp.weight = 1000 + t;
    tp.rate_limited = t % 2 == 1;
    tp.rate_bytes_per_kcycle = tp.rate_limited ? 5000 + t : 0;
    tp.burst_bytes = 20000 + t;
    tp.crypto_quota = t % (caps.crypto_slots + 1);
    tp.qlimit_control_bytes = 8000 + t;
    tp.qlimit_bulk_bytes = 100000 + t;
    tp.enable = t != 3;
    tp.ctrl_rate_bytes_per_kcycle = 300 + t;
    tp.ctrl_burst_bytes = 5000 + t;
  }
  p.control_level = false;
  p.tx_identity = host::TxIdentityConfig{};  // what a NIC without TX sources reads back: header-only
  host::ClassifierEntry e;
  e.vlan = 100;
  e.vlan_mask = 0xFFF;
  e.port = 5000;
  e.port_mask = 0xFFFF;
  e.proto = 17;
  e.proto_mask = 0xFF;
  e.action = {2, 1, host::CryptoOp::kEncrypt};
  host::ClassifierEntry f;
  f.dscp = 46;
  f.dscp_mask = 0x3F;
  f.action = {1, 0, host::CryptoOp::kNone};
  p.classifier = std::vector<host::ClassifierEntry>{e, f};
  p.default_action = host::ClassifierAction{caps.tenants - 1, 1, host::CryptoOp::kDecrypt};
  return p;
}

}  // namespace

TEST_CASE("apply_policy: shadow registers take effect at one COMMIT and read back", "[apply]") {
  StandInNic nic;
  const auto caps = host::discover(nic);
  const host::Policy p = sample_policy(caps);
  const auto result = host::apply_policy(nic, caps, p);
  CHECK(result.config_gen == 1);
  CHECK(nic.config_gen() == 1);
  // The active copies (what the datapath sees) hold the policy.
  const std::uint64_t t5 = nic.active(rm::T_CTRL::offset(5));
  CHECK(rm::T_CTRL::PRIORITY.get(static_cast<std::uint32_t>(t5)) == 1);
  CHECK(rm::T_CTRL::RATE_EN.get(static_cast<std::uint32_t>(t5)) == 1);
  CHECK(rm::T_CTRL::CRYPTO_QUOTA.get(static_cast<std::uint32_t>(t5)) == 0);
  CHECK(rm::T_CTRL::ENABLE.get(static_cast<std::uint32_t>(nic.active(rm::T_CTRL::offset(3)))) == 0);
  CHECK(nic.active(rm::T_WEIGHT::offset(7)) == 1007);
  CHECK(nic.active(rm::T_RATE::offset(7)) == 5007);
  CHECK(nic.active(rm::T_QLIMIT_BULK::offset(2)) == 100002);
  CHECK(rm::CTRL::ARB_MODE.get(static_cast<std::uint32_t>(nic.active(rm::CTRL::kOffset))) == 2);
  CHECK(rm::CTRL::CONTROL_LEVEL.get(static_cast<std::uint32_t>(nic.active(rm::CTRL::kOffset))) == 0);
  CHECK(nic.active(rm::T_CTRL_RATE::offset(6)) == 306);
  CHECK(nic.active(rm::T_CTRL_BURST::offset(6)) == 5006);
  CHECK(rm::CLS_ACTION::VALID.get(static_cast<std::uint32_t>(nic.active(rm::CLS_ACTION::offset(1)))) == 1);
  CHECK(rm::CLS_ACTION::VALID.get(static_cast<std::uint32_t>(nic.active(rm::CLS_ACTION::offset(2)))) == 0);
  CHECK(host::read_policy(nic, caps) == p);
}

TEST_CASE("apply_policy: the crypto engine the board set up is not the policy's to change", "[apply]") {
  StandInNic nic;
  const auto caps = host::discover(nic);
  // Bring-up: 4 B/cycle, latency 64 (not the reset 16 / 32).
  const std::uint32_t engine = rm::CRYPTO_ENGINE::LATENCY.set(rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.set(0, 4), 64);
  nic.write32(rm::CRYPTO_ENGINE::kOffset, engine);
  const auto result = host::apply_policy(nic, caps, host::default_policy(caps));
  CHECK(result.config_gen == 1);
  CHECK(nic.active(rm::CRYPTO_ENGINE::kOffset) == engine);
  CHECK(nic.read32(rm::CRYPTO_ENGINE::kOffset) == engine);
  (void)host::apply_policy(nic, caps, sample_policy(caps));
  CHECK(nic.active(rm::CRYPTO_ENGINE::kOffset) == engine);
}

TEST_CASE("apply_policy: an invalid policy writes nothing at all", "[apply]") {
  StandInNic nic;
  const auto caps = host::discover(nic);
  host::Policy p = sample_policy(caps);
  p.tenants[6].crypto_quota = caps.crypto_slots + 1;
  CHECK_THROWS_AS(host::apply_policy(nic, caps, p), host::PolicyError);
  CHECK(nic.writes() == 0);
  CHECK(nic.config_gen() == 0);
}

TEST_CASE("apply_policy: a register that reads back wrong is named with its element", "[apply]") {
  StandInNic nic;
  const auto caps = host::discover(nic);
  nic.corrupt_on_read(rm::T_WEIGHT::offset(2));
  CHECK_THROWS_WITH(host::apply_policy(nic, caps, sample_policy(caps)),
                    Contains("T_WEIGHT[2]") && Contains("0x1044") && Contains("read-back"));
}

TEST_CASE("apply_policy: CTRL bits outside the policy keep their value", "[apply]") {
  StandInNic nic;
  const auto caps = host::discover(nic);
  nic.write32(rm::CTRL::kOffset, rm::CTRL::BAD_TO_DEFAULT.set(rm::CTRL::kReset, 1));
  host::apply_policy(nic, caps, sample_policy(caps));
  CHECK(rm::CTRL::BAD_TO_DEFAULT.get(static_cast<std::uint32_t>(nic.active(rm::CTRL::kOffset))) == 1);
}

TEST_CASE("apply_policy: without a classifier section the table is left as it is", "[apply]") {
  StandInNic nic;
  const auto caps = host::discover(nic);
  host::apply_policy(nic, caps, sample_policy(caps));
  host::Policy p = host::default_policy(caps);  // no classifier, no default action
  p.tenants[0].weight = 4242;
  host::apply_policy(nic, caps, p);
  const host::Policy now = host::read_policy(nic, caps);
  CHECK(now.tenants[0].weight == 4242);
  REQUIRE(now.classifier);
  CHECK(now.classifier->size() == 2);
  CHECK(now.default_action == sample_policy(caps).default_action);
  CHECK(nic.config_gen() == 2);
}

TEST_CASE("read_policy: valid classifier entries come back compacted in table order", "[apply]") {
  StandInNic nic;
  const auto caps = host::discover(nic);
  // Entry 5 valid, others not: read_policy lists it first.
  nic.write32(rm::CLS_VLAN::offset(5), rm::CLS_VLAN::MASK.set(rm::CLS_VLAN::VALUE.set(0, 7), 0xFFF));
  nic.write32(rm::CLS_ACTION::offset(5), rm::CLS_ACTION::TENANT.set(rm::CLS_ACTION::VALID.set(0, 1), 3));
  const host::Policy p = host::read_policy(nic, caps);
  REQUIRE(p.classifier);
  REQUIRE(p.classifier->size() == 1);
  CHECK((*p.classifier)[0].vlan == 7);
  CHECK((*p.classifier)[0].action.tenant == 3);
}

TEST_CASE("apply_policy and read_policy through the nicsim protocol, 8 and 64 tenants", "[apply]") {
  for (std::uint32_t tenants : {8u, 64u}) {
    StandInNic::Params params;
    params.tenants = tenants;
    params.cls_entries = 64;
    StandInNic nic(params);
    drivers::ServerOptions o;
    o.handle_signals = false;
    o.tcp_address.reset();
    o.unix_path = "/tmp/nicsched-host-apply-" + std::to_string(::getpid()) + ".sock";
    drivers::SimServer server(nic, o);
    std::thread th([&] { server.run(); });
    {
      auto client = drivers::SimClient::connect_unix(o.unix_path);
      const auto caps = host::discover(*client);
      CHECK(caps.tenants == tenants);
      const host::Policy p = sample_policy(caps);
      const auto r = host::apply_policy(*client, caps, p);
      CHECK(r.config_gen == 1);
      CHECK(r.writes == 2 + 8 * tenants + 4 * 64);  // CTRL, DEFAULT_ACTION (no CRYPTO_ENGINE: NIC setup)
      CHECK(host::read_policy(*client, caps) == p);
    }
    server.stop();
    th.join();
  }
}
