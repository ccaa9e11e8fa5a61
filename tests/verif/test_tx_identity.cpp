// TX identity in the reference model (CTest: verif.model.*, [tx-identity]): a frame's tenant
// from the source it came from (the source table, docs/trust.md) against the tenant its
// headers claim. Each expected value is worked out from the rule in the comment beside it.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <vector>

#include "frames.hpp"
#include "nicsched/refmodel/model.hpp"
#include "nicsched/refmodel/parser.hpp"

using namespace nicsched::refmodel;
using nicsched::verif::test::Ip4Frame;
using nicsched::verif::test::ip4;
using nicsched::verif::test::raw;

namespace {

constexpr std::uint32_t kTenants = 4;
constexpr std::uint32_t kDscpEf = 46;

// As a scenario writes it: tenant t has VLAN 100 + t; VLAN + DSCP EF is its control class,
// the VLAN alone its bulk class (encrypted for tenant 3). Misses: DEFAULT_ACTION tenant 0, bulk.
Config scenario_config(const Params& p) {
  Config c = reset_config(p);
  std::size_t i = 0;
  for (std::uint32_t t = 0; t < kTenants; ++t) {
    ClassifierEntry ctrl;
    ctrl.vlan = 100 + t;
    ctrl.vlan_mask = 0xFFF;
    ctrl.dscp = kDscpEf;
    ctrl.dscp_mask = 0x3F;
    ctrl.action = {t, 0, CryptoOp::kNone};
    c.classifier[i++] = ctrl;
    ClassifierEntry bulk;
    bulk.vlan = 100 + t;
    bulk.vlan_mask = 0xFFF;
    bulk.action = {t, 1, t == 3 ? CryptoOp::kEncrypt : CryptoOp::kNone};
    c.classifier[i++] = bulk;
  }
  c.default_action = {0, 1, CryptoOp::kNone};
  return c;
}

Params params() {
  Params p;
  p.num_tenants = static_cast<int>(kTenants);
  p.num_cls_entries = 16;
  return p;
}

std::vector<std::uint8_t> claiming(std::uint32_t tenant, std::uint32_t dscp, std::uint32_t len = 128) {
  Ip4Frame s;
  s.len = len;
  s.vlan = static_cast<int>(100 + tenant);
  s.dscp = dscp;
  return ip4(s);
}

// Sources 0..3 bound to tenants 0..3.
SourceTable bound(bool drop) {
  SourceTable s;
  for (std::uint32_t t = 0; t < kTenants; ++t) s.push_back({true, t, drop});
  return s;
}

ParsedFrame parsed(const std::vector<std::uint8_t>& f) { return parse_frame(f, false, kMinHostFrameBytes); }

}  // namespace

TEST_CASE("header-only: an unbound source is whatever its headers claim", "[tx-identity]") {
  const Config c = scenario_config(params());
  const TxIdentity id = classify_tx(parsed(claiming(2, kDscpEf)), c, {}, 1);  // empty table: every source unbound
  CHECK(id.action == ClassifierAction{2, 0, CryptoOp::kNone});  // tenant 2's control row
  CHECK_FALSE(id.spoofed);
  CHECK_FALSE(id.dropped);
}

TEST_CASE("bound source: its own rows choose its class and crypto op", "[tx-identity]") {
  const Config c = scenario_config(params());
  const SourceTable s = bound(true);
  CHECK(classify_tx(parsed(claiming(1, kDscpEf)), c, s, 1).action == ClassifierAction{1, 0, CryptoOp::kNone});
  CHECK(classify_tx(parsed(claiming(3, 0)), c, s, 3).action == ClassifierAction{3, 1, CryptoOp::kEncrypt});
  CHECK_FALSE(classify_tx(parsed(claiming(3, 0)), c, s, 3).spoofed);
}

TEST_CASE("bound source: a miss is the source's tenant with DEFAULT_ACTION's class, not a spoof",
          "[tx-identity]") {
  Config c = scenario_config(params());
  const SourceTable src = bound(true);
  c.default_action = {0, 1, CryptoOp::kEncrypt};
  Ip4Frame s;
  s.len = 128;
  s.vlan = 999;  // no row has VLAN 999: DEFAULT_ACTION, tenant 0, would be header-only's answer
  const TxIdentity id = classify_tx(parsed(ip4(s)), c, src, 2);
  CHECK(id.action == ClassifierAction{2, 1, CryptoOp::kEncrypt});
  CHECK_FALSE(id.spoofed);
  // Not IP (an ARP frame kept by CTRL.BAD_TO_DEFAULT): the same.
  std::vector<std::uint8_t> arp = raw(64, 0x0806);
  const ParsedFrame pa = parse_frame(arp, true, kMinHostFrameBytes);
  REQUIRE(pa.to_default);
  CHECK(classify_tx(pa, c, src, 2).action.tenant == 2);
}

TEST_CASE("bound source: another tenant's row is a spoof, kept as the source's tenant or dropped",
          "[tx-identity]") {
  const Config c = scenario_config(params());
  SourceTable s = bound(false);
  const TxIdentity kept = classify_tx(parsed(claiming(0, kDscpEf)), c, s, 2);  // claims tenant 0's control
  CHECK(kept.spoofed);
  CHECK_FALSE(kept.dropped);
  CHECK(kept.action == ClassifierAction{2, 1, CryptoOp::kNone});  // tenant 2, DEFAULT_ACTION's bulk
  s[2].drop_spoofed = true;
  const TxIdentity dropped = classify_tx(parsed(claiming(0, kDscpEf)), c, s, 2);
  CHECK(dropped.spoofed);
  CHECK(dropped.dropped);
  // A source beyond the table is unbound.
  CHECK(classify_tx(parsed(claiming(0, kDscpEf)), c, s, 9).action.tenant == 0);
}

TEST_CASE("model: spoofed frames are counted per source, dropped ones never queue", "[tx-identity]") {
  const Params p = params();
  RefModel m(p);
  SourceTable s = bound(false);
  s[3].drop_spoofed = true;
  m.set_sources(s);
  m.commit(scenario_config(p));
  m.step(1);
  // Source 2 claims tenant 0's control class three times (kept as tenant 2 bulk), source 3
  // claims tenant 1 twice (dropped), source 1 sends one honest control frame.
  std::uint64_t at = m.cycle();
  for (int i = 0; i < 3; ++i) m.push(Direction::kTx, claiming(0, kDscpEf), at++, 2);
  for (int i = 0; i < 2; ++i) m.push(Direction::kTx, claiming(1, 0), at++, 3);
  m.push(Direction::kTx, claiming(1, kDscpEf), at++, 1);
  REQUIRE(m.run_until_idle(100000));
  std::map<Fate, int> fates;
  for (const FrameRecord& r : m.pop_records()) {
    ++fates[r.fate];
    if (r.source == 2) {
      CHECK(r.spoofed);
      CHECK(r.action == ClassifierAction{2, 1, CryptoOp::kNone});
    }
    if (r.source == 3) CHECK(r.fate == Fate::kSpoofDrop);
    if (r.source == 1) CHECK(r.action == ClassifierAction{1, 0, CryptoOp::kNone});
  }
  CHECK(fates[Fate::kDelivered] == 4);
  CHECK(fates[Fate::kSpoofDrop] == 2);
  CHECK(m.spoofed(0) == 0);
  CHECK(m.spoofed(1) == 0);
  CHECK(m.spoofed(2) == 3);
  CHECK(m.spoofed(3) == 2);
  const Telemetry t = m.counters();
  CHECK(t.queues[0].enq_pkts == 0);  // tenant 0's control queue: nothing of the spoofer's
  CHECK(t.queues[2 * 2 + 1].enq_pkts == 3);
  CHECK(t.queues[2 * 1 + 0].enq_pkts == 1);
  CHECK(t.queues[2 * 1 + 1].enq_pkts == 0);
  m.clear_counters();
  CHECK(m.spoofed(2) == 0);
}

TEST_CASE("model: a bound source never reaches another tenant's queue (random headers and sources)",
          "[tx-identity]") {
  const Params p = params();
  std::mt19937_64 rng(20261128);
  for (int round = 0; round < 20; ++round) {
    RefModel m(p);
    const Config c = scenario_config(p);
    // Random bindings: some sources unbound (header-only), the rest bound, keep or drop.
    SourceTable table(kTenants);
    for (SourceBinding& b : table) {
      b = {rng() % 4 != 0, static_cast<std::uint32_t>(rng() % kTenants), rng() % 2 == 0};
    }
    m.set_sources(table);
    m.commit(c);
    m.step(1);
    std::uint64_t at = m.cycle();
    std::vector<std::uint32_t> expect_spoofed(kTenants, 0);
    for (int i = 0; i < 300; ++i) {
      const auto src = static_cast<std::uint32_t>(rng() % kTenants);
      const auto claim = static_cast<std::uint32_t>(rng() % (kTenants + 1));  // kTenants: a VLAN no row has
      const std::vector<std::uint8_t> f = claiming(claim, rng() % 2 == 0 ? kDscpEf : 0, 64 + rng() % 512);
      // The headers' tenant is what header-only classification says (classify, not classify_tx).
      const ClassifierAction header = classify(parsed(f), c);
      const bool matched = claim < kTenants;
      if (table[src].bound && matched && header.tenant != table[src].tenant) ++expect_spoofed[src];
      m.push(Direction::kTx, f, at, src);
      at += 1 + rng() % 3;
    }
    REQUIRE(m.run_until_idle(10000000));
    for (const FrameRecord& r : m.pop_records()) {
      const SourceBinding& b = table[r.source];
      if (!b.bound || r.fate == Fate::kSpoofDrop) continue;
      INFO("round " << round << " frame " << r.id << " source " << r.source);
      CHECK(r.action.tenant == b.tenant);
      if (r.spoofed) CHECK_FALSE(b.drop_spoofed);
    }
    for (std::uint32_t s = 0; s < kTenants; ++s) CHECK(m.spoofed(s) == expect_spoofed[s]);
  }
}

TEST_CASE("model: a binding to a tenant the instance lacks is refused, naming it", "[tx-identity]") {
  const Params p = params();
  RefModel m(p);
  CHECK_THROWS_WITH(m.set_sources({{true, 0, false}, {true, kTenants, false}}), Catch::Contains("sources[1].tenant"));
  CHECK_THROWS_WITH(m.set_sources(SourceTable(kMaxSources + 1)), Catch::Contains("at most 64"));
  CHECK(m.sources().empty());  // nothing applied
}
