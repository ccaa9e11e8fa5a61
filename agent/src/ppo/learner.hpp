// The learner's model and state, shared by the translation units of nicsched::ppo that
// need torch: ppo.cpp (PPO update, checkpoints), behaviour_cloning.cpp and
// policy_export.cpp (TorchScript). Private to agent/src/ppo; users see trainer.hpp only.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nicsched/ppo/trainer.hpp"

namespace nicsched::ppo {
namespace detail {

inline constexpr double kMaskedLogit = -1e8;  // logit of a masked-out action: probability 0

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

inline torch::nn::Linear make_linear(std::int64_t in, std::int64_t out, double gain) {
  torch::nn::Linear layer(in, out);
  torch::nn::init::orthogonal_(layer->weight, gain);
  torch::nn::init::constant_(layer->bias, 0.0);
  return layer;
}

// Separate tanh MLPs for actor and critic, as in CleanRL's PPO; orthogonal init with
// gain sqrt(2) in hidden layers, 0.01 on the actor head (near-uniform first policy)
// and 1.0 on the critic head.
inline torch::nn::Sequential make_mlp(std::int64_t in, const std::vector<std::uint32_t>& hidden,
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

inline torch::Tensor to_tensor(std::span<const float> v) {
  return torch::from_blob(const_cast<float*>(v.data()), {static_cast<std::int64_t>(v.size())},
                          torch::kFloat32)
      .clone();
}

template <typename T>
std::span<const T> span_of(const torch::Tensor& t) {
  return {t.data_ptr<T>(), static_cast<std::size_t>(t.numel())};
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace detail

// The Trainer's state: config, environments, model, optimiser, counters, RNG, rollout storage.
struct Trainer::Impl {
  using ActorCritic = detail::ActorCritic;

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
    return detail::to_tensor(envs.observations()).view({n_envs, obs_size});
  }
  [[nodiscard]] torch::Tensor normalise(const torch::Tensor& raw) const {
    return cfg.norm_obs ? model->obs_norm->normalise(raw, cfg.obs_clip) : raw;
  }
  [[nodiscard]] torch::Tensor value(const torch::Tensor& x) {
    return model->critic->forward(x).squeeze(1);
  }

  // One rollout, GAE, epochs of minibatches (ppo.cpp).
  UpdateStats update();
};

}  // namespace nicsched::ppo
