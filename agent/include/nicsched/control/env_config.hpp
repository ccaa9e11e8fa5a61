// NicEnvConfig: the NIC environment's settings (docs/reference/formats.md, "Env config"):
// the control interval, observation history and episode length, the action heads' sizes,
// the reward's terms and the starvation guard. One key table reads and writes them
// (env_config.cpp), so a config file, a run folder's env.yaml and an exported policy's
// `env` mapping are the same YAML.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "nicsched/control/error.hpp"
#include "nicsched/control/guard.hpp"

namespace nicsched::control {

// What the reward's progress term measures (docs/agent.md, "Reward").
enum class RewardKind {
  kSpeed,     // mean over training tenants of the interval's progress / solo progress
  kSlowdown,  // the change in minus the running mean normalised iteration time (potential-based)
};
[[nodiscard]] const char* reward_kind_name(RewardKind k);

// What the policy's action chooses (docs/agent.md, "Action").
enum class ActionKind {
  kTenant,    // per tenant: priority, weight level, crypto quota[, rate][, control bucket]
  kStrategy,  // one categorical head: which of NicEnvConfig::strategies decides the interval
};
[[nodiscard]] const char* action_kind_name(ActionKind k);

// The strategy action's controllers when env.yaml names none: every baseline, the
// dynamic ones with the starvation guard (progress also without, as the tables run it).
[[nodiscard]] const std::vector<std::string>& default_strategies();

struct NicEnvConfig {
  std::uint64_t interval_cycles = 2000;  // cycles per control step (8 us at 250 MHz)
  std::uint32_t history = 4;             // observation frames stacked (newest first)
  std::uint32_t episode_steps = 500;     // steps before the episode is truncated
  std::uint32_t priority_levels = 4;     // priority head size (masked to CAPS0.PRIO_LEVELS)
  std::uint32_t weight_levels = 4;       // weight head: DWRR quantum 1500 * 2^level bytes
  std::uint32_t quota_levels = 4;        // quota head: 1..quota_levels slots (masked to CRYPTO_SLOTS)
  // Rate head (only when > 1): 0 keeps the scenario's rate limit, level k >= 1 limits the
  // tenant to line rate / 2^k. 1 (the default): no rate head, as in the committed policy.
  std::uint32_t rate_levels = 1;
  // Control-bucket head (only when > 1): the first control_levels values of (0: the
  // scenario's control bucket, T_CTRL_RATE / T_CTRL_BURST as configured; 1: off; 2: low;
  // 3: high; ActionCodec::control_bucket_of_level). 1 (the default): no control head, as
  // in the committed policy.
  std::uint32_t control_levels = 1;
  // `tenant` (the default, the committed policy's) or `strategy`: one head of
  // strategies.size() values, value k handing the interval's decision to strategies[k]
  // (StrategySet: every strategy decides every interval, so each one's state follows the
  // run whichever is in charge). The per-tenant heads' sizes above are then unused.
  ActionKind action = ActionKind::kTenant;
  // The strategy action's controllers (baseline names, make_baseline; NAME+guard and
  // select:... among them). `sp` ranks tenants by index (the env does not see the
  // scenario's declared priorities).
  std::vector<std::string> strategies = default_strategies();
  // The strategy action only: decisions a chosen strategy stays in charge. The policy's
  // choice is taken at decisions 0, h, 2h, ... of a run (an episode) and ignored between;
  // 1 (the default): a choice every interval.
  std::uint32_t strategy_hold = 1;
  // --- reward (docs/agent.md) ---
  // The progress term: `speed` (the default, what the committed policy was trained with) or
  // `slowdown`, whose sum over an episode is the episode's estimate of the evaluation
  // metric (episode_steps x (1 - mean normalised iteration time)).
  RewardKind reward = RewardKind::kSpeed;
  // `slowdown` only: each tenant's running slowdown starts from this many iterations
  // (rounds) at solo speed, so that its first intervals (a job computing, not yet sending)
  // do not swing the potential, and a tenant that finishes nothing counts with about the
  // time it was there, as the metric counts it (docs/agent.md, "Reward").
  double slowdown_prior_iterations = 1.0;
  double progress_coef = 1.0;            // weight of the progress term (speed or slowdown)
  double fairness_coef = 0.5;            // weight of (Jain's index - 1) over episode progress
  double drop_coef = 1.0;                // weight of the interval's dropped-packet fraction
  double deadline_coef = 0.5;            // weight of the share of tenants missing control deadlines
  // Weight of the starvation term (starvation_potential: the worst training tenant's running
  // normalised iteration time, potential-based as the slowdown reward). 0 (the default): off,
  // as in the committed policy.
  double starvation_coef = 0.0;
  // --- the starvation guard over the decoded action (guard.hpp; docs/agent.md) ---
  // Held-back intervals in a row before a tenant is lifted to the top level; 0 (the
  // default): off. Part of the policy: NicEnv applies it in training, PpoController in
  // eval and serve.
  std::uint32_t guard_intervals = GuardConfig{}.intervals;
  double guard_share = GuardConfig{}.share;  // held back: < guard_share x the backlogged tenants' mean bytes
  [[nodiscard]] GuardConfig guard() const { return {guard_intervals, guard_share}; }

  void validate() const;  // throws EnvError naming the field
};

// Reads a YAML mapping of the fields above; unknown keys and bad values are EnvErrors
// naming file, line and key.
[[nodiscard]] NicEnvConfig load_env_config(const std::filesystem::path& file);
// YAML of every field, loadable by load_env_config (also stored with exported policies).
[[nodiscard]] std::string env_config_yaml(const NicEnvConfig& cfg);
// The same from text (the `env` mapping of an exported policy); `source` names it in errors.
[[nodiscard]] NicEnvConfig parse_env_config(const std::string& yaml_text, const std::string& source);

}  // namespace nicsched::control
