// Generalised advantage estimation over a rollout of T steps x N envs (index t * N + e).
// Plain C++: the learner and the tests call the same code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace nicsched::ppo {

struct GaeInput {
  std::size_t steps = 0;                   // T
  std::size_t envs = 0;                    // N
  std::span<const float> rewards;          // r_t
  std::span<const float> values;           // V(s_t)
  // V(s_{t+1}) of the state the step actually reached: the next rollout state, the
  // final state of a truncated episode, or anything for a terminated one (ignored).
  std::span<const float> next_values;
  std::span<const std::uint8_t> terminated;   // s_{t+1} is terminal: no bootstrap
  std::span<const std::uint8_t> episode_end;  // terminated or truncated: the
                                              // advantage does not flow across t -> t+1
  double gamma = 0.99;
  double lambda = 0.95;
};

struct GaeResult {
  std::vector<float> advantages;  // A_t
  std::vector<float> returns;     // A_t + V(s_t), the value target
};

// delta_t = r_t + gamma * V(s_{t+1}) * (1 - terminated_t) - V(s_t)
// A_t     = delta_t + gamma * lambda * (1 - episode_end_t) * A_{t+1},  A_T = 0
// Truncation therefore bootstraps from the final state's value, termination does not.
[[nodiscard]] GaeResult compute_gae(const GaeInput& in);

}  // namespace nicsched::ppo
