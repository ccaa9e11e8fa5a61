// PPO: the clipped-surrogate losses, the update (rollout, GAE, flatten, epochs of shuffled
// minibatches) and checkpoints. The model and the learner state are in learner.hpp;
// behaviour cloning and the TorchScript export have files of their own.
#include <sstream>

#include "learner.hpp"
#include "nicsched/fileio/file.hpp"
#include "nicsched/ppo/gae.hpp"
#include "nicsched/ppo/losses.hpp"

namespace nicsched::ppo {

using detail::MultiCategorical;
using detail::seconds_since;
using detail::span_of;
using detail::to_tensor;

namespace {

struct LossTensors {
  torch::Tensor total, policy_loss, value_loss, entropy, approx_kl, old_approx_kl, clip_fraction;
};

// The PPO objective for one minibatch, in the order of the algorithm.
LossTensors ppo_losses(const torch::Tensor& new_logp, const torch::Tensor& old_logp,
                       torch::Tensor adv, const torch::Tensor& new_value,
                       const torch::Tensor& old_value, const torch::Tensor& returns,
                       const torch::Tensor& entropy, const PpoConfig& cfg) {
  LossTensors out;
  const auto log_ratio = new_logp - old_logp;
  const auto ratio = log_ratio.exp();
  {
    const torch::NoGradGuard no_grad;
    out.old_approx_kl = (-log_ratio).mean();
    out.approx_kl = ((ratio - 1.0) - log_ratio).mean();
    out.clip_fraction = ((ratio - 1.0).abs() > cfg.clip_coef).to(torch::kFloat32).mean();
  }
  if (cfg.norm_adv && adv.size(0) > 1) adv = (adv - adv.mean()) / (adv.std() + 1e-8);
  const auto pg1 = -adv * ratio;
  const auto pg2 = -adv * torch::clamp(ratio, 1.0 - cfg.clip_coef, 1.0 + cfg.clip_coef);
  out.policy_loss = torch::max(pg1, pg2).mean();
  const auto v_unclipped = (new_value - returns).pow(2);
  if (cfg.clip_vloss) {
    const auto v_clipped =
        old_value + torch::clamp(new_value - old_value, -cfg.clip_coef, cfg.clip_coef);
    out.value_loss = 0.5 * torch::max(v_unclipped, (v_clipped - returns).pow(2)).mean();
  } else {
    out.value_loss = 0.5 * v_unclipped.mean();
  }
  out.entropy = entropy.mean();
  out.total = out.policy_loss - cfg.ent_coef * out.entropy + cfg.vf_coef * out.value_loss;
  return out;
}

}  // namespace

LossTerms evaluate_losses(const LossInputs& in, const PpoConfig& cfg) {
  const torch::NoGradGuard no_grad;
  const auto t = ppo_losses(to_tensor(in.new_log_prob), to_tensor(in.old_log_prob),
                            to_tensor(in.advantages), to_tensor(in.new_values),
                            to_tensor(in.old_values), to_tensor(in.returns),
                            to_tensor(in.entropy), cfg);
  LossTerms out;
  out.policy_loss = t.policy_loss.item<double>();
  out.value_loss = t.value_loss.item<double>();
  out.entropy = t.entropy.item<double>();
  out.total = t.total.item<double>();
  out.approx_kl = t.approx_kl.item<double>();
  out.old_approx_kl = t.old_approx_kl.item<double>();
  out.clip_fraction = t.clip_fraction.item<double>();
  return out;
}

UpdateStats Trainer::Impl::update() {
  if (anchored() && !anchor) {
    throw ConfigError("PPO config: 'anchor_coef' is " + std::to_string(cfg.anchor_coef) +
                      ": the anchor term needs the policy to stay near (Trainer::set_anchor; nicagent train: "
                      "--init-policy, --bc-teacher or --resume)");
  }
  UpdateStats st;
  st.update = ++updates;
  st.num_updates = cfg.num_updates;
  const auto t0 = std::chrono::steady_clock::now();
  // Learning-rate annealing: linear from learning_rate to 0 over the run.
  const double frac =
      cfg.anneal_lr ? 1.0 - static_cast<double>(st.update - 1) / static_cast<double>(cfg.num_updates)
                    : 1.0;
  st.learning_rate = frac * cfg.learning_rate;
  for (auto& group : optimizer->param_groups()) {
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(st.learning_rate);
  }

  // --- rollout ---
  model->eval();
  {
    const torch::NoGradGuard no_grad;
    auto raw = current_obs();
    for (std::int64_t t = 0; t < n_steps; ++t) {
      if (cfg.norm_obs) model->observe(raw);
      const auto x = normalise(raw);
      const auto mask = torch::from_blob(const_cast<std::uint8_t*>(envs.masks().data()),
                                         {n_envs, n_logits}, torch::kUInt8)
                            .clone();
      const MultiCategorical dist(model->logits(x), mask, heads);
      const auto action = dist.sample(generator);
      obs[t].copy_(x);
      masks[t].copy_(mask);
      if (anchored()) anchor_logits[t].copy_(anchor_logits_of(raw, mask));
      actions[t].copy_(action);
      log_probs[t].copy_(dist.log_prob(action));
      values[t].copy_(value(x));

      const auto action_i32 = action.to(torch::kInt32).contiguous();
      envs.step(span_of<int>(action_i32));
      global_step += static_cast<std::uint64_t>(n_envs) * static_cast<std::uint64_t>(comm.size());
      rewards[t].copy_(to_tensor(envs.rewards()));
      const auto term = torch::from_blob(const_cast<std::uint8_t*>(envs.terminated().data()),
                                         {n_envs}, torch::kUInt8)
                            .clone();
      const auto trunc = torch::from_blob(const_cast<std::uint8_t*>(envs.truncated().data()),
                                          {n_envs}, torch::kUInt8)
                             .clone();
      terminated[t].copy_(term);
      ended[t].copy_(term.logical_or(trunc).to(torch::kUInt8));
      raw = current_obs();
      // Truncated episodes bootstrap from the value of their final state.
      if (trunc.any().item<bool>()) {
        const auto final_obs = to_tensor(envs.final_observations()).view({n_envs, obs_size});
        const auto v_final = value(normalise(final_obs));
        next_values[t].copy_(torch::where(trunc > 0, v_final, torch::zeros_like(v_final)));
      } else {
        next_values[t].zero_();
      }
    }
    // V(s_{t+1}) for steps whose episode went on: the next stored state's value.
    const auto v_last = value(normalise(raw)).unsqueeze(0);
    const auto following = torch::cat({values.slice(0, 1), v_last}, 0);
    next_values = torch::where(ended > 0, next_values, following);
  }
  st.rollout_seconds = seconds_since(t0);
  for (auto& ep : envs.take_finished_episodes()) st.episodes.push_back(ep);
  st.mean_step_reward = rewards.mean().item<double>();

  // --- GAE ---
  const auto r_c = rewards.contiguous(), v_c = values.contiguous(),
             nv_c = next_values.contiguous(), term_c = terminated.contiguous(),
             end_c = ended.contiguous();
  GaeInput gin;
  gin.steps = static_cast<std::size_t>(n_steps);
  gin.envs = static_cast<std::size_t>(n_envs);
  gin.rewards = span_of<float>(r_c);
  gin.values = span_of<float>(v_c);
  gin.next_values = span_of<float>(nv_c);
  gin.terminated = span_of<std::uint8_t>(term_c);
  gin.episode_end = span_of<std::uint8_t>(end_c);
  gin.gamma = cfg.gamma;
  gin.lambda = cfg.gae_lambda;
  const GaeResult gae = compute_gae(gin);

  // --- flatten ---
  const std::int64_t batch = n_steps * n_envs;
  const auto b_obs = obs.view({batch, obs_size});
  const auto b_actions = actions.view({batch, n_heads});
  const auto b_masks = masks.view({batch, n_logits});
  const auto b_logp = log_probs.view({batch});
  const auto b_values = values.view({batch});
  const auto b_adv = to_tensor(gae.advantages);
  const auto b_returns = to_tensor(gae.returns);
  const auto b_anchor = anchored() ? anchor_logits.view({batch, n_logits}) : torch::Tensor();

  // --- epochs of shuffled minibatches ---
  const auto t1 = std::chrono::steady_clock::now();
  model->train();
  const auto mb = static_cast<std::int64_t>(cfg.minibatch_size);
  double sum_pg = 0.0, sum_v = 0.0, sum_ent = 0.0, sum_clip = 0.0, sum_anchor_kl = 0.0;
  std::uint64_t minibatches = 0;
  for (std::uint32_t epoch = 0; epoch < cfg.update_epochs; ++epoch) {
    const auto perm = torch::randperm(batch, generator, torch::kInt64);
    for (std::int64_t start = 0; start < batch; start += mb) {
      const auto idx = perm.slice(0, start, start + mb);
      const auto x = b_obs.index_select(0, idx);
      const auto mb_masks = b_masks.index_select(0, idx);
      const MultiCategorical dist(model->logits(x), mb_masks, heads);
      const auto new_logp = dist.log_prob(b_actions.index_select(0, idx));
      const auto new_value = value(x);
      const auto losses = ppo_losses(new_logp, b_logp.index_select(0, idx),
                                     b_adv.index_select(0, idx), new_value,
                                     b_values.index_select(0, idx),
                                     b_returns.index_select(0, idx), dist.entropy(), cfg);
      auto total = losses.total;
      if (anchored()) {
        // The anchor term: KL(anchor || policy) over the minibatch's states.
        const MultiCategorical anchor_dist(b_anchor.index_select(0, idx), mb_masks, heads);
        const auto anchor_kl = anchor_dist.kl_to(dist).mean();
        total = total + cfg.anchor_coef * anchor_kl;
        sum_anchor_kl += anchor_kl.item<double>();
      }
      optimizer->zero_grad();
      total.backward();
      average_gradients();
      if (cfg.max_grad_norm > 0.0) {
        torch::nn::utils::clip_grad_norm_(model->parameters(), cfg.max_grad_norm);
      }
      optimizer->step();
      sum_pg += losses.policy_loss.item<double>();
      sum_v += losses.value_loss.item<double>();
      sum_ent += losses.entropy.item<double>();
      sum_clip += losses.clip_fraction.item<double>();
      st.approx_kl = losses.approx_kl.item<double>();
      st.old_approx_kl = losses.old_approx_kl.item<double>();
      ++minibatches;
    }
    st.epochs_run = epoch + 1;
    if (cfg.use_target_kl && mean_over_ranks(st.approx_kl) > cfg.target_kl) break;
  }
  const auto n_mb = static_cast<double>(minibatches);
  st.policy_loss = sum_pg / n_mb;
  st.value_loss = sum_v / n_mb;
  st.entropy = sum_ent / n_mb;
  st.clip_fraction = sum_clip / n_mb;
  st.anchor_kl = anchored() ? sum_anchor_kl / n_mb : std::nan("");
  const double var_y = b_returns.var(0, false).item<double>();
  st.explained_variance =
      var_y == 0.0 ? std::nan("")
                   : 1.0 - (b_returns - b_values).var(0, false).item<double>() / var_y;
  st.update_seconds = seconds_since(t1);
  st.global_step = global_step;
  st.steps_per_second =
      static_cast<double>(batch * comm.size()) / std::max(1e-9, st.rollout_seconds + st.update_seconds);
  return st;
}

Trainer::Trainer(PpoConfig cfg, std::vector<std::unique_ptr<control::Env>> envs, const TenantLayout& layout) {
  cfg.validate();
  impl_ = std::make_unique<Impl>(std::move(cfg), std::move(envs), layout);
}
Trainer::~Trainer() = default;
const PpoConfig& Trainer::config() const { return impl_->cfg; }
bool Trainer::finished() const { return impl_->updates >= impl_->cfg.num_updates; }
std::uint64_t Trainer::global_step() const { return impl_->global_step; }
std::uint64_t Trainer::updates_done() const { return impl_->updates; }
control::VecEnv& Trainer::envs() { return impl_->envs; }
UpdateStats Trainer::update() { return impl_->update(); }
void Trainer::set_anchor(std::shared_ptr<const TrainedPolicy> anchor) {
  const std::vector<int> heads(impl_->heads.begin(), impl_->heads.end());
  if (!anchor || !anchor->fits(static_cast<std::size_t>(impl_->obs_size), heads)) {
    throw ConfigError("Trainer::set_anchor: the anchor policy does not fit this trainer's observation (" +
                      std::to_string(impl_->obs_size) + " floats) and action heads");
  }
  impl_->anchor = std::move(anchor);
}
int Trainer::rank() const { return impl_->comm.rank(); }
int Trainer::world_size() const { return impl_->comm.size(); }
const std::string& Trainer::world_description() const { return impl_->comm.description(); }
std::vector<float> Trainer::parameters() const {
  std::vector<float> out;
  for (const auto& p : impl_->model->parameters()) {
    const auto c = p.detach().contiguous();
    out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

void Trainer::save_checkpoint(const std::filesystem::path& file) const {
  torch::serialize::OutputArchive archive, model_archive, optim_archive;
  impl_->model->save(model_archive);
  impl_->optimizer->save(optim_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", optim_archive);
  archive.write("global_step", torch::tensor(static_cast<std::int64_t>(impl_->global_step)));
  archive.write("updates", torch::tensor(static_cast<std::int64_t>(impl_->updates)));
  archive.write("obs_size", torch::tensor(impl_->obs_size));
  archive.write("head_sizes", torch::tensor(std::vector<std::int64_t>(impl_->heads.begin(),
                                                                      impl_->heads.end())));
  archive.write("rng_state", impl_->generator.get_state());
  const auto& started = impl_->envs.episodes_started();
  archive.write("episodes_started",
                torch::tensor(std::vector<std::int64_t>(started.begin(), started.end()), torch::kInt64));
  std::ostringstream bytes;
  archive.save_to(bytes);
  fileio::write_file_atomically(file, bytes.str());
}

void Trainer::load_checkpoint(const std::filesystem::path& file) {
  torch::serialize::InputArchive archive, model_archive, optim_archive;
  try {
    fileio::check_readable_file(file, kMaxModelFileBytes, "the checkpoint");
  } catch (const fileio::FileError& e) {
    throw CheckpointError(e.what());
  }
  try {
    archive.load_from(file.string());
  } catch (const c10::Error&) {
    throw CheckpointError(file.string() + ": not a readable checkpoint");
  }
  torch::Tensor global_step, updates, obs_size, head_sizes, rng_state;
  archive.read("obs_size", obs_size);
  archive.read("head_sizes", head_sizes);
  const std::vector<std::int64_t> want(impl_->heads.begin(), impl_->heads.end());
  if (obs_size.item<std::int64_t>() != impl_->obs_size ||
      !torch::equal(head_sizes, torch::tensor(want))) {
    throw CheckpointError(file.string() +
                          ": checkpoint was made for a different observation size or action space");
  }
  try {
    archive.read("model", model_archive);
    archive.read("optimizer", optim_archive);
    archive.read("global_step", global_step);
    archive.read("updates", updates);
    archive.read("rng_state", rng_state);
    impl_->model->load(model_archive);
    impl_->optimizer->load(optim_archive);
  } catch (const c10::Error& e) {
    throw CheckpointError(file.string() + ": checkpoint does not match this learner (" +
                          e.what_without_backtrace() + ")");
  }
  impl_->global_step = static_cast<std::uint64_t>(global_step.item<std::int64_t>());
  impl_->updates = static_cast<std::uint64_t>(updates.item<std::int64_t>());
  impl_->generator.set_state(rng_state);
  // The envs continue their episode seeds (checkpoints older than this key restart them).
  torch::Tensor started;
  if (archive.try_read("episodes_started", started) && started.numel() == static_cast<std::int64_t>(impl_->n_envs)) {
    const auto c = started.to(torch::kInt64).contiguous();
    std::vector<std::uint64_t> counts(c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel());
    impl_->envs.restart_episodes(counts);
  }
}

}  // namespace nicsched::ppo
