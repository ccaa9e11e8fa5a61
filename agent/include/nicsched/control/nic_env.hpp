// NicEnv: the NIC as a reinforcement-learning environment. It reaches the NIC only
// through RegisterBus (telemetry snapshots, one COMMIT per action) and SimControl (one
// control interval per step); the reward reads the tenants' training progress, which
// only a simulated target can report (EnvTarget). Its parts, each in its own unit: the
// settings (env_config.hpp), the action (action_codec.hpp), the observation
// (observation.hpp) and the reward (reward.hpp); the action and observation encodings are
// shared with the PPO controller used by eval and serve. docs/agent.md explains every
// feature and reward term.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "nicsched/clone_ptr.hpp"
#include "nicsched/control/action_codec.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/env.hpp"
#include "nicsched/control/env_config.hpp"
#include "nicsched/control/guard.hpp"
#include "nicsched/control/observation.hpp"
#include "nicsched/control/reward.hpp"
#include "nicsched/control/tracker.hpp"
#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::control {

// What NicEnv runs on: the NIC's register bus and clock, and what only a simulated target
// knows (each tenant's training progress, the run's end).
class EnvTarget {
 public:
  virtual ~EnvTarget() = default;
  [[nodiscard]] virtual drivers::RegisterBus& bus() = 0;
  [[nodiscard]] virtual drivers::SimControl& clock() = 0;
  [[nodiscard]] virtual double link_bytes_per_cycle() const = 0;
  // One entry per NIC tenant (CAPS0.TENANTS).
  [[nodiscard]] virtual std::vector<TenantProgress> progress() = 0;
  // The run is over (its scenario ended): the episode is truncated.
  [[nodiscard]] virtual bool finished() = 0;
  // A copy that continues exactly as this target would (NicEnv::fork).
  [[nodiscard]] virtual std::unique_ptr<EnvTarget> clone() const = 0;
};
// Builds a fresh target for an episode; the seed varies the workload's randomness.
using TargetFactory = std::function<std::unique_ptr<EnvTarget>(std::uint64_t seed)>;

class NicEnv final : public Env {
 public:
  // The factory is called once here (to learn the NIC's shape) and at every reset.
  NicEnv(NicEnvConfig cfg, TargetFactory factory);
  ~NicEnv() override;
  // A copy of the env mid-episode that continues exactly as this one would under the same
  // actions, and shares nothing with it: the target (its simulation forked), tracker,
  // observation history, action in force, guard counts, reward progress, teacher. Its
  // reset() builds targets with the same factory. EnvError / sim::SimError where the
  // target cannot be copied (the rtl backend).
  [[nodiscard]] std::unique_ptr<NicEnv> fork() const;

  [[nodiscard]] std::size_t observation_size() const override;
  [[nodiscard]] ActionSpace action_space() const override;
  void reset(std::uint64_t seed, std::span<float> obs_out) override;
  StepResult step(std::span<const int> action, std::span<float> obs_out) override;
  void action_mask(std::span<std::uint8_t> mask_out) const override;
  // A controller (e.g. the `progress` baseline) whose decision expert_action() returns,
  // encoded as this env's action and limited to what the mask allows (absent tenants
  // keep index 0); under the strategy action, the strategy it stands for
  // (StrategySet::index_of: EnvError when it is none). Reset with the env.
  void set_teacher(std::unique_ptr<Controller> teacher);
  bool expert_action(std::span<int> action_out) override;

  // The reward terms of the last interval (under step_per_choice, of the last interval of
  // the step's period; the step's reward is the sum of the period's totals).
  [[nodiscard]] const RewardTerms& last_reward() const { return reward_; }
  [[nodiscard]] const host::Capabilities& caps() const { return caps_; }

 private:
  NicEnv(const NicEnv&);  // fork(): every member's own copy (defaulted)
  void observe_interval();
  // One control interval under `action`: commit, advance, observe, count (the reward in reward_).
  void run_interval(std::span<const int> action);
  NicEnvConfig cfg_;
  TargetFactory factory_;
  ClonePtr<EnvTarget> target_;
  host::Capabilities caps_;
  std::optional<TelemetryTracker> tracker_;
  std::optional<ActionCodec> codec_;
  std::optional<ObservationEncoder> encoder_;
  host::Policy base_, in_force_;
  std::vector<TenantProgress> start_progress_, last_progress_;
  std::uint64_t start_cycle_ = 0;
  std::uint32_t steps_ = 0;
  RewardTerms reward_;
  ClonePtr<Controller> teacher_;
  StarvationGuard guard_;  // cfg_.guard(): over every decoded action
  std::optional<StrategySet> strategies_;  // the strategy action only
};

}  // namespace nicsched::control
