// Behaviour cloning: a warm start of the actor-critic from a teacher controller before PPO.
#include "learner.hpp"

namespace nicsched::ppo {

using detail::kMaskedLogit;
using detail::MultiCategorical;
using detail::seconds_since;
using detail::span_of;
using detail::to_tensor;

// Fits the actor to (observation, action) pairs under their masks (cross-entropy over the
// masked heads; per row times `weights` when defined) and, when `ret` is defined, the critic
// to those returns; `epochs` passes of shuffled minibatches with its own Adam at `lr`. The
// observation statistics are updated from `all_obs` first. Fills the fit's part of `st`.
void Trainer::Impl::fit(const torch::Tensor& all_obs, const torch::Tensor& labels, const torch::Tensor& label_masks,
                        const torch::Tensor& ret, const torch::Tensor& weights, std::uint32_t epochs, double lr,
                        BcStats& st) {
  auto& im = *this;
  const std::int64_t batch = all_obs.size(0);
  if (im.cfg.norm_obs) im.model->observe(all_obs);
  st.samples = static_cast<std::uint64_t>(batch);
  const auto norm_obs = im.normalise(all_obs);

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
      const auto x = norm_obs.index_select(0, idx);
      const MultiCategorical dist(im.model->logits(x), label_masks.index_select(0, idx), im.heads);
      const auto log_prob = dist.log_prob(labels.index_select(0, idx));
      const auto ce = weights.defined() ? -(weights.index_select(0, idx) * log_prob).mean() : -log_prob.mean();
      // Without returns (labels only) the critic is left as it is.
      const auto vloss = ret.defined() ? 0.5 * (im.value(x) - ret.index_select(0, idx)).pow(2).mean() : torch::zeros({});
      const auto loss = ret.defined() ? ce + im.cfg.vf_coef * vloss : ce;
      adam.zero_grad();
      loss.backward();
      im.average_gradients();
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
    const auto logits = im.model->logits(norm_obs);
    const auto masked = torch::where(label_masks > 0, logits, torch::full_like(logits, kMaskedLogit));
    std::int64_t off = 0, agree = 0, counted = 0;
    for (std::int64_t h = 0; h < im.n_heads; ++h) {
      const auto size = im.heads[static_cast<std::size_t>(h)];
      const auto choice = label_masks.slice(1, off, off + size).sum(1) > 1;
      const auto greedy = masked.slice(1, off, off + size).argmax(1);
      const auto same = greedy == labels.select(1, h);
      agree += (same & choice).sum().item<std::int64_t>();
      counted += choice.sum().item<std::int64_t>();
      off += size;
    }
    st.accuracy = counted > 0 ? static_cast<double>(agree) / static_cast<double>(counted) : 1.0;
  }
  st.train_seconds = seconds_since(t1);
}

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
  im.fit(all_obs, actions, masks, ret, torch::Tensor(), epochs, lr, st);
  return st;
}

BcStats Trainer::fit_labels(const LabelledBatch& data, std::uint32_t epochs, double lr) {
  auto& im = *impl_;
  const auto rows = static_cast<std::int64_t>(data.rows);
  if (rows == 0) throw ConfigError("fitting labels: no labelled rows");
  if (data.observations.size() != data.rows * static_cast<std::size_t>(im.obs_size) ||
      data.actions.size() != data.rows * static_cast<std::size_t>(im.n_heads) ||
      data.masks.size() != data.rows * static_cast<std::size_t>(im.n_logits) ||
      (!data.weights.empty() && data.weights.size() != data.rows)) {
    throw ConfigError("fitting labels: " + std::to_string(data.rows) + " rows of " + std::to_string(im.obs_size) +
                      " observation values, " + std::to_string(im.n_heads) + " action heads and " +
                      std::to_string(im.n_logits) + " mask values (and none or one weight per row) expected; the data has " +
                      std::to_string(data.observations.size()) + ", " + std::to_string(data.actions.size()) +
                      " and " + std::to_string(data.masks.size()) + " values and " +
                      std::to_string(data.weights.size()) + " weights");
  }
  BcStats st;
  const auto obs = torch::from_blob(const_cast<float*>(data.observations.data()), {rows, im.obs_size}).clone();
  const auto actions =
      torch::tensor(std::vector<std::int64_t>(data.actions.begin(), data.actions.end())).view({rows, im.n_heads});
  const auto masks =
      torch::from_blob(const_cast<std::uint8_t*>(data.masks.data()), {rows, im.n_logits}, torch::kUInt8).clone();
  const auto weights = data.weights.empty()
                           ? torch::Tensor()
                           : torch::from_blob(const_cast<float*>(data.weights.data()), {rows}).clone();
  im.fit(obs, actions, masks, torch::Tensor(), weights, epochs, lr, st);
  return st;
}

}  // namespace nicsched::ppo
