// TrainedPolicy: a policy exported by Trainer::export_policy, loaded for inference
// (eval, serve). Greedy actions: the most probable value of every head, from the
// exported actor alone (its `actor` method; exports that predate it run `forward`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace nicsched::ppo {

class TrainedPolicy {
 public:
  // Reads dir/policy.yaml and dir/policy.pt; throws CheckpointError naming the file.
  explicit TrainedPolicy(const std::filesystem::path& dir);
  ~TrainedPolicy();
  TrainedPolicy(TrainedPolicy&&) noexcept;
  TrainedPolicy& operator=(TrainedPolicy&&) noexcept;

  [[nodiscard]] std::size_t observation_size() const;
  [[nodiscard]] const std::vector<int>& head_sizes() const;
  // The `env` mapping written at export, as YAML text (the environment it was made for).
  [[nodiscard]] const std::string& env_yaml() const;
  // One observation and mask in, one index per head out.
  [[nodiscard]] std::vector<int> act(std::span<const float> obs,
                                     std::span<const std::uint8_t> mask) const;
  // True when act() runs the actor alone; false for an export that predates the `actor`
  // method (it runs `forward`, the critic included: re-export it with reexport_policy).
  [[nodiscard]] bool actor_only() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Writes the policy exported in `from` (by this or an earlier version) to `to` (which may
// be `from`) with this version's exporter: the same weights and statistics, policy.yaml
// copied. Checks first that the new module computes the old one's logits and values (to
// within 1e-5) and greedy actions on random observations and masks; `obs_clip` is the clip
// the policy was trained with (the PPO config's obs_clip: earlier exports do not record
// it), and a wrong one fails that check. Throws CheckpointError naming the file.
void reexport_policy(const std::filesystem::path& from, const std::filesystem::path& to, double obs_clip);

}  // namespace nicsched::ppo
