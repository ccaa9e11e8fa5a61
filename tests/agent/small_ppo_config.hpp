// The small PPO configuration the agent tests train with: `updates` updates of
// envs x steps environment steps on each of `ranks` ranks, environments stepped in the
// calling thread, a 16x16 network. Tests set what else they need on the result.
#pragma once

#include <cstdint>

#include "nicsched/ppo/config.hpp"

namespace nicsched::testing {

inline ppo::PpoConfig small_ppo_config(std::uint64_t seed, std::uint32_t envs, std::uint32_t steps,
                                       std::uint32_t updates, std::uint32_t ranks = 1) {
  ppo::PpoConfig cfg;
  cfg.seed = seed;
  cfg.num_envs = envs;
  cfg.num_steps = steps;
  cfg.total_steps = std::uint64_t{ranks} * envs * steps * updates;
  cfg.env_threads = 1;
  cfg.hidden_sizes = {16, 16};
  return cfg;
}

}  // namespace nicsched::testing
