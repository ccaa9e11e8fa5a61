// Benches of the board's MAC clock-domain crossings (rtl/boards/), built small: 64-bit
// beats, frames of at most 8 beats (MaxFrameBytes = 64), core clock 250 MHz, MAC clock
// 322.27 MHz, both jittered.
//
// nicsched_mac_tx_cdc (core -> MAC), with random stalls inside frames on the core side
// and random MAC backpressure: every frame arrives whole and in order; a frame longer
// than 8 beats arrives cut to 8 with tuser = 1 on its last beat (truncated_o pulses once
// per such frame); and once a frame has started, m_axis_tvalid never drops before its
// last beat (the CMAC would see an underflow).
// nicsched_mac_rx_cdc (MAC -> core, no backpressure on the MAC side): the frames the
// core receives are the MAC's frames, in order, each whole or cut to 8 beats, never a
// part otherwise; every frame not received was dropped and counted on dropped_o; at a
// load the core can drain, none is dropped.
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

// Verilated models: their headers are SYSTEM includes (tests/rtl_cdc/CMakeLists.txt).
#include "Vcdc_mac_rx.h"
#include "Vcdc_mac_tx.h"

#include "cdc_common.hpp"

namespace cdc_tb {
namespace {

constexpr int kMaxBeats = 8;        // MaxFrameBytes 64 / 8 bytes per beat
constexpr uint64_t kCorePs = 4000;  // 250 MHz
constexpr uint64_t kMacPs = 3103;   // 322.265625 MHz

struct Beat {
  uint64_t data;
  uint8_t keep;
  bool last;
  bool user;  // TX only: the frame was cut here
  bool operator==(const Beat& o) const {
    return data == o.data && keep == o.keep && last == o.last && user == o.user;
  }
};
using Frame = std::vector<Beat>;

// Frames of 1..kMaxBeats+3 beats; the last beat keeps 1..8 bytes from byte 0.
std::vector<Frame> make_frames(int count, std::mt19937& rng) {
  std::uniform_int_distribution<int> len(1, kMaxBeats + 3);
  std::uniform_int_distribution<int> bytes(1, 8);
  std::vector<Frame> frames;
  for (int f = 0; f < count; ++f) {
    Frame fr;
    const int n = len(rng);
    for (int b = 0; b < n; ++b) {
      const bool last = b == n - 1;
      const auto keep = static_cast<uint8_t>(last ? (1u << bytes(rng)) - 1u : 0xFFu);
      const uint64_t data = (static_cast<uint64_t>(f) << 32) ^ (static_cast<uint64_t>(b) * uint64_t{0x9E3779B97F4A7C15});
      fr.push_back({data, keep, last, false});
    }
    frames.push_back(fr);
  }
  return frames;
}

// What the far side must see of a frame: itself, or its first kMaxBeats beats with the
// last of them marked (tlast, and tuser where the interface has it).
Frame expected_of(const Frame& in, bool mark_user) {
  if (static_cast<int>(in.size()) <= kMaxBeats) {
    return in;
  }
  Frame out(in.begin(), in.begin() + kMaxBeats);
  out.back().last = true;
  out.back().user = mark_user;
  return out;
}

std::string describe(const Frame& f) {
  std::string s = std::to_string(f.size()) + " beats, first 0x";
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(f.empty() ? 0 : f.front().data));
  return s + buf;
}

// Two jittered clocks and a model; Src is the writing side.
// Both CDCs: a core and a MAC clock domain, each with its reset; Scenario names the run,
// seeds it and sets its load.
template <class Model, class Scenario>
class MacBench : public Bench<Model> {
 public:
  MacBench(const Scenario& s, bool trace) : Bench<Model>(s.name, "dut", s.seed, trace), s_(s) {}

 protected:
  // Both domains in reset for four clocks of both, then out of it.
  void reset() {
    auto& m = *this->m_;
    m.core_rst_ni = 0;
    m.mac_rst_ni = 0;
    for (int i = 0; i < 4; ++i) {
      m.core_clk_i = m.mac_clk_i = 1;
      this->eval();
      m.core_clk_i = m.mac_clk_i = 0;
      this->eval();
    }
    m.core_rst_ni = 1;
    m.mac_rst_ni = 1;
    this->eval();
  }

  // At a rising edge of the writing side: moves (frame, beat) past the beat s_axis just
  // handed over (`taken`), lets the model see the edge, then offers the next beat with
  // probability `p` (nothing once every frame is out).
  void source_edge(const std::vector<Frame>& frames, size_t& frame, size_t& beat, bool taken, double p) {
    if (taken && ++beat == frames[frame].size()) {
      ++frame;
      beat = 0;
    }
    this->eval();
    auto& m = *this->m_;
    const bool on = frame < frames.size() && this->chance(p);
    m.s_axis_tvalid = on;
    if (on) {
      const Beat& b = frames[frame][beat];
      m.s_axis_tdata = b.data;
      m.s_axis_tkeep = b.keep;
      m.s_axis_tlast = b.last;
    }
  }

  const Scenario& s_;
};

// ------------------------------------------------------------------------------ TX
struct TxScenario {
  std::string name;
  double core_valid;  // probability the core offers a beat in a cycle (stalls inside frames)
  double mac_ready;   // probability the MAC takes a beat in a cycle
  int frames;
  uint32_t seed;
};

class TxBench : public MacBench<Vcdc_mac_tx, TxScenario> {
 public:
  using MacBench::MacBench;

  void run() {
    const auto frames = make_frames(s_.frames, rng_);
    std::deque<Frame> expect;
    int long_frames = 0;
    for (const auto& f : frames) {
      expect.push_back(expected_of(f, true));
      long_frames += static_cast<int>(f.size()) > kMaxBeats;
    }
    reset();
    Clock core(kCorePs, rng_);
    Clock mac(kMacPs, rng_);
    size_t frame = 0, beat = 0;
    Frame current;
    bool in_frame = false;
    int truncations = 0;
    uint64_t idle_mac_edges = 0;
    while (!expect.empty()) {
      const auto [core_first, rising] = next_edge(core, mac);
      if (core_first) {
        m_->core_clk_i = rising;
        if (rising) {
          truncations += m_->truncated_o;
          source_edge(frames, frame, beat, m_->s_axis_tvalid && m_->s_axis_tready, s_.core_valid);
        }
      } else {
        m_->mac_clk_i = rising;
        if (rising) {
          if (in_frame && !m_->m_axis_tvalid) {
            fail("m_axis_tvalid dropped inside a frame (CMAC underflow) after " +
                 std::to_string(current.size()) + " beats");
          }
          if (m_->m_axis_tvalid && m_->m_axis_tready) {
            idle_mac_edges = 0;
            current.push_back({m_->m_axis_tdata, m_->m_axis_tkeep, m_->m_axis_tlast != 0,
                               m_->m_axis_tuser != 0});
            in_frame = !m_->m_axis_tlast;
            if (m_->m_axis_tlast) {
              if (!(current == expect.front())) {
                fail("frame " + std::to_string(s_.frames - static_cast<int>(expect.size())) +
                     ": got " + describe(current) + ", expected " + describe(expect.front()));
              }
              expect.pop_front();
              current.clear();
            }
          } else if (++idle_mac_edges > 10000) {
            fail(std::to_string(expect.size()) + " frame(s) never reached the MAC side");
          }
          eval();
          m_->m_axis_tready = chance(s_.mac_ready);
        }
      }
      eval();
    }
    if (truncations != long_frames) {
      fail("truncated_o pulsed " + std::to_string(truncations) + " times for " +
           std::to_string(long_frames) + " long frames");
    }
    std::printf("%s: %d frames (%d cut) passed whole and in order, no underflow\n", name_.c_str(),
                s_.frames, long_frames);
  }
};

// ------------------------------------------------------------------------------ RX
struct RxScenario {
  std::string name;
  double mac_valid;   // probability the MAC presents a beat in a cycle
  double core_ready;  // probability the core takes a beat when in a "ready" phase
  bool core_bursty;   // core alternates long ready / not-ready phases
  bool expect_drops;  // true: the load must cause drops; false: it must cause none
  int frames;
  uint32_t seed;
};

class RxBench : public MacBench<Vcdc_mac_rx, RxScenario> {
 public:
  using MacBench::MacBench;

  void run() {
    const auto frames = make_frames(s_.frames, rng_);
    m_->s_axis_tvalid = 0;  // nothing offered, nothing taken, through the reset
    m_->m_axis_tready = 0;
    reset();
    Clock core(kCorePs, rng_);
    Clock mac(kMacPs, rng_);
    size_t frame = 0, beat = 0;     // MAC-side position
    size_t matched = 0;             // input frames accounted for (delivered or dropped)
    int dropped_pulses = 0, truncated_pulses = 0, skipped = 0, delivered = 0, delivered_cut = 0;
    Frame current;
    int phase_left = 0;
    bool phase_on = true;
    uint64_t quiet_core_edges = 0;
    while (true) {
      const auto [mac_first, rising] = next_edge(mac, core);
      if (mac_first) {
        m_->mac_clk_i = rising;
        if (rising) {
          dropped_pulses += m_->dropped_o;
          truncated_pulses += m_->truncated_o;
          source_edge(frames, frame, beat, m_->s_axis_tvalid != 0, s_.mac_valid);
        }
      } else {
        m_->core_clk_i = rising;
        if (rising) {
          if (m_->m_axis_tvalid && m_->m_axis_tready) {
            quiet_core_edges = 0;
            current.push_back({m_->m_axis_tdata, m_->m_axis_tkeep, m_->m_axis_tlast != 0, false});
            if (m_->m_axis_tlast) {
              // The frame must be the next input frame not yet accounted for, or a later
              // one when those between were dropped.
              size_t i = matched;
              while (i < frames.size() && !(expected_of(frames[i], false) == current)) {
                ++i;
              }
              if (i >= frame + (beat > 0 ? 1 : 0) || i >= frames.size()) {
                fail("received a frame that is no whole (or cut) MAC frame in order: " + describe(current));
              }
              skipped += static_cast<int>(i - matched);
              matched = i + 1;
              ++delivered;
              delivered_cut += static_cast<int>(frames[i].size()) > kMaxBeats;
              current.clear();
            }
          } else {
            ++quiet_core_edges;
          }
          eval();
          if (s_.core_bursty) {
            if (phase_left-- <= 0) {
              phase_on = !phase_on;
              phase_left = std::uniform_int_distribution<int>(1, phase_on ? 20 : 60)(rng_);
            }
            m_->m_axis_tready = phase_on && chance(s_.core_ready);
          } else {
            m_->m_axis_tready = chance(s_.core_ready);
          }
        }
      }
      eval();
      if (frame >= frames.size() && quiet_core_edges > 500) {
        break;
      }
    }
    if (!current.empty()) {
      fail("a partial frame of " + std::to_string(current.size()) + " beats is stuck at the core side");
    }
    skipped += static_cast<int>(frames.size() - matched);
    if (skipped != dropped_pulses) {
      fail(std::to_string(skipped) + " frames never arrived but dropped_o pulsed " +
           std::to_string(dropped_pulses) + " times");
    }
    if (truncated_pulses != delivered_cut) {
      fail("truncated_o pulsed " + std::to_string(truncated_pulses) + " times for " +
           std::to_string(delivered_cut) + " cut frames delivered");
    }
    if (s_.expect_drops && (skipped == 0 || delivered == 0)) {
      fail("the congested load should drop some frames and deliver others (dropped " +
           std::to_string(skipped) + ", delivered " + std::to_string(delivered) + ")");
    }
    if (!s_.expect_drops && skipped != 0) {
      fail(std::to_string(skipped) + " frames dropped at a load the core drains");
    }
    std::printf("%s: %d frames delivered (%d cut), %d dropped and counted\n", name_.c_str(), delivered,
                delivered_cut, skipped);
  }
};

const std::vector<TxScenario>& tx_scenarios() {
  static const std::vector<TxScenario> list = {
      {"mac_tx.core_stalls", 0.5, 0.9, 3000, 41},
      {"mac_tx.mac_backpressure", 0.9, 0.4, 3000, 42},
  };
  return list;
}

const std::vector<RxScenario>& rx_scenarios() {
  static const std::vector<RxScenario> list = {
      // 100G carries at most ~195M beats/s of 64 B; the core drains 250M.
      {"mac_rx.line_rate", 0.6, 1.0, false, false, 3000, 51},
      {"mac_rx.congested", 0.9, 0.8, true, true, 3000, 52},
  };
  return list;
}

// Runs the scenario `name` of `list` on a bench B; false when `list` has none of that name.
template <class B, class Scenario>
bool run_named(const std::vector<Scenario>& list, const std::string& name, bool trace) {
  for (const auto& s : list) {
    if (s.name == name) {
      B b(s, trace);
      b.run();
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> mac_scenarios() {
  std::vector<std::string> names;
  for (const auto& s : tx_scenarios()) names.push_back(s.name);
  for (const auto& s : rx_scenarios()) names.push_back(s.name);
  return names;
}

bool run_mac_scenario(const std::string& name, bool trace) {
  return run_named<TxBench>(tx_scenarios(), name, trace) || run_named<RxBench>(rx_scenarios(), name, trace);
}

}  // namespace cdc_tb
