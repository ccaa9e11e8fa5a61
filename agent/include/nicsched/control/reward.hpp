// NicEnv's reward (docs/agent.md, "Reward"): each interval's terms from the tenants'
// training progress (which only a simulated target reports) and the tracked telemetry.
#pragma once

#include <cstdint>
#include <vector>

#include "nicsched/control/env_config.hpp"
#include "nicsched/control/tracker.hpp"

namespace nicsched::control {

// What only a simulated target knows: each NIC tenant's training progress.
struct TenantProgress {
  bool training = false;       // a training job (DDP/FL) whose progress counts in the reward
  double units = 0;            // completed iterations + fraction of the current burst
  double solo_rate = 0;        // units per cycle when alone on the NIC (normaliser)
  std::uint64_t control_deadline_cycles = 0;  // 0: no control traffic
  // Cycles the tenant has been on the NIC so far: from its arrival to now or to its
  // departure (the time Simulation::progress_rate divides by).
  std::uint64_t present_cycles = 0;
};

// Reward of one interval (docs/agent.md), with its terms for logging.
struct RewardTerms {
  // speed: mean over training tenants of progress / solo progress; slowdown:
  // episode_steps x (slowdown_potential after - before)
  double progress = 0;
  double fairness = 0;    // Jain's index over cumulative normalised progress, minus 1
  double drops = 0;       // dropped / (sent + dropped) packets in the interval
  double deadline = 0;    // share of tenants whose control latency exceeded the deadline
  // episode_steps x (starvation_potential after - before); weighed by starvation_coef
  double starvation = 0;
  double total = 0;
  // Term by term: an episode's return as the sum of its intervals' rewards.
  RewardTerms& operator+=(const RewardTerms& r) {
    progress += r.progress;
    fairness += r.fairness;
    drops += r.drops;
    deadline += r.deadline;
    starvation += r.starvation;
    total += r.total;
    return *this;
  }
};

// The reward of an interval from progress before/after, the episode's start, and the
// tracked telemetry. Separate so tests can check it by hand.
[[nodiscard]] RewardTerms compute_reward(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                                         const std::vector<TenantProgress>& before,
                                         const std::vector<TenantProgress>& after,
                                         std::uint64_t interval_cycles, std::uint64_t elapsed_cycles,
                                         const TelemetryTracker& tracker);

// The `slowdown` reward's potential: minus the mean over training tenants (solo_rate > 0) of
// their running normalised iteration time (n_i + k) / (u_i + k): n_i = cycles on the NIC
// since `start` x solo_rate (the iterations the tenant would have finished alone in that
// time), u_i = progress units since `start` (iterations finished, plus the fraction of the
// current burst), k = slowdown_prior_iterations. A running estimate of minus the metric
// (control::score_run's mean normalised iteration time, which counts a tenant that
// finished nothing with the time it was there: n_i); -1 at the episode's start and for a
// tenant not yet arrived; 0 with no training tenant. The rewards' sum telescopes:
// episode_steps x (potential at the end + 1).
[[nodiscard]] double slowdown_potential(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                                        const std::vector<TenantProgress>& now);

// The starvation term's potential: minus the *largest* running normalised iteration time
// (n_i + k) / (u_i + k) over the training tenants (the mean of slowdown_potential replaced by
// the maximum): -1 at the episode's start, 0 with no training tenant. Its rewards telescope to
// episode_steps x (1 - the worst tenant's running normalised iteration time at the end), so a
// policy pays for the tenant it starves however many others it speeds up.
[[nodiscard]] double starvation_potential(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                                          const std::vector<TenantProgress>& now);

}  // namespace nicsched::control
