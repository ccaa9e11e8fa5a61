#include "nicsched/control/reward.hpp"

#include <algorithm>

namespace nicsched::control {
namespace {

double jain(const std::vector<double>& x) {
  double s = 0, s2 = 0;
  for (double v : x) {
    s += v;
    s2 += v * v;
  }
  return (x.empty() || s2 <= 0.0) ? 1.0 : s * s / (static_cast<double>(x.size()) * s2);
}

// Each training tenant's running normalised iteration time (n_i + k) / (u_i + k) since `start`
// (slowdown_potential's comment), handed to `fold` in tenant order; returns the count.
template <class Fold>
std::size_t fold_running_slowdowns(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                                   const std::vector<TenantProgress>& now, Fold&& fold) {
  const double k = cfg.slowdown_prior_iterations;
  std::size_t training = 0;
  for (std::size_t t = 0; t < now.size() && t < start.size(); ++t) {
    if (!now[t].training || now[t].solo_rate <= 0.0) continue;
    ++training;
    const auto present = now[t].present_cycles - std::min(now[t].present_cycles, start[t].present_cycles);
    const double solo_iterations = static_cast<double>(present) * now[t].solo_rate;
    const double done = std::max(0.0, now[t].units - start[t].units);
    fold((solo_iterations + k) / (done + k));
  }
  return training;
}

}  // namespace

RewardTerms compute_reward(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                           const std::vector<TenantProgress>& before, const std::vector<TenantProgress>& after,
                           std::uint64_t interval_cycles, std::uint64_t elapsed_cycles,
                           const TelemetryTracker& tracker) {
  RewardTerms r;
  std::vector<double> cumulative;
  double progress_sum = 0.0;
  std::size_t training = 0;
  for (std::size_t t = 0; t < after.size() && t < before.size() && t < start.size(); ++t) {
    if (!after[t].training || after[t].solo_rate <= 0.0) continue;
    ++training;
    progress_sum += (after[t].units - before[t].units) / (after[t].solo_rate * static_cast<double>(interval_cycles));
    if (elapsed_cycles > 0) {
      cumulative.push_back((after[t].units - start[t].units) /
                           (after[t].solo_rate * static_cast<double>(elapsed_cycles)));
    }
  }
  if (cfg.reward == RewardKind::kSlowdown) {
    // Potential-based: the rewards of an episode sum to episode_steps x (its final
    // potential + 1), the running estimate of 1 - the mean normalised iteration time.
    r.progress = static_cast<double>(cfg.episode_steps) *
                 (slowdown_potential(cfg, start, after) - slowdown_potential(cfg, start, before));
  } else {
    r.progress = training > 0 ? progress_sum / static_cast<double>(training) : 0.0;
  }
  r.fairness = jain(cumulative) - 1.0;
  double dropped = 0, sent = 0;
  std::size_t present = 0, missed = 0;
  for (std::size_t t = 0; t < tracker.tenants().size(); ++t) {
    const auto& s = tracker.tenants()[t];
    dropped += s.drops;
    sent += s.packets;
    if (!s.present) continue;
    ++present;
    const auto deadline = t < after.size() ? after[t].control_deadline_cycles : 0;
    if (deadline > 0 && s.control_latency_cycles > static_cast<double>(deadline)) ++missed;
  }
  r.drops = dropped + sent > 0 ? dropped / (dropped + sent) : 0.0;
  r.deadline = present > 0 ? static_cast<double>(missed) / static_cast<double>(present) : 0.0;
  r.starvation = static_cast<double>(cfg.episode_steps) *
                 (starvation_potential(cfg, start, after) - starvation_potential(cfg, start, before));
  r.total = cfg.progress_coef * r.progress + cfg.fairness_coef * r.fairness - cfg.drop_coef * r.drops -
            cfg.deadline_coef * r.deadline + cfg.starvation_coef * r.starvation;
  return r;
}

double slowdown_potential(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                          const std::vector<TenantProgress>& now) {
  double sum = 0.0;
  const auto training = fold_running_slowdowns(cfg, start, now, [&](double s) { sum += s; });
  return training > 0 ? -sum / static_cast<double>(training) : 0.0;
}

double starvation_potential(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                            const std::vector<TenantProgress>& now) {
  double worst = 0.0;
  const auto training = fold_running_slowdowns(cfg, start, now, [&](double s) { worst = std::max(worst, s); });
  return training > 0 ? -worst : 0.0;
}

}  // namespace nicsched::control
