// Trainer: PPO (clipped surrogate, GAE, CleanRL's implementation details) over a
// vectorised set of control::Env. Torch stays behind this header (pimpl), so users of
// the learner compile without the torch headers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nicsched/control/env.hpp"
#include "nicsched/control/vec_env.hpp"
#include "nicsched/ppo/config.hpp"

namespace nicsched::ppo {

class TrainedPolicy;

// A checkpoint or exported policy that cannot be written or read back.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The largest checkpoint or TorchScript policy file a loader opens (the default network's
// are under 1 MB); anything that is not a regular file is refused too (fileio).
inline constexpr std::uint64_t kMaxModelFileBytes = std::uint64_t{256} << 20;

// What one update (one rollout + its epochs of minibatches) did.
struct UpdateStats {
  std::uint64_t update = 0;             // 1-based index of this update
  std::uint64_t num_updates = 0;        // updates in the whole run
  std::uint64_t global_step = 0;        // env steps so far, over all envs
  double learning_rate = 0.0;           // step size used in this update
  double policy_loss = 0.0;             // mean over the minibatches run
  double value_loss = 0.0;
  double entropy = 0.0;
  double approx_kl = 0.0;               // of the last minibatch (the early-stop signal)
  double old_approx_kl = 0.0;
  double clip_fraction = 0.0;           // mean over the minibatches run
  double anchor_kl = 0.0;               // mean over the minibatches run of KL(anchor || policy), before
                                        // each step; NaN without the anchor term (anchor_coef 0)
  double explained_variance = 0.0;      // of the value function on this rollout
  std::uint32_t epochs_run = 0;         // < update_epochs when target-KL stopped early
  double mean_step_reward = 0.0;        // mean reward per env step in the rollout
  std::vector<control::EpisodeRecord> episodes;  // episodes that ended in the rollout
  double rollout_seconds = 0.0;
  double update_seconds = 0.0;
  double steps_per_second = 0.0;        // env steps / (rollout + update) wall time
};

// What behaviour cloning (Trainer::behaviour_clone) did.
struct BcStats {
  std::uint64_t samples = 0;            // (observation, teacher action) pairs collected
  std::uint32_t epochs = 0;
  double first_loss = 0.0;              // cross-entropy of the teacher's actions, first epoch
  double final_loss = 0.0;              // ... and last epoch (mean over minibatches)
  double final_value_loss = 0.0;        // 0.5 (V - discounted return)^2, last epoch
  double accuracy = 0.0;                // greedy action == teacher's, over heads with a choice
  double mean_step_reward = 0.0;        // the teacher's mean reward per step
  double collect_seconds = 0.0;
  double train_seconds = 0.0;
};

// How tenants sit in observations and actions: used by the set network
// (PpoConfig::network = "set"; tenant feature 0 must be the tenant's presence flag, 1 or
// 0, in every frame) and by behaviour-cloning augmentation (copies > 0).
// Data augmentation for behaviour cloning from a teacher that treats tenants alike:
// each copy renumbers the tenants by a random permutation, moving every tenant's block of
// observation features (in every history frame), its action heads and its mask logits
// together. This teaches a flat MLP the teacher's tenant symmetry and gives every tenant
// slot observation statistics, so the policy also works on scenarios whose tenants sit in
// slots that were idle in training.
struct TenantLayout {
  std::size_t frames = 0;            // history frames in an observation
  std::size_t frame_size = 0;        // floats per frame
  std::size_t tenants = 0;
  std::size_t tenant_features = 0;   // floats per tenant, at t * tenant_features in a frame
  std::size_t heads_per_tenant = 0;  // action heads t * heads_per_tenant ...
  std::size_t logits_per_tenant = 0; // mask/logit entries t * logits_per_tenant ...
  std::uint32_t copies = 0;          // permuted copies added (0: none)
};

// Labelled rows for a supervised fit (Trainer::fit_labels): row r's observation, its
// action (one value per head) and its mask, each row after row.
struct LabelledBatch {
  std::size_t rows = 0;
  std::span<const float> observations;  // rows x observation size
  std::span<const int> actions;         // rows x heads
  std::span<const std::uint8_t> masks;  // rows x mask size (the logits)
  std::span<const float> weights;       // per row, its cross-entropy's weight; empty: every row 1
};

class Trainer {
 public:
  // cfg is validated here. envs: cfg.num_envs environments of one shape. layout: how
  // tenants sit in observations and actions; needed by cfg.network == "set" (the
  // permutation-equivariant network), ignored by "mlp" (ConfigError when it does not fit).
  Trainer(PpoConfig cfg, std::vector<std::unique_ptr<control::Env>> envs, const TenantLayout& layout = {});
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  [[nodiscard]] const PpoConfig& config() const;
  [[nodiscard]] bool finished() const;                // all cfg.num_updates done
  [[nodiscard]] std::uint64_t global_step() const;
  [[nodiscard]] std::uint64_t updates_done() const;
  [[nodiscard]] control::VecEnv& envs();
  // Data-parallel training under mpirun/srun (docs/agent.md): this process's rank and the
  // number of ranks (0 and 1 without MPI), and a line for the log saying which.
  // With several ranks, total_steps and global_step count the env steps of all ranks,
  // and only rank 0 should write checkpoints and exports (they are identical).
  [[nodiscard]] int rank() const;
  [[nodiscard]] int world_size() const;
  [[nodiscard]] const std::string& world_description() const;
  // A flat copy of the model's parameters (consistency checks across ranks, tests).
  [[nodiscard]] std::vector<float> parameters() const;

  // One rollout of num_steps per env, GAE, then update_epochs of minibatches.
  // With cfg.anchor_coef > 0, ConfigError unless set_anchor was called.
  UpdateStats update();

  // The anchor of the anchor term (PpoConfig::anchor_coef): a frozen exported policy whose
  // action distribution on the rollout's states the updates are kept near (it sees the raw
  // observations and normalises them itself). Ignored while anchor_coef is 0. ConfigError
  // when it does not fit this trainer's observation size and action heads.
  void set_anchor(std::shared_ptr<const TrainedPolicy> anchor);

  // Fine-tuning an exported policy (nicagent train --init-policy): its weights (actor and
  // critic) and observation statistics replace the fresh network's; the statistics then
  // continue as if measured on kStartPolicyObservations observations, so that the first
  // rollouts barely move them and PPO starts from the policy's own decisions. The optimiser,
  // counters and RNG are left as they are. CheckpointError naming the file when the policy
  // is not of this trainer's network (network, hidden_sizes, sizes, norm_obs) or the loaded
  // learner does not compute its logits (to 1e-5) on random observations (another obs_clip).
  void start_from_policy(const std::filesystem::path& dir);
  static constexpr double kStartPolicyObservations = 1e6;

  // Behaviour cloning, a warm start before PPO: runs every env for steps_per_env steps
  // taking its teacher's action (Env::expert_action; every env must have a teacher),
  // then fits the actor to those actions (cross-entropy over the masked heads) and the
  // critic to the teacher's discounted returns (truncated at the end of collection), for
  // `epochs` passes of minibatches (cfg.minibatch_size) with its own Adam at `lr`.
  // Updates the observation statistics; does not count as PPO steps or updates.
  BcStats behaviour_clone(std::uint64_t steps_per_env, std::uint32_t epochs, double lr,
                          const TenantLayout& augment = {});

  // DAgger's fit: the actor fitted to labelled rows collected elsewhere (the critic is
  // left as it is), as behaviour_clone fits it, each row's cross-entropy times its weight;
  // the observation statistics are updated from the rows. ConfigError for no rows or sizes
  // that are not this trainer's.
  BcStats fit_labels(const LabelledBatch& data, std::uint32_t epochs, double lr);

  // Model, optimiser, observation statistics, counters and RNG state in one file,
  // written to a temporary name and renamed into place.
  void save_checkpoint(const std::filesystem::path& file) const;
  // Restores what save_checkpoint wrote; the sizes must match this trainer's.
  void load_checkpoint(const std::filesystem::path& file);
  // Writes dir/policy.pt (TorchScript: forward(obs, mask) -> (logits, value) and
  // act(obs, mask) -> greedy actions, observation normalisation included) and
  // dir/policy.yaml (sizes, plus env_yaml under the key `env`), atomically each.
  void export_policy(const std::filesystem::path& dir, const std::string& env_yaml) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nicsched::ppo
