// StarvationGuard: a bound on how long a controller may keep one tenant's bulk traffic
// waiting behind others (docs/agent.md, "Starvation guard"). Strict priority lets a
// policy order bursts (the staggering that makes jobs faster) but also lets it leave one
// tenant behind another's long burst for as long as that lasts; the family tables show
// such draws costing 30-50 % (docs/results.md). The guard watches the telemetry alone:
// a tenant is *held back* in an interval when its bulk queue is not empty at the end of it
// and it carried less than `share` x the mean bytes of the tenants whose bulk queues are
// not empty. After `intervals` held-back intervals in a row it is *lifted*: put at the
// highest priority level (0) with at least the largest DWRR quantum among the tenants
// there, so it shares the link with the first tenants instead of waiting for them, until
// its bulk queue drains. Aging, as operating-system schedulers bound starvation; it
// wraps any controller's decision (the learned policy's, NicEnvConfig::guard_intervals,
// or a baseline's, make_baseline("NAME+guard")).
#pragma once

#include <cstdint>
#include <vector>

#include "nicsched/control/tracker.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::control {

struct GuardConfig {
  std::uint32_t intervals = 0;  // held-back intervals in a row before a lift; 0: the guard is off
  double share = 0.25;          // held back: < share x the mean bytes of the backlogged tenants
  [[nodiscard]] bool on() const { return intervals > 0; }
  [[nodiscard]] bool valid_share() const { return share > 0.0 && share <= 1.0; }  // (0, 1]
};

class StarvationGuard {
 public:
  explicit StarvationGuard(GuardConfig cfg = {});
  void reset();
  // Folds in the tracker's last interval and changes `p` (the controller's decision for
  // the next one) for every lifted tenant. Off: `p` is left as it is.
  void apply(const TelemetryTracker& tracker, host::Policy& p);
  [[nodiscard]] const GuardConfig& config() const { return cfg_; }
  [[nodiscard]] const std::vector<bool>& lifted() const { return lifted_; }
  [[nodiscard]] std::uint64_t lifts() const { return lifts_; }  // lifts begun since reset

 private:
  GuardConfig cfg_;
  std::vector<std::uint32_t> held_;  // held-back intervals in a row, per tenant
  std::vector<bool> lifted_;
  std::uint64_t lifts_ = 0;
};

}  // namespace nicsched::control
