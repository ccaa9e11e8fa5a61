// What "the RTL matches the reference model" means (docs/verification.md has the why):
//   exact      every output frame is an input frame, byte for byte, with the tuser the
//              model gives it, at most once; parser decisions; every admission decision
//              that does not depend on timing (see `ambiguous` below); per-queue order of
//              plain frames; crypto frames only overtake longer ones; after the drain:
//              counters against the frames the RTL delivered (and against the model when
//              no decision was ambiguous), depths and slots back to zero
//   bounded    Q_LAT_* against the latencies seen at the ports (a few cycles apart); in
//              FIFO scenarios, departures shifted from the model's by a constant within
//              a documented jitter
//   invariants strict priority: no frame starts while a plain frame of a higher level
//              (or the same tenant's control queue) has been eligible for longer than
//              the egress pipeline; FIFO scenarios: departures in arrival order
// An admission (queue limit, shared buffer) is ambiguous when the model's margin is
// within the timing slack of the scenario, or an earlier ambiguous decision of the same
// queue went the other way in the RTL; either outcome is accepted then.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench.hpp"
#include "scenario.hpp"

namespace nicsched::verif {

struct CheckReport {
  std::vector<std::string> failures;  // empty: the seed passed
  std::uint64_t frames_in = 0, delivered = 0, dropped = 0, ambiguous = 0;
  std::uint64_t exact_admissions = 0, sp_pairs_checked = 0;
  std::uint64_t spoofs = 0, spoof_drops = 0;  // TX frames from bound sources naming another tenant; dropped
  bool fifo_order_checked = false;
  std::string stats() const;
};

CheckReport check_run(const Scenario& sc, const RunResult& run);

}  // namespace nicsched::verif
