// Unit tests of the reference model on hand-worked cases (CTest: verif.model.*). Each
// expected value below is worked out from the specification in the comment beside it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "frames.hpp"
#include "nicsched/refmodel/model.hpp"
#include "nicsched/refmodel/parser.hpp"
#include "nicsched/nic/codec.hpp"
#include "nicsched/regmap.hpp"

using namespace nicsched::refmodel;
using nicsched::verif::test::Ip4Frame;
using nicsched::verif::test::ip4;
using nicsched::verif::test::ip6;
using nicsched::verif::test::raw;

namespace {

// Classifier used by the scheduling tests: destination port 1000 + 2*t + c goes to
// tenant t, class c, no crypto; 2000 + 2*t + c encrypt; 3000 + 2*t + c decrypt.
Config routed_config(const Params& p) {
  Config c = reset_config(p);
  c.classifier.assign(static_cast<std::size_t>(p.num_cls_entries), ClassifierEntry::reset());
  std::size_t i = 0;
  for (std::uint32_t base : {1000U, 2000U, 3000U}) {
    const CryptoOp op = base == 1000 ? CryptoOp::kNone
                        : base == 2000 ? CryptoOp::kEncrypt
                                       : CryptoOp::kDecrypt;
    for (std::uint32_t q = 0; q < 4 && i < c.classifier.size(); ++q, ++i) {
      ClassifierEntry& e = c.classifier[i];
      e.valid = true;
      e.port = base + q;
      e.port_mask = 0xFFFF;
      e.action = ClassifierAction{q / 2, q % 2, op};
    }
  }
  return c;
}

std::vector<std::uint8_t> frame_for(std::uint32_t tenant, std::uint32_t cls, std::uint32_t len,
                                    CryptoOp op = CryptoOp::kNone) {
  const std::uint32_t base = op == CryptoOp::kNone ? 1000 : op == CryptoOp::kEncrypt ? 2000 : 3000;
  Ip4Frame s;
  s.len = len;
  s.dport = base + tenant * 2 + cls;
  return ip4(s);
}

Params small_params() {
  Params p;
  p.num_tenants = 2;
  p.num_cls_entries = 16;
  return p;
}

std::vector<FrameRecord> drain(RefModel& m, std::uint64_t max_cycles = 1000000) {
  REQUIRE(m.run_until_idle(max_cycles));
  return m.pop_records();
}

// Most tests' NIC: the small parameters, the routed classifier in `c`, not yet committed.
struct RoutedNic {
  Params p = small_params();
  RefModel m{p};
  Config c = routed_config(p);

  // Commits `c` with the scheduler off: frames pushed next queue up.
  void commit_held() {
    c.enable = false;
    m.commit(c);
  }
  // The frames queued while the scheduler was off, after `wait` more cycles: turns it on
  // (commits `c` with enable set) and drains the NIC.
  std::vector<FrameRecord> enable_and_drain(std::uint64_t wait) {
    m.step(wait);
    c.enable = true;
    m.commit(c);
    return drain(m);
  }
};

}  // namespace

TEST_CASE("parser drops frames shorter than 60 bytes as runts", "[parser]") {
  Ip4Frame s;
  s.len = 59;
  CHECK(parse_frame(ip4(s)).drop == ParseDrop::kRunt);
  s.len = 60;
  CHECK(parse_frame(ip4(s)).drop == ParseDrop::kNone);
}

TEST_CASE("parser extracts VLAN ID, DSCP, protocol and destination port", "[parser]") {
  Ip4Frame s;
  s.len = 128;
  s.vlan = 0x5123;  // PCP bits above the 12-bit ID must be ignored
  s.dscp = 46;
  s.proto = 6;
  s.dport = 443;
  const ParsedFrame pf = parse_frame(ip4(s));
  CHECK(pf.drop == ParseDrop::kNone);
  CHECK(pf.vlan_id == 0x123);
  CHECK(pf.dscp == 46);
  CHECK(pf.protocol == 6);
  CHECK(pf.dst_port == 443);
}

TEST_CASE("parser reads the port after IPv4 options and checks IHL and lengths", "[parser]") {
  Ip4Frame s;
  s.len = 100;
  s.ihl = 7;  // 8 bytes of options: port at 14 + 28 + 2
  s.dport = 777;
  CHECK(parse_frame(ip4(s)).dst_port == 777);
  s.ihl = 4;
  CHECK(parse_frame(ip4(s)).drop == ParseDrop::kBadIhl);
  s.ihl = 5;
  s.version = 6;  // IPv4 ethertype with version 6
  CHECK(parse_frame(ip4(s)).drop == ParseDrop::kBadIhl);
  s.version = 4;
  s.ip_total = 100 - 14 + 1;  // IP says one byte more than the frame holds
  CHECK(parse_frame(ip4(s)).drop == ParseDrop::kTruncated);
  s.ip_total = 24;  // a 20-byte header then 4 bytes: too short for the UDP header
  CHECK(parse_frame(ip4(s)).drop == ParseDrop::kTruncated);
  s.ip_total = 24;
  s.frag_offset = 100;  // a later fragment has no UDP header: not truncated, port 0
  const ParsedFrame frag = parse_frame(ip4(s));
  CHECK(frag.drop == ParseDrop::kNone);
  CHECK(frag.dst_port == 0);
  s.frag_offset = 0;
  s.ip_total = 40;  // shorter than the frame: Ethernet padding is fine
  CHECK(parse_frame(ip4(s)).drop == ParseDrop::kNone);
}

TEST_CASE("parser reads IPv6 traffic class and next header, refuses unknown ethertypes", "[parser]") {
  const ParsedFrame pf = parse_frame(ip6(120, 0xB8, 17, 5000));  // TC 0xB8: DSCP 46
  CHECK(pf.drop == ParseDrop::kNone);
  CHECK(pf.dscp == 46);
  CHECK(pf.protocol == 17);
  CHECK(pf.dst_port == 5000);
  CHECK(parse_frame(raw(64, 0x88B5)).drop == ParseDrop::kUnknownEtype);
  CHECK(parse_frame(raw(64, 0x0806)).drop == ParseDrop::kUnknownEtype);
}

TEST_CASE("classifier: first valid matching entry wins, misses take the default", "[parser]") {
  Params p = small_params();
  Config c = reset_config(p);
  c.default_action = ClassifierAction{1, 0, CryptoOp::kNone};
  c.classifier[0] = ClassifierEntry::reset();  // invalid: ignored although it matches everything
  c.classifier[0].action = ClassifierAction{0, 0, CryptoOp::kDecrypt};
  c.classifier[1].valid = true;
  c.classifier[1].dscp = 46;
  c.classifier[1].dscp_mask = 0x3F;
  c.classifier[1].action = ClassifierAction{0, 0, CryptoOp::kEncrypt};
  c.classifier[2].valid = true;  // matches every frame: only reached when [1] misses
  c.classifier[2].action = ClassifierAction{1, 1, CryptoOp::kNone};
  Ip4Frame s;
  s.len = 64;
  s.dscp = 46;
  const ClassifierAction hit = classify(parse_frame(ip4(s)), c);
  CHECK(hit.tenant == 0);
  CHECK(hit.cls == 0);
  CHECK(hit.crypto_op == CryptoOp::kEncrypt);
  s.dscp = 10;
  CHECK(classify(parse_frame(ip4(s)), c).tenant == 1);
  CHECK(classify(parse_frame(ip4(s)), c).cls == 1);
  c.classifier[2].valid = false;
  CHECK(classify(parse_frame(ip4(s)), c).cls == 0);  // default: tenant 1 control
}

TEST_CASE_METHOD(RoutedNic, "64-byte frames leave back to back, one per cycle", "[timing]") {
  // Two tenants alternating: a decision at cycle c executes at c+1 (the registered grant),
  // and the tenant in flight is not eligible in that cycle, so the other one is granted.
  m.commit(c);
  for (std::uint64_t i = 0; i < 8; ++i) m.push(Direction::kTx, frame_for(static_cast<std::uint32_t>(i % 2), 1, 64), 1 + i);
  const auto recs = drain(m);
  REQUIRE(recs.size() == 8);
  for (std::size_t i = 0; i < recs.size(); ++i) {
    CHECK(recs[i].fate == Fate::kDelivered);
    CHECK(recs[i].id == i);
    CHECK(recs[i].dispatch == 2 + i);    // decided the cycle it arrives, executed the next
    CHECK(recs[i].first_beat == 2 + i);  // one beat
    CHECK(recs[i].last_beat == 2 + i);
  }
}

TEST_CASE_METHOD(RoutedNic, "one tenant's one-beat frames leave every other cycle", "[timing]") {
  // The tenant in flight is masked in the cycle its grant executes: one grant per two
  // cycles for a lone tenant (frames of two beats or more fill the link anyway).
  m.commit(c);
  for (std::uint64_t i = 0; i < 4; ++i) m.push(Direction::kTx, frame_for(0, 1, 64), 1);
  const auto recs = drain(m);
  REQUIRE(recs.size() == 4);
  for (std::size_t i = 0; i < recs.size(); ++i) CHECK(recs[i].first_beat == 2 + 2 * i);
}

TEST_CASE_METHOD(RoutedNic, "a 130-byte frame takes 3 beats and MAC stalls stretch it", "[timing]") {
  m.commit(c);
  m.push(Direction::kTx, frame_for(0, 1, 130), 1);
  m.step(3);  // cycles 0, 1, 2: decided at 1, beat 1 at cycle 2
  m.set_output_ready(Direction::kTx, false);
  m.step(5);  // cycles 3..7: stalled
  m.set_output_ready(Direction::kTx, true);
  const auto recs = drain(m);
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].first_beat == 2);
  CHECK(recs[0].last_beat == 9);  // beats at cycles 2, 8, 9
}

TEST_CASE_METHOD(RoutedNic, "tail drop past the queue byte limit while egress is disabled", "[queues]") {
  c.tenants[0].qlimit_bulk_bytes = 2500;
  commit_held();
  for (std::uint64_t i = 0; i < 3; ++i) m.push(Direction::kTx, frame_for(0, 1, 1000), 10 + 20 * i);
  m.push(Direction::kTx, frame_for(1, 1, 1000), 80);  // another queue, within its limit
  m.step(100);
  auto recs = m.pop_records();
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].id == 2);
  CHECK(recs[0].fate == Fate::kTailDrop);
  CHECK(recs[0].admit_margin == 2500 - 3000);
  CHECK(recs[0].queue_frozen_for == 50);  // egress off since cycle 0, arrives at 50
  Telemetry k = m.counters();
  CHECK(k.queues[1].enq_pkts == 2);
  CHECK(k.queues[1].enq_bytes == 2000);
  CHECK(k.queues[1].drop_pkts == 1);
  CHECK(k.queues[1].drop_bytes == 1000);
  CHECK(k.queues[1].depth_bytes == 2000);
  CHECK(k.queues[1].depth_pkts == 2);
  CHECK(k.queues[3].enq_pkts == 1);
  CHECK(k.queues[3].drop_pkts == 0);
  c.enable = true;
  m.commit(c);
  recs = drain(m);
  CHECK(recs.size() == 3);
  k = m.counters();
  CHECK(k.queues[1].tx_pkts == 2);
  CHECK(k.queues[1].tx_bytes == 2000);
  CHECK(k.queues[1].depth_bytes == 0);
  CHECK(k.queues[1].depth_hwm == 2000);
  CHECK(k.config_gen == 2);
}

TEST_CASE("the shared buffer drops a frame when no cell is free", "[queues]") {
  Params p = small_params();
  p.buffer_bytes = 4096;  // 64 cells of 64 bytes; a 1000-byte frame takes 16
  RefModel m(p);
  Config c = routed_config(p);
  c.enable = false;
  m.commit(c);
  for (std::uint64_t i = 0; i < 5; ++i) m.push(Direction::kTx, frame_for(0, 1, 1000), 10 + i * 20);
  m.step(200);
  const auto recs = m.pop_records();
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].id == 4);
  CHECK(recs[0].fate == Fate::kBufferDrop);
  const Telemetry k = m.counters();
  CHECK(k.parser[0].buf_drop == 1);
  CHECK(k.tx_buf_full);
  CHECK(k.queues[1].drop_pkts == 0);
  CHECK(m.buffer_cells_used(Direction::kTx) == 64);
}

TEST_CASE_METHOD(RoutedNic, "FIFO mode serves the oldest head across all queues", "[arbiter]") {
  commit_held();
  // Arrival order (tenant, class): (1,1) (0,0) (1,0) (0,1) (1,1) (0,0)
  const std::uint32_t who[6][2] = {{1, 1}, {0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 0}};
  for (std::uint64_t i = 0; i < 6; ++i) m.push(Direction::kTx, frame_for(who[i][0], who[i][1], 200), 5 + i * 4);
  const auto recs = enable_and_drain(40);
  REQUIRE(recs.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(recs[i].id == i);
}

TEST_CASE_METHOD(RoutedNic, "strict priority with the control level off and on", "[arbiter]") {
  const bool control_level = GENERATE(false, true);
  c.arb_mode = ArbMode::kSp;
  c.control_level = control_level;
  c.tenants[0].priority = 2;
  c.tenants[1].priority = 1;
  commit_held();
  m.push(Direction::kTx, frame_for(0, 0, 100), 2);  // id 0: tenant 0 control, level 2
  m.push(Direction::kTx, frame_for(1, 1, 100), 4);  // id 1: tenant 1 bulk, level 1
  m.push(Direction::kTx, frame_for(1, 0, 100), 6);  // id 2: tenant 1 control, level 1
  m.push(Direction::kTx, frame_for(0, 1, 100), 8);  // id 3: tenant 0 bulk, level 2
  const auto recs = enable_and_drain(20);
  REQUIRE(recs.size() == 4);
  std::vector<std::uint64_t> order;
  for (const auto& r : recs) order.push_back(r.id);
  if (control_level) {
    // control frames with tokens go above every level (round robin from after tenant 0):
    // tenant 0's control beats tenant 1's bulk at level 1
    CHECK(order == std::vector<std::uint64_t>{2, 0, 1, 3});
  } else {
    // the level is off: lower level first, control before bulk within a tenant
    CHECK(order == std::vector<std::uint64_t>{2, 1, 0, 3});
  }
}

TEST_CASE_METHOD(RoutedNic, "strict priority: the hold over the masked cycle is judged when the tenant is granted",
                 "[arbiter]") {
  // Bulk frames only (no control level). Tenant 0 (level 0) and tenant 1 (level 1) each
  // have a frame from cycle 10 (A, X). A is
  // decided first (higher level) and executes in cycle c; in c tenant 0 is masked, and
  // tenant 1 waits too if tenant 0, in the cycle A was decided (c - 1), held a second
  // frame. A second frame B of tenant 0 arriving in c (after the decision) does not hold
  // tenant 1: X is decided in c and dispatched in c + 1. Arriving in c - 1 (with the
  // decision) it does: c is an idle decision, B (tenant 0's head from c + 1, level 0) is
  // decided in c + 1, and X in c + 2, dispatched in c + 3. (Judged in c, as the rule was
  // before, B arriving in c would hold tenant 1 as well: c + 3 in both cases.)
  c.arb_mode = ArbMode::kSp;
  c.tenants[0].priority = 0;
  c.tenants[1].priority = 1;
  c.enable = true;
  const auto dispatch_of_a = [&] {
    RefModel probe{p};
    probe.commit(c);
    probe.push(Direction::kTx, frame_for(0, 1, 100), 10);
    probe.push(Direction::kTx, frame_for(1, 1, 100), 10);
    const auto recs = drain(probe);
    REQUIRE(recs.size() == 2);
    return recs[0].id == 0 ? recs[0].dispatch : recs[1].dispatch;
  };
  const std::uint64_t dc = dispatch_of_a();
  const std::uint64_t early = GENERATE(0, 1);  // B (bulk, behind A) arrives in c - early
  m.commit(c);
  const std::uint64_t a = m.push(Direction::kTx, frame_for(0, 1, 100), 10);
  const std::uint64_t x = m.push(Direction::kTx, frame_for(1, 1, 100), 10);
  m.push(Direction::kTx, frame_for(0, 1, 100), dc - early);
  const auto recs = drain(m);
  REQUIRE(recs.size() == 3);
  std::uint64_t a_dispatch = 0;
  std::uint64_t x_dispatch = 0;
  for (const auto& r : recs) {
    if (r.id == a) a_dispatch = r.dispatch;
    if (r.id == x) x_dispatch = r.dispatch;
  }
  CHECK(a_dispatch == dc);
  CHECK(x_dispatch == (early == 0 ? dc + 1 : dc + 3));
}

TEST_CASE_METHOD(RoutedNic, "control level: a dry control bucket falls back to the tenant's level", "[arbiter]") {
  c.arb_mode = ArbMode::kSp;
  c.tenants[0].priority = 2;
  c.tenants[1].priority = 1;
  c.tenants[0].ctrl_rate_bytes_per_kcycle = 0;  // one 64-byte burst, never refilled
  c.tenants[0].ctrl_burst_bytes = 64;
  commit_held();
  m.push(Direction::kTx, frame_for(0, 0, 100), 2);  // id 0: tenant 0 control: takes the bucket below 0
  m.push(Direction::kTx, frame_for(1, 1, 100), 4);  // id 1: tenant 1 bulk, level 1
  m.push(Direction::kTx, frame_for(0, 0, 100), 6);  // id 2: tenant 0 control: no tokens left
  m.push(Direction::kTx, frame_for(0, 1, 100), 8);  // id 3: tenant 0 bulk, level 2
  const auto recs = enable_and_drain(20);
  REQUIRE(recs.size() == 4);
  CHECK(recs[0].id == 0);
  CHECK(recs[1].id == 1);  // level 1 before tenant 0's level 2
  CHECK(recs[2].id == 2);  // not dropped: at level 2, control before bulk
  CHECK(recs[3].id == 3);
  CHECK(m.ctrl_bucket_tokens(0) == (64 - 100) * 1024);
}

TEST_CASE_METHOD(RoutedNic, "DWRR: quantum 3000 against 1500 gives two 1500-byte frames per one", "[arbiter]") {
  c.arb_mode = ArbMode::kDwrr;
  c.tenants[0].weight = 1500;
  c.tenants[1].weight = 3000;
  commit_held();
  for (std::uint64_t i = 0; i < 12; ++i) {
    m.push(Direction::kTx, frame_for(0, 1, 1500), 2 + 2 * i);
    m.push(Direction::kTx, frame_for(1, 1, 1500), 3 + 2 * i);
  }
  const auto recs = enable_and_drain(40);
  REQUIRE(recs.size() == 24);
  // nicsched_arbiter's rule: nobody has credit, so both gain a quantum (t0 1500, t1 3000);
  // round robin with credit > 0 from after the last grant (tenant 0 after reset): t1
  // (1500 left), t0 (0), t1 (0); refill, then t0, t1, t1 per refill until t1 runs dry.
  const std::uint32_t expect[9] = {1, 0, 1, 0, 1, 1, 0, 1, 1};
  for (std::size_t i = 0; i < 9; ++i) CHECK(recs[i].action.tenant == expect[i]);
  // Frames of 1500 bytes take 24 beats each, back to back.
  for (std::size_t i = 1; i < recs.size(); ++i) CHECK(recs[i].first_beat == recs[i - 1].last_beat + 1);
}

TEST_CASE_METHOD(RoutedNic, "DWRR with a small quantum still decides in one cycle", "[arbiter]") {
  c.arb_mode = ArbMode::kSpDwrr;
  c.tenants[0].weight = 1;  // 9000-byte frames need 9000 rounds of quantum
  c.tenants[1].weight = 0;  // treated as 1
  commit_held();
  m.push(Direction::kTx, frame_for(0, 1, 9000), 2);
  m.push(Direction::kTx, frame_for(1, 1, 9000), 3);
  const auto recs = enable_and_drain(10);
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].first_beat == 11);  // committed after cycle 9: decided at 10, executed at 11
  CHECK(recs[1].first_beat == recs[0].last_beat + 1);
}

TEST_CASE_METHOD(RoutedNic, "token bucket: a rate-limited tenant sends at most burst + rate x time", "[shaper]") {
  c.tenants[0].rate_limited = true;
  c.tenants[0].rate_bytes_per_kcycle = 4096;  // 4 bytes per cycle
  c.tenants[0].burst_bytes = 2000;
  c.tenants[0].qlimit_bulk_bytes = 0xFFFFFF;  // no tail drop: the bucket alone holds it back
  m.commit(c);
  m.step(1);
  // Offer far more than the rate: 200 frames of 1000 bytes, one every 16 cycles.
  for (std::uint64_t i = 0; i < 200; ++i) m.push(Direction::kTx, frame_for(0, 1, 1000), 1 + 16 * i);
  std::uint64_t sent = 0;
  for (std::uint64_t t = 1; t <= 40000; ++t) {
    m.step(1);
    for (const FrameRecord& r : m.pop_records()) {
      if (r.fate == Fate::kDelivered) sent += r.len;
    }
    // At most the bucket plus the fill so far plus the frame that took the bucket negative.
    REQUIRE(sent <= 2000 + 4 * t + 1000);
  }
  // And not much less: the bucket is spent as soon as it is positive.
  CHECK(sent + 2000 >= 4 * 40000);
}

TEST_CASE_METHOD(RoutedNic, "crypto: hold is ceil(len/bpc)+latency and the quota serialises a tenant", "[crypto]") {
  c.crypto_bytes_per_cycle = 16;
  c.crypto_latency = 32;
  c.tenants[0].crypto_quota = 1;
  m.commit(c);
  m.step(1);
  for (std::uint64_t i = 0; i < 3; ++i) m.push(Direction::kTx, frame_for(0, 1, 100, CryptoOp::kEncrypt), 1);
  const auto recs = drain(m);
  REQUIRE(recs.size() == 3);
  const std::uint64_t hold = 7 + 32;  // ceil(100/16) + 32
  CHECK(crypto_hold_cycles(100, 16, 32) == hold);
  // Quota 1: every claim uses the last unit of the quota, which needs the turn; TX has
  // it (RX never waits here). The first frame is decided at cycle 1 and claims at 2 (the
  // registered grant). A claim at cycle d holds cycles d+1 .. d+hold, is done and taken
  // by the free output at d+hold+1, and its slot is free from d+hold+2, where the next
  // frame is decided; it claims at d+hold+3: one frame per hold + 3 cycles.
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(recs[i].crypto);
    CHECK(recs[i].dispatch == 2 + i * (hold + 3));
    CHECK(recs[i].crypto_done == recs[i].dispatch + hold + 1);
    CHECK(recs[i].first_beat == recs[i].crypto_done);
    CHECK(recs[i].last_beat == recs[i].crypto_done + 1);  // 100 bytes: 2 beats
  }
  const Telemetry k = m.counters();
  CHECK(k.crypto[0].tx_busy == 3 * hold);
  CHECK(k.crypto[0].tx_pkts == 3);
  CHECK(k.crypto[0].tx_bytes == 300);
  // A crypto head waits while its tenant may not claim: in the cycle of each claim (none
  // is allowed then; the claimed frame is still the head), and from the claim to the
  // cycle its slot is free again. Frame 1's claim at d0 = 2: d0 .. d0+hold+1 (hold + 2
  // cycles); the same for frame 2's claim; frame 3's claim: its own cycle only.
  CHECK(k.crypto[0].tx_wait == 2 * (hold + 2) + 1);
  CHECK(k.crypto[0].slots_held == 0);
  CHECK(k.crypto_busy_slots == 0);
}

TEST_CASE_METHOD(RoutedNic, "crypto: a COMMIT's quota reaches the slot pool one cycle after the configuration",
                 "[crypto]") {
  // The pool works with the quota of the cycle before (the RTL registers its quota input,
  // so that the claim permission is a flop): a crypto head waiting on quota 0 is decided
  // in the second cycle of the configuration that gives it a slot, not in the first.
  c.crypto_bytes_per_cycle = 16;
  c.crypto_latency = 32;
  c.tenants[0].crypto_quota = 0;
  m.commit(c);
  m.step(1);
  m.push(Direction::kTx, frame_for(0, 1, 100, CryptoOp::kEncrypt), 1);
  m.step(30);  // queued, visible, waiting for a quota
  const std::uint64_t at = m.cycle();  // the first cycle of the new configuration
  c.tenants[0].crypto_quota = 1;
  m.commit(c);
  const auto recs = drain(m);
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].crypto);
  // decided at at + 1 (the pool still sees quota 0 in cycle at), claimed at at + 2
  CHECK(recs[0].dispatch == at + 2);
}

TEST_CASE("crypto: TX and RX share the pool, quotas and busy+free=total hold", "[crypto]") {
  Params p = small_params();
  p.crypto_slots = 3;
  RefModel m(p);
  Config c = routed_config(p);
  c.tenants[0].crypto_quota = 2;
  c.tenants[1].crypto_quota = 8;  // more than the pool: the pool limits
  m.commit(c);
  m.step(1);
  for (std::uint64_t i = 0; i < 20; ++i) {
    m.push(Direction::kTx, frame_for(0, 1, static_cast<std::uint32_t>(64 + 50 * i), CryptoOp::kEncrypt), 1 + i);
    m.push(Direction::kRx, frame_for(0, 0, static_cast<std::uint32_t>(64 + 30 * i), CryptoOp::kDecrypt), 1 + i);
    m.push(Direction::kRx, frame_for(1, 1, 900, CryptoOp::kDecrypt), 1 + 2 * i);
    m.push(Direction::kRx, frame_for(1, 1, 70), 1 + 2 * i);  // no crypto: bypasses the pool
  }
  std::uint64_t max_t0 = 0;
  while (!m.idle()) {
    m.step(1);
    REQUIRE(m.busy_slots() + m.free_slots() == 3);
    REQUIRE(m.busy_slots() <= 3);
    REQUIRE(m.slots_held(0) <= 2);
    REQUIRE(m.slots_held(0) + m.slots_held(1) == static_cast<std::uint32_t>(m.busy_slots()));
    max_t0 = std::max<std::uint64_t>(max_t0, m.slots_held(0));
    REQUIRE(m.cycle() < 100000);
  }
  CHECK(max_t0 == 2);
  const auto recs = m.pop_records();
  CHECK(recs.size() == 80);
  const Telemetry k = m.counters();
  CHECK(k.crypto[0].tx_pkts == 20);
  CHECK(k.crypto[0].rx_pkts == 20);
  CHECK(k.crypto[1].rx_pkts == 20);
  CHECK(k.crypto[1].tx_pkts == 0);
  std::uint64_t busy = 0;
  for (const FrameRecord& r : recs) {
    if (r.crypto) busy += crypto_hold_cycles(r.len, 16, 32);
  }
  CHECK(k.crypto[0].tx_busy + k.crypto[0].rx_busy + k.crypto[1].rx_busy == busy);
  CHECK(k.parser[1].frames == 60);
}

TEST_CASE("crypto: TX and RX take turns for the last free slot", "[crypto]") {
  // One slot, both directions backlogged, holds of an even length (ceil(64/16) + 32 = 36):
  // TX has the turn at first, is granted at cycle 1 and claims at 2 (hold 3..38, taken at
  // 39); RX, kept out by the turn alone at cycle 1, gets the turn, and with it the slot
  // when it is free at cycle 40 (decided then, claimed at 41); then TX again. The claims
  // alternate TX, RX, TX, ..., each the cycle after the slot is free (every hold + 3
  // cycles). The tenant in flight asks for no slot, so the turn does not pass back in the
  // cycle of its own claim. (A turn passing every cycle would give the slot
  // back to the same direction every time: 36 is even.)
  Params p = small_params();
  p.crypto_slots = 1;
  RefModel m(p);
  Config c = routed_config(p);
  m.commit(c);
  m.step(1);
  for (int i = 0; i < 6; ++i) {
    m.push(Direction::kTx, frame_for(0, 1, 64, CryptoOp::kEncrypt), 1);
    m.push(Direction::kRx, frame_for(1, 1, 64, CryptoOp::kDecrypt), 1);
  }
  auto recs = drain(m);
  REQUIRE(recs.size() == 12);
  std::sort(recs.begin(), recs.end(), [](const FrameRecord& a, const FrameRecord& b) { return a.dispatch < b.dispatch; });
  const std::uint64_t hold = crypto_hold_cycles(64, 16, 32);
  for (std::size_t i = 0; i < recs.size(); ++i) {
    CHECK(recs[i].crypto);
    CHECK(recs[i].dir == (i % 2 == 0 ? Direction::kTx : Direction::kRx));
    // each claim the cycle after the previous frame's slot is free
    CHECK(recs[i].dispatch == 2 + i * (hold + 3));
  }
}

TEST_CASE_METHOD(RoutedNic, "crypto: frames of one queue leave in claim order, a finished one waits in its slot",
                 "[crypto]") {
  // Tenant 0 (quota 2) queues a 1500-byte then a 64-byte encrypt frame at cycle 1. Holds
  // ceil(1500/16) + 32 = 126 and ceil(64/16) + 32 = 36: the short frame's hold ends first,
  // but it waits in its slot (the tenant still holds 2) until the long one has left.
  c.tenants[0].crypto_quota = 2;
  m.commit(c);
  m.step(1);
  const std::uint64_t long_id = m.push(Direction::kTx, frame_for(0, 1, 1500, CryptoOp::kEncrypt), 1);
  const std::uint64_t short_id = m.push(Direction::kTx, frame_for(0, 1, 64, CryptoOp::kEncrypt), 1);
  std::uint64_t short_done = 0;
  while (!m.idle()) {
    m.step(1);
    for (const FrameRecord& r : m.pop_records()) {
      if (r.id == short_id) short_done = r.last_beat;
      if (r.id == long_id) CHECK(short_done == 0);  // the long one leaves first
    }
    REQUIRE(m.cycle() < 10000);
  }
  CHECK(short_done > 0);
  const Telemetry k = m.counters();
  CHECK(k.crypto[0].tx_busy == crypto_hold_cycles(1500, 16, 32) + crypto_hold_cycles(64, 16, 32));
}

TEST_CASE_METHOD(RoutedNic, "parser drops are counted per reason and per direction", "[parser]") {
  c.bad_to_default = false;                       // non-IP frames dropped (the reset keeps them)
  m.commit(c);
  m.step(1);
  Ip4Frame s;
  s.len = 59;
  m.push(Direction::kTx, std::vector<std::uint8_t>(13, 0), 1);  // runt on TX (under 14 bytes)
  m.push(Direction::kRx, ip4(s), 1);              // 59 bytes: a runt on RX, not on TX
  m.push(Direction::kTx, ip4(s), 1);              // kept on TX, padded to 60
  s.len = 80;
  s.ihl = 3;
  m.push(Direction::kTx, ip4(s), 2);              // bad IHL
  m.push(Direction::kRx, raw(64, 0x88B5), 3);     // unknown ethertype, dropped
  s.ihl = 5;
  s.ip_total = 200;
  m.push(Direction::kRx, ip4(s), 4);              // truncated
  m.step(10);
  c.bad_to_default = true;
  c.default_action = ClassifierAction{1, 0, CryptoOp::kNone};
  m.commit(c);
  m.push(Direction::kTx, raw(64, 0x88B5), 20);    // now sent to the default class
  const auto recs = drain(m);
  REQUIRE(recs.size() == 7);
  const auto padded = std::find_if(recs.begin(), recs.end(), [](const FrameRecord& r) {
    return r.dir == Direction::kTx && r.fate == Fate::kDelivered && r.parse_drop == ParseDrop::kNone;
  });
  REQUIRE(padded != recs.end());
  CHECK(padded->len == 60);
  const auto deflt = std::find_if(recs.begin(), recs.end(), [](const FrameRecord& r) {
    return r.dir == Direction::kTx && r.fate == Fate::kDelivered && r.parse_drop == ParseDrop::kUnknownEtype;
  });
  REQUIRE(deflt != recs.end());
  CHECK(deflt->action.tenant == 1);
  CHECK(deflt->action.cls == 0);
  const Telemetry k = m.counters();
  CHECK(k.parser[0] == ParserCounters{4, 1, 0, 1, 1, 0});
  CHECK(k.parser[1] == ParserCounters{3, 1, 1, 0, 1, 0});
  CHECK(k.queues[2].tx_pkts == 1);
}

TEST_CASE_METHOD(RoutedNic, "a configuration takes effect at the next cycle, COUNTER_CLEAR zeroes counters", "[config]") {
  m.commit(c);
  m.push(Direction::kTx, frame_for(0, 1, 64), 0);
  m.step(1);
  CHECK(m.counters().config_gen == 1);
  CHECK(m.counters().queues[1].enq_pkts == 1);  // classified with the committed table
  m.clear_counters();
  const Telemetry k = m.counters();
  CHECK(k.queues[1].enq_pkts == 0);
  CHECK(k.queues[1].tx_pkts == 0);
  CHECK(k.cycle == 1);
}

TEST_CASE_METHOD(RoutedNic, "bad configuration and input name what is wrong", "[errors]") {
  c.tenants[1].priority = 5;
  REQUIRE_THROWS_WITH(m.commit(c), Catch::Contains("tenants[1].priority = 5"));
  c = routed_config(p);
  c.classifier[3].action.tenant = 7;
  REQUIRE_THROWS_WITH(m.commit(c), Catch::Contains("classifier[3].action.tenant"));
  c = routed_config(p);
  c.tenants.resize(3);
  REQUIRE_THROWS_WITH(m.commit(c), Catch::Contains("tenants has 3 entries"));
  m.step(5);
  REQUIRE_THROWS_WITH(m.push(Direction::kTx, frame_for(0, 1, 64), 2), Catch::Contains("cycle 2"));
  Params bad = p;
  bad.data_bytes = 48;
  REQUIRE_THROWS_AS(RefModel(bad), ModelError);
}

TEST_CASE("the model's reset configuration is the register map's reset values", "[registers]") {
  Params p = small_params();
  const auto writes = nicsched::nic::encode_config(reset_config(p));
  REQUIRE(!writes.empty());
  std::size_t checked = 0;
  for (const nicsched::nic::RegWrite& w : writes) {
    bool found = false;
    for (const nicsched::regmap::RegisterInfo& r : nicsched::regmap::kRegisters) {
      for (std::uint32_t i = 0; i < r.max_count && !found; ++i) {
        if (r.address(i) != w.addr) continue;
        found = true;
        std::uint64_t reset = 0;
        for (const nicsched::regmap::FieldInfo& f : r.fields) reset |= f.reset << f.lsb;
        INFO("register " << r.name << "[" << i << "]");
        CHECK(w.value == reset);
        ++checked;
      }
    }
    CHECK(found);
  }
  CHECK(checked == writes.size());
}

TEST_CASE("counters read back through the register map land in the right fields", "[registers]") {
  Params p = small_params();
  // A register file where every word holds its own address: each counter must come back
  // as the address it was read from (LO word) and address + 4 (HI word).
  auto read32 = [](std::uint32_t addr) { return addr; };
  const Telemetry c = nicsched::nic::decode_telemetry(read32, static_cast<std::uint32_t>(p.num_tenants));
  const std::uint64_t q3_tx = nicsched::regmap::Q_TX_PKTS::offset(3);
  CHECK(c.queues[3].tx_pkts == ((q3_tx + 4) << 32 | q3_tx));
  CHECK(c.queues[3].depth_bytes == nicsched::regmap::Q_DEPTH::offset(3));
  CHECK(c.crypto[1].rx_wait == ((std::uint64_t{nicsched::regmap::CR_RX_WAIT::offset(1)} + 4) << 32 |
                                nicsched::regmap::CR_RX_WAIT::offset(1)));
  CHECK(c.parser[1].bad_ihl == ((std::uint64_t{nicsched::regmap::PRS_BAD_IHL::offset(1)} + 4) << 32 |
                                nicsched::regmap::PRS_BAD_IHL::offset(1)));
  CHECK(c.config_gen == nicsched::regmap::CONFIG_GEN::kOffset);
}

TEST_CASE_METHOD(RoutedNic, "any crypto op in the classification means the direction's own op", "[crypto]") {
  m.commit(c);
  m.step(1);
  m.push(Direction::kTx, frame_for(0, 1, 200, CryptoOp::kDecrypt), 1);  // encrypted on TX
  m.push(Direction::kRx, frame_for(1, 1, 200, CryptoOp::kEncrypt), 1);  // decrypted on RX
  m.push(Direction::kTx, frame_for(1, 0, 200), 2);                      // plain
  const auto recs = drain(m);
  REQUIRE(recs.size() == 3);
  for (const FrameRecord& r : recs) {
    if (r.action.crypto_op == CryptoOp::kNone) {
      CHECK_FALSE(r.crypto);
      CHECK(r.egress_op == CryptoOp::kNone);
    } else {
      CHECK(r.crypto);
      CHECK(r.egress_op == (r.dir == Direction::kTx ? CryptoOp::kEncrypt : CryptoOp::kDecrypt));
    }
  }
  CHECK(m.counters().crypto[0].tx_pkts == 1);
  CHECK(m.counters().crypto[1].rx_pkts == 1);
}

// ---------------------------------------------------------------- stepping in spans
// step(n) skips the spans in which the model is quiet (RefModel::quiet_cycles()); these
// check it against the same model stepped one cycle at a time, which never skips past
// more than the cycle it is in.

TEST_CASE("a token bucket's idle span is the same as clocking it cycle by cycle", "[stepping]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    TokenBucket::Config c;
    c.enabled = rng() % 5 != 0;
    c.rate_bytes_per_kcycle = rng() % 4 == 0 ? 0 : static_cast<std::uint32_t>(rng() % 70000);
    c.burst_bytes = static_cast<std::uint32_t>(rng() % 20000);
    // From below, at and above the cap (a lowered burst leaves tokens above it).
    const std::int64_t start = static_cast<std::int64_t>(rng() % 60000) * TokenBucket::kScale / 2 -
                               static_cast<std::int64_t>(10000) * TokenBucket::kScale;
    const std::uint64_t span = rng() % 3000;
    TokenBucket stepped(start);
    TokenBucket skipped(start);
    for (std::uint64_t i = 0; i < span; ++i) stepped.clock(c, 0);
    skipped.clock_idle(c, span);
    INFO("trial " << trial << " start " << start << " span " << span);
    CHECK(skipped.tokens() == stepped.tokens());
  }
}

TEST_CASE("quiet_cycles counts to the next arrival and is 0 while a frame is inside", "[stepping]") {
  Params p = small_params();
  RefModel m(p);
  m.commit(routed_config(p));
  CHECK(m.quiet_cycles() == 0);  // the COMMIT waits for the next cycle
  m.step(1);
  CHECK(m.quiet_cycles() == std::numeric_limits<std::uint64_t>::max());
  m.push(Direction::kTx, frame_for(0, 1, 130), 40);
  CHECK(m.quiet_cycles() == 39);  // cycles 1 .. 39
  m.step(39);
  CHECK(m.cycle() == 40);
  CHECK(m.quiet_cycles() == 0);
  m.step(1);
  CHECK(m.quiet_cycles() == 0);  // queued or on the output: 3 beats
  const auto recs = drain(m);
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].last_beat == 43);  // decided at its arrival (ingress_latency 0), beats at 41, 42, 43
  CHECK(m.quiet_cycles() == std::numeric_limits<std::uint64_t>::max());
}

namespace {

// What a run of the model shows from outside: its records and counters at each point.
struct Observed {
  std::vector<std::string> lines;
  void records(RefModel& m) {
    for (const FrameRecord& r : m.pop_records()) {
      lines.push_back(fmt::format("rec {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}", r.id, static_cast<int>(r.dir),
                                  r.len, to_string(r.fate), to_string(r.parse_drop), r.action.tenant, r.action.cls,
                                  static_cast<int>(r.egress_op), r.crypto, r.dispatch, r.crypto_done, r.first_beat,
                                  r.last_beat, r.admit_margin, r.queue_frozen_for));
    }
  }
  void counters(const RefModel& m, const Params& p) {
    const Telemetry k = m.counters();
    lines.push_back(fmt::format("at {} cycle {} gen {} busy {} full {} {} free {}", m.cycle(), k.cycle, k.config_gen,
                                k.crypto_busy_slots, k.tx_buf_full, k.rx_buf_full, m.free_slots()));
    for (const QueueCounters& q : k.queues) {
      lines.push_back(fmt::format("q {} {} {} {} {} {} {} {} {} {} {} {}", q.enq_pkts, q.enq_bytes, q.tx_pkts,
                                  q.tx_bytes, q.drop_pkts, q.drop_bytes, q.depth_bytes, q.depth_pkts, q.depth_hwm,
                                  q.lat_sum, q.lat_count, q.lat_max));
    }
    for (const CryptoCounters& c : k.crypto) {
      lines.push_back(fmt::format("c {} {} {} {} {} {} {} {} {}", c.tx_busy, c.tx_wait, c.tx_bytes, c.tx_pkts,
                                  c.rx_busy, c.rx_wait, c.rx_bytes, c.rx_pkts, c.slots_held));
    }
    for (const ParserCounters& c : k.parser) {
      lines.push_back(fmt::format("p {} {} {} {} {} {}", c.frames, c.runt, c.truncated, c.bad_ihl, c.unknown_etype,
                                  c.buf_drop));
    }
    for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(p.num_tenants); ++t) {
      lines.push_back(fmt::format("t {} unservable {} tokens {} control tokens {}", t, m.unservable_for(t),
                                  m.bucket_tokens(t), m.ctrl_bucket_tokens(t)));
    }
  }
};

// Bursts of frames with quiet gaps between them (shorter and longer than a bucket's
// refill), COMMITs of random configurations in the gaps, output stalls; `chunked` steps
// each gap in one call, else cycle by cycle.
Observed bursts_with_gaps(std::uint64_t seed, ArbMode mode, std::uint32_t ingress_latency, bool chunked) {
  Params p = small_params();
  p.crypto_slots = 2;
  p.ingress_latency = ingress_latency;
  RefModel m(p);
  std::mt19937_64 rng(seed);
  auto pick = [&rng](std::uint64_t n) { return rng() % n; };
  auto advance = [&](std::uint64_t cycles) {
    if (chunked) {
      m.step(cycles);
    } else {
      for (std::uint64_t i = 0; i < cycles; ++i) m.step(1);
    }
  };
  Config base = routed_config(p);
  base.arb_mode = mode;
  base.crypto_bytes_per_cycle = 16;
  base.crypto_latency = 20;
  m.commit(base);
  Observed o;
  for (int burst = 0; burst < 60; ++burst) {
    if (pick(3) == 0) {
      Config c = base;
      c.enable = pick(8) != 0;
      c.control_level = pick(4) != 0;
      for (TenantConfig& t : c.tenants) {
        t.enable = pick(6) != 0;
        t.priority = static_cast<std::uint32_t>(pick(4));
        t.weight = static_cast<std::uint32_t>(pick(3000));
        t.rate_limited = pick(2) == 0;
        // 0.1 to 8 bytes a cycle, bursts of up to two frames: often in debt when a span starts.
        t.rate_bytes_per_kcycle = static_cast<std::uint32_t>(100 + pick(8000));
        t.burst_bytes = static_cast<std::uint32_t>(64 + pick(3000));
        t.crypto_quota = static_cast<std::uint32_t>(pick(3));
        // Control buckets that a few control frames empty, refilling within some gaps.
        t.ctrl_rate_bytes_per_kcycle = static_cast<std::uint32_t>(pick(4000));
        t.ctrl_burst_bytes = static_cast<std::uint32_t>(64 + pick(3000));
      }
      m.commit(c);
    }
    // Frames arriving now and a few ahead of the clock (pushed early, as the sim does not).
    const std::uint64_t now = m.cycle();
    const auto n = 1 + pick(6);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto op = static_cast<CryptoOp>(pick(3));
      const Direction d = pick(3) == 0 ? Direction::kRx : Direction::kTx;
      m.push(d, frame_for(static_cast<std::uint32_t>(pick(2)), static_cast<std::uint32_t>(pick(2)),
                          static_cast<std::uint32_t>(60 + pick(1500)), op),
             now + pick(4) * pick(40));
    }
    if (pick(5) == 0) {
      m.set_output_ready(Direction::kTx, false);
      advance(1 + pick(30));
      m.set_output_ready(Direction::kTx, true);
    }
    advance(pick(2) == 0 ? pick(50) : 200 + pick(4000));
    o.records(m);
    o.counters(m, p);
  }
  Config on = base;
  on.enable = true;
  m.commit(on);
  advance(200000);
  o.records(m);
  o.counters(m, p);
  return o;
}

}  // namespace

TEST_CASE("stepping in spans gives every record and counter of stepping cycle by cycle", "[stepping]") {
  for (const ArbMode mode : {ArbMode::kFifo, ArbMode::kSp, ArbMode::kDwrr, ArbMode::kSpDwrr}) {
    for (const std::uint32_t latency : {0U, 1U}) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        INFO("mode " << to_string(mode) << " ingress latency " << latency << " seed " << seed);
        const Observed stepped = bursts_with_gaps(seed, mode, latency, false);
        const Observed chunked = bursts_with_gaps(seed, mode, latency, true);
        REQUIRE(stepped.lines.size() == chunked.lines.size());
        for (std::size_t i = 0; i < stepped.lines.size(); ++i) {
          INFO("line " << i);
          REQUIRE(chunked.lines[i] == stepped.lines[i]);
        }
        // The runs did deliver frames and leave the model quiet (the test covers both).
        CHECK(std::count_if(stepped.lines.begin(), stepped.lines.end(),
                            [](const std::string& l) { return l.find(" delivered ") != std::string::npos; }) > 20);
      }
    }
  }
}
