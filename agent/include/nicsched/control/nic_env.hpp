// NicEnv: the NIC as a reinforcement-learning environment. It reaches the NIC only
// through RegisterBus (telemetry snapshots, one COMMIT per action) and SimControl (one
// control interval per step); the reward reads the tenants' training progress, which
// only a simulated target can report (EnvTarget). The observation and action encodings
// are shared with the PPO controller used by eval and serve. docs/agent.md explains
// every feature and reward term.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nicsched/clone_ptr.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/env.hpp"
#include "nicsched/control/guard.hpp"
#include "nicsched/control/tracker.hpp"
#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::control {

// What the reward's progress term measures (docs/agent.md, "Reward").
enum class RewardKind {
  kSpeed,     // mean over training tenants of the interval's progress / solo progress
  kSlowdown,  // the change in minus the running mean normalised iteration time (potential-based)
};
[[nodiscard]] const char* reward_kind_name(RewardKind k);

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

// What only a simulated target knows: each NIC tenant's training progress.
struct TenantProgress {
  bool training = false;       // a training job (DDP/FL) whose progress counts in the reward
  double units = 0;            // completed iterations + fraction of the current burst
  double solo_rate = 0;        // units per cycle when alone on the NIC (normaliser)
  std::uint64_t control_deadline_cycles = 0;  // 0: no control traffic
  // Cycles the tenant has been on the NIC so far: from its arrival to now or to its
  // departure (the time Simulation::progress_rate divides by).
  std::uint64_t present_cycles = 0;
};

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

// Per-tenant multi-discrete action: heads (priority, weight level, quota[, rate][, control
// bucket]) per tenant, tenant after tenant.
// A control-bucket level's registers (T_CTRL_RATE.BYTES_PER_KCYCLE, T_CTRL_BURST.BYTES).
struct ControlBucket {
  std::uint32_t rate_bytes_per_kcycle = 0;
  std::uint32_t burst_bytes = 0;
  bool operator==(const ControlBucket&) const = default;
};

class ActionCodec {
 public:
  // link_bytes_per_cycle: the line rate the rate levels are fractions of (0: one
  // AXI4-Stream beat per cycle, CAPS data_bytes).
  ActionCodec(const NicEnvConfig& cfg, const host::Capabilities& caps, double link_bytes_per_cycle = 0.0);
  [[nodiscard]] ActionSpace space() const;
  // 3, plus one with the rate head (NicEnvConfig::rate_levels > 1), plus one with the
  // control head (control_levels > 1).
  [[nodiscard]] std::size_t heads_per_tenant() const { return std::size_t{3} + (rate_head() ? 1U : 0U) + (control_head() ? 1U : 0U); }
  [[nodiscard]] std::size_t logits_per_tenant() const {
    return cfg_.priority_levels + cfg_.weight_levels + cfg_.quota_levels + (rate_head() ? cfg_.rate_levels : 0) +
           (control_head() ? cfg_.control_levels : 0);
  }
  // T_RATE.BYTES_PER_KCYCLE of rate level k >= 1 (line rate / 2^k).
  [[nodiscard]] std::uint32_t rate_of_level(std::uint32_t k) const;
  // The control bucket of control level k = 1 (off), 2 (low), 3 (high); level 0 keeps the
  // scenario's. Relative to the registers' reset (256 bytes per 1024 cycles, 4096 bytes):
  // off = rate 0 and the smallest burst a policy may set (64 bytes: one minimum frame, then
  // the tenant's control frames compete at its own priority level); low = a quarter of
  // both; high = four times both (docs/agent.md, "Action").
  [[nodiscard]] static ControlBucket control_bucket_of_level(std::uint32_t k);
  // The level 1 .. levels-1 whose bucket `b` is exactly; 0 (the scenario's) for any other.
  [[nodiscard]] static std::uint32_t control_level_of(const ControlBucket& b, std::uint32_t levels);
  // Allowed values: priorities the NIC has, quotas up to its slots; absent tenants
  // are pinned to index 0 of every head.
  void mask(const TelemetryTracker& tracker, std::span<std::uint8_t> out) const;
  // The policy for an action: base with SP+DWRR and each tenant's values; level 0 of the
  // rate and control heads leaves the tenant's rate limit and control bucket as in base.
  [[nodiscard]] host::Policy decode(std::span<const int> action, const host::Policy& base) const;
  // The action that stands for a policy's tenant settings (nearest levels).
  [[nodiscard]] std::vector<int> encode(const host::Policy& policy) const;

 private:
  [[nodiscard]] bool rate_head() const { return cfg_.rate_levels > 1; }
  [[nodiscard]] bool control_head() const { return cfg_.control_levels > 1; }
  NicEnvConfig cfg_;
  host::Capabilities caps_;
  double link_bytes_per_cycle_ = 0.0;
};

// Observation: `history` frames, newest first; a frame is, per NIC tenant,
// tenant_features() features (the last action included) followed by kGlobalFeatures.
class ObservationEncoder {
 public:
  static constexpr std::size_t kTenantFeatures = 19;
  // With the control head (NicEnvConfig::control_levels > 1) each tenant has two more: its
  // control bytes out against the reset control bucket's rate, and the control level in
  // force. Without it the observation is the committed policy's.
  static constexpr std::size_t kControlFeatures = 2;
  static constexpr std::size_t kGlobalFeatures = 3;
  [[nodiscard]] static std::size_t tenant_features(const NicEnvConfig& cfg) {
    return kTenantFeatures + (cfg.control_levels > 1 ? kControlFeatures : 0);
  }
  ObservationEncoder(const NicEnvConfig& cfg, const host::Capabilities& caps);
  [[nodiscard]] std::size_t size() const;
  // Clears the history (all frames zero).
  void reset();
  // Pushes the frame for the tracker's latest interval and the action in force.
  void push(const TelemetryTracker& tracker, const host::Policy& in_force);
  void write(std::span<float> out) const;

 private:
  [[nodiscard]] std::size_t frame_size() const;
  NicEnvConfig cfg_;
  host::Capabilities caps_;
  std::vector<float> frames_;  // history * frame_size, newest first
};

// Reward of one interval (docs/agent.md), with its terms for logging.
struct RewardTerms {
  // speed: mean over training tenants of progress / solo progress; slowdown:
  // episode_steps x (slowdown_potential after - before)
  double progress = 0;
  double fairness = 0;    // Jain's index over cumulative normalised progress, minus 1
  double drops = 0;       // dropped / (sent + dropped) packets in the interval
  double deadline = 0;    // share of tenants whose control latency exceeded the deadline
  // episode_steps x (starvation_potential after - before); weighed by starvation_coef
  double starvation = 0;
  double total = 0;
  // Term by term: an episode's return as the sum of its intervals' rewards.
  RewardTerms& operator+=(const RewardTerms& r) {
    progress += r.progress;
    fairness += r.fairness;
    drops += r.drops;
    deadline += r.deadline;
    starvation += r.starvation;
    total += r.total;
    return *this;
  }
};

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
  // keep index 0). Reset with the env.
  void set_teacher(std::unique_ptr<Controller> teacher);
  bool expert_action(std::span<int> action_out) override;

  [[nodiscard]] const RewardTerms& last_reward() const { return reward_; }
  [[nodiscard]] const host::Capabilities& caps() const { return caps_; }

 private:
  NicEnv(const NicEnv&);  // fork(): every member's own copy (defaulted)
  void observe_interval();
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
};

// The reward of an interval from progress before/after, the episode's start, and the
// tracked telemetry. Separate so tests can check it by hand.
[[nodiscard]] RewardTerms compute_reward(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                                         const std::vector<TenantProgress>& before,
                                         const std::vector<TenantProgress>& after,
                                         std::uint64_t interval_cycles, std::uint64_t elapsed_cycles,
                                         const TelemetryTracker& tracker);

// The `slowdown` reward's potential: minus the mean over training tenants (solo_rate > 0) of
// their running normalised iteration time (n_i + k) / (u_i + k): n_i = cycles on the NIC
// since `start` x solo_rate (the iterations the tenant would have finished alone in that
// time), u_i = progress units since `start` (iterations finished, plus the fraction of the
// current burst), k = slowdown_prior_iterations. A running estimate of minus the metric
// (control::score_run's mean normalised iteration time, which counts a tenant that
// finished nothing with the time it was there: n_i); -1 at the episode's start and for a
// tenant not yet arrived; 0 with no training tenant. The rewards' sum telescopes:
// episode_steps x (potential at the end + 1).
[[nodiscard]] double slowdown_potential(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                                        const std::vector<TenantProgress>& now);

// The starvation term's potential: minus the *largest* running normalised iteration time
// (n_i + k) / (u_i + k) over the training tenants (the mean of slowdown_potential replaced by
// the maximum): -1 at the episode's start, 0 with no training tenant. Its rewards telescope to
// episode_steps x (1 - the worst tenant's running normalised iteration time at the end), so a
// policy pays for the tenant it starves however many others it speeds up.
[[nodiscard]] double starvation_potential(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                                          const std::vector<TenantProgress>& now);

}  // namespace nicsched::control
