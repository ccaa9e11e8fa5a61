// rtl.arbiter.rr_pick.*: nicsched_rr_pick (the round-robin pick of every arbiter rank)
// against the rule written from its header: the first requester after the last grant,
// cyclically; one-hot; nothing without a request. Exhaustive at 1 and 5 requesters (every
// request mask against every one-hot or empty last grant), random at 8 and 64; and as the
// arbiter uses it (the grant fed back as the last grant): a requester that keeps its
// request is granted within NumReq picks.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

#include <fmt/format.h>

#include "Vrr_pick_n1.h"
#include "Vrr_pick_n5.h"
#include "Vrr_pick_n64.h"
#include "Vrr_pick_n8.h"
#include "run_case.hpp"

namespace {

using nicsched::sim::bfm::get_bits;
using nicsched::sim::bfm::set_bits;
using nicsched::sim::bfm::Testbench;
using nicsched::test::run_case;

// The rule: the lowest request above the last grant's bit, else the lowest request
// (last == 0: the lowest request). One-hot result, 0 without a request.
std::uint64_t expected_pick(unsigned n, std::uint64_t last, std::uint64_t req) {
  int start = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (((last >> i) & 1U) != 0) start = static_cast<int>(i) + 1;
  }
  for (unsigned k = 0; k < n; ++k) {
    const unsigned i = (static_cast<unsigned>(start) + k) % n;
    if (((req >> i) & 1U) != 0) return std::uint64_t{1} << i;
  }
  return 0;
}

// A bit for each of n requesters (n <= 64).
std::uint64_t all_requesters(unsigned n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

template <class Model>
std::uint64_t pick(Testbench<Model>& tb, unsigned n, std::uint64_t last, std::uint64_t req) {
  set_bits(tb->last_i, 0, n, last);
  set_bits(tb->req_i, 0, n, req);
  tb.tick();  // the assertions (one-hot, requested, work conserving) at the edge
  return get_bits(tb->gnt_o, 0, n);
}

template <class Model>
void check_one(Testbench<Model>& tb, unsigned n, std::uint64_t last, std::uint64_t req) {
  const std::uint64_t got = pick(tb, n, last, req);
  const std::uint64_t want = expected_pick(n, last, req);
  if (got != want) {
    throw std::runtime_error(fmt::format("NumReq={} last={:#x} req={:#x}: gnt {:#x}, expected {:#x}", n, last, req,
                                         got, want));
  }
}

template <class Model>
void exhaustive(unsigned n, const std::string& trace) {
  Testbench<Model> tb(trace);
  tb.reset();
  for (std::uint64_t req = 0; req < (std::uint64_t{1} << n); ++req) {
    check_one(tb, n, 0, req);
    for (unsigned l = 0; l < n; ++l) check_one(tb, n, std::uint64_t{1} << l, req);
  }
}

template <class Model>
void random_masks(unsigned n, std::uint64_t seed, const std::string& trace) {
  Testbench<Model> tb(trace);
  tb.reset();
  std::mt19937_64 rng(seed);
  const std::uint64_t all = all_requesters(n);
  for (int i = 0; i < 20000; ++i) {
    // sparse and dense masks both: AND or OR of two draws
    std::uint64_t req = (i % 2 == 0 ? (rng() & rng()) : (rng() | rng())) & all;
    if (i % 7 == 0) req &= rng() & rng() & rng();
    const unsigned l = static_cast<unsigned>(rng() % (n + 1));
    check_one(tb, n, l == n ? 0 : std::uint64_t{1} << l, req);
  }
}

// The grant fed back as the last grant, as a rank of the arbiter does: with requester 0
// always requesting and the others at random, 0 waits at most NumReq - 1 other grants.
template <class Model>
void bounded_wait(unsigned n, std::uint64_t seed, const std::string& trace) {
  Testbench<Model> tb(trace);
  tb.reset();
  std::mt19937_64 rng(seed);
  const std::uint64_t all = all_requesters(n);
  std::uint64_t last = 0;
  unsigned waited = 0;
  for (int i = 0; i < 5000; ++i) {
    const std::uint64_t req = (rng() & all) | 1U;
    const std::uint64_t gnt = pick(tb, n, last, req);
    if (gnt != expected_pick(n, last, req)) {
      throw std::runtime_error(fmt::format("NumReq={} step {}: gnt {:#x}, expected {:#x}", n, i, gnt,
                                           expected_pick(n, last, req)));
    }
    waited = (gnt & 1U) != 0 ? 0 : waited + 1;
    if (waited > n - 1) throw std::runtime_error(fmt::format("NumReq={}: requester 0 waited {} grants", n, waited));
    last = gnt;
  }
}

}  // namespace

TEST_CASE("rr_pick grants the first request after the last grant (exhaustive, 1 and 5 requesters)", "[rr_pick]") {
  run_case("rr_pick_n1", [](const std::string& t) { exhaustive<Vrr_pick_n1>(1, t); });
  run_case("rr_pick_n5", [](const std::string& t) { exhaustive<Vrr_pick_n5>(5, t); });
}

TEST_CASE("rr_pick grants the first request after the last grant (random, 8 and 64 requesters)", "[rr_pick]") {
  run_case("rr_pick_n8", [](const std::string& t) { random_masks<Vrr_pick_n8>(8, 11, t); });
  run_case("rr_pick_n64", [](const std::string& t) { random_masks<Vrr_pick_n64>(64, 12, t); });
}

TEST_CASE("rr_pick with its grant fed back serves a steady requester within NumReq picks", "[rr_pick]") {
  run_case("rr_pick_wait_n5", [](const std::string& t) { bounded_wait<Vrr_pick_n5>(5, 21, t); });
  run_case("rr_pick_wait_n64", [](const std::string& t) { bounded_wait<Vrr_pick_n64>(64, 22, t); });
}
