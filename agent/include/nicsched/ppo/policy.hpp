// TrainedPolicy: a policy exported by Trainer::export_policy, loaded for inference
// (eval, serve). Greedy actions: the most probable value of every head of the actor's
// logits. The TorchScript module is the file format: at load the actor's weights and
// observation statistics are copied out of it into plain arrays, and decisions run the
// forward pass in plain C++ (no interpreter, no dispatcher: docs/agent.md, "Run folders,
// checkpoints and export"), after a check that it computes the module's logits.
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
  // Reads dir/policy.yaml and dir/policy.pt; throws CheckpointError naming the file, also
  // when the native forward pass does not give the module's logits (to 1e-5) on random
  // observations and masks (a network this version cannot run).
  explicit TrainedPolicy(const std::filesystem::path& dir);
  ~TrainedPolicy();
  TrainedPolicy(TrainedPolicy&&) noexcept;
  TrainedPolicy& operator=(TrainedPolicy&&) noexcept;

  [[nodiscard]] std::size_t observation_size() const;
  [[nodiscard]] const std::vector<int>& head_sizes() const;
  // The `env` mapping written at export, as YAML text (the environment it was made for).
  [[nodiscard]] const std::string& env_yaml() const;
  // Whether observations of `obs_size` values with these action heads can be decided: the
  // sizes it was exported with, or, for a `set` network, any tenant count with its
  // per-tenant layout (history frames, tenant features, globals, one tenant's heads): a
  // set policy trained on 8 tenant slots decides for a 16-tenant NIC. act() and logits()
  // take any observation that fits.
  [[nodiscard]] bool fits(std::size_t obs_size, const std::vector<int>& head_sizes) const;
  // One observation and mask in, one index per head out (the first of equal maxima).
  // Thread-safe: threads may share one policy.
  [[nodiscard]] std::vector<int> act(std::span<const float> obs,
                                     std::span<const std::uint8_t> mask) const;
  // The masked logits act() takes its argmaxes of (as the module's `actor` computes them,
  // to ~1e-6), into `out` (one per mask byte).
  void logits(std::span<const float> obs, std::span<const std::uint8_t> mask, std::span<float> out) const;
  // True when the export has the actor-only method `actor`; false for an export that
  // predates it (act() runs natively either way; reexport_policy adds the method).
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
