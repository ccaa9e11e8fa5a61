// The PPO loss terms, reachable without torch headers: the learner computes them with
// autograd on tensors; evaluate_losses runs the very same function on plain vectors
// (used by the tests to check them against hand-computed values).
#pragma once

#include <span>

#include "nicsched/ppo/config.hpp"

namespace nicsched::ppo {

// One minibatch, one entry per sample.
struct LossInputs {
  std::span<const float> new_log_prob;  // log pi_theta(a|s) under the current policy
  std::span<const float> old_log_prob;  // log pi_old(a|s) recorded in the rollout
  std::span<const float> advantages;    // GAE advantages (normalised here when norm_adv)
  std::span<const float> new_values;    // V_theta(s)
  std::span<const float> old_values;    // V_old(s) recorded in the rollout
  std::span<const float> returns;       // value targets
  std::span<const float> entropy;       // entropy of pi_theta(.|s)
};

struct LossTerms {
  double policy_loss = 0.0;    // clipped surrogate, to minimise
  double value_loss = 0.0;     // 0.5 * mean squared error (clipped when clip_vloss)
  double entropy = 0.0;        // mean entropy
  double total = 0.0;          // policy_loss - ent_coef * entropy + vf_coef * value_loss
  double approx_kl = 0.0;      // mean((ratio - 1) - log ratio), the low-variance estimator
  double old_approx_kl = 0.0;  // mean(-log ratio)
  double clip_fraction = 0.0;  // share of samples with |ratio - 1| > clip_coef
};

// Uses cfg.norm_adv, clip_coef, clip_vloss, ent_coef, vf_coef.
[[nodiscard]] LossTerms evaluate_losses(const LossInputs& in, const PpoConfig& cfg);

}  // namespace nicsched::ppo
