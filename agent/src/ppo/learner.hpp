// The learner's model and state, shared by the translation units of nicsched::ppo that
// need torch: ppo.cpp (PPO update, checkpoints), behaviour_cloning.cpp and
// policy_export.cpp (TorchScript). Private to agent/src/ppo; users see trainer.hpp only.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <dlfcn.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "native_actor.hpp"  // kMaskedLogit
#include "nicsched/mpi/comm.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/trainer.hpp"

namespace nicsched::ppo {
namespace detail {

using mpi::Comm;

// The learner's threads: libtorch's (torch::set_num_threads) and the BLAS library's. Debian's
// libtorch hands its matrix products to OpenBLAS, whose own thread pool is sized to the
// machine, ignores torch::set_num_threads, and between calls spins in sched_yield: on a
// machine whose cores the rollout threads already fill, that spinning was the learner's
// largest single cost. It is given the same count; other BLAS libraries are left alone.
// The count also fixes the order of the products' sums, so a run's floating-point results
// no longer depend on the machine's core count.
inline void set_learner_threads(std::uint32_t threads) {
  torch::set_num_threads(static_cast<int>(threads));
  using SetThreads = void (*)(int);
  if (auto* set_blas = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set_blas(static_cast<int>(threads));
  }
}

// Element-wise sum over the MPI ranks, in place (a no-op in a one-rank world).
inline void allreduce_sum(torch::Tensor& t) {
  const auto& comm = Comm::world();
  if (comm.size() == 1) return;
  if (!t.is_contiguous()) throw std::logic_error("allreduce_sum: tensor not contiguous");
  if (t.scalar_type() == torch::kFloat64) {
    comm.allreduce_sum(t.data_ptr<double>(), static_cast<std::size_t>(t.numel()));
  } else {
    comm.allreduce_sum(t.data_ptr<float>(), static_cast<std::size_t>(t.numel()));
  }
}

// Running mean and variance of observations (parallel Welford), float64, kept as
// module buffers so checkpoints and exports carry them.
struct ObsNormImpl : torch::nn::Module {
  explicit ObsNormImpl(std::int64_t size) {
    mean = register_buffer("mean", torch::zeros({size}, torch::kFloat64));
    var = register_buffer("var", torch::ones({size}, torch::kFloat64));
    count = register_buffer("count", torch::full({1}, 1e-4, torch::kFloat64));
  }
  void observe(const torch::Tensor& batch) {  // [B, size], float32
    if (Comm::world().size() > 1) {
      observe_all_ranks(batch);
      return;
    }
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
  // Data-parallel training: every rank folds in the batches of all ranks (count, sum and
  // sum of squares reduced over ranks), so the statistics stay identical everywhere.
  // Every rank must call it, with zero rows if it has none.
  void observe_all_ranks(const torch::Tensor& batch) {
    const auto x = batch.to(torch::kFloat64);
    auto sums = torch::cat({torch::full({1}, static_cast<double>(x.size(0)), torch::kFloat64), x.sum(0),
                            x.pow(2).sum(0)})
                    .contiguous();
    allreduce_sum(sums);
    const double b_count = sums[0].item<double>();
    if (b_count <= 0.0) return;
    const auto n = mean.size(0);
    const auto b_mean = sums.slice(0, 1, 1 + n) / b_count;
    const auto b_var = (sums.slice(0, 1 + n) / b_count - b_mean.pow(2)).clamp_min(0.0);
    const auto delta = b_mean - mean;
    const auto tot = count + b_count;
    const auto m2 = var * count + b_var * b_count + delta.pow(2) * count * b_count / tot;
    mean.copy_(mean + delta * b_count / tot);
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

// The hidden layers of a network: Linear + tanh per entry of `hidden`, orthogonal init
// with gain sqrt(2), as in CleanRL's PPO.
inline torch::nn::Sequential make_tanh_stack(std::int64_t in, const std::vector<std::uint32_t>& hidden) {
  torch::nn::Sequential seq;
  std::int64_t width = in;
  for (auto h : hidden) {
    seq->push_back(make_linear(width, h, std::sqrt(2.0)));
    seq->push_back(torch::nn::Tanh());
    width = h;
  }
  return seq;
}

// A tanh MLP: the hidden stack, then a linear head of gain `head_gain` (0.01 on the actor
// head: a near-uniform first policy; 1.0 on the critic head).
inline torch::nn::Sequential make_mlp(std::int64_t in, const std::vector<std::uint32_t>& hidden,
                               std::int64_t out, double head_gain) {
  torch::nn::Sequential seq = make_tanh_stack(in, hidden);
  seq->push_back(make_linear(hidden.empty() ? in : static_cast<std::int64_t>(hidden.back()), out, head_gain));
  return seq;
}

// The permutation-equivariant ("set") network's view of a flat observation [B, obs]:
// `frames` frames of T tenant blocks (tenant_features floats each, feature 0 the
// presence flag) followed by G global floats. T is read from the observation's size, so
// one set of weights serves any tenant count.
struct SetShape {
  std::int64_t frames = 1, features = 1, globals = 0, logits = 1;
  [[nodiscard]] std::int64_t tenants(const torch::Tensor& flat) const {
    return (flat.size(1) / frames - globals) / features;
  }
  // [B, H, T, F] tenant features and [B, H, G] globals.
  [[nodiscard]] std::pair<torch::Tensor, torch::Tensor> split(const torch::Tensor& flat) const {
    const auto b = flat.size(0);
    const auto t = tenants(flat);
    const auto v = flat.reshape({b, frames, t * features + globals});
    return {v.slice(2, 0, t * features).reshape({b, frames, t, features}), v.slice(2, t * features)};
  }
  [[nodiscard]] torch::Tensor join(const torch::Tensor& ten, const torch::Tensor& glob) const {
    const auto b = ten.size(0);
    return torch::cat({ten.reshape({b, frames, -1}), glob}, 2).reshape({b, -1});
  }
};

// Separate networks for actor and critic, as in CleanRL's PPO; orthogonal init with gain
// sqrt(2) in hidden layers, 0.01 on the actor head (near-uniform first policy) and 1.0
// on the critic head. Two architectures (PpoConfig::network):
//  - mlp: tanh MLPs over the flat observation (the tenant slots are fixed positions);
//  - set: permutation-equivariant over tenants. A shared per-tenant encoder reads the
//    tenant's features of every frame plus the global features; the context is the mean
//    and the max of the encodings over present tenants (absent ones are left out);
//    a shared per-tenant actor head maps (own encoding, context) to the tenant's logits;
//    the critic pools its own encoder's outputs the same way and maps the context to V.
//    Permuting the tenants permutes the logits and leaves V unchanged; absent tenants
//    do not change the others' outputs; the tenant count is free.
struct ActorCriticImpl : torch::nn::Module {
  ActorCriticImpl(std::int64_t obs_size, const std::vector<std::uint32_t>& hidden,
                  std::vector<int> heads, const TenantLayout& layout, bool set_network)
      : head_sizes(std::move(heads)), is_set(set_network) {
    std::int64_t total = 0;
    for (int h : head_sizes) total += h;
    if (!is_set) {
      actor = register_module("actor", make_mlp(obs_size, hidden, total, 0.01));
      critic = register_module("critic", make_mlp(obs_size, hidden, 1, 1.0));
      obs_norm = register_module("obs_norm", ObsNorm(obs_size));
      return;
    }
    shape.frames = static_cast<std::int64_t>(layout.frames);
    shape.features = static_cast<std::int64_t>(layout.tenant_features);
    shape.globals = static_cast<std::int64_t>(layout.frame_size - layout.tenants * layout.tenant_features);
    shape.logits = static_cast<std::int64_t>(layout.logits_per_tenant);
    const auto d = static_cast<std::int64_t>(hidden.back());
    const auto in = shape.frames * (shape.features + shape.globals);
    auto encoder = [&] { return make_tanh_stack(in, hidden); };
    auto head = [&](std::int64_t width, std::int64_t out, double gain) {
      return make_mlp(width, {hidden.back()}, out, gain);
    };
    actor_encoder = register_module("actor_encoder", encoder());
    actor = register_module("actor", head(3 * d, shape.logits, 0.01));
    critic_encoder = register_module("critic_encoder", encoder());
    critic = register_module("critic", head(2 * d, 1, 1.0));
    tenant_norm = register_module("tenant_norm", ObsNorm(shape.frames * shape.features));
    global_norm = register_module("global_norm", ObsNorm(std::max<std::int64_t>(1, shape.frames * shape.globals)));
  }

  // Observation statistics. The set network keeps one set per (frame, tenant feature),
  // shared by all tenants and counted over present tenants only, and one for the globals.
  void observe(const torch::Tensor& raw) {
    if (!is_set) {
      obs_norm->observe(raw);
      return;
    }
    const auto [ten, glob] = shape.split(raw);
    const auto rows = ten.permute({0, 2, 1, 3}).reshape({-1, shape.frames * shape.features});
    const auto present = ten.select(1, 0).select(2, 0).reshape({-1}) > 0.5;
    const auto kept = rows.index({present});
    if (kept.size(0) > 0 || Comm::world().size() > 1) tenant_norm->observe(kept);
    if (shape.globals > 0) global_norm->observe(glob.reshape({raw.size(0), -1}));
  }
  // The statistics the set network applies to tenant features ([H, 1, F]): those of
  // feature 0, the presence flag, stay at mean 0 and variance 1 so that the flag passes
  // through unchanged (up to 1e-8) and masks absent tenants after normalisation too.
  [[nodiscard]] std::pair<torch::Tensor, torch::Tensor> tenant_stats() const {
    auto mean = tenant_norm->mean.to(torch::kFloat32).reshape({shape.frames, 1, shape.features}).clone();
    auto var = tenant_norm->var.to(torch::kFloat32).reshape({shape.frames, 1, shape.features}).clone();
    mean.select(2, 0).fill_(0.0);
    var.select(2, 0).fill_(1.0);
    return {mean, var};
  }
  [[nodiscard]] torch::Tensor normalise(const torch::Tensor& raw, double clip) const {
    if (!is_set) return obs_norm->normalise(raw, clip);
    const auto [ten, glob] = shape.split(raw);
    const auto [mean, var] = tenant_stats();
    const auto t = ((ten - mean) / torch::sqrt(var + 1e-8)).clamp(-clip, clip);
    auto g = glob;
    if (shape.globals > 0) {
      const auto gm = global_norm->mean.to(torch::kFloat32).reshape({shape.frames, shape.globals});
      const auto gv = global_norm->var.to(torch::kFloat32).reshape({shape.frames, shape.globals});
      g = ((glob - gm) / torch::sqrt(gv + 1e-8)).clamp(-clip, clip);
    }
    return shape.join(t, g);
  }
  // Per-tenant encoder inputs [B, T, H*(F+G)] and presence [B, T, 1] (float 0/1).
  [[nodiscard]] std::pair<torch::Tensor, torch::Tensor> tenant_inputs(const torch::Tensor& x) const {
    const auto [ten, glob] = shape.split(x);
    const auto b = x.size(0);
    const auto t = ten.size(2);
    const auto per = ten.permute({0, 2, 1, 3}).reshape({b, t, shape.frames * shape.features});
    const auto g = glob.reshape({b, 1, shape.frames * shape.globals}).expand({b, t, shape.frames * shape.globals});
    const auto present = (ten.select(1, 0).select(2, 0) > 0.5).to(torch::kFloat32).unsqueeze(2);
    return {torch::cat({per, g}, 2), present};
  }
  // Mean and max over present tenants of encodings in [-1, 1] (tanh): absent ones are
  // left out of the mean and filled with -1 (the floor) for the max. [B, 2D].
  [[nodiscard]] static torch::Tensor pool(const torch::Tensor& enc, const torch::Tensor& present) {
    const auto count = present.sum(1).clamp_min(1.0);
    const auto mean = (enc * present).sum(1) / count;
    const auto max = torch::where(present > 0, enc, torch::full_like(enc, -1.0)).amax(1);
    return torch::cat({mean, max}, 1);
  }
  [[nodiscard]] torch::Tensor logits(const torch::Tensor& x) {
    if (!is_set) return actor->forward(x);
    const auto [in, present] = tenant_inputs(x);
    const auto enc = actor_encoder->forward(in);  // [B, T, D]
    const auto ctx = pool(enc, present).unsqueeze(1).expand({enc.size(0), enc.size(1), -1});
    return actor->forward(torch::cat({enc, ctx}, 2)).reshape({x.size(0), -1});
  }
  [[nodiscard]] torch::Tensor value(const torch::Tensor& x) {
    if (!is_set) return critic->forward(x).squeeze(1);
    const auto [in, present] = tenant_inputs(x);
    return critic->forward(pool(critic_encoder->forward(in), present)).squeeze(1);
  }

  torch::nn::Sequential actor{nullptr}, critic{nullptr};
  torch::nn::Sequential actor_encoder{nullptr}, critic_encoder{nullptr};
  ObsNorm obs_norm{nullptr}, tenant_norm{nullptr}, global_norm{nullptr};
  std::vector<int> head_sizes;
  bool is_set = false;
  SetShape shape;
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
  // KL(this || other) per row, summed over heads: sum_a p(a) (log p(a) - log q(a)). Masked
  // values have probability 0 under both and add nothing.
  [[nodiscard]] torch::Tensor kl_to(const MultiCategorical& other) const {  // [B]
    auto total = torch::zeros({log_probs[0].size(0)});
    for (std::size_t h = 0; h < log_probs.size(); ++h) {
      total = total + (log_probs[h].exp() * (log_probs[h] - other.log_probs[h])).sum(1);
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
  // The anchor term (PpoConfig::anchor_coef > 0): the frozen policy and its masked logits
  // on the rollout's raw observations, [T, N, logits].
  std::shared_ptr<const TrainedPolicy> anchor;
  torch::Tensor anchor_logits;

  TenantLayout layout;

  // Data-parallel training over MPI ranks: every rank steps its own envs (episode seeds
  // and action sampling offset by rank), the gradients of each minibatch are averaged
  // over ranks before the step, and the observation statistics are reduced over ranks;
  // parameters start from rank 0's, so they stay identical on every rank.
  const detail::Comm& comm = detail::Comm::world();
  static constexpr std::uint64_t kRankSeedStride = 1000003;  // a prime far above num_envs

  Impl(PpoConfig c, std::vector<std::unique_ptr<control::Env>> e, const TenantLayout& l)
      : cfg(std::move(c)),
        envs(std::move(e), cfg.seed + kRankSeedStride * static_cast<std::uint64_t>(detail::Comm::world().rank()),
             cfg.env_threads),
        layout(l) {
    if (envs.size() != cfg.num_envs) {
      throw ConfigError("Trainer: config asks for num_envs = " + std::to_string(cfg.num_envs) +
                        " but " + std::to_string(envs.size()) + " environments were given");
    }
    detail::set_learner_threads(cfg.torch_threads);
    torch::manual_seed(cfg.seed);  // weight initialisation
    generator = at::make_generator<at::CPUGeneratorImpl>(cfg.seed + kRankSeedStride * static_cast<std::uint64_t>(comm.rank()));
    if (comm.size() > 1) {
      // total_steps counts the env steps of all ranks.
      cfg.num_updates = std::max<std::uint64_t>(1, cfg.total_steps / (cfg.batch_size * static_cast<std::uint64_t>(comm.size())));
    }
    obs_size = static_cast<std::int64_t>(envs.observation_size());
    heads = envs.action_space().head_sizes;
    n_heads = static_cast<std::int64_t>(heads.size());
    n_logits = static_cast<std::int64_t>(envs.action_space().total());
    n_envs = cfg.num_envs;
    n_steps = cfg.num_steps;
    const bool set_network = cfg.network == "set";
    if (set_network) check_set_layout();
    model = ActorCritic(obs_size, cfg.hidden_sizes, heads, layout, set_network);
    broadcast_parameters();
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
    if (anchored()) anchor_logits = torch::zeros({n_steps, n_envs, n_logits});
    envs.reset();
  }

  [[nodiscard]] torch::Tensor current_obs() const {
    return detail::to_tensor(envs.observations()).view({n_envs, obs_size});
  }
  [[nodiscard]] torch::Tensor normalise(const torch::Tensor& raw) const {
    return cfg.norm_obs ? model->normalise(raw, cfg.obs_clip) : raw;
  }
  [[nodiscard]] torch::Tensor value(const torch::Tensor& x) { return model->value(x); }
  [[nodiscard]] bool anchored() const { return cfg.anchor_coef > 0.0; }
  // The anchor's masked logits for each env's raw observation and mask ([N, obs], [N, logits]):
  // the anchor normalises with its own statistics, as it did when it was exported.
  [[nodiscard]] torch::Tensor anchor_logits_of(const torch::Tensor& raw, const torch::Tensor& mask) const {
    auto out = torch::empty({n_envs, n_logits});
    const auto r = raw.contiguous();
    const auto m = mask.contiguous();
    const auto obs_n = static_cast<std::size_t>(obs_size);
    const auto logits_n = static_cast<std::size_t>(n_logits);
    for (std::size_t e = 0; e < static_cast<std::size_t>(n_envs); ++e) {
      anchor->logits(std::span<const float>(r.data_ptr<float>() + e * obs_n, obs_n),
                     std::span<const std::uint8_t>(m.data_ptr<std::uint8_t>() + e * logits_n, logits_n),
                     std::span<float>(out.data_ptr<float>() + e * logits_n, logits_n));
    }
    return out;
  }

  // Rank 0's parameters and buffers to every rank.
  void broadcast_parameters() {
    if (comm.size() == 1) return;
    const torch::NoGradGuard no_grad;
    for (auto& p : model->parameters()) {
      comm.broadcast(p.data_ptr(), static_cast<std::size_t>(p.numel() * p.element_size()), 0);
    }
    for (auto& b : model->buffers()) {
      comm.broadcast(b.data_ptr(), static_cast<std::size_t>(b.numel() * b.element_size()), 0);
    }
  }
  // Supervised fit of the actor (and the critic when `ret` is defined) to (observation,
  // action) pairs, each row's cross-entropy weighted by `weights` when defined: behaviour
  // cloning and DAgger (behaviour_cloning.cpp).
  void fit(const torch::Tensor& all_obs, const torch::Tensor& labels, const torch::Tensor& label_masks,
           const torch::Tensor& ret, const torch::Tensor& weights, std::uint32_t epochs, double lr, BcStats& st);

  // Averages the gradients over ranks (one allreduce of all of them), before clipping.
  void average_gradients() {
    if (comm.size() == 1) return;
    std::vector<torch::Tensor> grads;
    for (auto& p : model->parameters()) {
      grads.push_back(p.grad().defined() ? p.grad().reshape({-1}) : torch::zeros({p.numel()}));
    }
    auto flat = torch::cat(grads).contiguous();
    detail::allreduce_sum(flat);
    flat.div_(static_cast<double>(comm.size()));
    std::int64_t off = 0;
    for (auto& p : model->parameters()) {
      if (p.grad().defined()) p.grad().view({-1}).copy_(flat.slice(0, off, off + p.numel()));
      off += p.numel();
    }
  }
  // The mean over ranks of a scalar (decisions every rank must take alike).
  [[nodiscard]] double mean_over_ranks(double v) const {
    if (comm.size() == 1) return v;
    comm.allreduce_sum(&v, 1);
    return v / static_cast<double>(comm.size());
  }

  // The set network needs a layout that fits the environments' sizes.
  void check_set_layout() const {
    const auto& L = layout;
    const bool fits = L.frames >= 1 && L.tenants >= 1 && L.tenant_features >= 1 &&
                      L.frame_size >= L.tenants * L.tenant_features && L.heads_per_tenant >= 1 &&
                      L.logits_per_tenant >= 1 && L.frames * L.frame_size == static_cast<std::size_t>(obs_size) &&
                      L.tenants * L.heads_per_tenant == heads.size() &&
                      L.tenants * L.logits_per_tenant == static_cast<std::size_t>(n_logits);
    if (!fits) {
      throw ConfigError("PPO config: 'network: set' needs a tenant layout that fits the environment (observation " +
                        std::to_string(obs_size) + " floats, " + std::to_string(heads.size()) + " heads, " +
                        std::to_string(n_logits) + " logits); got frames " + std::to_string(L.frames) +
                        ", frame_size " + std::to_string(L.frame_size) + ", tenants " + std::to_string(L.tenants) +
                        ", tenant_features " + std::to_string(L.tenant_features) + ", heads_per_tenant " +
                        std::to_string(L.heads_per_tenant) + ", logits_per_tenant " +
                        std::to_string(L.logits_per_tenant));
    }
  }

  // One rollout, GAE, epochs of minibatches (ppo.cpp).
  UpdateStats update();
};

}  // namespace nicsched::ppo
