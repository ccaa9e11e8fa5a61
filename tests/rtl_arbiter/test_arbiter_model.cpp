// rtl.arbiter.*: nicsched_arbiter against its reference model (nicsched/refmodel/arbiter.hpp,
// the one RefModel uses), decision
// by decision, in every mode, with the control level on and off (control buckets that
// conform or not, changing every clock), with configuration changes, quanta over the whole 16-bit
// register (0 included) and frame lengths over the whole LenW range; at the default
// LenW = 16 and at narrow LenW (8 and 11 bits, where a deficit sized from LenW alone
// would wrap) with a tenant count that is not a power of two and a 12-bit timestamp (FIFO
// ages wrap).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "Varbiter_t16.h"
#include "Varbiter_t4.h"
#include "Varbiter_t4_len8.h"
#include "Varbiter_t5_len11.h"
#include "Varbiter_t8.h"
#include "core_tb.hpp"
#include "nicsched/refmodel/arbiter.hpp"
#include "run_case.hpp"

namespace {

using namespace nicsched::coretest;
using nicsched::nic::ArbMode;
using nicsched::refmodel::ArbConfig;
using nicsched::refmodel::ArbDecision;
using nicsched::refmodel::Arbiter;
using nicsched::refmodel::ArbHeads;

template <class Model, unsigned kT, unsigned kLenW, unsigned kTsW>
struct ModelBench {
  static constexpr unsigned kQ = 2 * kT;
  static constexpr unsigned kMaxLen = (1U << kLenW) - 1;
  static constexpr std::uint32_t kTsMask = kTsW >= 32 ? 0xFFFFFFFFU : (1U << kTsW) - 1U;
  struct Frame {
    unsigned len;
    std::uint32_t ts;
  };
  Testbench<Model> tb;
  Arbiter ref{kT, kTsW};
  std::mt19937_64 rng;
  std::vector<std::deque<Frame>> q{kQ};
  ArbConfig cfg;
  std::uint32_t now = 5;
  double block_p = 0.2;  // chance a queued head is not eligible this clock
  double ctrl_dry_p = 0.3;  // chance a tenant's control bucket has no tokens this clock
  std::vector<std::uint64_t> bytes = std::vector<std::uint64_t>(kT, 0);
  std::uint64_t grants = 0;
  std::uint64_t ctrl_grants = 0;  // at the control level

  ModelBench(const std::string& trace, std::uint64_t seed) : tb(trace), rng(seed) {
    cfg.t_enable.assign(kT, true);
    cfg.prio.assign(kT, 0);
    cfg.quantum.assign(kT, 1500);
    tb.reset();
  }

  unsigned uniform(unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng); }
  bool chance(double p) { return std::uniform_real_distribution<>(0, 1)(rng) < p; }

  // Quanta from every range that matters: below a frame, about a frame, the whole register.
  unsigned random_quantum() {
    switch (uniform(0, 2)) {
      case 0: return uniform(0, 300);
      case 1: return uniform(1, kMaxLen + 1);
      default: return uniform(0, 65535);
    }
  }
  unsigned random_len() { return chance(0.5) ? uniform(1, std::min(128U, kMaxLen)) : uniform(1, kMaxLen); }

  void random_config() {
    cfg.enable = !chance(0.05);
    cfg.mode = static_cast<ArbMode>(uniform(0, 3));
    cfg.ctrl_level = chance(0.6);
    ctrl_dry_p = chance(0.3) ? 0.9 : 0.3;
    for (unsigned t = 0; t < kT; ++t) {
      cfg.t_enable[t] = !chance(0.1);
      cfg.prio[t] = uniform(0, 3);
      cfg.quantum[t] = random_quantum();
    }
  }

  void push(unsigned queue, unsigned len) { q[queue].push_back({len, now & kTsMask}); }

  // One clock: drive the heads and configuration, compare the grant with the model's,
  // dequeue the granted head.
  void step() {
    ArbHeads h;
    h.now = now & kTsMask;
    h.elig.resize(kQ);
    h.backlog.resize(kQ);
    h.len.resize(kQ);
    h.ts.resize(kQ);
    h.ctrl_conform.resize(kT);
    tb->enable_i = cfg.enable ? 1 : 0;
    tb->ctrl_level_i = cfg.ctrl_level ? 1 : 0;
    put(tb->mode_i, static_cast<unsigned>(cfg.mode));
    for (unsigned t = 0; t < kT; ++t) {
      set_bits(tb->t_enable_i, t, 1, cfg.t_enable[t] ? 1 : 0);
      set_bits(tb->t_prio_i, 2 * t, 2, cfg.prio[t]);
      set_bits(tb->t_quantum_i, 16 * t, 16, cfg.quantum[t]);
      h.ctrl_conform[t] = !chance(ctrl_dry_p);
      set_bits(tb->ctrl_conform_i, t, 1, h.ctrl_conform[t] ? 1 : 0);
    }
    for (unsigned i = 0; i < kQ; ++i) {
      h.backlog[i] = !q[i].empty();
      h.elig[i] = h.backlog[i] && !chance(block_p);
      h.len[i] = q[i].empty() ? 0 : q[i].front().len;
      h.ts[i] = q[i].empty() ? 0 : q[i].front().ts;
      set_bits(tb->q_elig_i, i, 1, h.elig[i] ? 1 : 0);
      set_bits(tb->q_backlog_i, i, 1, h.backlog[i] ? 1 : 0);
      set_bits(tb->q_len_i, kLenW * i, kLenW, h.len[i]);
      set_bits(tb->q_ts_i, kTsW * i, kTsW, h.ts[i]);
    }
    put(tb->now_i, h.now);
    tb->eval();
    const ArbDecision want = ref.step(cfg, h);
    const bool gv = tb->grant_valid_o != 0;
    const auto g = static_cast<unsigned>(tb->grant_queue_o);
    const auto c = tb.cycle();
    check(gv == want.valid, fmt::format("cycle {} (mode {}): grant_valid {}, model {}", c, static_cast<unsigned>(cfg.mode), gv, want.valid));
    // Work conservation, whatever the quanta and lengths: an eligible head of an enabled
    // tenant is a grant this clock.
    bool any_eligible = false;
    for (unsigned i = 0; i < kQ; ++i) any_eligible = any_eligible || (cfg.enable && cfg.t_enable[i / 2] && h.elig[i]);
    check(gv == any_eligible, fmt::format("cycle {} (mode {}): grant_valid {} with an eligible head {}", c, static_cast<unsigned>(cfg.mode), gv, any_eligible));
    if (gv) {
      check(g == want.queue, fmt::format("cycle {} (mode {}): granted queue {}, model queue {}", c, static_cast<unsigned>(cfg.mode), g, want.queue));
    }
    check((tb->grant_ctrl_o != 0) == (want.valid && want.ctrl),
          fmt::format("cycle {} (mode {}): grant_ctrl_o {}, model {}", c, static_cast<unsigned>(cfg.mode),
                      tb->grant_ctrl_o, want.valid && want.ctrl));
    if (want.ctrl) ++ctrl_grants;
    for (unsigned i = 0; i < kQ; ++i) {
      check(get_bits(tb->grant_onehot_o, i, 1) == ((gv && i == g) ? 1U : 0U),
            fmt::format("cycle {}: grant_onehot_o bit {}", c, i));
    }
    if (want.valid) {
      bytes[want.queue / 2] += q[want.queue].front().len;
      q[want.queue].pop_front();
      ++grants;
    }
    tb.tick();
    ++now;
  }
};

template <class Model, unsigned kT, unsigned kLenW, unsigned kTsW>
void random_against_model(const std::string& name, std::uint64_t seed) {
  std::uint64_t grants = 0;
  std::uint64_t ctrl_grants = 0;
  run_case(name, [&](const std::string& trace) {
    ModelBench<Model, kT, kLenW, kTsW> b(trace, seed);
    using B = decltype(b);
    for (unsigned i = 0; i < 60000; ++i) {
      if (i % 2000 == 0) b.random_config();
      // bursty arrivals, queues come and go; now and then the heads stop being eligible
      if (i % 5000 == 0) b.block_p = b.chance(0.5) ? 0.0 : 0.4;
      const double load = (i / 3000) % 2 == 0 ? 0.9 : 0.3;
      if (b.chance(load)) b.push(b.uniform(0, B::kQ - 1), b.random_len());
      b.step();
    }
    grants = b.grants;
    ctrl_grants = b.ctrl_grants;
  });
  CHECK(grants > 15000);
  CHECK(ctrl_grants > 1000);  // the control level was exercised
}

// Every queue always backlogged, DWRR: byte shares follow the quanta within 2 percent, with
// quanta far above 2^LenW (what a deficit of LenW + a few bits could not hold).
template <class Model, unsigned kT, unsigned kLenW, unsigned kTsW>
void shares_with_large_quanta(const std::string& name, unsigned base_quantum) {
  run_case(name, [&](const std::string& trace) {
    ModelBench<Model, kT, kLenW, kTsW> b(trace, 31);
    using B = decltype(b);
    b.cfg.mode = ArbMode::kDwrr;
    b.block_p = 0.0;
    for (unsigned t = 0; t < kT; ++t) b.cfg.quantum[t] = base_quantum * (1 + t % 3);
    for (unsigned i = 0; i < 300000; ++i) {
      for (unsigned j = 0; j < B::kQ; ++j) {
        while (b.q[j].size() < 3) b.push(j, b.uniform(B::kMaxLen / 4, B::kMaxLen));
      }
      b.step();
    }
    double sum_w = 0, sum_b = 0;
    for (unsigned t = 0; t < kT; ++t) {
      sum_w += b.cfg.quantum[t];
      sum_b += static_cast<double>(b.bytes[t]);
    }
    for (unsigned t = 0; t < kT; ++t) {
      const double share = static_cast<double>(b.bytes[t]) / sum_b;
      const double want = b.cfg.quantum[t] / sum_w;
      check(std::abs(share / want - 1) < 0.02,
            fmt::format("tenant {}: byte share {:.4f}, quantum share {:.4f}", t, share, want));
    }
  });
}

}  // namespace

TEST_CASE("decisions match the reference model in every mode (4 tenants)") {
  random_against_model<Varbiter_t4, 4, 16, 32>("arb_model_t4", 101);
}
TEST_CASE("decisions match the reference model in every mode (8 tenants)") {
  random_against_model<Varbiter_t8, 8, 16, 32>("arb_model_t8", 102);
}
TEST_CASE("decisions match the reference model in every mode (16 tenants)") {
  random_against_model<Varbiter_t16, 16, 16, 32>("arb_model_t16", 103);
}
TEST_CASE("decisions match the reference model with 8-bit lengths and 16-bit quanta (4 tenants)") {
  random_against_model<Varbiter_t4_len8, 4, 8, 32>("arb_model_t4_len8", 104);
}
TEST_CASE("decisions match the reference model with 11-bit lengths, 5 tenants, 12-bit timestamps") {
  random_against_model<Varbiter_t5_len11, 5, 11, 12>("arb_model_t5_len11", 105);
}
TEST_CASE("DWRR shares follow quanta far above the frame length range (8-bit lengths)") {
  shares_with_large_quanta<Varbiter_t4_len8, 4, 8, 32>("arb_shares_len8", 20000);
}
TEST_CASE("DWRR shares follow quanta far above the frame length range (11-bit lengths)") {
  shares_with_large_quanta<Varbiter_t5_len11, 5, 11, 12>("arb_shares_len11", 20000);
}
