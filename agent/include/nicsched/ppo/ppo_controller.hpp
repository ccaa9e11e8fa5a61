// PpoController: a trained policy as a control::Controller, so eval and serve run it
// exactly like the baselines. It encodes observations and decodes actions with the env
// configuration stored in the exported policy (docs/agent.md).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/guard.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/ppo/policy.hpp"

namespace nicsched::ppo {

class PpoController final : public control::Controller {
 public:
  explicit PpoController(std::shared_ptr<const TrainedPolicy> policy);
  [[nodiscard]] std::string name() const override { return "ppo"; }
  // The trained network is shared (it does not change); the observation history, the
  // action in force and the guard's counts are copied.
  [[nodiscard]] std::unique_ptr<control::Controller> clone() const override {
    return std::make_unique<PpoController>(*this);
  }
  void reset() override;
  host::Policy decide(const control::TelemetryTracker& tracker, const host::Policy& base) override;
  [[nodiscard]] const control::NicEnvConfig& env_config() const { return env_; }
  [[nodiscard]] const std::vector<int>& last_action() const { return action_; }

 private:
  std::shared_ptr<const TrainedPolicy> policy_;
  control::NicEnvConfig env_;
  std::optional<control::ActionCodec> codec_;
  std::optional<control::StrategySet> strategies_;  // the strategy action only
  std::optional<control::ObservationEncoder> encoder_;
  std::optional<host::Policy> in_force_;
  control::StarvationGuard guard_;  // env_.guard(): over every decoded action, as in training
  std::vector<float> obs_;
  std::vector<std::uint8_t> mask_;
  std::vector<int> action_;
};

}  // namespace nicsched::ppo
