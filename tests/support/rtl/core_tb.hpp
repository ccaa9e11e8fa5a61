// Test-bench support for the scheduler core benches (rtl.queues/arbiter/shaper/crypto/
// telemetry/top): a Testbench owning one Verilated model and its context, FST on failure,
// and bit access to the flattened vector ports of any width.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "nicsched/sim/bfm/testbench.hpp"

namespace nicsched::coretest {

/// A check in a bench failed; the message says what, where and when.
class CheckFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check(bool ok, const std::string& what) {
  if (!ok) throw CheckFailure(what);
}

// The Verilated test bench, waveform-on-failure runner and port bit access are shared
// with the ingress benches (nicsched/sim/bfm/testbench.hpp).
using sim::bfm::get_bits;
using sim::bfm::put;
using sim::bfm::run_traced;
using sim::bfm::set_bits;
using sim::bfm::Testbench;
using sim::bfm::trace_path_for;

/// Deterministic bytes for frame `id` (position-dependent), so corruption is visible.
inline std::vector<std::uint8_t> frame_bytes(std::uint64_t id, unsigned len) {
  std::vector<std::uint8_t> b(len);
  std::uint64_t x = id * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;
  for (unsigned i = 0; i < len; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b[i] = static_cast<std::uint8_t>(x);
  }
  return b;
}

}  // namespace nicsched::coretest
