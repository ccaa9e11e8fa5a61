// rtl.telemetry.*: nicsched_telemetry counters against a model that adds up the same
// random event stream (both directions, every counter kind), COUNTER_CLEAR, the
// high-water mark and the free-running cycle counter.
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

struct TelBench {
  Testbench<Vtelemetry_t8> tb;
  std::mt19937_64 rng;
  Model m;
  std::vector<std::uint64_t> depth_tx = std::vector<std::uint64_t>(kQ), depth_rx = depth_tx;

  TelBench(const std::string& trace, std::uint64_t seed) : tb(trace), rng(seed) { tb.reset(); }

  bool coin(double p) { return std::uniform_real_distribution<>(0, 1)(rng) < p; }
  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng); }

  void step(bool clear) {
    auto& d = tb.dut();
    d.clear_i = clear;
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
      const unsigned what = pick(3);  // 0 accept, 1 limit drop, 2 nothing
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
      if (coin(0.5)) {
        set_bits(d.sent_valid_i, dir, 1, 1);
        if (!clear) { ++m.tx_p[sq]; m.tx_b[sq] += slen; }
      }
      const unsigned lq = pick(kQ), lat = pick(100000);
      set_bits(d.lat_queue_i, dir * kQW, kQW, lq);
      set_bits(d.lat_cycles_i, dir * 32, 32, lat);
      if (coin(0.5)) {
        set_bits(d.lat_valid_i, dir, 1, 1);
        if (!clear) { ++m.lat_cnt[lq]; m.lat_sum[lq] += lat; m.lat_max[lq] = std::max<std::uint64_t>(m.lat_max[lq], lat); }
      }
      const unsigned ct = pick(kT), clen = 60 + pick(1500);
      set_bits(d.cr_claim_tenant_i, dir * kTW, kTW, ct);
      set_bits(d.cr_claim_len_i, dir * 16, 16, clen);
      if (coin(0.4)) {
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
      eq(d.q_enq_pkts_o, 64, m.enq_p[q], "Q_ENQ_PKTS");
      eq(d.q_enq_bytes_o, 64, m.enq_b[q], "Q_ENQ_BYTES");
      eq(d.q_tx_pkts_o, 64, m.tx_p[q], "Q_TX_PKTS");
      eq(d.q_tx_bytes_o, 64, m.tx_b[q], "Q_TX_BYTES");
      eq(d.q_drop_pkts_o, 64, m.drop_p[q], "Q_DROP_PKTS");
      eq(d.q_drop_bytes_o, 64, m.drop_b[q], "Q_DROP_BYTES");
      eq(d.q_lat_sum_o, 64, m.lat_sum[q], "Q_LAT_SUM");
      eq(d.q_lat_count_o, 64, m.lat_cnt[q], "Q_LAT_COUNT");
      eq(d.q_lat_max_o, 32, m.lat_max[q], "Q_LAT_MAX");
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
      eq(d.cr_tx_bytes_o, m.cry[0][t], "CR_TX_BYTES");
      eq(d.cr_rx_bytes_o, m.cry[1][t], "CR_RX_BYTES");
      eq(d.cr_tx_pkts_o, m.crp[0][t], "CR_TX_PKTS");
      eq(d.cr_rx_pkts_o, m.crp[1][t], "CR_RX_PKTS");
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
      b.step(i % 7000 == 6999);
      b.compare();
    }
  });
}
