#include "nicsched/control/draw_weights.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "nicsched/control/vec_env.hpp"

namespace nicsched::control {

double trailing_gap(double policy, double best) {
  return std::isfinite(policy) && std::isfinite(best) && best > 0.0 ? std::max(0.0, policy / best - 1.0) : 0.0;
}

std::vector<double> trailing_draw_weights(std::span<const double> policy, std::span<const double> best, double mix) {
  if (policy.size() != best.size() || policy.empty()) {
    throw EnvError("trailing_draw_weights: " + std::to_string(policy.size()) + " policy scores and " +
                   std::to_string(best.size()) + " best-baseline scores (want the same number, at least 1)");
  }
  if (!(mix >= 0.0 && mix <= 1.0)) throw EnvError("trailing_draw_weights: mix must be in [0, 1]");
  const auto n = static_cast<double>(policy.size());
  std::vector<double> gap(policy.size(), 0.0);
  double sum = 0;
  for (std::size_t i = 0; i < policy.size(); ++i) {
    gap[i] = trailing_gap(policy[i], best[i]);
    sum += gap[i];
  }
  std::vector<double> w(policy.size(), 1.0 / n);
  if (sum <= 0.0) return w;
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = (1.0 - mix) / n + mix * gap[i] / sum;
  return w;
}

std::size_t pick_draw(std::span<const double> weights, std::uint64_t episode_seed) {
  if (weights.empty()) throw EnvError("pick_draw: no draws");
  const double u = static_cast<double>(mix_seed(episode_seed) >> 11) * 0x1.0p-53;
  double cumulative = 0;
  std::size_t last_positive = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0.0) continue;
    cumulative += weights[i];
    last_positive = i;
    if (u < cumulative) return i;
  }
  return last_positive;
}

WeightedDraws::WeightedDraws(std::vector<ScenarioEntry> entries, std::vector<std::uint64_t> family_seeds)
    : entries_(std::move(entries)), family_seeds_(std::move(family_seeds)) {
  if (entries_.empty() || entries_.size() != family_seeds_.size()) {
    throw EnvError("WeightedDraws: " + std::to_string(entries_.size()) + " draws and " +
                   std::to_string(family_seeds_.size()) + " family seeds (want the same number, at least 1)");
  }
  weights_.assign(entries_.size(), 1.0 / static_cast<double>(entries_.size()));
}

void WeightedDraws::set_weights(std::vector<double> weights) {
  if (weights.size() != entries_.size()) {
    throw EnvError("WeightedDraws: " + std::to_string(weights.size()) + " weights for " +
                   std::to_string(entries_.size()) + " draws");
  }
  const std::lock_guard lock(mutex_);
  weights_ = std::move(weights);
}

std::vector<double> WeightedDraws::weights() const {
  const std::lock_guard lock(mutex_);
  return weights_;
}

TargetFactory weighted_target_factory(std::shared_ptr<const WeightedDraws> draws, DrawCallback on_draw) {
  if (!draws) throw EnvError("weighted_target_factory: no draws");
  return [draws = std::move(draws), on_draw = std::move(on_draw)](std::uint64_t seed) {
    if (seed == 0) return make_sim_target(draws->entries().front(), 0);
    const std::size_t i = pick_draw(draws->weights(), seed);
    if (on_draw) on_draw(draws->family_seeds()[i], draws->entries()[i]);
    return make_sim_target(draws->entries()[i], seed);
  };
}

}  // namespace nicsched::control
