// The PPO learner: actor-critic model, masked multi-discrete distribution, losses,
// rollout, GAE, update, checkpoints and TorchScript export. The one torch TU of training.
#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "nicsched/fileio/file.hpp"
#include "nicsched/ppo/gae.hpp"
#include "nicsched/ppo/losses.hpp"
#include "nicsched/ppo/trainer.hpp"

namespace nicsched::ppo {
namespace {

constexpr double kMaskedLogit = -1e8;  // logit of a masked-out action: probability 0

// Running mean and variance of observations (parallel Welford), float64, kept as
// module buffers so checkpoints and exports carry them.
struct ObsNormImpl : torch::nn::Module {
  explicit ObsNormImpl(std::int64_t size) {
    mean = register_buffer("mean", torch::zeros({size}, torch::kFloat64));
    var = register_buffer("var", torch::ones({size}, torch::kFloat64));
    count = register_buffer("count", torch::full({1}, 1e-4, torch::kFloat64));
  }
  void observe(const torch::Tensor& batch) {  // [B, size], float32
    const auto x = batch.to(torch::kFloat64);
    const auto b_mean = x.mean(0);
    const auto b_var = x.var(0, /*unbiased=*/false);
    const double b_count = static_cast<double>(x.size(0));
    const auto delta = b_mean - mean;
    const auto tot = count + b_count;
    const auto new_mean = mean + delta * b_count / tot;
    const auto m2 = var * count + b_var * b_count + delta.pow(2) * count * b_count / tot;
    mean.copy_(new_mean);
    var.copy_(m2 / tot);
    count.copy_(tot);
  }
  [[nodiscard]] torch::Tensor normalise(const torch::Tensor& obs, double clip) const {
    const auto z = (obs - mean.to(torch::kFloat32)) / torch::sqrt(var.to(torch::kFloat32) + 1e-8);
    return z.clamp(-clip, clip);
  }
  torch::Tensor mean, var, count;
};
TORCH_MODULE(ObsNorm);

torch::nn::Linear make_linear(std::int64_t in, std::int64_t out, double gain) {
  torch::nn::Linear layer(in, out);
  torch::nn::init::orthogonal_(layer->weight, gain);
  torch::nn::init::constant_(layer->bias, 0.0);
  return layer;
}

// Separate tanh MLPs for actor and critic, as in CleanRL's PPO; orthogonal init with
// gain sqrt(2) in hidden layers, 0.01 on the actor head (near-uniform first policy)
// and 1.0 on the critic head.
torch::nn::Sequential make_mlp(std::int64_t in, const std::vector<std::uint32_t>& hidden,
                               std::int64_t out, double head_gain) {
  torch::nn::Sequential seq;
  std::int64_t width = in;
  for (auto h : hidden) {
    seq->push_back(make_linear(width, h, std::sqrt(2.0)));
    seq->push_back(torch::nn::Tanh());
    width = h;
  }
  seq->push_back(make_linear(width, out, head_gain));
  return seq;
}

struct ActorCriticImpl : torch::nn::Module {
  ActorCriticImpl(std::int64_t obs_size, const std::vector<std::uint32_t>& hidden,
                  std::vector<int> heads)
      : head_sizes(std::move(heads)) {
    std::int64_t total = 0;
    for (int h : head_sizes) total += h;
    actor = register_module("actor", make_mlp(obs_size, hidden, total, 0.01));
    critic = register_module("critic", make_mlp(obs_size, hidden, 1, 1.0));
    obs_norm = register_module("obs_norm", ObsNorm(obs_size));
  }
  torch::nn::Sequential actor{nullptr}, critic{nullptr};
  ObsNorm obs_norm{nullptr};
  std::vector<int> head_sizes;
};
TORCH_MODULE(ActorCritic);

// Masked multi-discrete categorical: one log-softmax per head over its slice.
struct MultiCategorical {
  std::vector<torch::Tensor> log_probs;  // per head [B, size_h]

  MultiCategorical(const torch::Tensor& logits, const torch::Tensor& mask,
                   const std::vector<int>& heads) {
    const auto masked = torch::where(mask > 0, logits, torch::full_like(logits, kMaskedLogit));
    std::int64_t off = 0;
    for (int h : heads) {
      log_probs.push_back(torch::log_softmax(masked.slice(1, off, off + h), 1));
      off += h;
    }
  }
  [[nodiscard]] torch::Tensor sample(const at::Generator& gen) const {  // [B, H] int64
    std::vector<torch::Tensor> cols;
    for (const auto& lp : log_probs) {
      cols.push_back(torch::multinomial(lp.exp(), 1, false, gen).squeeze(1));
    }
    return torch::stack(cols, 1);
  }
  [[nodiscard]] torch::Tensor log_prob(const torch::Tensor& actions) const {  // [B]
    auto total = torch::zeros({actions.size(0)});
    for (std::size_t h = 0; h < log_probs.size(); ++h) {
      const auto a = actions.select(1, static_cast<std::int64_t>(h)).unsqueeze(1);
      total = total + log_probs[h].gather(1, a).squeeze(1);
    }
    return total;
  }
  [[nodiscard]] torch::Tensor entropy() const {  // [B]
    auto total = torch::zeros({log_probs[0].size(0)});
    for (const auto& lp : log_probs) total = total - (lp.exp() * lp).sum(1);
    return total;
  }
};

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

torch::Tensor to_tensor(std::span<const float> v) {
  return torch::from_blob(const_cast<float*>(v.data()), {static_cast<std::int64_t>(v.size())},
                          torch::kFloat32)
      .clone();
}

template <typename T>
std::span<const T> span_of(const torch::Tensor& t) {
  return {t.data_ptr<T>(), static_cast<std::size_t>(t.numel())};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// TorchScript source of the exported policy: the same computation as the trained
// model (normalise, MLPs, masking) with weights as module parameters.
std::string policy_script(const PpoConfig& cfg, const std::vector<int>& heads) {
  std::ostringstream s;
  const auto n_layers = cfg.hidden_sizes.size();
  auto mlp = [&](const std::string& name, const std::string& out) {
    s << "        h = x\n";
    for (std::size_t i = 0; i < n_layers; ++i) {
      s << "        h = torch.tanh(torch.addmm(self." << name << "_b" << i << ", h, self." << name
        << "_w" << i << ".t()))\n";
    }
    s << "        " << out << " = torch.addmm(self." << name << "_b" << n_layers << ", h, self."
      << name << "_w" << n_layers << ".t())\n";
  };
  s << "def forward(self, obs: Tensor, mask: Tensor) -> Tuple[Tensor, Tensor]:\n";
  if (cfg.norm_obs) {
    s << "        x = torch.clamp((obs - self.obs_mean) / torch.sqrt(self.obs_var + 1e-8), "
      << -cfg.obs_clip << ", " << cfg.obs_clip << ")\n";
  } else {
    s << "        x = obs\n";
  }
  mlp("actor", "logits");
  s << "        logits = torch.where(mask > 0, logits, torch.full_like(logits, " << kMaskedLogit
    << "))\n";
  mlp("critic", "value");
  s << "        return logits, value.squeeze(1)\n\n";
  s << "def act(self, obs: Tensor, mask: Tensor) -> Tensor:\n";
  s << "        logits, value = self.forward(obs, mask)\n";
  s << "        return torch.stack([";
  int off = 0;
  for (std::size_t h = 0; h < heads.size(); ++h) {
    s << (h ? ", " : "") << "torch.argmax(logits[:, " << off << ":" << off + heads[h] << "], 1)";
    off += heads[h];
  }
  s << "], 1)\n";
  return s.str();
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

struct Trainer::Impl {
  PpoConfig cfg;
  control::VecEnv envs;
  std::int64_t obs_size;
  std::vector<int> heads;
  std::int64_t n_heads, n_logits, n_envs, n_steps;
  ActorCritic model{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::uint64_t global_step = 0;
  std::uint64_t updates = 0;
  // The learner's own random stream (action sampling, minibatch shuffles), so that
  // several trainers in one process do not disturb each other's runs.
  at::Generator generator;
  // Rollout storage, [T, N, ...]
  torch::Tensor obs, actions, masks, log_probs, rewards, values, next_values, terminated, ended;

  Impl(PpoConfig c, std::vector<std::unique_ptr<control::Env>> e)
      : cfg(std::move(c)), envs(std::move(e), cfg.seed, cfg.env_threads) {
    if (envs.size() != cfg.num_envs) {
      throw ConfigError("Trainer: config asks for num_envs = " + std::to_string(cfg.num_envs) +
                        " but " + std::to_string(envs.size()) + " environments were given");
    }
    torch::set_num_threads(static_cast<int>(cfg.torch_threads));
    torch::manual_seed(cfg.seed);  // weight initialisation
    generator = at::make_generator<at::CPUGeneratorImpl>(cfg.seed);
    obs_size = static_cast<std::int64_t>(envs.observation_size());
    heads = envs.action_space().head_sizes;
    n_heads = static_cast<std::int64_t>(heads.size());
    n_logits = static_cast<std::int64_t>(envs.action_space().total());
    n_envs = cfg.num_envs;
    n_steps = cfg.num_steps;
    model = ActorCritic(obs_size, cfg.hidden_sizes, heads);
    optimizer = std::make_unique<torch::optim::Adam>(
        model->parameters(), torch::optim::AdamOptions(cfg.learning_rate).eps(cfg.adam_eps));
    obs = torch::zeros({n_steps, n_envs, obs_size});
    actions = torch::zeros({n_steps, n_envs, n_heads}, torch::kInt64);
    masks = torch::zeros({n_steps, n_envs, n_logits}, torch::kUInt8);
    log_probs = torch::zeros({n_steps, n_envs});
    rewards = torch::zeros({n_steps, n_envs});
    values = torch::zeros({n_steps, n_envs});
    next_values = torch::zeros({n_steps, n_envs});
    terminated = torch::zeros({n_steps, n_envs}, torch::kUInt8);
    ended = torch::zeros({n_steps, n_envs}, torch::kUInt8);
    envs.reset();
  }

  [[nodiscard]] torch::Tensor current_obs() const {
    return to_tensor(envs.observations()).view({n_envs, obs_size});
  }
  [[nodiscard]] torch::Tensor normalise(const torch::Tensor& raw) const {
    return cfg.norm_obs ? model->obs_norm->normalise(raw, cfg.obs_clip) : raw;
  }
  [[nodiscard]] torch::Tensor value(const torch::Tensor& x) {
    return model->critic->forward(x).squeeze(1);
  }

  UpdateStats update() {
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
        if (cfg.norm_obs) model->obs_norm->observe(raw);
        const auto x = normalise(raw);
        const auto mask = torch::from_blob(const_cast<std::uint8_t*>(envs.masks().data()),
                                           {n_envs, n_logits}, torch::kUInt8)
                              .clone();
        const MultiCategorical dist(model->actor->forward(x), mask, heads);
        const auto action = dist.sample(generator);
        obs[t].copy_(x);
        masks[t].copy_(mask);
        actions[t].copy_(action);
        log_probs[t].copy_(dist.log_prob(action));
        values[t].copy_(value(x));

        const auto action_i32 = action.to(torch::kInt32).contiguous();
        envs.step(span_of<int>(action_i32));
        global_step += static_cast<std::uint64_t>(n_envs);
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

    // --- epochs of shuffled minibatches ---
    const auto t1 = std::chrono::steady_clock::now();
    model->train();
    const auto mb = static_cast<std::int64_t>(cfg.minibatch_size);
    double sum_pg = 0.0, sum_v = 0.0, sum_ent = 0.0, sum_clip = 0.0;
    std::uint64_t minibatches = 0;
    for (std::uint32_t epoch = 0; epoch < cfg.update_epochs; ++epoch) {
      const auto perm = torch::randperm(batch, generator, torch::kInt64);
      for (std::int64_t start = 0; start < batch; start += mb) {
        const auto idx = perm.slice(0, start, start + mb);
        const auto x = b_obs.index_select(0, idx);
        const MultiCategorical dist(model->actor->forward(x), b_masks.index_select(0, idx), heads);
        const auto new_logp = dist.log_prob(b_actions.index_select(0, idx));
        const auto new_value = value(x);
        const auto losses = ppo_losses(new_logp, b_logp.index_select(0, idx),
                                       b_adv.index_select(0, idx), new_value,
                                       b_values.index_select(0, idx),
                                       b_returns.index_select(0, idx), dist.entropy(), cfg);
        optimizer->zero_grad();
        losses.total.backward();
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
      if (cfg.use_target_kl && st.approx_kl > cfg.target_kl) break;
    }
    const auto n_mb = static_cast<double>(minibatches);
    st.policy_loss = sum_pg / n_mb;
    st.value_loss = sum_v / n_mb;
    st.entropy = sum_ent / n_mb;
    st.clip_fraction = sum_clip / n_mb;
    const double var_y = b_returns.var(0, false).item<double>();
    st.explained_variance =
        var_y == 0.0 ? std::nan("")
                     : 1.0 - (b_returns - b_values).var(0, false).item<double>() / var_y;
    st.update_seconds = seconds_since(t1);
    st.global_step = global_step;
    st.steps_per_second =
        static_cast<double>(batch) / std::max(1e-9, st.rollout_seconds + st.update_seconds);
    return st;
  }
};

BcStats Trainer::behaviour_clone(std::uint64_t steps_per_env, std::uint32_t epochs, double lr,
                                 const TenantLayout& augment) {
  auto& im = *impl_;
  BcStats st;
  const auto t0 = std::chrono::steady_clock::now();
  const auto n_steps = static_cast<std::int64_t>(steps_per_env);
  const auto n_envs = im.n_envs;
  auto raw_obs = torch::zeros({n_steps, n_envs, im.obs_size});
  auto b_actions = torch::zeros({n_steps, n_envs, im.n_heads}, torch::kInt64);
  auto b_masks = torch::zeros({n_steps, n_envs, im.n_logits}, torch::kUInt8);
  auto rewards = torch::zeros({n_steps, n_envs});
  auto ended = torch::zeros({n_steps, n_envs}, torch::kUInt8);
  std::vector<int> act(static_cast<std::size_t>(n_envs * im.n_heads));
  for (std::int64_t t = 0; t < n_steps; ++t) {
    const auto raw = im.current_obs();
    raw_obs[t].copy_(raw);
    b_masks[t].copy_(torch::from_blob(const_cast<std::uint8_t*>(im.envs.masks().data()), {n_envs, im.n_logits},
                                      torch::kUInt8));
    for (std::int64_t e = 0; e < n_envs; ++e) {
      const std::span<int> out(act.data() + e * im.n_heads, static_cast<std::size_t>(im.n_heads));
      if (!im.envs.env(static_cast<std::size_t>(e)).expert_action(out)) {
        throw ConfigError("behaviour cloning: environment " + std::to_string(e) + " has no teacher");
      }
    }
    b_actions[t].copy_(torch::tensor(std::vector<std::int64_t>(act.begin(), act.end())).view({n_envs, im.n_heads}));
    im.envs.step(act);
    rewards[t].copy_(to_tensor(im.envs.rewards()));
    std::vector<std::uint8_t> end(static_cast<std::size_t>(n_envs));
    for (std::size_t e = 0; e < end.size(); ++e) end[e] = im.envs.terminated()[e] || im.envs.truncated()[e];
    ended[t].copy_(torch::tensor(std::vector<std::int64_t>(end.begin(), end.end())).to(torch::kUInt8));
  }
  (void)im.envs.take_finished_episodes();
  st.collect_seconds = seconds_since(t0);
  st.mean_step_reward = rewards.mean().item<double>();
  // Discounted reward-to-go inside each episode (no bootstrap past the collection's end).
  auto returns = torch::zeros({n_steps, n_envs});
  auto running = torch::zeros({n_envs});
  for (std::int64_t t = n_steps - 1; t >= 0; --t) {
    running = rewards[t] + im.cfg.gamma * running * (1 - ended[t].to(torch::kFloat32));
    returns[t].copy_(running);
  }
  std::int64_t batch = n_steps * n_envs;
  auto all_obs = raw_obs.view({batch, im.obs_size});
  auto actions = b_actions.view({batch, im.n_heads});
  auto masks = b_masks.view({batch, im.n_logits});
  auto ret = returns.view({batch});
  if (augment.copies > 0) {
    const auto& L = augment;
    if (L.frames * L.frame_size != static_cast<std::size_t>(im.obs_size) ||
        L.tenants * L.heads_per_tenant != static_cast<std::size_t>(im.n_heads) ||
        L.tenants * L.logits_per_tenant != static_cast<std::size_t>(im.n_logits) ||
        L.tenants * L.tenant_features > L.frame_size) {
      throw ConfigError("behaviour cloning: the tenant layout does not match the observation and action sizes");
    }
    std::vector<torch::Tensor> o{all_obs}, a{actions}, m{masks}, r{ret};
    for (std::uint32_t c = 0; c < L.copies; ++c) {
      const auto perm = torch::randperm(static_cast<std::int64_t>(L.tenants), im.generator, torch::kInt64);
      const auto p = span_of<std::int64_t>(perm);
      // Gather indices: slot p[t] of the copy takes tenant t's entries.
      std::vector<std::int64_t> oi(static_cast<std::size_t>(im.obs_size)), ai(static_cast<std::size_t>(im.n_heads)),
          mi(static_cast<std::size_t>(im.n_logits));
      for (std::size_t i = 0; i < oi.size(); ++i) oi[i] = static_cast<std::int64_t>(i);
      for (std::size_t f = 0; f < L.frames; ++f) {
        for (std::size_t t = 0; t < L.tenants; ++t) {
          for (std::size_t k = 0; k < L.tenant_features; ++k) {
            const auto dst = f * L.frame_size + static_cast<std::size_t>(p[t]) * L.tenant_features + k;
            oi[dst] = static_cast<std::int64_t>(f * L.frame_size + t * L.tenant_features + k);
          }
        }
      }
      for (std::size_t t = 0; t < L.tenants; ++t) {
        for (std::size_t k = 0; k < L.heads_per_tenant; ++k) {
          ai[static_cast<std::size_t>(p[t]) * L.heads_per_tenant + k] = static_cast<std::int64_t>(t * L.heads_per_tenant + k);
        }
        for (std::size_t k = 0; k < L.logits_per_tenant; ++k) {
          mi[static_cast<std::size_t>(p[t]) * L.logits_per_tenant + k] =
              static_cast<std::int64_t>(t * L.logits_per_tenant + k);
        }
      }
      o.push_back(all_obs.index_select(1, torch::tensor(oi)));
      a.push_back(actions.index_select(1, torch::tensor(ai)));
      m.push_back(masks.index_select(1, torch::tensor(mi)));
      r.push_back(ret);
    }
    all_obs = torch::cat(o, 0);
    actions = torch::cat(a, 0);
    masks = torch::cat(m, 0);
    ret = torch::cat(r, 0);
    batch = all_obs.size(0);
  }
  if (im.cfg.norm_obs) im.model->obs_norm->observe(all_obs);
  st.samples = static_cast<std::uint64_t>(batch);
  const auto obs = im.normalise(all_obs);

  const auto t1 = std::chrono::steady_clock::now();
  im.model->train();
  torch::optim::Adam adam(im.model->parameters(), torch::optim::AdamOptions(lr).eps(im.cfg.adam_eps));
  const auto mb = static_cast<std::int64_t>(im.cfg.minibatch_size);
  for (std::uint32_t epoch = 0; epoch < epochs; ++epoch) {
    double sum_ce = 0.0, sum_v = 0.0;
    std::uint64_t n = 0;
    const auto perm = torch::randperm(batch, im.generator, torch::kInt64);
    for (std::int64_t start = 0; start < batch; start += mb) {
      const auto idx = perm.slice(0, start, start + mb);
      const auto x = obs.index_select(0, idx);
      const MultiCategorical dist(im.model->actor->forward(x), masks.index_select(0, idx), im.heads);
      const auto ce = -dist.log_prob(actions.index_select(0, idx)).mean();
      const auto vloss = 0.5 * (im.value(x) - ret.index_select(0, idx)).pow(2).mean();
      const auto loss = ce + im.cfg.vf_coef * vloss;
      adam.zero_grad();
      loss.backward();
      if (im.cfg.max_grad_norm > 0.0) torch::nn::utils::clip_grad_norm_(im.model->parameters(), im.cfg.max_grad_norm);
      adam.step();
      sum_ce += ce.item<double>();
      sum_v += vloss.item<double>();
      ++n;
    }
    if (epoch == 0) st.first_loss = sum_ce / static_cast<double>(n);
    st.final_loss = sum_ce / static_cast<double>(n);
    st.final_value_loss = sum_v / static_cast<double>(n);
    st.epochs = epoch + 1;
  }
  // Greedy agreement with the teacher on heads that had more than one allowed value.
  {
    const torch::NoGradGuard no_grad;
    im.model->eval();
    const auto logits = im.model->actor->forward(obs);
    const auto masked = torch::where(masks > 0, logits, torch::full_like(logits, kMaskedLogit));
    std::int64_t off = 0, agree = 0, counted = 0;
    for (std::int64_t h = 0; h < im.n_heads; ++h) {
      const auto size = im.heads[static_cast<std::size_t>(h)];
      const auto choice = masks.slice(1, off, off + size).sum(1) > 1;
      const auto greedy = masked.slice(1, off, off + size).argmax(1);
      const auto same = greedy == actions.select(1, h);
      agree += (same & choice).sum().item<std::int64_t>();
      counted += choice.sum().item<std::int64_t>();
      off += size;
    }
    st.accuracy = counted > 0 ? static_cast<double>(agree) / static_cast<double>(counted) : 1.0;
  }
  st.train_seconds = seconds_since(t1);
  return st;
}

Trainer::Trainer(PpoConfig cfg, std::vector<std::unique_ptr<control::Env>> envs) {
  cfg.validate();
  impl_ = std::make_unique<Impl>(std::move(cfg), std::move(envs));
}
Trainer::~Trainer() = default;
const PpoConfig& Trainer::config() const { return impl_->cfg; }
bool Trainer::finished() const { return impl_->updates >= impl_->cfg.num_updates; }
std::uint64_t Trainer::global_step() const { return impl_->global_step; }
std::uint64_t Trainer::updates_done() const { return impl_->updates; }
control::VecEnv& Trainer::envs() { return impl_->envs; }
UpdateStats Trainer::update() { return impl_->update(); }

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
  std::ostringstream bytes;
  archive.save_to(bytes);
  fileio::write_file_atomically(file, bytes.str());
}

void Trainer::load_checkpoint(const std::filesystem::path& file) {
  torch::serialize::InputArchive archive, model_archive, optim_archive;
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
}

void Trainer::export_policy(const std::filesystem::path& dir, const std::string& env_yaml) const {
  std::filesystem::create_directories(dir);
  torch::jit::Module m("NicschedPolicy");
  auto add_mlp = [&](const std::string& name, const torch::nn::Sequential& seq) {
    std::size_t layer = 0;
    for (const auto& child : seq->children()) {
      if (const auto* lin = child->as<torch::nn::Linear>()) {
        m.register_parameter(name + "_w" + std::to_string(layer), lin->weight.detach().clone(), false);
        m.register_parameter(name + "_b" + std::to_string(layer), lin->bias.detach().clone(), false);
        ++layer;
      }
    }
  };
  add_mlp("actor", impl_->model->actor);
  add_mlp("critic", impl_->model->critic);
  m.register_buffer("obs_mean", impl_->model->obs_norm->mean.to(torch::kFloat32).clone());
  m.register_buffer("obs_var", impl_->model->obs_norm->var.to(torch::kFloat32).clone());
  m.define(policy_script(impl_->cfg, impl_->heads));
  std::ostringstream bytes;
  m.save(bytes);
  fileio::write_file_atomically(dir / "policy.pt", bytes.str());

  YAML::Emitter meta;
  meta << YAML::BeginMap;
  meta << YAML::Key << "format" << YAML::Value << "nicsched-ppo-policy-1";
  meta << YAML::Key << "observation_size" << YAML::Value << impl_->obs_size;
  meta << YAML::Key << "head_sizes" << YAML::Value << YAML::Flow << impl_->heads;
  meta << YAML::Key << "hidden_sizes" << YAML::Value << YAML::Flow << impl_->cfg.hidden_sizes;
  meta << YAML::Key << "global_step" << YAML::Value << impl_->global_step;
  meta << YAML::Key << "env" << YAML::Value << (env_yaml.empty() ? YAML::Load("{}") : YAML::Load(env_yaml));
  meta << YAML::EndMap;
  fileio::write_file_atomically(dir / "policy.yaml", std::string(meta.c_str()) + "\n");
}

}  // namespace nicsched::ppo
