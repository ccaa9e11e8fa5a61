// A constrained-random regression scenario: the configuration, the frames offered on
// both inputs, the MAC/host backpressure and the mid-run commits, all drawn from one
// seed (the same seed always gives the same scenario).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nicsched/refmodel/types.hpp"

namespace nicsched::verif {

// A frame to offer on an input once the bench reaches `ready_cycle`.
struct Offer {
  refmodel::Direction dir = refmodel::Direction::kTx;
  std::uint64_t ready_cycle = 0;
  std::vector<std::uint8_t> bytes;
  std::string kind;  // "ok", "runt", "bad-ihl", "truncated", "unknown-etype" (for messages)
  std::uint32_t source = 0;  // TX: s_axis_tx_tuser (the host queue it was posted on)
};

// A configuration committed once the bench reaches `cycle` (0: before traffic).
struct Commit {
  std::uint64_t cycle = 0;
  refmodel::Config cfg;
  std::string why;
};

// A window in which tready of an output is held low (MAC pause / host stall).
struct Pause {
  refmodel::Direction dir = refmodel::Direction::kTx;
  std::uint64_t begin = 0, end = 0;  // [begin, end)
};

struct Scenario {
  std::uint64_t seed = 0;
  std::string summary;                    // one line: what this seed exercises
  refmodel::Params params;
  std::vector<Commit> commits;            // commits[0] at cycle 0: the initial policy
  nic::TxIdentityConfig tx_identity;      // written with the initial policy (docs/trust.md)
  std::vector<Offer> offers;              // sorted by ready_cycle per direction
  std::vector<Pause> pauses;
  double tx_backpressure = 0.0;           // probability tready low on a cycle (random)
  double rx_backpressure = 0.0;
  bool bursty_backpressure = false;
  double input_idle = 0.0;                // probability a source idles between beats
  double axil_valid_idle = 0.0;           // AXI4-Lite master: probability VALID is held back
  double axil_ready_stall = 0.0;          // ... and BREADY/RREADY low, per cycle
  std::uint64_t traffic_cycles = 0;       // offers lie in [0, traffic_cycles)
};

struct ScenarioLimits {
  std::uint64_t min_cycles = 20000;
  std::uint64_t max_cycles = 60000;
};

// Draws the scenario of `seed` for an instance with parameters `p` and `sources` TX
// sources with a binding (NumSources).
Scenario make_scenario(std::uint64_t seed, const refmodel::Params& p, std::uint32_t sources, const ScenarioLimits& lim);

}  // namespace nicsched::verif
