// Verilator testbench of the clock-domain-crossing blocks.
//
// nicsched_async_fifo runs with two unrelated clocks (different periods, each edge
// jittered at random so their phase relation wanders) under random and bursty
// valid/ready stalls. A C++ model (a queue of the words accepted by the write
// handshake) checks, at every clock edge:
//   - every word read is the oldest word written and not yet read (in order, none
//     lost, none duplicated, none invented);
//   - the writer is never offered space when the FIFO holds Depth words (no overflow),
//     the reader never sees valid data when it holds none (no underflow);
//   - wr_count_o never under-states and rd_count_o never over-states the true fill,
//     and rd_valid_o == (rd_count_o != 0);
//   - after the writer stops, every word arrives and the writer sees the FIFO empty.
// Each scenario must also reach both "full" and "empty", so none passes vacuously.
// nicsched_sync is checked as a reset bridge: asynchronous assertion, deassertion
// after exactly Stages clock edges.
//
// On a failure the scenario is run again with FST tracing into <scenario>.fst.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// Verilated models: their headers are SYSTEM includes (tests/rtl_cdc/CMakeLists.txt).
#include "Vcdc_fifo_d16.h"
#include "Vcdc_fifo_d2.h"
#include "Vcdc_fifo_d4.h"
#include "Vcdc_sync.h"

#include "cdc_common.hpp"

namespace {

using cdc_tb::CheckFailure;
using cdc_tb::Clock;

// How one side of the FIFO offers or accepts words.
enum class Stalls {
  kRandom,  // valid/ready each cycle with probability 1/2
  kBursty,  // alternating on/off phases of 1..4*Depth cycles (fills and drains the FIFO)
};

struct Scenario {
  std::string name;       // CTest name suffix
  int depth;              // which model: 2, 4 or 16
  uint64_t wr_period_ps;  // nominal write clock period
  uint64_t rd_period_ps;  // nominal read clock period
  Stalls stalls;          // stall pattern on both sides
  uint64_t words;         // words written
  uint32_t seed;          // random seed
};

// 322.265625 MHz (CMAC user clock) and 250 MHz (core clock), in picoseconds.
constexpr uint64_t kCmacPs = 3103;
constexpr uint64_t kCorePs = 4000;

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> list = {
      {"d2.write_fast", 2, 3000, 7300, Stalls::kBursty, 20000, 11},
      {"d2.read_fast", 2, 7300, 3000, Stalls::kBursty, 20000, 12},
      {"d4.cmac_to_core", 4, kCmacPs, kCorePs, Stalls::kBursty, 20000, 21},
      {"d4.core_to_cmac", 4, kCorePs, kCmacPs, Stalls::kBursty, 20000, 22},
      {"d4.near_equal", 4, 4000, 4001, Stalls::kBursty, 20000, 23},
      {"d16.cmac_to_core", 16, kCmacPs, kCorePs, Stalls::kBursty, 40000, 31},
      {"d16.core_to_cmac", 16, kCorePs, kCmacPs, Stalls::kBursty, 40000, 32},
      {"d16.write_fast", 16, 2500, 9100, Stalls::kBursty, 40000, 33},
      {"d16.read_fast", 16, 9100, 2500, Stalls::kBursty, 40000, 34},
      {"d16.near_equal", 16, 4000, 3999, Stalls::kBursty, 40000, 35},
      {"d16.random_stalls", 16, 3571, 4447, Stalls::kRandom, 40000, 36},
  };
  return list;
}

// Drives valid (writer) or ready (reader) for one side according to a stall pattern.
class StallPattern {
 public:
  StallPattern(Stalls kind, int depth, std::mt19937& rng) : kind_(kind), depth_(depth), rng_(rng) {}

  bool next() {
    if (kind_ == Stalls::kRandom) {
      return coin_(rng_);
    }
    if (phase_left_ == 0) {
      on_ = !on_;
      std::uniform_int_distribution<int> len(1, 4 * depth_);
      phase_left_ = len(rng_);
    }
    --phase_left_;
    return on_ && (rng_() % 10 != 0);
  }

 private:
  Stalls kind_;
  int depth_;
  std::mt19937& rng_;
  std::bernoulli_distribution coin_{0.5};
  bool on_ = false;
  int phase_left_ = 0;
};

template <class Model>
class FifoBench : public cdc_tb::Bench<Model> {
  using Base = cdc_tb::Bench<Model>;
  using Base::eval;
  using Base::fail;
  using Base::m_;
  using Base::now_ps_;
  using Base::rng_;

 public:
  FifoBench(const Scenario& s, bool trace) : Base(s.name, "fifo", s.seed, trace), s_(s) {
    // The models' Width parameters (8, 16, 64) equal their C++ port types' widths.
    width_mask_ = bits_of(m_->wr_data_i) >= 64 ? ~uint64_t{0}
                                                   : (uint64_t{1} << bits_of(m_->wr_data_i)) - 1;
  }
  void run() {
    Clock wclk(s_.wr_period_ps, rng_);
    Clock rclk(s_.rd_period_ps, rng_);
    StallPattern wstall(s_.stalls, s_.depth, rng_);
    StallPattern rstall(s_.stalls, s_.depth, rng_);

    reset();
    bool draining = false;
    uint64_t drain_rd_edges = 0;
    const uint64_t drain_limit = 64 + 8 * static_cast<uint64_t>(s_.depth);
    uint64_t wr_edges_after_drain = 0;

    while (true) {
      const auto [wr_first, rising] = this->next_edge(wclk, rclk);
      if (wr_first) {
        if (rising) {
          on_write_edge();
          m_->wr_clk_i = 1;
          eval();
          const bool offer = pushed_ < s_.words && wstall.next();
          if (offer) {
            m_->wr_data_i = static_cast<std::remove_reference_t<decltype(m_->wr_data_i)>>(word(pushed_));
          }
          m_->wr_valid_i = offer;
          if (draining) {
            ++wr_edges_after_drain;
          }
        } else {
          m_->wr_clk_i = 0;
        }
      } else {
        if (rising) {
          on_read_edge();
          m_->rd_clk_i = 1;
          eval();
          m_->rd_ready_i = draining ? 1 : rstall.next();
          if (draining) {
            ++drain_rd_edges;
          }
        } else {
          m_->rd_clk_i = 0;
        }
      }
      eval();
      if (!draining && pushed_ >= s_.words) {
        draining = true;
      }
      if (draining && popped_ == s_.words && wr_edges_after_drain > drain_limit) {
        break;
      }
      if (draining && drain_rd_edges > drain_limit && popped_ != s_.words) {
        fail("after the writer stopped, " + std::to_string(s_.words - popped_) +
             " word(s) never arrived (lost)");
      }
    }
    // The writer must see the space again once the reader has drained everything.
    if (m_->wr_count_o != 0 || m_->wr_ready_o != 1) {
      fail("FIFO drained but writer sees wr_count_o=" + std::to_string(m_->wr_count_o) +
           " wr_ready_o=" + std::to_string(m_->wr_ready_o));
    }
    if (full_seen_ == 0) {
      fail("scenario never filled the FIFO: the full path was not exercised");
    }
    if (empty_seen_ == 0) {
      fail("scenario never emptied the FIFO while the reader waited: the empty path was not exercised");
    }
    std::printf("%s: %llu words, full seen %llu times, empty seen %llu times\n", s_.name.c_str(),
                static_cast<unsigned long long>(popped_), static_cast<unsigned long long>(full_seen_),
                static_cast<unsigned long long>(empty_seen_));
  }

 private:
  template <class T>
  static constexpr int bits_of(const T&) {
    return static_cast<int>(sizeof(T) * 8);
  }

  // Data of the n-th word: consecutive words always differ, across the full width.
  uint64_t word(uint64_t n) const {
    return (n * 0x9E3779B97F4A7C15ull ^ (n << 1) ^ s_.seed) & width_mask_;
  }

  void reset() {
    m_->wr_rst_ni = 0;
    m_->rd_rst_ni = 0;
    m_->wr_valid_i = 0;
    m_->rd_ready_i = 0;
    m_->wr_clk_i = 0;
    m_->rd_clk_i = 0;
    eval();
    for (int i = 0; i < 4; ++i) {
      m_->wr_clk_i = 1;
      m_->rd_clk_i = 1;
      eval();
      m_->wr_clk_i = 0;
      m_->rd_clk_i = 0;
      eval();
    }
    if (m_->rd_valid_o != 0 || m_->wr_ready_o != 1 || m_->wr_count_o != 0 ||
        m_->rd_count_o != 0) {
      fail("after reset the FIFO is not empty");
    }
    m_->wr_rst_ni = 1;
    m_->rd_rst_ni = 1;
    eval();
  }

  // Called just before a rising write edge: the handshake values are the settled ones.
  void on_write_edge() {
    const uint64_t fill = pushed_ - popped_;
    if (m_->wr_count_o < fill) {
      fail("wr_count_o=" + std::to_string(m_->wr_count_o) + " under-states the fill " +
           std::to_string(fill));
    }
    if (m_->wr_count_o > static_cast<uint64_t>(s_.depth)) {
      fail("wr_count_o=" + std::to_string(m_->wr_count_o) + " exceeds the depth");
    }
    if (fill == static_cast<uint64_t>(s_.depth)) {
      ++full_seen_;
      if (m_->wr_ready_o) {
        fail("wr_ready_o high while the FIFO holds Depth words (overflow)");
      }
    }
    if (m_->wr_valid_i && m_->wr_ready_o) {
      expected_.push_back(static_cast<uint64_t>(m_->wr_data_i));
      ++pushed_;
    }
  }

  // Called just before a rising read edge.
  void on_read_edge() {
    const uint64_t fill = pushed_ - popped_;
    if (m_->rd_count_o > fill) {
      fail("rd_count_o=" + std::to_string(m_->rd_count_o) + " over-states the fill " +
           std::to_string(fill));
    }
    if ((m_->rd_count_o != 0) != (m_->rd_valid_o != 0)) {
      fail("rd_valid_o disagrees with rd_count_o");
    }
    if (!m_->rd_valid_o) {
      if (m_->rd_ready_i && fill == 0) {
        ++empty_seen_;
      }
      return;
    }
    if (expected_.empty()) {
      fail("rd_valid_o high with no word written (underflow or duplicate)");
    }
    const auto got = static_cast<uint64_t>(m_->rd_data_o);
    if (got != expected_.front()) {
      fail("word " + std::to_string(popped_) + ": read 0x" + hex(got) + ", expected 0x" +
           hex(expected_.front()) + " (out of order, lost or duplicated)");
    }
    if (m_->rd_ready_i) {
      expected_.pop_front();
      ++popped_;
    }
  }

  static std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
  }

  const Scenario& s_;
  uint64_t width_mask_ = 0;
  std::deque<uint64_t> expected_;
  uint64_t pushed_ = 0;
  uint64_t popped_ = 0;
  uint64_t full_seen_ = 0;
  uint64_t empty_seen_ = 0;
};

// nicsched_sync as a reset bridge: d_i = 1, rst_ni = the asynchronous reset.
void run_reset_sync(bool trace) {
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->traceEverOn(trace);
  auto m = std::make_unique<Vcdc_sync>(ctx.get(), "sync");
  std::unique_ptr<VerilatedFstC> fst;
  uint64_t t = 0;
  if (trace) {
    fst = std::make_unique<VerilatedFstC>();
    m->trace(fst.get(), 99);
    fst->open("reset_sync.fst");
  }
  auto eval = [&] {
    m->eval();
    if (fst) {
      fst->dump(t++);
    }
  };
  auto edge = [&] {
    m->clk_i = 1;
    eval();
    m->clk_i = 0;
    eval();
  };
  auto expect = [&](int v, const char* when) {
    if (m->q_o != v) {
      throw CheckFailure(std::string("reset_sync: q_o=") + std::to_string(m->q_o) + " " + when);
    }
  };
  m->d_i = 1;
  m->clk_i = 0;
  m->rst_ni = 0;
  eval();
  expect(0, "while rst_ni is low");
  edge();
  expect(0, "after a clock edge with rst_ni low");
  for (int round = 0; round < 3; ++round) {
    m->rst_ni = 1;
    eval();
    expect(0, "right after rst_ni rose (deassertion must wait for the clock)");
    edge();
    expect(0, "one edge after rst_ni rose (needs two)");
    edge();
    expect(1, "two edges after rst_ni rose");
    edge();
    expect(1, "with rst_ni high");
    m->rst_ni = 0;  // assertion without a clock edge
    eval();
    expect(0, "right after rst_ni fell (assertion must be asynchronous)");
  }
  if (fst) {
    fst->close();
  }
  m->final();
}

void run_scenario(const std::string& name, bool trace) {
  if (name == "reset_sync") {
    run_reset_sync(trace);
    return;
  }
  if (cdc_tb::run_mac_scenario(name, trace)) {
    return;
  }
  const auto& list = scenarios();
  const auto it = std::find_if(list.begin(), list.end(), [&](const Scenario& s) { return s.name == name; });
  if (it == list.end()) {
    throw std::invalid_argument("unknown scenario '" + name + "' (try --list)");
  }
  switch (it->depth) {
    case 2: {
      FifoBench<Vcdc_fifo_d2> b(*it, trace);
      b.run();
      break;
    }
    case 4: {
      FifoBench<Vcdc_fifo_d4> b(*it, trace);
      b.run();
      break;
    }
    default: {
      FifoBench<Vcdc_fifo_d16> b(*it, trace);
      b.run();
      break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fprintf(stderr, "usage: tb_rtl_cdc SCENARIO | reset_sync | --list | --check-list NAMES...\n");
    return 2;
  }
  if (args[0] == "--list") {
    for (const auto& s : scenarios()) {
      std::printf("%s\n", s.name.c_str());
    }
    for (const auto& n : cdc_tb::mac_scenarios()) {
      std::printf("%s\n", n.c_str());
    }
    return 0;
  }
  if (args[0] == "--check-list") {
    std::vector<std::string> all = cdc_tb::mac_scenarios();
    for (const auto& s : scenarios()) {
      all.push_back(s.name);
    }
    int missing = 0;
    for (const auto& name : all) {
      if (std::find(args.begin() + 1, args.end(), name) == args.end()) {
        std::fprintf(stderr, "scenario %s is not registered as a CTest (tests/rtl_cdc/CMakeLists.txt)\n",
                     name.c_str());
        ++missing;
      }
    }
    return missing == 0 ? 0 : 1;
  }
  try {
    run_scenario(args[0], false);
  } catch (const CheckFailure& e) {
    std::fprintf(stderr, "FAIL %s\n", e.what());
    try {
      run_scenario(args[0], true);
    } catch (const CheckFailure&) {
      std::fprintf(stderr, "waveform: %s.fst\n", args[0].c_str());
    }
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
