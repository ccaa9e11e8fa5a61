// rtl.shaper.*: nicsched_shaper against the token-bucket rule of T_RATE/T_BURST, checked
// every clock: tokens in 1/1024 byte gain T_RATE per clock up to T_BURST bytes, a frame
// takes its length (the bucket may go negative), a tenant conforms while its bucket is
// not negative; RATE_EN = 0 holds the bucket full.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Vshaper_t8.h"
#include "core_tb.hpp"

namespace {

using namespace nicsched::coretest;
constexpr unsigned kT = 8;

struct Bucket {
  bool enabled = false;
  std::int64_t rate = 0;   // bytes per 1024 clocks
  std::int64_t burst = 0;  // bytes
  std::int64_t tokens = 0; // 1/1024 byte
  [[nodiscard]] bool conforms() const { return !enabled || tokens >= 0; }
  void clock(std::int64_t consumed_bytes) {
    tokens = std::min(tokens + rate, burst * 1024) - consumed_bytes * 1024;
    if (!enabled) tokens = burst * 1024;
  }
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
    for (auto& m : model) m.clock(0);
  }
  void apply() {
    for (unsigned t = 0; t < kT; ++t) {
      set_bits(tb->rate_en_i, t, 1, model[t].enabled ? 1 : 0);
      set_bits(tb->rate_i, 24 * t, 24, static_cast<std::uint64_t>(model[t].rate));
      set_bits(tb->burst_i, 24 * t, 24, static_cast<std::uint64_t>(model[t].burst));
    }
  }
  /// One clock; a frame of a random conforming tenant leaves with probability p.
  void step(double p, unsigned max_len) {
    apply();
    tb->eval();
    for (unsigned t = 0; t < kT; ++t) {
      check(get_bits(tb->conform_o, t, 1) == (model[t].conforms() ? 1U : 0U),
            fmt::format("cycle {}: tenant {} conform {} but bucket holds {} / 1024 bytes (rate en {})", tb.cycle(), t,
                        get_bits(tb->conform_o, t, 1), model[t].tokens, model[t].enabled));
    }
    std::vector<unsigned> ok;
    for (unsigned t = 0; t < kT; ++t) {
      if (model[t].conforms()) ok.push_back(t);
    }
    tb->consume_i = 0;
    unsigned who = kT;
    unsigned len = 0;
    if (!ok.empty() && std::uniform_real_distribution<>(0, 1)(rng) < p) {
      who = ok[std::uniform_int_distribution<std::size_t>(0, ok.size() - 1)(rng)];
      len = std::uniform_int_distribution<unsigned>(60, max_len)(rng);
      tb->consume_i = 1;
      put(tb->consume_tenant_i, who);
      put(tb->consume_len_i, len);
      sent[who] += len;
    }
    tb.tick();
    for (unsigned t = 0; t < kT; ++t) model[t].clock(t == who ? len : 0);
  }
};

}  // namespace

TEST_CASE("conformance follows the token bucket every clock under random traffic and reconfiguration") {
  const auto err = run_traced("shaper_random", [](const std::string& trace) {
    ShaperBench b(trace, 31);
    std::uniform_int_distribution<std::int64_t> rate_d(0, 64 * 1024), burst_d(0, 20000);
    for (int phase = 0; phase < 20; ++phase) {
      for (unsigned t = 0; t < kT; ++t) {
        b.model[t].enabled = std::uniform_int_distribution<int>(0, 3)(b.rng) != 0;
        b.model[t].rate = rate_d(b.rng);
        b.model[t].burst = burst_d(b.rng);
      }
      for (int i = 0; i < 5000; ++i) b.step(0.8, 1518);
    }
  });
  REQUIRE(err == "");
}

TEST_CASE("a backlogged tenant sends at its rate plus at most one burst") {
  const auto err = run_traced("shaper_rate", [](const std::string& trace) {
    ShaperBench b(trace, 32);
    b.model[0] = {true, 2048, 3000, 0};   // 2 bytes per clock
    b.model[1] = {true, 51200, 9000, 0};  // 50 bytes per clock
    const unsigned cycles = 400000;
    for (unsigned i = 0; i < cycles; ++i) b.step(1.0, 1518);
    // tenant 0: rate * time, within a burst and one frame
    const double r0 = 2.0 * cycles, r1 = 50.0 * cycles;
    check(static_cast<double>(b.sent[0]) <= r0 + 3000 + 1518 && static_cast<double>(b.sent[0]) >= r0 * 0.98,
          fmt::format("tenant 0 sent {} bytes, rate allows {}", b.sent[0], r0));
    check(static_cast<double>(b.sent[1]) <= r1 + 9000 + 1518, fmt::format("tenant 1 sent {} bytes, rate allows {}", b.sent[1], r1));
  });
  REQUIRE(err == "");
}
