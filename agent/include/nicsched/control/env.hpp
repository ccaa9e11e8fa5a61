// Env: the reinforcement-learning environment interface shared by the NIC environment
// (NicEnv) and the classic-control check in tests/agent/. No torch: observations are
// float vectors, actions are multi-discrete (one index per head), masks are bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "nicsched/control/error.hpp"  // EnvError
#include "nicsched/interface.hpp"

namespace nicsched::control {

// Multi-discrete action space: head h chooses one of head_sizes[h] values.
struct ActionSpace {
  std::vector<int> head_sizes;
  [[nodiscard]] std::size_t heads() const { return head_sizes.size(); }
  // Total number of logits (sum of head sizes); the mask has one byte per logit.
  [[nodiscard]] std::size_t total() const {
    return static_cast<std::size_t>(std::accumulate(head_sizes.begin(), head_sizes.end(), 0));
  }
};

// What one step returned besides the next observation.
struct StepResult {
  float reward = 0.0F;
  bool terminated = false;  // the task reached a terminal state: no value beyond it
  bool truncated = false;   // the episode was cut (time limit): the state still has value
};

class Env : public Interface {
 public:
  [[nodiscard]] virtual std::size_t observation_size() const = 0;
  [[nodiscard]] virtual ActionSpace action_space() const = 0;
  // Starts a new episode from `seed`; writes the first observation.
  virtual void reset(std::uint64_t seed, std::span<float> obs_out) = 0;
  // Applies `action` (one index per head); writes the next observation.
  virtual StepResult step(std::span<const int> action, std::span<float> obs_out) = 0;
  // Which logits are allowed now (1) or not (0), head after head; each head keeps at
  // least one allowed value. The default allows everything.
  virtual void action_mask(std::span<std::uint8_t> mask_out) const {
    for (auto& m : mask_out) m = 1;
  }
  // The action a teacher (an expert controller) would take now, for behaviour cloning;
  // false when the environment has no teacher (the default).
  virtual bool expert_action(std::span<int> /*action_out*/) { return false; }
};

}  // namespace nicsched::control
