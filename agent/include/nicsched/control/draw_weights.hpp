// Training draws weighted towards the scenarios where the policy trails the best baseline
// (PpoConfig::draw_weights: trailing; docs/agent.md, "Draw weighting"). Training draws
// from a fixed pool of family draws; each has the best baseline's score and the policy's
// last measured score, and a draw on which the policy trails is drawn more often.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"

namespace nicsched::control {

// How far the policy trails the best baseline on one draw (scores: lower is better):
// max(0, policy / best - 1), 0 where a score is not finite or best <= 0.
[[nodiscard]] double trailing_gap(double policy, double best);

// The weights of N draws, from the policy's and the best baseline's scores on each:
// gap_i = trailing_gap(policy_i, best_i);
// P(i) = (1 - mix) / N + mix * gap_i / sum_j gap_j, or 1 / N for every draw when no gap is
// above 0. Sums to 1. EnvError for sizes that differ, no draws, or mix outside [0, 1].
[[nodiscard]] std::vector<double> trailing_draw_weights(std::span<const double> policy, std::span<const double> best,
                                                        double mix);

// The draw an episode seed picks under `weights` (summing to 1): the first i whose
// cumulative weight exceeds u, u = the seed's uniform in [0, 1) (mix_seed's top 53 bits);
// the last draw with a positive weight when rounding leaves u above them all.
[[nodiscard]] std::size_t pick_draw(std::span<const double> weights, std::uint64_t episode_seed);

// The pool of training draws and their current weights, shared by every env's target
// factory (which read it at each episode's reset) and the training loop (which sets the
// weights between updates).
class WeightedDraws {
 public:
  // entries[i] is the draw of family seed family_seeds[i]; the weights start uniform.
  WeightedDraws(std::vector<ScenarioEntry> entries, std::vector<std::uint64_t> family_seeds);
  [[nodiscard]] const std::vector<ScenarioEntry>& entries() const { return entries_; }
  [[nodiscard]] const std::vector<std::uint64_t>& family_seeds() const { return family_seeds_; }
  void set_weights(std::vector<double> weights);  // EnvError on a size that is not the pool's
  [[nodiscard]] std::vector<double> weights() const;

 private:
  std::vector<ScenarioEntry> entries_;
  std::vector<std::uint64_t> family_seeds_;
  mutable std::mutex mutex_;
  std::vector<double> weights_;
};

// A target factory over the pool: episode seed s runs draw pick_draw(weights, s) with
// workload seed s, `on_draw` told its family seed first (may be empty). Seed 0, NicEnv's
// probe of the NIC's shape, gives draw 0 and is not told.
[[nodiscard]] TargetFactory weighted_target_factory(std::shared_ptr<const WeightedDraws> draws, DrawCallback on_draw);

}  // namespace nicsched::control
