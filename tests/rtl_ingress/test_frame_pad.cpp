// nicsched_frame_pad's byte count of a beat (issue 16): the padder counts a non-last beat's
// bytes as the index of its highest tkeep lane + 1 (0 when none), now with a log-depth tree
// instead of the 64-deep chain `for j: if (tkeep[j]) n = j + 1`. This bench checks the RTL
// against that old rule, written here in C++, for every 8-lane tkeep (DataWidth 64, all 256)
// and, at DataWidth 512, all 64 single lanes, all 65 contiguous prefixes, every lane above
// a random prefix, and random sparse and dense tkeep values (contiguous or not: the rule is
// defined for any tkeep, so it is checked for any).
//
// How the count is seen: with MinBytes = one beat, a frame of one non-last beat (tkeep = K)
// and an empty tlast beat with s_pad_i = 1 leaves with the tlast beat's tkeep set on lanes
// 0 .. MinBytes - n - 1, n = the count of K (no lanes when n = MinBytes).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "Vframe_pad_w512.h"
#include "Vframe_pad_w64.h"

namespace {

// The old rule, verbatim.
unsigned old_keep_cnt(std::uint64_t keep, unsigned lanes) {
  unsigned n = 0;
  for (unsigned j = 0; j < lanes; ++j) {
    if ((keep >> j) & 1U) n = j + 1;
  }
  return n;
}

std::uint64_t low_lanes(unsigned n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

template <class Model, unsigned Lanes>
class PadBench {
 public:
  PadBench() {
    m_.clk_i = 0;
    m_.rst_ni = 0;
    m_.s_axis_tvalid = 0;
    m_.m_axis_tready = 1;
    m_.eval();
    clock();  // the reset is taken at a clock edge (a reset value need not be Verilator's zero)
    m_.rst_ni = 1;
    m_.eval();
  }

  // Sends {tkeep = keep, not last} then {tkeep = 0, last, pad}; returns the pad lanes seen
  // on the tlast beat; fails the test on anything else out of place.
  std::uint64_t pad_after(std::uint64_t keep) {
    beat(keep, false, false);
    INFO(fmt::format("tkeep {:#x}: the non-last beat passes unchanged", keep));
    REQUIRE(static_cast<std::uint64_t>(m_.m_axis_tkeep) == keep);
    REQUIRE(m_.m_axis_tlast == 0);
    clock();
    beat(0, true, true);
    REQUIRE(m_.s_axis_tready == 1);
    REQUIRE(m_.m_axis_tvalid == 1);
    REQUIRE(m_.m_axis_tlast == 1);
    const auto out = static_cast<std::uint64_t>(m_.m_axis_tkeep);
    clock();
    return out;
  }

 private:
  void beat(std::uint64_t keep, bool last, bool pad) {
    m_.s_axis_tkeep = static_cast<std::remove_reference_t<decltype(m_.s_axis_tkeep)>>(keep);  // Lanes bits
    m_.s_axis_tvalid = 1;
    m_.s_axis_tlast = last;
    m_.s_pad_i = pad;
    m_.s_axis_tuser = 0;
    m_.eval();
  }
  void clock() {
    m_.clk_i = 1;
    m_.eval();
    m_.clk_i = 0;
    m_.eval();
  }
  Model m_;
};

template <class Model, unsigned Lanes>
void check(PadBench<Model, Lanes>& b, std::uint64_t keep) {
  const unsigned n = old_keep_cnt(keep, Lanes);
  const std::uint64_t want = low_lanes(Lanes - n);
  const std::uint64_t got = b.pad_after(keep);
  INFO(fmt::format("tkeep {:#x}: old rule counts {} bytes, so pad lanes {:#x}; RTL padded {:#x}", keep, n, want, got));
  REQUIRE(got == want);
}

}  // namespace

TEST_CASE("frame_pad keep count: every 8-lane tkeep (DataWidth 64)") {
  PadBench<Vframe_pad_w64, 8> b;
  for (std::uint64_t k = 0; k < 256; ++k) check(b, k);
}

TEST_CASE("frame_pad keep count: corner and random 64-lane tkeep (DataWidth 512)") {
  PadBench<Vframe_pad_w512, 64> b;
  std::vector<std::uint64_t> keeps;
  for (unsigned j = 0; j < 64; ++j) keeps.push_back(std::uint64_t{1} << j);     // single lanes
  for (unsigned n = 0; n <= 64; ++n) keeps.push_back(low_lanes(n));             // prefixes
  std::mt19937_64 rng(16);
  for (unsigned j = 0; j < 64; ++j) {                                           // a gap below lane j
    keeps.push_back((std::uint64_t{1} << j) | (low_lanes(j) & rng() & low_lanes(std::uniform_int_distribution<unsigned>(0, j)(rng))));
  }
  for (unsigned i = 0; i < 20000; ++i) {
    // density from one lane in 64 to all but one in 64, so the highest lane varies widely
    const unsigned ones = std::uniform_int_distribution<unsigned>(1, 63)(rng);
    std::uint64_t k = 0;
    for (unsigned j = 0; j < 64; ++j) {
      if (std::uniform_int_distribution<unsigned>(0, 63)(rng) < ones) k |= std::uint64_t{1} << j;
    }
    keeps.push_back(k);
  }
  unsigned counts_seen = 0;
  std::vector<bool> seen(65, false);
  for (std::uint64_t k : keeps) {
    check(b, k);
    if (!seen[old_keep_cnt(k, 64)]) { seen[old_keep_cnt(k, 64)] = true; ++counts_seen; }
  }
  // the vectors reach every count 0..64
  REQUIRE(counts_seen == 65);
}
