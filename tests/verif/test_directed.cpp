// verif.directed.*: directed scenarios on nicsched_top in lock step with the reference
// model (the regression's bench, regress/bench.hpp): back-to-back 64-byte frames from one
// backlogged queue, and strict priority with a backlogged higher level. Every run also
// passes the regression's full check (regress/check.hpp); on top of it, the RTL's
// departures are compared with the model's: the same frames in the same order, spaced by
// the same number of clocks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "bench.hpp"
#include "check.hpp"
#include "frames.hpp"

namespace {

using namespace nicsched::refmodel;
namespace verif = nicsched::verif;

constexpr std::uint32_t kPortBase = 5000;  // UDP destination port 5000 + t: tenant t, bulk

// The configuration every directed scenario starts from: classifier entry t sends UDP port
// 5000 + t to tenant t's bulk queue, no crypto, queue limits far above what is offered.
Config directed_config(const nicsched::refmodel::Params& p, ArbMode mode) {
  Config c = reset_config(p);
  c.arb_mode = mode;
  for (std::size_t t = 0; t < c.tenants.size(); ++t) {
    c.tenants[t].qlimit_bulk_bytes = 0xFFFFFF;
    c.tenants[t].qlimit_control_bytes = 0xFFFFFF;
  }
  for (std::uint32_t t = 0; t < 4; ++t) {
    auto& e = c.classifier[t];
    e.valid = true;
    e.proto = 17;
    e.proto_mask = 0xFF;
    e.port = kPortBase + t;
    e.port_mask = 0xFFFF;
    e.action = ClassifierAction{t, 1, CryptoOp::kNone};
  }
  return c;
}

// A UDP frame of `len` bytes for tenant t whose payload carries `n` (contents are unique).
std::vector<std::uint8_t> frame_for(std::uint32_t tenant, std::uint32_t n, std::uint32_t len = 64) {
  nicsched::verif::test::Ip4Frame s;
  s.len = len;
  s.dport = kPortBase + tenant;
  auto f = nicsched::verif::test::ip4(s);
  for (int i = 0; i < 4; ++i) f[50 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
  return f;
}

// Frames queued with the egress switched off (CTRL.ENABLE = 0), then one commit switches
// it on at `start`: from then on every queue holds its whole backlog.
verif::Scenario backlog_scenario(std::uint64_t seed, ArbMode mode, const std::vector<std::uint32_t>& prio,
                                 const std::vector<std::uint32_t>& frames_per_tenant, double tx_backpressure,
                                 std::uint64_t start) {
  verif::Scenario sc;
  sc.seed = seed;
  sc.params = verif::bench_params();
  Config off = directed_config(sc.params, mode);
  for (std::size_t t = 0; t < prio.size(); ++t) off.tenants[t].priority = prio[t];
  off.enable = false;
  Config on = off;
  on.enable = true;
  sc.commits.push_back({0, off, "initial: egress off"});
  sc.commits.push_back({start, on, "egress on"});
  std::uint32_t n = 0;
  const std::uint32_t most = *std::max_element(frames_per_tenant.begin(), frames_per_tenant.end());
  for (std::uint32_t i = 0; i < most; ++i) {
    for (std::uint32_t t = 0; t < frames_per_tenant.size(); ++t) {
      if (i < frames_per_tenant[t]) sc.offers.push_back({Direction::kTx, 0, frame_for(t, n++), "ok"});
    }
  }
  sc.tx_backpressure = tx_backpressure;
  sc.traffic_cycles = start + 1;
  sc.summary = fmt::format("directed: {} frames queued, egress on at {}", n, start);
  return sc;
}

struct Departure {
  std::size_t offer;
  std::uint64_t first;  // cycle of the first beat's handshake
};

verif::RunResult run_checked(const verif::Scenario& sc, const std::string& name) {
  verif::Bench bench(sc, "", "");
  verif::RunResult res = bench.run();
  const verif::CheckReport rep = verif::check_run(sc, res);
  INFO(name << ": rerun with a waveform through nicsched_regress's bench; failures:");
  for (const auto& f : rep.failures) UNSCOPED_INFO(f);
  REQUIRE(rep.failures.empty());
  return res;
}

struct Departures {
  std::vector<Departure> rtl, model;
};

// The RTL's and the model's departures of direction `dir` in a checked run of `sc`, each
// in order, matched to offers by content.
Departures departures_of(const verif::Scenario& sc, const verif::RunResult& res, Direction dir) {
  Departures d;
  auto& [rtl, model] = d;
  auto key = [](const std::vector<std::uint8_t>& b) { return std::string(b.begin(), b.end()); };
  std::unordered_map<std::string, std::size_t> by_content;
  for (std::size_t i = 0; i < sc.offers.size(); ++i) {
    if (sc.offers[i].dir == dir) by_content[key(sc.offers[i].bytes)] = i;
  }
  for (const auto& f : res.rtl) {
    if (f.dir != dir) continue;
    const auto it = by_content.find(key(f.bytes));
    REQUIRE(it != by_content.end());
    rtl.push_back({it->second, f.first_cycle});
  }
  for (std::size_t i = 0; i < res.model.size(); ++i) {
    const FrameRecord& r = res.model[i];
    if (r.dir == dir && r.fate == Fate::kDelivered) model.push_back({i, r.first_beat});
  }
  auto by_time = [](const Departure& a, const Departure& b) { return a.first < b.first; };
  std::sort(rtl.begin(), rtl.end(), by_time);
  std::sort(model.begin(), model.end(), by_time);
  return d;
}

// Runs `sc` through the lock-step bench (checked; `name` names it in failures): the RTL's
// and the model's TX departures (departures_of); with `expected` > 0, both must hold
// that many.
Departures run_departures(const verif::Scenario& sc, const std::string& name, std::size_t expected = 0) {
  const verif::RunResult res = run_checked(sc, name);
  Departures d = departures_of(sc, res, Direction::kTx);
  if (expected > 0) {
    REQUIRE(d.model.size() == expected);
    REQUIRE(d.rtl.size() == d.model.size());
  }
  return d;
}

// Byte shares of TX departures per tenant whose first beat lies in [from, to).
template <class Get>
std::vector<double> shares(std::size_t tenants, const std::vector<Departure>& d, std::uint64_t from, std::uint64_t to,
                           const verif::Scenario& sc, Get tenant_of) {
  std::vector<double> bytes(tenants, 0.0);
  double sum = 0.0;
  for (const Departure& x : d) {
    if (x.first < from || x.first >= to) continue;
    const auto len = static_cast<double>(sc.offers[x.offer].bytes.size());
    bytes[tenant_of(x.offer)] += len;
    sum += len;
  }
  for (double& b : bytes) b /= sum;
  return bytes;
}

}  // namespace

TEST_CASE("DWRR: byte shares of four backlogged tenants are within 2% of their quanta") {
  // Quanta 1600/3200/4800/6400 (shares 0.1 .. 0.4); frames of 64..1518 bytes offered at the
  // line rate, 10/20/30/40% per tenant, while the MAC takes 70% of clocks: every tenant's
  // input exceeds its share of the output, its queue sits at its 12 KiB limit (tail drops)
  // and stays backlogged. Shares are measured over the departures between cycle 20000 and
  // the end of the offers (300000), for the RTL against the quanta, and for the model too.
  verif::Scenario sc;
  sc.seed = 4;
  sc.params = verif::bench_params();
  Config c = directed_config(sc.params, ArbMode::kDwrr);
  for (std::uint32_t t = 0; t < 4; ++t) {
    c.tenants[t].weight = 1600 * (t + 1);
    c.tenants[t].qlimit_bulk_bytes = 12 * 1024;
  }
  sc.commits.push_back({0, c, "initial"});
  const std::uint64_t end = 300000;
  const std::array<std::uint32_t, 10> pattern{0, 1, 1, 2, 2, 2, 3, 3, 3, 3};
  std::mt19937_64 rng(4);
  std::uint64_t at = 0;
  std::vector<std::uint32_t> tenant_of_offer;
  for (std::uint32_t n = 0; at < end; ++n) {
    const std::uint32_t t = pattern[n % pattern.size()];
    const std::uint32_t len = std::uniform_int_distribution<std::uint32_t>(64, 1518)(rng);
    auto f = frame_for(t, n, len);
    sc.offers.push_back({Direction::kTx, at, std::move(f), "ok"});
    tenant_of_offer.push_back(t);
    at += (len + 63) / 64;
  }
  sc.tx_backpressure = 0.3;
  sc.traffic_cycles = end;
  sc.summary = "directed: DWRR shares";
  const auto [rtl, model] = run_departures(sc, "dwrr_shares");
  auto tenant = [&](std::size_t offer) { return tenant_of_offer[offer]; };
  const auto got = shares(4, rtl, 20000, end, sc, tenant);
  const auto want_model = shares(4, model, 20000, end, sc, tenant);
  for (std::uint32_t t = 0; t < 4; ++t) {
    const double weight = (t + 1) / 10.0;
    INFO("tenant " << t << ": RTL share " << got[t] << ", model share " << want_model[t] << ", weight " << weight);
    CHECK(std::abs(got[t] / weight - 1.0) < 0.02);
    CHECK(std::abs(want_model[t] / weight - 1.0) < 0.02);
  }
}

TEST_CASE("one backlogged queue sends a 64-byte frame every other clock, as the model does") {
  // 600 frames of tenant 0 (DWRR, quantum 1500 >= 64): with the registered grant the
  // tenant in flight is not eligible in the clock its grant executes, so the model sends
  // one per two clocks; the RTL must send the same frames in the same order with the
  // same spacing. (Two tenants fill every clock: bench_rtl, docs/rtl.md "Figures".)
  const auto sc = backlog_scenario(1, ArbMode::kDwrr, {0}, {600}, 0.0, 1200);
  const auto [rtl, model] = run_departures(sc, "back_to_back", 600);
  CHECK(model.back().first - model.front().first == 2 * 599);  // the model: one per two clocks
  for (std::size_t i = 0; i < rtl.size(); ++i) {
    INFO("departure " << i);
    CHECK(rtl[i].offer == model[i].offer);
    CHECK(rtl[i].first - rtl.front().first == model[i].first - model.front().first);
  }
}

TEST_CASE("strict priority: a backlogged higher level takes every decision, as in the model") {
  // Tenant 0 at level 0 and tenant 1 at level 1, 300 frames each, all queued before the
  // egress starts: the model sends tenant 0's 300 back to back, then tenant 1's. The RTL
  // must match frame for frame and clock for clock (no lower-level frame in between).
  const auto sc = backlog_scenario(2, ArbMode::kSp, {0, 1}, {300, 300}, 0.0, 1200);
  const auto [rtl, model] = run_departures(sc, "sp_no_backpressure", 600);
  for (std::size_t i = 0; i < rtl.size(); ++i) {
    INFO("departure " << i);
    CHECK(rtl[i].offer == model[i].offer);
    CHECK(rtl[i].first - rtl.front().first == model[i].first - model.front().first);
  }
}

TEST_CASE("strict priority under MAC backpressure: the same order as the model") {
  // As above with four tenants on four levels (SP_DWRR: one tenant per level, so the
  // order does not depend on where a DWRR round starts) and the MAC refusing 30% of
  // clocks: the departures are in the model's order (the spacing follows tready).
  const auto sc = backlog_scenario(3, ArbMode::kSpDwrr, {2, 0, 1, 3}, {150, 150, 150, 150}, 0.3, 1200);
  const auto [rtl, model] = run_departures(sc, "sp_backpressure", 600);
  for (std::size_t i = 0; i < rtl.size(); ++i) {
    INFO("departure " << i);
    CHECK(rtl[i].offer == model[i].offer);
  }
}

TEST_CASE("crypto: TX and RX of one tenant share the pool clock for clock as in the model") {
  // Tenant 0 sends and receives 64/66-byte frames, a random half of them encrypted (TX)
  // or decrypted (RX), quota 4 = the pool's 4 slots, engine 4 B/clock + 27 (hold 44): the
  // directions contend for every slot and take turns for the last one. Everything is
  // queued before the start: the egress is off and the quota 0 (an RX crypto head waits,
  // and the RX queue with it) until one commit at `start` switches both on. The RTL's
  // departures must be the model's in both directions, frame for frame and clock for
  // clock (one offset for both).
  constexpr std::uint64_t start = 1500;
  constexpr std::uint32_t frames = 200;
  verif::Scenario sc;
  sc.seed = 5;
  sc.params = verif::bench_params();
  Config off = directed_config(sc.params, ArbMode::kSpDwrr);
  auto& e = off.classifier[4];
  e.valid = true;
  e.proto = 17;
  e.proto_mask = 0xFF;
  e.port = kPortBase + 100;
  e.port_mask = 0xFFFF;
  e.action = ClassifierAction{0, 1, CryptoOp::kEncrypt};
  off.crypto_bytes_per_cycle = 4;
  off.crypto_latency = 27;
  off.tenants[0].crypto_quota = 0;
  off.enable = false;
  Config on = off;
  on.enable = true;
  on.tenants[0].crypto_quota = 4;
  sc.commits.push_back({0, off, "initial: egress off, no crypto quota"});
  sc.commits.push_back({start, on, "egress on, quota 4"});
  std::mt19937_64 rng(5);
  std::uint32_t n = 0;
  for (const Direction dir : {Direction::kTx, Direction::kRx}) {
    for (std::uint32_t i = 0; i < frames; ++i) {
      const bool crypto = i == 0 || (rng() & 1) != 0;  // RX: a crypto head holds the queue
      auto f = frame_for(0, n++, (rng() & 1) != 0 ? 64 : 66);
      if (crypto) nicsched::verif::test::put16(f, 36, kPortBase + 100);
      sc.offers.push_back({dir, 0, std::move(f), "ok"});
    }
  }
  sc.traffic_cycles = start + 1;
  sc.summary = "directed: TX and RX crypto of one tenant";
  const verif::RunResult res = run_checked(sc, "crypto_tx_rx");
  const Departures tx = departures_of(sc, res, Direction::kTx);
  const Departures rx = departures_of(sc, res, Direction::kRx);
  REQUIRE(tx.model.size() == frames);
  REQUIRE(rx.model.size() == frames);
  REQUIRE(tx.rtl.size() == frames);
  REQUIRE(rx.rtl.size() == frames);
  const auto offset = static_cast<std::int64_t>(tx.rtl.front().first) - static_cast<std::int64_t>(tx.model.front().first);
  for (const auto* d : {&tx, &rx}) {
    for (std::size_t i = 0; i < frames; ++i) {
      INFO((d == &tx ? "TX" : "RX") << " departure " << i << ": RTL offer " << d->rtl[i].offer << " at "
                                     << d->rtl[i].first << ", model offer " << d->model[i].offer << " at "
                                     << d->model[i].first << " (offset of the first TX departure " << offset << ")");
      CHECK(d->rtl[i].offer == d->model[i].offer);
      CHECK(static_cast<std::int64_t>(d->rtl[i].first) - static_cast<std::int64_t>(d->model[i].first) == offset);
    }
  }
}
