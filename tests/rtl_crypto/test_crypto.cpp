// rtl.crypto.*: nicsched_crypto_slots against the reference model's slot pool
// (nicsched/refmodel/crypto_slots.hpp, the one RefModel uses), every clock: claim
// permissions (free slots, quotas and the TX/RX turn; a permission of one clock allows
// the claim of the next, and none is given in a clock with a claim; the quotas are those of
// the clock before), hold times of ceil(len /
// BYTES_PER_CYCLE) + LATENCY clocks, completions offered until taken (backpressure) and
// never before an older frame of the same key (queue) and direction, busy/held counts;
// TX and RX both get slots under contention. 8 tenants / 4 slots and 4 tenants / 2 slots.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Vcrypto_t4_s2.h"
#include "Vcrypto_t8_s4.h"
#include "core_tb.hpp"
#include "nicsched/refmodel/crypto_slots.hpp"
#include "run_case.hpp"

namespace {

using namespace nicsched::coretest;
using nicsched::refmodel::crypto_hold_cycles;
using nicsched::refmodel::CryptoSlots;
using nicsched::refmodel::Direction;

template <class Model, unsigned kT, unsigned kS>
struct CryptoBench {
  static constexpr unsigned kTenantW = kT > 1 ? (kT <= 2 ? 1 : (kT <= 4 ? 2 : (kT <= 8 ? 3 : 4))) : 1;
  static constexpr unsigned kBusyW = kS + 1 <= 2 ? 1 : (kS + 1 <= 4 ? 2 : (kS + 1 <= 8 ? 3 : 4));
  static constexpr unsigned kTagW = 32;
  static constexpr unsigned kKeyW = 4;
  Testbench<Model> tb;
  std::mt19937_64 rng;
  CryptoSlots ref{static_cast<int>(kS), static_cast<int>(kT)};
  std::vector<unsigned> quota = std::vector<unsigned>(kT, 2);
  // the quota the pool works with: quota_i of the clock before (0 in the first after reset)
  std::vector<unsigned> pool_quota = std::vector<unsigned>(kT, 0);
  unsigned bpc = 16, latency = 10;
  std::uint64_t want = ~std::uint64_t{0};  // want_i: every tenant of both directions waits
  double claim_p = 0.9, ready_p = 0.7;
  std::uint64_t next_tag = 1;
  std::uint64_t claims[2] = {0, 0};
  std::uint64_t hold_sum[2] = {0, 0};
  std::uint64_t busy_sum[2] = {0, 0};
  // claims chosen in the clock before, from its permissions: made in this clock
  struct Pending {
    bool valid = false;
    unsigned tenant = 0, len = 0, key = 0, quota = 0;
    std::uint64_t tag = 0;
  };
  Pending pending[2];

  CryptoBench(const std::string& trace, std::uint64_t seed) : tb(trace), rng(seed) { tb.reset(); }

  static Direction dir(unsigned d) { return d == 0 ? Direction::kTx : Direction::kRx; }

  void run(int cycles) {
    for (int i = 0; i < cycles; ++i) step();
  }

  void step() {
    const std::uint64_t c = tb.cycle();
    put(tb->bpc_i, bpc);
    put(tb->latency_i, latency);
    for (unsigned t = 0; t < kT; ++t) set_bits(tb->quota_i, 8 * t, 8, quota[t]);
    tb->claim_i = 0;
    for (unsigned d = 0; d < 2; ++d) {
      Pending& p = pending[d];
      if (!p.valid) continue;
      set_bits(tb->claim_i, d, 1, 1);
      set_bits(tb->claim_tenant_i, d * kTenantW, kTenantW, p.tenant);
      set_bits(tb->claim_len_i, d * 16, 16, p.len);
      set_bits(tb->claim_tag_i, d * kTagW, kTagW, p.tag);
      set_bits(tb->claim_key_i, d * kKeyW, kKeyW, p.key);
      // the engine setting is latched at the claim: this clock's bpc_i / latency_i
      const std::uint64_t hold = crypto_hold_cycles(p.len, bpc, latency);
      ref.claim(dir(d), p.tenant, p.quota, p.tag, p.key, hold);
      ++claims[d];
      hold_sum[d] += hold;
      p.valid = false;
    }
    set_bits(tb->want_i, 0, 2 * kT, want);
    tb->done_ready_i = 0;
    tb->eval();
    // counts
    check(get_bits(tb->held_total_o, 0, 8) == static_cast<unsigned>(ref.held_total()),
          fmt::format("cycle {}: held_total_o {} model {}", c, get_bits(tb->held_total_o, 0, 8), ref.held_total()));
    for (unsigned t = 0; t < kT; ++t) {
      check(get_bits(tb->held_o, 8 * t, 8) == ref.held(t),
            fmt::format("cycle {}: tenant {} holds {} slots, model {}", c, t, get_bits(tb->held_o, 8 * t, 8), ref.held(t)));
      const unsigned busy_tx = ref.busy(Direction::kTx, t), busy_rx = ref.busy(Direction::kRx, t);
      check(get_bits(tb->busy_tx_o, kBusyW * t, kBusyW) == busy_tx, fmt::format("cycle {}: tenant {} TX busy", c, t));
      check(get_bits(tb->busy_rx_o, kBusyW * t, kBusyW) == busy_rx, fmt::format("cycle {}: tenant {} RX busy", c, t));
      busy_sum[0] += busy_tx;
      busy_sum[1] += busy_rx;
    }
    // completions: offered exactly when a finished frame of that direction waits with no
    // older frame of its key still held; the RTL may offer any such frame
    for (unsigned d = 0; d < 2; ++d) {
      const bool any_done = ref.offered(dir(d)).has_value();
      const bool v = get_bits(tb->done_valid_o, d, 1) != 0;
      check(v == any_done, fmt::format("cycle {}: done_valid[{}] {} but a finished frame waits: {}", c, d, v, any_done));
      if (v) {
        const auto tag = get_bits(tb->done_tag_o, d * kTagW, kTagW);
        check(ref.may_leave(dir(d), tag), fmt::format("cycle {}: done_tag[{}] {} is no finished frame free to leave", c, d, tag));
        if (std::uniform_real_distribution<>(0, 1)(rng) < ready_p && ref.may_leave(dir(d), tag)) {
          set_bits(tb->done_ready_i, d, 1, 1);
          ref.take(dir(d), tag);  // its slot is free from the next clock on
        }
      }
    }
    // claims of the next clock: permissions as the model gives them (the turn included;
    // none in a clock with a claim); independently of it, both directions' claims
    // together fit the free slots and the quota
    std::vector<unsigned> n_after(kT);
    for (unsigned t = 0; t < kT; ++t) n_after[t] = ref.held(t);
    unsigned taken = 0;
    for (unsigned d = 0; d < 2; ++d) {
      for (unsigned t = 0; t < kT; ++t) {
        if (((want >> (d * kT + t)) & 1U) != 0) ref.want(dir(d), t, pool_quota[t]);
      }
    }
    for (unsigned d = 0; d < 2; ++d) {
      std::vector<unsigned> allowed;
      for (unsigned t = 0; t < kT; ++t) {
        const bool can = get_bits(tb->can_claim_o, d * kT + t, 1) != 0;
        check(can == ref.can_claim(dir(d), t, pool_quota[t]),
              fmt::format("cycle {}: can_claim dir {} tenant {} is {}, model {} ({} free slots, {} held of quota {}, turn {})",
                          c, d, t, can, !can, ref.free_slots(), ref.held(t), pool_quota[t],
                          ref.turn() == Direction::kTx ? "TX" : "RX"));
        if (can && ref.can_claim(dir(d), t, pool_quota[t])) allowed.push_back(t);
      }
      if (allowed.empty() || std::uniform_real_distribution<>(0, 1)(rng) >= claim_p) continue;
      const unsigned t = allowed[std::uniform_int_distribution<std::size_t>(0, allowed.size() - 1)(rng)];
      check(taken + 1 <= static_cast<unsigned>(ref.free_slots()) && n_after[t] + 1 <= pool_quota[t],
            fmt::format("cycle {}: both directions allowed past the limits", c));
      ++taken;
      ++n_after[t];
      const unsigned len = std::uniform_int_distribution<unsigned>(60, 1518)(rng);
      const unsigned key = std::uniform_int_distribution<unsigned>(0, 3)(rng);
      const std::uint64_t tag = next_tag++;
      pending[d] = Pending{true, t, len, key, pool_quota[t], tag};
    }
    tb.tick();
    ref.clock();
    pool_quota = quota;
  }
};

template <class Model, unsigned kT, unsigned kS>
void random_run(const std::string& name, std::uint64_t seed) {
  run_case(name, [&](const std::string& trace) {
    CryptoBench<Model, kT, kS> b(trace, seed);
    for (int phase = 0; phase < 12; ++phase) {
      for (unsigned t = 0; t < kT; ++t) b.quota[t] = std::uniform_int_distribution<unsigned>(0, kS + 1)(b.rng);
      b.bpc = std::uniform_int_distribution<unsigned>(0, 64)(b.rng);  // 0 counts as 1
      b.latency = std::uniform_int_distribution<unsigned>(0, 40)(b.rng);
      b.ready_p = phase % 3 == 0 ? 1.0 : 0.5;
      b.run(4000);
    }
    check(b.claims[0] > 100 && b.claims[1] > 100, fmt::format("claims TX {} RX {}", b.claims[0], b.claims[1]));
  });
}

}  // namespace

TEST_CASE("slots, quotas, hold times and completions follow the model (8 tenants, 4 slots)") {
  random_run<Vcrypto_t8_s4, 8, 4>("crypto_t8_s4", 41);
}

TEST_CASE("slots, quotas, hold times and completions follow the model (4 tenants, 2 slots)") {
  random_run<Vcrypto_t4_s2, 4, 2>("crypto_t4_s2", 42);
}

TEST_CASE("hold time is ceil(len / bytes per cycle) + latency and busy cycles add up to it") {
  run_case("crypto_hold", [](const std::string& trace) {
    CryptoBench<Vcrypto_t8_s4, 8, 4> b(trace, 43);
    b.bpc = 16;
    b.latency = 32;
    b.ready_p = 1.0;
    std::ranges::fill(b.quota, 4U);
    b.run(20000);
    // the model checked every clock; over the run the slot-busy cycles are the hold times
    // of the frames whose hold ended (allow the ones still in hold at the end)
    for (unsigned d = 0; d < 2; ++d) {
      check(b.busy_sum[d] <= b.hold_sum[d] && b.busy_sum[d] + 4 * 130 >= b.hold_sum[d],
            fmt::format("dir {}: busy {} vs hold {}", d, b.busy_sum[d], b.hold_sum[d]));
    }
  });
}

TEST_CASE("TX and RX share the pool: neither direction starves under contention") {
  run_case("crypto_share", [](const std::string& trace) {
    CryptoBench<Vcrypto_t4_s2, 4, 2> b(trace, 44);
    b.claim_p = 1.0;
    b.ready_p = 1.0;
    b.bpc = 64;
    b.latency = 3;
    std::ranges::fill(b.quota, 2U);
    b.run(20000);
    const double tx = static_cast<double>(b.claims[0]), rx = static_cast<double>(b.claims[1]);
    check(tx > 0.35 * (tx + rx) && rx > 0.35 * (tx + rx), fmt::format("claims TX {} RX {}", tx, rx));
  });
}
