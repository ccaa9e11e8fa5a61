// TrainedPolicy: a policy exported by Trainer::export_policy, loaded for inference
// (eval, serve). Greedy actions: the most probable value of every head.
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nicsched::ppo
