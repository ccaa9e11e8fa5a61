// OnlineSelector (`select`, `select:A,B,...`): a bandit over baseline controllers that
// tries them during the run and keeps the one whose measured progress is best
// (docs/agent.md, "Online selector"). It knows what any controller knows, the tracked
// telemetry, and nothing of the workloads' future.
//
// Arms and trials. The candidates (kDefaultSelectCandidates unless named) all decide every
// interval, so that a candidate's own state (the starvation guard's held-back counts)
// follows the run whether or not it is in charge; only the chosen one's policy is returned.
// Switching rewrites the policy registers only: the deficits, queues and engine state stay
// the hardware's. A *trial* runs one candidate for a dwell of D intervals, D = clamp(
// kDwellPeriods x the longest burst period the tracker measured among the active tenants,
// kMinDwellIntervals, kMaxDwellIntervals), fixed when the trial begins: long enough that
// every periodic tenant (a DDP iteration, an FL round) ends at least one burst in it.
//
// Score (the online proxy of the evaluation's slowdown against solo). A tenant's burst that
// began in the trial and ended in it, with c the gap before it (the compute phase, from the
// tenant's previous burst end), d its length and d0 = its bytes / the link rate (its length
// alone on the link), gives the sample (c + d) / (c + d0): that iteration's time over what
// it would take with the link to itself (1 = solo, higher is slower). A tenant without
// such a burst but still in one it began half a dwell or more before the trial's end gives
// the same sample with the time so far (a lower bound, so a candidate that starves a tenant
// never looks good). Tenants whose first burst is still open (constant background traffic)
// give none. The trial's score is the mean over tenants of each tenant's mean sample; a
// trial without samples is not scored.
//
// Choice. After each trial: a candidate not tried since the last reset first (list order;
// the current one first after a reset, so a reset costs no switch); then UCB on the trial
// scores, lowest index mean - kUcbScale * sigma * sqrt(ln N / n) (N scored trials, n of
// the candidate, sigma the pooled within-candidate standard deviation of trial scores,
// kPriorNoise x the mean until two trials of one candidate give it, at least kMinNoise x
// the mean), the first in list order on a tie. UCB over successive elimination because a
// run is short (a few dozen trials) and the best candidate can change: its log term keeps
// re-checking the others at a rate that falls as the evidence grows, with no elimination
// that a regime change could not undo. No randomness: the choice sequence is a function of
// the telemetry alone (the same scenario and seed give the same sequence).
//
// Re-exploration: when the set of active tenants changes (a tenant sends for the first
// time, or one goes quiet for longer than max(kLeavePeriods x its period,
// kLeaveMinIntervals intervals)) the statistics are dropped and every candidate is tried
// again.
//
// State is held in plain value members (the candidates apart, a Panel), so a copy of the
// members is a copy of the selector.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/panel.hpp"

namespace nicsched::control {

// `select` without a list: the heuristics that win most often per scenario in the result
// families (docs/results.md), progress+guard first (the best single heuristic on `test`, and
// what the selector runs while it has no evidence).
inline const std::vector<std::string> kDefaultSelectCandidates = {"progress+guard", "progress", "sp", "fifo"};
inline constexpr double kDwellPeriods = 2.0;                // dwell in burst periods
inline constexpr std::uint64_t kMinDwellIntervals = 16;     // dwell before any period is known, and its floor
inline constexpr std::uint64_t kMaxDwellIntervals = 256;    // dwell's ceiling (2 ms of 8 us intervals)
inline constexpr double kUcbScale = 1.0;                    // UCB bonus in standard deviations
inline constexpr double kPriorNoise = 0.10;                 // sigma / mean before it is measured
inline constexpr double kMinNoise = 0.01;                   // sigma / mean at least
inline constexpr double kLeavePeriods = 4.0;                // quiet this many periods: the tenant left
inline constexpr std::uint64_t kLeaveMinIntervals = 64;     // ... or at least this many intervals

class OnlineSelector final : public Controller {
 public:
  // One trial: which candidate, from which cycle, for how many intervals, and its score
  // (NaN: no samples).
  struct Trial {
    std::uint32_t arm = 0;
    std::uint64_t start_cycle = 0;
    std::uint64_t dwell = 0;  // intervals
    double score = 0;
  };

  // name: what name() says; candidates: baseline names (make_baseline), none of them a
  // selector; sp_levels: for `sp` candidates.
  OnlineSelector(std::string name, const std::vector<std::string>& candidates,
                 const std::vector<std::uint32_t>& sp_levels);

  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<OnlineSelector>(*this); }
  void reset() override;
  host::Policy decide(const TelemetryTracker& tracker, const host::Policy& base) override;

  [[nodiscard]] const std::vector<std::string>& candidates() const { return names_; }
  [[nodiscard]] std::uint32_t current() const { return st_.arm; }
  // The trials so far (the open one last, its score not yet known), and the resets
  // (re-explorations after a change of the tenant set).
  [[nodiscard]] const std::vector<Trial>& trials() const { return st_.trials; }
  [[nodiscard]] const std::vector<std::uint64_t>& reset_cycles() const { return st_.resets; }

 private:
  struct Tenant {
    bool active = false;                 // in the tenant set
    bool in_burst = false;               // as the tracker said at the last decision
    std::uint64_t last_seen = 0;         // cycle of its last interval with bulk activity
    std::uint64_t longest_quiet = 0;     // its longest run of cycles without any so far
    std::uint64_t prev_end = 0;          // end of its previous burst (0: none yet)
    double sum = 0;                      // the open trial's samples
    std::uint32_t samples = 0;
  };
  struct Arm {
    bool tried = false;  // since the last reset
    std::uint32_t n = 0;  // scored trials
    double sum = 0, sum_sq = 0;
  };
  struct State {
    std::uint32_t arm = 0;
    std::vector<Trial> trials;
    std::vector<Arm> arms;
    std::vector<Tenant> tenants;
    std::vector<std::uint64_t> resets;  // cycles
  };

  void observe(const TelemetryTracker& tr);  // tenant set, burst ends -> samples
  [[nodiscard]] double close_trial(const TelemetryTracker& tr);
  [[nodiscard]] std::uint32_t next_arm() const;
  void begin_trial(const TelemetryTracker& tr, std::uint32_t arm);
  [[nodiscard]] std::uint64_t dwell(const TelemetryTracker& tr) const;

  std::string name_;
  std::vector<std::string> names_;
  Panel arms_;  // the candidates; a copy of the selector copies them
  State st_;
};

// The selector a name stands for: "select" (kDefaultSelectCandidates) or
// "select:A,B,..." (baseline names, NAME+guard[N] among them). Throws EnvError naming the
// bad candidate (unknown, a selector itself, given twice) or an empty list.
[[nodiscard]] bool is_selector_name(const std::string& name);
[[nodiscard]] std::unique_ptr<Controller> make_selector(const std::string& name,
                                                        const std::vector<std::uint32_t>& sp_levels);

}  // namespace nicsched::control
