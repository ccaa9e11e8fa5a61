// rtl.shaper.*: nicsched_shaper against the reference token bucket
// (nicsched/refmodel/token_bucket.hpp, the one RefModel uses), checked every clock under
// random traffic and reconfiguration; and the long-run rate.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Vshaper_t8.h"
#include "core_tb.hpp"
#include "nicsched/refmodel/token_bucket.hpp"
#include "run_case.hpp"

namespace {

using namespace nicsched::coretest;
using nicsched::refmodel::TokenBucket;
constexpr unsigned kT = 8;

// One tenant's registers and the reference bucket.
struct Bucket {
  TokenBucket::Config cfg;
  TokenBucket bucket;  // empty, as after reset
};

struct ShaperBench {
  Testbench<Vshaper_t8> tb;
  std::vector<Bucket> model = std::vector<Bucket>(kT);
  std::mt19937_64 rng;
  std::vector<std::uint64_t> sent = std::vector<std::uint64_t>(kT, 0);

  ShaperBench(const std::string& trace, std::uint64_t seed) : tb(trace), rng(seed) {
    tb.reset();
    apply();
    // after reset every bucket is empty; disabled buckets fill in one clock
    tb.tick();
    for (auto& m : model) m.bucket.clock(m.cfg, 0);
  }
  void apply() {
    for (unsigned t = 0; t < kT; ++t) {
      set_bits(tb->rate_en_i, t, 1, model[t].cfg.enabled ? 1 : 0);
      set_bits(tb->rate_i, 24 * t, 24, model[t].cfg.rate_bytes_per_kcycle);
      set_bits(tb->burst_i, 24 * t, 24, model[t].cfg.burst_bytes);
    }
  }
  /// One clock; a frame of a random conforming tenant leaves with probability p.
  void step(double p, unsigned max_len) {
    apply();
    tb->eval();
    for (unsigned t = 0; t < kT; ++t) {
      check(get_bits(tb->conform_o, t, 1) == (model[t].bucket.conforms(model[t].cfg) ? 1U : 0U),
            fmt::format("cycle {}: tenant {} conform {} but bucket holds {} / 1024 bytes (rate en {})", tb.cycle(), t,
                        get_bits(tb->conform_o, t, 1), model[t].bucket.tokens(), model[t].cfg.enabled));
    }
    std::vector<unsigned> ok;
    for (unsigned t = 0; t < kT; ++t) {
      if (model[t].bucket.conforms(model[t].cfg)) ok.push_back(t);
    }
    tb->consume_i = 0;
    // every tenant's length input holds some length; only the consuming tenant's counts
    for (unsigned t = 0; t < kT; ++t) {
      set_bits(tb->consume_len_i, 16 * t, 16, std::uniform_int_distribution<unsigned>(0, 0xffff)(rng));
    }
    unsigned who = kT;
    unsigned len = 0;
    if (!ok.empty() && std::uniform_real_distribution<>(0, 1)(rng) < p) {
      who = ok[std::uniform_int_distribution<std::size_t>(0, ok.size() - 1)(rng)];
      len = std::uniform_int_distribution<unsigned>(60, max_len)(rng);
      set_bits(tb->consume_i, who, 1, 1);
      set_bits(tb->consume_len_i, 16 * who, 16, len);
      sent[who] += len;
    }
    tb.tick();
    for (unsigned t = 0; t < kT; ++t) model[t].bucket.clock(model[t].cfg, t == who ? len : 0);
  }
};

}  // namespace

TEST_CASE("conformance follows the token bucket every clock under random traffic and reconfiguration") {
  run_case("shaper_random", [](const std::string& trace) {
    ShaperBench b(trace, 31);
    std::uniform_int_distribution<std::uint32_t> rate_d(0, 64 * 1024), burst_d(0, 20000);
    for (int phase = 0; phase < 20; ++phase) {
      for (unsigned t = 0; t < kT; ++t) {
        b.model[t].cfg.enabled = std::uniform_int_distribution<int>(0, 3)(b.rng) != 0;
        b.model[t].cfg.rate_bytes_per_kcycle = rate_d(b.rng);
        b.model[t].cfg.burst_bytes = burst_d(b.rng);
      }
      for (int i = 0; i < 5000; ++i) b.step(0.8, 1518);
    }
  });
}

TEST_CASE("a backlogged tenant sends at its rate plus at most one burst") {
  run_case("shaper_rate", [](const std::string& trace) {
    ShaperBench b(trace, 32);
    b.model[0].cfg = {true, 2048, 3000};   // 2 bytes per clock
    b.model[1].cfg = {true, 51200, 9000};  // 50 bytes per clock
    const unsigned cycles = 400000;
    for (unsigned i = 0; i < cycles; ++i) b.step(1.0, 1518);
    // tenant 0: rate * time, within a burst and one frame
    const double r0 = 2.0 * cycles, r1 = 50.0 * cycles;
    check(static_cast<double>(b.sent[0]) <= r0 + 3000 + 1518 && static_cast<double>(b.sent[0]) >= r0 * 0.98,
          fmt::format("tenant 0 sent {} bytes, rate allows {}", b.sent[0], r0));
    check(static_cast<double>(b.sent[1]) <= r1 + 9000 + 1518, fmt::format("tenant 1 sent {} bytes, rate allows {}", b.sent[1], r1));
  });
}
