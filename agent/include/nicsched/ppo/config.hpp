// PpoConfig: every knob of the PPO learner, one place, each with its default and the
// reason it exists. Loaded from YAML by load_ppo_config (unknown keys are errors).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace nicsched::ppo {

// A config file or value that is not acceptable; the message names file, line and key.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PpoConfig {
  // --- run ---
  std::uint64_t seed = 1;               // seeds torch, action sampling and env episodes
  std::uint64_t total_steps = 500000;   // environment steps over all envs
  std::uint32_t num_envs = 8;           // parallel environments (vectorised rollout)
  std::uint32_t num_steps = 128;        // rollout length per env per update
  std::uint32_t torch_threads = 1;      // the learner's threads: libtorch's (torch::set_num_threads) and OpenBLAS's
  std::uint32_t env_threads = 0;        // threads stepping envs; 0 = one per env
  // --- optimisation ---
  double learning_rate = 2.5e-4;        // Adam step size at the start
  bool anneal_lr = true;                // linear decay of the step size to 0 over the run
  double adam_eps = 1e-5;               // Adam epsilon (1e-5, not torch's 1e-8, as in baselines)
  std::uint32_t update_epochs = 4;      // passes over each rollout
  std::uint32_t num_minibatches = 4;    // minibatches per pass
  double max_grad_norm = 0.5;           // global gradient-norm clip; <= 0 disables
  // --- returns ---
  double gamma = 0.99;                  // discount
  double gae_lambda = 0.95;             // GAE(lambda) bias/variance trade-off
  // --- losses ---
  bool norm_adv = true;                 // normalise advantages per minibatch
  double clip_coef = 0.2;               // PPO ratio clip
  bool clip_vloss = true;               // clip the value update around the old value
  double ent_coef = 0.01;               // entropy bonus weight
  double vf_coef = 0.5;                 // value loss weight
  bool use_target_kl = false;           // stop the epochs early when approx-KL > target_kl
  double target_kl = 0.015;             // the approx-KL threshold when use_target_kl
  // Fine-tuning near an imitated policy: anchor_coef * KL(anchor || current policy), the
  // mean over a minibatch's states of the KL divergence from the anchor's action
  // distribution (summed over heads), is added to the loss. The anchor is the frozen
  // policy PPO starts from (Trainer::set_anchor; nicagent train keeps it in OUT/anchor/).
  // 0: no anchor term, the update of plain PPO.
  double anchor_coef = 0.0;
  // --- training draws (nicagent train --family; docs/agent.md, "Draw weighting") ---
  // "uniform": a fresh family draw every episode. "trailing": episodes draw from a pool of
  // the family's first draw_pool training seeds, draw i with probability
  // (1 - draw_mix) / N + draw_mix * gap_i / sum_j gap_j, gap_i = max(0, policy_i / best_i - 1):
  // best_i the best of draw_baselines on draw i, policy_i the policy's last measured score
  // there (both scored as model selection scores, on draw_seeds workload seeds), measured
  // before the first update and every draw_every updates.
  std::string draw_weights = "uniform";
  std::uint32_t draw_pool = 32;         // draws in the pool
  double draw_mix = 0.5;                // the share of episodes drawn by trailing gap
  std::uint32_t draw_every = 10;        // updates between measurements of the policy on the pool
  std::uint32_t draw_seeds = 1;         // workload seeds each draw is scored on
  std::vector<std::string> draw_baselines;  // whose best is the target; empty: the env's strategies
  // --- network and observations ---
  std::vector<std::uint32_t> hidden_sizes{64, 64};  // tanh MLP, separate actor and critic
  // "mlp": MLPs over the flat observation (tenant slots are fixed positions);
  // "set": permutation-equivariant over tenants (shared per-tenant encoder, mean/max
  // context over present tenants, per-tenant heads; learner.hpp), any tenant order/count.
  std::string network = "mlp";
  bool norm_obs = true;                 // running mean/var observation normalisation
  double obs_clip = 10.0;               // clip normalised observations to +-obs_clip
  // --- checkpoints ---
  std::uint32_t checkpoint_every = 10;  // updates between checkpoints (0: only at the end)

  // Derived values, computed once by validate().
  std::uint64_t batch_size = 0;         // num_envs * num_steps
  std::uint64_t minibatch_size = 0;     // batch_size / num_minibatches
  std::uint64_t num_updates = 0;        // total_steps / batch_size

  // Checks ranges and fills the derived values; throws ConfigError naming the key.
  void validate();
};

// Reads a YAML mapping of the fields above. Unknown keys, wrong types and bad values
// are ConfigErrors naming the file, the line and the key.
[[nodiscard]] PpoConfig load_ppo_config(const std::filesystem::path& file);
// Writes every field (not the derived ones) as YAML, loadable by load_ppo_config.
[[nodiscard]] std::string ppo_config_yaml(const PpoConfig& cfg);

// DAgger with the lookahead oracle's labels (nicagent dagger; docs/agent.md, "DAgger").
// Each iteration the student runs `draws` fresh training draws (whole runs, eval's
// stopping rule), the oracle labels every `every`-th of its decisions
// (control::run_labelled), the labels join those of the earlier iterations and a fresh
// policy is fitted to all of them; that policy is the next iteration's student.
struct DaggerConfig {
  std::uint32_t iterations = 3;        // rounds of roll out, label, aggregate, fit
  std::uint32_t draws = 8;             // training draws the student runs per iteration (new ones each round)
  // Where the labels come from: `lookahead` (the oracle's choice on a fork every k
  // decisions, control::run_labelled) or `scenario` (one label per draw: the strategy
  // best alone over the whole run on label_seeds workload seeds, control::run_scenario_labelled;
  // horizon, continuation and continue_with then do not apply).
  std::string labels = "lookahead";
  std::uint32_t label_seeds = 2;       // with labels: scenario, the workload seeds each strategy is scored on
  std::uint64_t every = 250;           // k: decisions between labelled states (scenario labels: from decision 0)
  std::uint64_t horizon = 250;         // H: decisions each strategy plays on its copy before the default rule
  std::uint64_t continuation = 0;      // decisions of the continuation after H (0: to the run's end, the oracle's guarantee)
  // What a copy plays after H: `default` (the oracle's default rule, the best strategy
  // alone) or `student` (the policy being labelled; control::LabelContinuation).
  std::string continue_with = "default";
  // Per-row weight of the fit: `none` (every row 1) or `gap` (the row's score gap between
  // the best and second-best strategy, LabelledState::gap, over the rows' mean gap).
  std::string weights = "none";
  std::uint64_t min_iterations = 20;   // a run ends once every training tenant finished this many (eval's rule)
  std::uint32_t epochs = 50;           // passes over the aggregate per fit
  double learning_rate = 1e-3;         // the fit's Adam step size
  void validate();                     // ConfigError naming the key
};
// Reads a YAML mapping of DaggerConfig's fields (ConfigErrors as load_ppo_config's).
[[nodiscard]] DaggerConfig load_dagger_config(const std::filesystem::path& file);
[[nodiscard]] std::string dagger_config_yaml(const DaggerConfig& cfg);

}  // namespace nicsched::ppo
