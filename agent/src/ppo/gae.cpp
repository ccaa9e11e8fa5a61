#include "nicsched/ppo/gae.hpp"

#include <stdexcept>
#include <string>

namespace nicsched::ppo {

GaeResult compute_gae(const GaeInput& in) {
  const std::size_t n = in.steps * in.envs;
  if (in.rewards.size() != n || in.values.size() != n || in.next_values.size() != n ||
      in.terminated.size() != n || in.episode_end.size() != n) {
    throw std::invalid_argument("compute_gae: every input must hold steps * envs = " + std::to_string(n) +
                      " entries");
  }
  GaeResult out;
  out.advantages.assign(n, 0.0F);
  out.returns.assign(n, 0.0F);
  for (std::size_t e = 0; e < in.envs; ++e) {
    double next_adv = 0.0;
    for (std::size_t t = in.steps; t-- > 0;) {
      const std::size_t i = t * in.envs + e;
      const double bootstrap = in.terminated[i] != 0 ? 0.0 : in.gamma * static_cast<double>(in.next_values[i]);
      const double delta =
          static_cast<double>(in.rewards[i]) + bootstrap - static_cast<double>(in.values[i]);
      const double carry = in.episode_end[i] != 0 ? 0.0 : in.gamma * in.lambda * next_adv;
      next_adv = delta + carry;
      out.advantages[i] = static_cast<float>(next_adv);
      out.returns[i] = static_cast<float>(next_adv + static_cast<double>(in.values[i]));
    }
  }
  return out;
}

}  // namespace nicsched::ppo
