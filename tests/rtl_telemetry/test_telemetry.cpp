// rtl.telemetry.*: nicsched_telemetry counters against a model that adds up the same
// random event stream (both directions, every counter kind), COUNTER_CLEAR, SNAPSHOT, the
// high-water mark and the free-running cycle counter. The counters held in RAM are seen
// only through their snapshot port (the element the CSR reads), so the bench takes
// snapshots at random clocks (and in runs of every clock) and reads a random element each
// clock, often the one an event writes in that clock.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Vtelemetry_t8.h"
#include "core_tb.hpp"
#include "run_case.hpp"

namespace {

using namespace nicsched::coretest;
constexpr unsigned kT = 8, kQ = 16, kQW = 4, kTW = 3, kBusyW = 3;

struct Model {
  std::vector<std::uint64_t> enq_p = std::vector<std::uint64_t>(kQ), enq_b = enq_p, tx_p = enq_p, tx_b = enq_p,
                             drop_p = enq_p, drop_b = enq_p, lat_sum = enq_p, lat_cnt = enq_p, lat_max = enq_p,
                             hwm = enq_p;
  using PerTenant = std::vector<std::uint64_t>;
  PerTenant crb[2] = {PerTenant(kT), PerTenant(kT)};
  PerTenant crw[2] = {PerTenant(kT), PerTenant(kT)};
  PerTenant cry[2] = {PerTenant(kT), PerTenant(kT)};
  PerTenant crp[2] = {PerTenant(kT), PerTenant(kT)};
  std::uint64_t prs[6][2] = {};
  void clear() { *this = Model{}; }
};

// What SNAPSHOT latches of the RAM counters: per queue (both directions added) and per tenant.
struct Snap {
  std::vector<std::uint64_t> enq_p = std::vector<std::uint64_t>(kQ), enq_b = enq_p, tx_p = enq_p, tx_b = enq_p,
                             drop_p = enq_p, drop_b = enq_p, lat_sum = enq_p, lat_cnt = enq_p, lat_max = enq_p;
  std::vector<std::uint64_t> cry[2] = {std::vector<std::uint64_t>(kT), std::vector<std::uint64_t>(kT)};
  std::vector<std::uint64_t> crp[2] = {cry[0], cry[0]};
  void take(const Model& m) {
    enq_p = m.enq_p; enq_b = m.enq_b; tx_p = m.tx_p; tx_b = m.tx_b; drop_p = m.drop_p; drop_b = m.drop_b;
    lat_sum = m.lat_sum; lat_cnt = m.lat_cnt; lat_max = m.lat_max;
    for (unsigned d = 0; d < 2; ++d) { cry[d] = m.cry[d]; crp[d] = m.crp[d]; }
  }
};

// One clock's stimulus beyond the events: clear, snapshot, and how busy the sources are.
struct Clock {
  bool clear = false;
  bool snapshot = false;
  double rate = 1.0;  // scales every event's probability (0: no events)
  bool wide_latency = false;  // latencies over all 32 bits: Q_LAT_SUM carries past bit 31 within a few events
};

struct TelBench {
  Testbench<Vtelemetry_t8> tb;
  std::mt19937_64 rng;
  Model m;
  Snap snap;
  unsigned rd_q = 0, rd_t = 0;  // the elements read in the last clock
  bool loaded = false;          // the snapshot outputs loaded them at the last edge
  double load_rate = 1.0;       // how often the CSR's read enters its stage 1 (snap_load_i)
  std::vector<std::uint64_t> held = std::vector<std::uint64_t>(13);  // what the snapshot outputs hold
  std::vector<std::uint64_t> depth_tx = std::vector<std::uint64_t>(kQ), depth_rx = depth_tx;

  TelBench(const std::string& trace, std::uint64_t seed) : tb(trace), rng(seed) { tb.reset(); }

  bool coin(double p) { return std::uniform_real_distribution<>(0, 1)(rng) < p; }
  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng); }

  void step(const Clock& clk) {
    auto& d = tb.dut();
    const bool clear = clk.clear;
    d.clear_i = clear;
    d.snapshot_i = clk.snapshot;
    // SNAPSHOT takes the counters as they are before this clock's events; a load at this
    // edge takes the snapshot as it was before it.
    const Snap before = snap;
    if (clk.snapshot) snap.take(m);
    unsigned ev_q[2] = {}, ev_t[2] = {};
    // parser pulses
    CData* prs_in[6] = {&d.prs_frames_i, &d.prs_runt_i, &d.prs_truncated_i, &d.prs_bad_ihl_i, &d.prs_unknown_etype_i, &d.buf_drop_i};
    for (unsigned k = 0; k < 6; ++k) {
      *prs_in[k] = 0;
      for (unsigned dir = 0; dir < 2; ++dir) {
        if (coin(0.3)) {
          set_bits(*prs_in[k], dir, 1, 1);
          if (!clear) ++m.prs[k][dir];
        }
      }
    }
    d.enq_valid_i = d.lim_drop_i = d.sent_valid_i = d.lat_valid_i = d.cr_claim_i = 0;
    for (unsigned dir = 0; dir < 2; ++dir) {
      const unsigned q = pick(kQ), len = 60 + pick(1500);
      set_bits(d.ev_queue_i, dir * kQW, kQW, q);
      set_bits(d.ev_len_i, dir * 16, 16, len);
      ev_q[dir] = q;
      const unsigned what = coin(clk.rate) ? pick(3) : 2;  // 0 accept, 1 limit drop, 2 nothing
      if (what == 0) {
        set_bits(d.enq_valid_i, dir, 1, 1);
        if (!clear) { ++m.enq_p[q]; m.enq_b[q] += len; }
      } else if (what == 1) {
        set_bits(d.lim_drop_i, dir, 1, 1);
        if (!clear) { ++m.drop_p[q]; m.drop_b[q] += len; }
      }
      const unsigned sq = pick(kQ), slen = 60 + pick(1500);
      set_bits(d.sent_queue_i, dir * kQW, kQW, sq);
      set_bits(d.sent_len_i, dir * 16, 16, slen);
      if (coin(0.5 * clk.rate)) {
        set_bits(d.sent_valid_i, dir, 1, 1);
        if (!clear) { ++m.tx_p[sq]; m.tx_b[sq] += slen; }
      }
      const unsigned lq = pick(kQ), lat = clk.wide_latency ? static_cast<unsigned>(rng()) : pick(100000);
      set_bits(d.lat_queue_i, dir * kQW, kQW, lq);
      set_bits(d.lat_cycles_i, dir * 32, 32, lat);
      if (coin(0.5 * clk.rate)) {
        set_bits(d.lat_valid_i, dir, 1, 1);
        if (!clear) { ++m.lat_cnt[lq]; m.lat_sum[lq] += lat; m.lat_max[lq] = std::max<std::uint64_t>(m.lat_max[lq], lat); }
      }
      const unsigned ct = pick(kT), clen = 60 + pick(1500);
      ev_t[dir] = ct;
      set_bits(d.cr_claim_tenant_i, dir * kTW, kTW, ct);
      set_bits(d.cr_claim_len_i, dir * 16, 16, clen);
      if (coin(0.4 * clk.rate)) {
        set_bits(d.cr_claim_i, dir, 1, 1);
        if (!clear) { ++m.crp[dir][ct]; m.cry[dir][ct] += clen; }
      }
    }
    for (unsigned t = 0; t < kT; ++t) {
      for (unsigned dir = 0; dir < 2; ++dir) {
        const unsigned busy = pick(5);
        const bool wait = coin(0.3);
        set_bits(dir ? d.cr_busy_rx_i : d.cr_busy_tx_i, t * kBusyW, kBusyW, busy);
        set_bits(dir ? d.cr_wait_rx_i : d.cr_wait_tx_i, t, 1, wait);
        if (!clear) { m.crb[dir][t] += busy; m.crw[dir][t] += wait; }
      }
      set_bits(d.cr_held_i, 8 * t, 8, pick(5));
    }
    for (unsigned q = 0; q < kQ; ++q) {
      depth_tx[q] = pick(70000);
      depth_rx[q] = pick(70000);
      set_bits(d.tx_q_bytes_i, 32 * q, 32, depth_tx[q]);
      set_bits(d.rx_q_bytes_i, 32 * q, 32, depth_rx[q]);
      set_bits(d.tx_q_pkts_i, 32 * q, 32, depth_tx[q] / 100);
      set_bits(d.rx_q_pkts_i, 32 * q, 32, depth_rx[q] / 100);
      m.hwm[q] = clear ? 0 : std::max(m.hwm[q], depth_tx[q] + depth_rx[q]);
    }
    if (clear) m.clear();
    // The element the CSR reads: half the time one an event names in this clock.
    rd_q = coin(0.5) ? ev_q[pick(2)] : pick(kQ);
    rd_t = coin(0.5) ? ev_t[pick(2)] : pick(kT);
    d.q_rd_idx_i = static_cast<CData>(rd_q);
    d.t_rd_idx_i = static_cast<CData>(rd_t);
    loaded = coin(load_rate);
    d.snap_load_i = loaded;
    if (loaded) {
      const unsigned q = rd_q, t = rd_t;
      held = {before.enq_p[q],    before.enq_b[q],   before.tx_p[q],    before.tx_b[q],
              before.drop_p[q],   before.drop_b[q],  before.lat_sum[q], before.lat_cnt[q],
              before.lat_max[q],  before.cry[0][t],  before.cry[1][t],  before.crp[0][t],
              before.crp[1][t]};
    }
    tb.tick();
  }

  void compare() {
    auto& d = tb.dut();
    tb->eval();
    const auto c = tb.cycle();
    for (unsigned q = 0; q < kQ; ++q) {
      auto eq = [&](const auto& sig, unsigned w, std::uint64_t want, const char* what) {
        const auto got = get_bits(sig, q * w, w);
        check(got == want, fmt::format("cycle {}: queue {} {} = {}, model {}", c, q, what, got, want));
      };
      eq(d.q_depth_hwm_o, 32, m.hwm[q], "Q_DEPTH_HWM");
      eq(d.q_depth_o, 32, depth_tx[q] + depth_rx[q], "Q_DEPTH");
      eq(d.q_depth_pkts_o, 32, depth_tx[q] / 100 + depth_rx[q] / 100, "Q_DEPTH_PKTS");
    }
    for (unsigned t = 0; t < kT; ++t) {
      auto eq = [&](const auto& sig, std::uint64_t want, const char* what) {
        const auto got = get_bits(sig, t * 64, 64);
        check(got == want, fmt::format("cycle {}: tenant {} {} = {}, model {}", c, t, what, got, want));
      };
      eq(d.cr_tx_busy_o, m.crb[0][t], "CR_TX_BUSY");
      eq(d.cr_rx_busy_o, m.crb[1][t], "CR_RX_BUSY");
      eq(d.cr_tx_wait_o, m.crw[0][t], "CR_TX_WAIT");
      eq(d.cr_rx_wait_o, m.crw[1][t], "CR_RX_WAIT");
    }
    // The RAM counters: the snapshot of the element read in the last loading clock, as it
    // was before that clock's edge (held since).
    const std::uint64_t got[13] = {d.q_enq_pkts_snap_o,  d.q_enq_bytes_snap_o, d.q_tx_pkts_snap_o,  d.q_tx_bytes_snap_o,
                                   d.q_drop_pkts_snap_o, d.q_drop_bytes_snap_o, d.q_lat_sum_snap_o, d.q_lat_count_snap_o,
                                   d.q_lat_max_snap_o,   d.cr_tx_bytes_snap_o, d.cr_rx_bytes_snap_o, d.cr_tx_pkts_snap_o,
                                   d.cr_rx_pkts_snap_o};
    static constexpr const char* kWhat[13] = {"Q_ENQ_PKTS",  "Q_ENQ_BYTES", "Q_TX_PKTS",   "Q_TX_BYTES", "Q_DROP_PKTS",
                                              "Q_DROP_BYTES", "Q_LAT_SUM",  "Q_LAT_COUNT", "Q_LAT_MAX",  "CR_TX_BYTES",
                                              "CR_RX_BYTES", "CR_TX_PKTS",  "CR_RX_PKTS"};
    for (unsigned k = 0; k < 13; ++k) {
      check(got[k] == held[k], fmt::format("cycle {}: snapshot {} = {}, model {} (loaded in the last clock: {})", c,
                                           kWhat[k], got[k], held[k], loaded));
    }
    const decltype(&d.prs_frames_o) prs_out[6] = {&d.prs_frames_o, &d.prs_runt_o, &d.prs_truncated_o, &d.prs_bad_ihl_o, &d.prs_unknown_etype_o, &d.prs_buf_drop_o};
    for (unsigned k = 0; k < 6; ++k) {
      for (unsigned dir = 0; dir < 2; ++dir) {
        check(get_bits(*prs_out[k], dir * 64, 64) == m.prs[k][dir], fmt::format("cycle {}: parser counter {} dir {}", c, k, dir));
      }
    }
    check(d.cycle_o == c, fmt::format("cycle counter {} at clock {}", d.cycle_o, c));
  }
};

}  // namespace

TEST_CASE("every counter adds up the events of both directions, and COUNTER_CLEAR zeroes them") {
  run_case("telemetry_random", [](const std::string& trace) {
    TelBench b(trace, 51);
    for (int i = 0; i < 30000; ++i) {
      // A SNAPSHOT every clock: the snapshot port shows every RAM counter's live value, one
      // element per clock, two clocks behind the events (the snapshot one, the load one).
      b.step({.clear = i % 7000 == 6999, .snapshot = true});
      b.compare();
    }
  });
}

TEST_CASE("SNAPSHOT and COUNTER_CLEAR at random clocks, alone and together, with events in the same clock") {
  run_case("telemetry_snapshot", [](const std::string& trace) {
    TelBench b(trace, 77);
    // The CSR's reads stall at random: the snapshot outputs hold what they loaded, across
    // SNAPSHOTs and clears, until the next load.
    b.load_rate = 0.7;
    for (int i = 0; i < 40000; ++i) {
      // Phases: busy sources, quiet ones (elements left unwritten across several snapshots,
      // whose snapshot then stays in the live RAM), and none at all.
      const int phase = (i / 2000) % 3;
      const double rate = phase == 0 ? 1.0 : phase == 1 ? 0.05 : 0.0;
      b.step({.clear = b.coin(0.01), .snapshot = b.coin(phase == 2 ? 0.05 : 0.2), .rate = rate});
      b.compare();
    }
  });
}

TEST_CASE("the snapshot survives COUNTER_CLEAR and later events until the next SNAPSHOT") {
  run_case("telemetry_clear_keeps_snapshot", [](const std::string& trace) {
    TelBench b(trace, 5);
    for (int i = 0; i < 500; ++i) b.step({.snapshot = i == 499});
    b.compare();
    b.step({.clear = true});  // clear: the live values are 0, the snapshot is kept
    b.compare();
    for (int i = 0; i < 300; ++i) {
      b.step({.snapshot = false, .rate = 0.3});
      b.compare();
    }
    b.step({.clear = true, .snapshot = true});  // clear and snapshot together: the values before
    b.compare();
    for (int i = 0; i < 300; ++i) {
      b.step({.snapshot = i == 150});  // a snapshot taken after the clear: what has come since
      b.compare();
    }
  });
}

TEST_CASE("the 64-bit sums carry past bit 31: live, and both directions added at the snapshot") {
  run_case("telemetry_wide_carry", [](const std::string& trace) {
    // The counters add in two halves (a carry-select adder); latencies near 2^32 make Q_LAT_SUM
    // cross bit 31 every few events, in the live RAM and in the snapshot's sum of both directions.
    TelBench b(trace, 93);
    for (int i = 0; i < 20000; ++i) {
      b.step({.clear = i % 9000 == 8999, .snapshot = b.coin(0.5), .wide_latency = true});
      b.compare();
    }
  });
}
