// nicsched_frame_pad's byte counts: a beat comes with its byte count (s_axis_tcount, the
// count of its tkeep lanes, counted once by the parser and carried beside the beat) and
// leaves with the count of the tkeep it leaves with (m_axis_tcount), which the queues add
// up into the frame's length. With MinBytes = one beat, a frame of a non-last beat of n
// bytes and a tlast beat of k bytes leaves, when the tlast beat may be padded, with that
// beat on lanes 0 .. max(k, MinBytes - n) - 1 (the frame reaches MinBytes; its own bytes
// are never cut), and unchanged otherwise. This bench checks both beats' tkeep and count
// against that rule, written here in C++, for every (n, k) at DataWidth 64 and, at
// DataWidth 512, every n with k at the corners and at random.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>

#include <fmt/format.h>

#include "Vframe_pad_w512.h"
#include "Vframe_pad_w64.h"

namespace {

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

  // Sends {n bytes, not last} then {k bytes, last, s_pad_i = pad} and checks what leaves.
  void frame(unsigned n, unsigned k, bool pad) {
    INFO(fmt::format("first beat {} bytes, tlast beat {} bytes, pad {}", n, k, pad));
    beat(n, false, false);
    REQUIRE(static_cast<std::uint64_t>(m_.m_axis_tkeep) == low_lanes(n));  // passes unchanged
    REQUIRE(static_cast<unsigned>(m_.m_axis_tcount) == n);
    REQUIRE(m_.m_axis_tlast == 0);
    clock();
    beat(k, true, pad);
    const unsigned want = pad ? std::max(k, Lanes - n) : k;
    REQUIRE(m_.s_axis_tready == 1);
    REQUIRE(m_.m_axis_tvalid == 1);
    REQUIRE(m_.m_axis_tlast == 1);
    CHECK(static_cast<std::uint64_t>(m_.m_axis_tkeep) == low_lanes(want));
    CHECK(static_cast<unsigned>(m_.m_axis_tcount) == want);
    clock();
  }

 private:
  void beat(unsigned bytes, bool last, bool pad) {
    m_.s_axis_tkeep = static_cast<std::remove_reference_t<decltype(m_.s_axis_tkeep)>>(low_lanes(bytes));
    m_.s_axis_tcount = static_cast<std::remove_reference_t<decltype(m_.s_axis_tcount)>>(bytes);
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

}  // namespace

TEST_CASE("frame_pad byte counts: every beat count pair (DataWidth 64)") {
  PadBench<Vframe_pad_w64, 8> b;
  for (unsigned n = 0; n <= 8; ++n) {
    for (unsigned k = 0; k <= 8; ++k) {
      b.frame(n, k, true);
      b.frame(n, k, false);
    }
  }
}

TEST_CASE("frame_pad byte counts: every first beat, corner and random tlast beats (DataWidth 512)") {
  PadBench<Vframe_pad_w512, 64> b;
  std::mt19937_64 rng(16);
  for (unsigned n = 0; n <= 64; ++n) {
    for (unsigned k : {0U, 1U, 63U - std::min(n, 63U), 64U - n, std::min(64U - n + 1, 64U), 64U,
                       std::uniform_int_distribution<unsigned>(0, 64)(rng)}) {
      b.frame(n, k, true);
      b.frame(n, k, false);
    }
  }
}
