// Shared pieces of the CDC testbenches: the failure type and a jittered clock.
#pragma once

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace cdc_tb {

class CheckFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One clock with a nominal period and a random jitter of up to +-3% on each half period,
// starting at a random phase: two of them have no fixed phase relation.
class Clock {
 public:
  Clock(uint64_t period_ps, std::mt19937& rng) : half_(period_ps / 2), rng_(rng) {
    std::uniform_int_distribution<uint64_t> phase(0, period_ps);
    next_ = phase(rng_);
  }
  uint64_t next_edge() const { return next_; }
  bool level() const { return level_; }
  // Advances to the next edge; returns true when it is a rising edge.
  bool toggle() {
    level_ = !level_;
    const auto spread = static_cast<int64_t>(half_ * 3 / 100);
    std::uniform_int_distribution<int64_t> jitter(-spread, spread);
    next_ += static_cast<uint64_t>(static_cast<int64_t>(half_) + jitter(rng_));
    return level_;
  }

 private:
  uint64_t half_;
  std::mt19937& rng_;
  uint64_t next_ = 0;
  bool level_ = false;
};

// The MAC-side CDC benches (mac_cdc.cpp).
std::vector<std::string> mac_scenarios();
// Runs one; false when the name is not a MAC scenario. Throws CheckFailure on a failure.
bool run_mac_scenario(const std::string& name, bool trace);

}  // namespace cdc_tb
