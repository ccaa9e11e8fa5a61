// Shared pieces of the CDC testbenches: the failure type, a jittered clock and the bench
// around one Verilated model.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

// Verilator's runtime: SYSTEM includes (tests/rtl_cdc/CMakeLists.txt).
#include "verilated.h"
#include "verilated_fst_c.h"

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

// One Verilated model (instance `scope`) with an FST trace (<name>.fst) when asked for,
// the bench's random source and its time in picoseconds (two unrelated clocks: the
// benches step time edge by edge).
template <class Model>
class Bench {
 public:
  Bench(const std::string& name, const char* scope, uint32_t seed, bool trace) : name_(name), rng_(seed) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->traceEverOn(trace);
    m_ = std::make_unique<Model>(ctx_.get(), scope);
    if (trace) {
      fst_ = std::make_unique<VerilatedFstC>();
      m_->trace(fst_.get(), 99);
      fst_->open((name + ".fst").c_str());
    }
  }
  ~Bench() {
    if (fst_) {
      fst_->close();
    }
    m_->final();
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

 protected:
  void eval() {
    m_->eval();
    if (fst_) {
      // Edges of both clocks may fall on the same picosecond; FST needs rising times.
      trace_ps_ = std::max(now_ps_, trace_ps_ + 1);
      fst_->dump(trace_ps_);
    }
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw CheckFailure(name_ + " at t=" + std::to_string(now_ps_) + " ps: " + what);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  // Moves time to the next edge of `a` or `b`, whichever comes first (`a` on a tie).
  struct Edge {
    bool of_a;   // the edge is a's
    bool rising;
  };
  Edge next_edge(Clock& a, Clock& b) {
    const bool of_a = a.next_edge() <= b.next_edge();
    Clock& clk = of_a ? a : b;
    now_ps_ = clk.next_edge();
    return {of_a, clk.toggle()};
  }

  std::string name_;
  std::mt19937 rng_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> m_;
  std::unique_ptr<VerilatedFstC> fst_;
  uint64_t now_ps_ = 0;
  uint64_t trace_ps_ = 0;
};

// The MAC-side CDC benches (mac_cdc.cpp).
std::vector<std::string> mac_scenarios();
// Runs one; false when the name is not a MAC scenario. Throws CheckFailure on a failure.
bool run_mac_scenario(const std::string& name, bool trace);

}  // namespace cdc_tb
