// regmap.codec: the one register codec (nicsched/nic/codec.hpp) round-trips every field
// of a configuration and of a snapshot over its whole range, and writes in the order the
// register map gives.
#include <map>
#include <random>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "nicsched/nic/codec.hpp"

namespace nic = nicsched::nic;
namespace rm = nicsched::regmap;

namespace {

std::uint32_t draw(std::mt19937& rng, std::uint32_t max) {
  return std::uniform_int_distribution<std::uint32_t>(0, max)(rng);
}

// A configuration with every field drawn over its register field's whole range.
nic::Config random_config(std::mt19937& rng, std::uint32_t tenants, std::uint32_t entries) {
  nic::Config c = nic::Config::reset_values(tenants, entries);
  auto action = [&] {
    return nic::ClassifierAction{draw(rng, 63), draw(rng, 1), static_cast<nic::CryptoOp>(draw(rng, 3))};
  };
  c.enable = draw(rng, 1) != 0;
  c.arb_mode = static_cast<nic::ArbMode>(draw(rng, 3));
  c.bad_to_default = draw(rng, 1) != 0;
  c.control_level = draw(rng, 1) != 0;
  c.crypto_bytes_per_cycle = draw(rng, 0xFF);
  c.crypto_latency = draw(rng, 0xFFFF);
  c.default_action = action();
  for (auto& t : c.tenants) {
    t.enable = draw(rng, 1) != 0;
    t.priority = draw(rng, 3);
    t.crypto_quota = draw(rng, 0xFF);
    t.rate_limited = draw(rng, 1) != 0;
    t.weight = draw(rng, 0xFFFF);
    t.rate_bytes_per_kcycle = draw(rng, 0xFFFFFF);
    t.burst_bytes = draw(rng, 0xFFFFFF);
    t.qlimit_control_bytes = draw(rng, 0xFFFFFF);
    t.qlimit_bulk_bytes = draw(rng, 0xFFFFFF);
    t.ctrl_rate_bytes_per_kcycle = draw(rng, 0xFFFFFF);
    t.ctrl_burst_bytes = draw(rng, 0xFFFFFF);
  }
  for (auto& e : c.classifier) {
    e.valid = draw(rng, 1) != 0;
    e.vlan = draw(rng, 0xFFF);
    e.vlan_mask = draw(rng, 0xFFF);
    e.dscp = draw(rng, 0x3F);
    e.dscp_mask = draw(rng, 0x3F);
    e.proto = draw(rng, 0xFF);
    e.proto_mask = draw(rng, 0xFF);
    e.port = draw(rng, 0xFFFF);
    e.port_mask = draw(rng, 0xFFFF);
    e.action = action();
  }
  return c;
}

}  // namespace

TEST_CASE("codec: decode_config is the inverse of encode_config", "[codec]") {
  std::mt19937 rng(7);
  for (std::uint32_t tenants : {8U, 16U, 3U, 64U}) {
    const std::uint32_t entries = std::min(64U, 2 * tenants);
    for (int round = 0; round < 20; ++round) {
      INFO("tenants " << tenants << " round " << round);
      const nic::Config c = random_config(rng, tenants, entries);
      std::map<std::uint32_t, std::uint32_t> regs;
      for (const auto& w : nic::encode_config(c)) CHECK(regs.emplace(w.addr, w.value).second);
      CHECK(regs.size() == 3 + 8 * tenants + 4 * entries);
      const nic::Config back = nic::decode_config(
          [&](std::uint32_t a) {
            const auto it = regs.find(a);
            if (it == regs.end()) throw std::out_of_range("decode_config read an address encode_config never wrote");
            return it->second;
          },
          tenants, entries);
      CHECK(back == c);
    }
  }
}

TEST_CASE("codec: encode_config writes in address order and leaves out the parts not asked for", "[codec]") {
  std::mt19937 rng(3);
  const nic::Config c = random_config(rng, 4, 8);
  const auto all = nic::encode_config(c);
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].addr < all[i].addr);
  CHECK(all.front().addr == rm::CTRL::kOffset);
  CHECK(all.back().addr == rm::CLS_ACTION::offset(7));
  const auto some = nic::encode_config(c, {.default_action = false, .classifier = false});
  REQUIRE(some.size() == 2 + 8 * 4);
  for (const auto& w : some) {
    CHECK(w.addr != rm::DEFAULT_ACTION::kOffset);
    CHECK(w.addr < rm::CLS_VLAN::kBase);
  }
  // As when a policy is applied: CRYPTO_ENGINE (NIC setup) is not written.
  const auto no_engine = nic::encode_config(c, {.crypto_engine = false});
  REQUIRE(no_engine.size() == all.size() - 1);
  for (const auto& w : no_engine) CHECK(w.addr != rm::CRYPTO_ENGINE::kOffset);
}

TEST_CASE("codec: a snapshot's words decode to the same counters, gauges saturate at their field", "[codec]") {
  std::mt19937_64 rng(11);
  const std::uint32_t tenants = 8;
  nic::Telemetry c;
  auto r64 = [&] { return rng() >> (rng() % 64); };
  auto r32 = [&] { return static_cast<std::uint32_t>(rng()); };
  auto small = [&] { return static_cast<std::uint32_t>(rng() % 5); };
  c.cycle = r64();
  c.crypto_busy_slots = small();
  for (auto& pc : c.parser) pc = {r64(), r64(), r64(), r64(), r64(), r64()};
  c.crypto.resize(tenants);
  for (auto& cc : c.crypto) cc = {r64(), r64(), r64(), r64(), r64(), r64(), r64(), r64(), small()};
  c.queues.resize(tenants * nic::kNumClasses);
  for (auto& q : c.queues) q = {r64(), r64(), r64(), r64(), r64(), r64(), r64(), r64(), r32(), r32(), r32(), r32()};
  std::map<std::uint32_t, std::uint32_t> words;
  nic::encode_telemetry(c, [&](std::uint32_t a, std::uint32_t v) { CHECK(words.emplace(a, v).second); });
  const std::uint32_t gen = 17;
  words[rm::CONFIG_GEN::kOffset] = gen;  // live registers beside the snapshot
  words[rm::STATUS::kOffset] = rm::STATUS::RX_BUF_FULL.mask();
  const nic::Telemetry back =
      nic::decode_telemetry([&](std::uint32_t a) { return words.at(a); }, tenants, {.status = true});
  CHECK(back.cycle == c.cycle);
  CHECK(back.config_gen == gen);
  CHECK(back.crypto_busy_slots == c.crypto_busy_slots);
  CHECK(!back.tx_buf_full);
  CHECK(back.rx_buf_full);
  CHECK(back.parser == c.parser);
  CHECK(back.crypto == c.crypto);
  CHECK(back.queues == c.queues);

  // CR_SLOTS_HELD and CRYPTO_BUSY are 8-bit fields: a larger count reads as 255.
  c.crypto[0].slots_held = 300;
  c.crypto_busy_slots = 1000;
  nic::encode_telemetry(c, [&](std::uint32_t a, std::uint32_t v) { words[a] = v; });
  const nic::Telemetry sat = nic::decode_telemetry([&](std::uint32_t a) { return words.at(a); }, tenants);
  CHECK(sat.crypto[0].slots_held == 255);
  CHECK(sat.crypto_busy_slots == 255);
}

TEST_CASE("codec: register_name names elements and the upper word of 64-bit registers", "[codec]") {
  CHECK(nic::register_name(rm::CTRL::kOffset) == "CTRL");
  CHECK(nic::register_name(rm::T_WEIGHT::offset(3)) == "T_WEIGHT[3]");
  CHECK(nic::register_name(rm::Q_TX_BYTES::offset(5) + 4) == "Q_TX_BYTES[5].HI");
  CHECK(nic::register_name(0x0FFC) == "0x0ffc");
}
