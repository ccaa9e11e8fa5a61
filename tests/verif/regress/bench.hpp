// Bench: runs one Scenario on the Verilated nicsched_top and on the reference model in
// lock step, and records what both did. It drives the AXI4-Stream inputs and outputs
// through the sim BFMs (sim/include/nicsched/sim/bfm/axis.hpp) and the registers through
// an AXI4-Lite master; the model sees the same arrivals (the cycle of each frame's tlast
// handshake), the same output tready on every cycle and the same commits.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nicsched/refmodel/model.hpp"
#include "scenario.hpp"

namespace nicsched::verif {

// A frame that left the RTL.
struct RtlFrame {
  refmodel::Direction dir = refmodel::Direction::kTx;
  std::vector<std::uint8_t> bytes;
  std::uint32_t tenant = 0, cls = 0, op = 0;  // tuser (egress_user_t) on the tlast beat
  std::uint64_t first_cycle = 0;              // first beat handshake (scenario cycles)
  std::uint64_t last_cycle = 0;
  std::uint64_t first_beat_index = 0;         // beats of this output before this frame
};

struct RunResult {
  std::vector<std::uint64_t> arrival;          // per offer: cycle of its tlast handshake
  std::vector<refmodel::FrameRecord> model;    // per offer (index = model id = offer index)
  std::vector<RtlFrame> rtl;                   // in order of their last beat, both outputs
  std::vector<std::uint64_t> beat_cycles[2];   // handshake cycle of every output beat
  std::vector<std::uint64_t> commit_cycle;     // per scenario commit: cycle of COMMIT.GO
  refmodel::Telemetry rtl_counters;             // SNAPSHOT after the drain
  refmodel::Telemetry model_counters;
  std::vector<std::uint64_t> rtl_spoofed;      // SRC_SPOOF per source, SNAPSHOT after the drain
  std::vector<std::uint64_t> model_spoofed;    // the model's spoofed(source), same sources
  std::uint64_t end_cycle = 0;
  bool drained = false;                        // the model went idle and the outputs quiet
};

class BenchImpl;

class Bench {
 public:
  // trace_path empty: no waveform. coverage_path: where a --coverage build writes the
  // run's coverage counts (empty: nowhere).
  Bench(const Scenario& sc, const std::string& trace_path, const std::string& coverage_path);
  ~Bench();
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;
  RunResult run();

 private:
  std::unique_ptr<BenchImpl> impl_;
};

// Whether this binary was built with Verilator --coverage.
bool coverage_build();

// NumTenants, CryptoSlots, DataWidth/8, BufferBytes of the Verilated top in this binary.
refmodel::Params bench_params();

// NumSources of the Verilated top in this binary.
std::uint32_t bench_sources();

}  // namespace nicsched::verif
