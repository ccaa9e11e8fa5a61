// Loading an exported policy (TorchScript) for eval and serve, and running its actor
// natively (native_actor.hpp): the module is the file format and the reference a load
// checks against; decisions run neither the interpreter nor the dispatcher.
#include "nicsched/ppo/policy.hpp"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/script.h>
#include <yaml-cpp/yaml.h>

#include <numeric>
#include <optional>

#include "native_actor.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/ppo/trainer.hpp"
#include "policy_inputs.hpp"

namespace nicsched::ppo {

// What a decision reads: the actor's weights and observation statistics copied out of
// the module; the module itself is not kept.
struct TrainedPolicy::Impl {
  detail::NativeActor actor;
  bool has_actor_method = false;  // the export has `actor` (else it predates that method)
  std::size_t obs_size = 0;
  std::vector<int> heads;
  std::size_t n_logits = 0;
  std::string env_yaml;
  // A set network: its observation layout and one tenant's heads (the exported heads are
  // these, once per tenant), so that it runs on any tenant count.
  std::optional<detail::NativeSetShape> set;
  std::vector<int> tenant_heads;

  // The tenant count of a set network's observation of `size` values (none: it does not fit).
  [[nodiscard]] std::optional<std::size_t> tenants_of(std::size_t size) const {
    if (!set || size % set->frames != 0) return std::nullopt;
    const std::size_t frame = size / set->frames;
    if (frame < set->globals || (frame - set->globals) % set->features != 0) return std::nullopt;
    return (frame - set->globals) / set->features;
  }
  // The heads of an observation of `size` values (empty: it does not fit).
  [[nodiscard]] std::vector<int> heads_for(std::size_t size) const {
    if (size == obs_size) return heads;
    const auto t = tenants_of(size);
    return t ? repeated_tenant_heads(*t) : std::vector<int>{};
  }
  // One tenant's heads, once per tenant of `tenants`.
  [[nodiscard]] std::vector<int> repeated_tenant_heads(std::size_t tenants) const {
    std::vector<int> h;
    for (std::size_t i = 0; i < tenants; ++i) h.insert(h.end(), tenant_heads.begin(), tenant_heads.end());
    return h;
  }
};

namespace {

// How far the native forward pass's logits may be from the module's (relative and
// absolute, as torch::allclose): the same float32 sums in another order, ~1e-6 apart and up
// to 1.6e-5 seen on logits near zero after 25 PPO updates (an export that 1e-5 refused); a
// network this version computes wrongly is off by the logits' own scale (~0.1 to 10).
constexpr double kNativeTolerance = 1e-4;

std::vector<float> floats(const torch::Tensor& t) {
  const auto c = t.to(torch::kFloat32).contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

// The observation clip of the exported script: the bounds of its two-sided torch.clamp
// calls (the normalisation's, the only ones the exporter writes; exports do not record
// the clip anywhere else). They must all be the same +-clip. None: the script does not
// normalise observations (norm_obs: false; the statistics are exported all the same).
std::optional<double> script_obs_clip(const torch::jit::Module& m, const std::string& file) {
  const auto number = [](const c10::optional<c10::IValue>& v) -> std::optional<double> {
    if (!v || !(v->isDouble() || v->isInt())) return std::nullopt;
    return v->isDouble() ? v->toDouble() : static_cast<double>(v->toInt());
  };
  const auto clamp = c10::Symbol::fromQualString("aten::clamp");
  std::optional<double> clip;
  for (const auto& method : m.get_methods()) {
    for (const torch::jit::Node* node : method.graph()->nodes()) {
      if (node->kind() != clamp) continue;
      const auto lo = number(torch::jit::toIValue(node->input(1)));
      const auto hi = number(torch::jit::toIValue(node->input(2)));
      if (!hi) continue;  // a lower bound alone (the set network's pooling: count >= 1)
      if (!lo || *lo != -*hi || (clip && *clip != *hi)) {
        throw CheckpointError(file + ": the exported script's observation clip is not one constant +-clip");
      }
      clip = *hi;
    }
  }
  return clip;
}

// The module's `name`_w0, _b0, `name`_w1, ... as layers: tanh after each, or after all
// but the last when `linear_last`.
std::vector<detail::DenseLayer> dense_layers(const torch::jit::Module& m, const std::string& name, bool linear_last,
                                             const std::string& file) {
  std::size_t n = 0;
  while (m.hasattr(name + "_w" + std::to_string(n))) ++n;
  if (n == 0) throw CheckpointError(file + ": no " + name + "_w0 weights: not a policy exported by nicagent");
  std::vector<detail::DenseLayer> out;
  for (std::size_t i = 0; i < n; ++i) {
    const auto w = m.attr(name + "_w" + std::to_string(i)).toTensor();
    const auto b = m.attr(name + "_b" + std::to_string(i)).toTensor();
    if (w.dim() != 2 || b.dim() != 1 || b.size(0) != w.size(0) ||
        (!out.empty() && out.back().out != static_cast<std::size_t>(w.size(1)))) {
      throw CheckpointError(file + ": " + name + "_w" + std::to_string(i) + " and " + name + "_b" + std::to_string(i) +
                            " do not continue the network's layers");
    }
    out.emplace_back(static_cast<std::size_t>(w.size(1)), static_cast<std::size_t>(w.size(0)), floats(w), floats(b),
                     linear_last && i + 1 == n);
  }
  return out;
}

// The exported module's actor as plain arrays (the names and layout of policy_export.cpp).
detail::NativeActor native_actor(const torch::jit::Module& m, std::size_t obs_size, std::size_t n_logits,
                                 const std::string& file) {
  if (!m.hasattr("actor_encoder_w0")) {  // the mlp
    auto layers = dense_layers(m, "actor", true, file);
    if (layers.front().in != obs_size || layers.back().out != n_logits) {
      throw CheckpointError(file + ": the actor maps " + std::to_string(layers.front().in) + " inputs to " +
                            std::to_string(layers.back().out) + " logits; policy.yaml says " +
                            std::to_string(obs_size) + " and " + std::to_string(n_logits));
    }
    detail::Normaliser norm;
    if (const auto clip = script_obs_clip(m, file)) {
      if (!m.hasattr("obs_mean")) throw CheckpointError(file + ": the script normalises but has no obs_mean");
      norm = detail::Normaliser(floats(m.attr("obs_mean").toTensor()), floats(m.attr("obs_var").toTensor()), *clip);
      if (norm.mean.size() != obs_size) throw CheckpointError(file + ": obs_mean does not fit the observation size");
    }
    return detail::NativeActor::mlp(std::move(norm), std::move(layers));
  }
  if (!m.hasattr("tenant_mean")) {
    throw CheckpointError(file + ": a set policy without observation statistics (tenant_mean) cannot be run: its "
                          "observation layout is only known from them");
  }
  const auto clip = script_obs_clip(m, file);  // none: the statistics are there but not applied
  const auto t_mean = m.attr("tenant_mean").toTensor();  // [frames, 1, features]
  detail::NativeSetShape shape;
  shape.frames = static_cast<std::size_t>(t_mean.size(0));
  shape.features = static_cast<std::size_t>(t_mean.size(2));
  detail::Normaliser global;
  if (m.hasattr("global_mean")) {
    const auto g_mean = m.attr("global_mean").toTensor();  // [frames, globals]
    shape.globals = static_cast<std::size_t>(g_mean.size(1));
    if (clip) global = detail::Normaliser(floats(g_mean), floats(m.attr("global_var").toTensor()), *clip);
  }
  detail::Normaliser tenant;
  if (clip) tenant = detail::Normaliser(floats(t_mean), floats(m.attr("tenant_var").toTensor()), *clip);
  auto encoder = dense_layers(m, "actor_encoder", false, file);
  auto head = dense_layers(m, "actor", true, file);
  shape.logits = head.back().out;
  if (encoder.front().in != shape.frames * (shape.features + shape.globals) || head.size() != 2 ||
      head.front().in != 3 * encoder.back().out) {
    throw CheckpointError(file + ": the set network's layers do not fit its observation statistics");
  }
  return detail::NativeActor::set(shape, std::move(tenant), std::move(global), std::move(encoder), std::move(head));
}

}  // namespace

TrainedPolicy::TrainedPolicy(const std::filesystem::path& dir) : impl_(std::make_unique<Impl>()) {
  const auto meta_file = dir / "policy.yaml";
  const auto model_file = dir / "policy.pt";
  try {
    const auto doc = fileio::YamlDoc::load(meta_file, "the policy description");
    fileio::MapReader meta(doc, doc.root(), "");
    const YAML::Node format = meta.node("format");
    if (doc.as<std::string>(format, "format", "nicsched-ppo-policy-1") != "nicsched-ppo-policy-1") {
      doc.fail(format, "format", "expected nicsched-ppo-policy-1, got " + fileio::describe(format));
    }
    impl_->obs_size = doc.as<std::size_t>(meta.node("observation_size"), "observation_size", "an unsigned integer");
    impl_->heads = doc.as<std::vector<int>>(meta.node("head_sizes"), "head_sizes", "a list of integers");
    for (int h : impl_->heads) {
      if (h < 1) doc.fail(meta.node("head_sizes"), "head_sizes", "expected head sizes of at least 1");
      impl_->n_logits += static_cast<std::size_t>(h);
    }
    if (meta.has("env")) {
      YAML::Emitter e;
      e << meta.node("env");
      impl_->env_yaml = e.c_str();
    }
  } catch (const fileio::YamlError& e) {
    throw CheckpointError(e.what());
  } catch (const fileio::FileError& e) {
    throw CheckpointError(e.what());
  }
  try {
    fileio::check_readable_file(model_file, kMaxModelFileBytes, "the TorchScript policy");
  } catch (const fileio::FileError& e) {
    throw CheckpointError(e.what());
  }
  torch::jit::Module module;
  try {
    module = torch::jit::load(model_file.string());
  } catch (const c10::Error& e) {
    throw CheckpointError(model_file.string() + ": cannot load the TorchScript policy");
  }
  module.eval();
  impl_->has_actor_method = module.find_method("actor").has_value();
  impl_->actor = native_actor(module, impl_->obs_size, impl_->n_logits, model_file.string());
  impl_->set = impl_->actor.set_shape();  // a set network's layout, as native_actor checked it
  if (impl_->set) {
    const auto trained = impl_->tenants_of(impl_->obs_size);
    const std::size_t per = trained && *trained > 0 ? impl_->heads.size() / *trained : 0;
    if (per > 0 && per * *trained == impl_->heads.size()) {
      impl_->tenant_heads.assign(impl_->heads.begin(), impl_->heads.begin() + static_cast<std::ptrdiff_t>(per));
    }
    // the exported heads must be one tenant's, repeated
    if (impl_->tenant_heads.empty() || impl_->repeated_tenant_heads(*trained) != impl_->heads) {
      impl_->set.reset();  // not a per-tenant layout: exact sizes only
      impl_->tenant_heads.clear();
    }
  }

  // The native forward pass must compute the module's logits (the module's `actor`, or
  // `forward` in exports that predate it) on random observations and masks, before any
  // decision is made with it.
  const c10::InferenceMode guard;
  const auto in = detail::random_policy_inputs(module, impl_->obs_size, impl_->n_logits, 1);
  const auto want = (impl_->has_actor_method ? module.get_method("actor")({in.obs, in.mask}).toTensor()
                                             : module.forward({in.obs, in.mask}).toTupleRef().elements()[0].toTensor())
                        .contiguous();
  auto got = torch::empty_like(want);
  for (std::int64_t r = 0; r < in.obs.size(0); ++r) {
    const auto o = in.obs[r].contiguous();
    const auto k = in.mask[r].contiguous();
    auto row = got[r];
    impl_->actor.logits({o.data_ptr<float>(), impl_->obs_size}, {k.data_ptr<std::uint8_t>(), impl_->n_logits},
                        {row.data_ptr<float>(), impl_->n_logits});
  }
  if (!torch::allclose(got, want, kNativeTolerance, kNativeTolerance)) {
    throw CheckpointError(model_file.string() + ": the native forward pass does not compute the module's logits " +
                          "(largest difference " + std::to_string((got - want).abs().max().item<double>()) +
                          "): a network this version cannot run");
  }
}

TrainedPolicy::~TrainedPolicy() = default;
TrainedPolicy::TrainedPolicy(TrainedPolicy&&) noexcept = default;
TrainedPolicy& TrainedPolicy::operator=(TrainedPolicy&&) noexcept = default;

std::size_t TrainedPolicy::observation_size() const { return impl_->obs_size; }
const std::vector<int>& TrainedPolicy::head_sizes() const { return impl_->heads; }
const std::string& TrainedPolicy::env_yaml() const { return impl_->env_yaml; }
bool TrainedPolicy::actor_only() const { return impl_->has_actor_method; }

bool TrainedPolicy::fits(std::size_t obs_size, const std::vector<int>& head_sizes) const {
  const auto h = impl_->heads_for(obs_size);
  return !h.empty() && h == head_sizes;
}

void TrainedPolicy::logits(std::span<const float> obs, std::span<const std::uint8_t> mask,
                           std::span<float> out) const {
  std::size_t n_logits = impl_->n_logits;
  bool fit = obs.size() == impl_->obs_size;
  if (!fit) {  // a set network on another tenant count
    const auto heads = impl_->heads_for(obs.size());
    fit = !heads.empty();
    n_logits = static_cast<std::size_t>(std::accumulate(heads.begin(), heads.end(), 0));
  }
  if (!fit || mask.size() != n_logits || out.size() != n_logits) {
    throw std::invalid_argument("TrainedPolicy: expected " + std::to_string(impl_->obs_size) + " observations and " +
                                std::to_string(impl_->n_logits) + " mask bytes and logits" +
                                (impl_->set ? " (or another tenant count's)" : "") + ", got " +
                                std::to_string(obs.size()) + ", " + std::to_string(mask.size()) + " and " +
                                std::to_string(out.size()));
  }
  impl_->actor.logits(obs, mask, out);
}

std::vector<int> TrainedPolicy::act(std::span<const float> obs, std::span<const std::uint8_t> mask) const {
  // The native forward pass (no interpreter, no dispatcher: docs/results.md), then each
  // head's argmax.
  std::vector<int> other;  // a set network on another tenant count
  if (obs.size() != impl_->obs_size) other = impl_->heads_for(obs.size());
  const std::vector<int>& heads = obs.size() == impl_->obs_size ? impl_->heads : other;
  thread_local std::vector<float> l;
  l.resize(heads.empty() ? impl_->n_logits : static_cast<std::size_t>(std::accumulate(heads.begin(), heads.end(), 0)));
  logits(obs, mask, l);  // throws when the sizes do not fit
  std::vector<int> out(heads.size());
  std::size_t off = 0;
  for (std::size_t h = 0; h < out.size(); ++h) {
    int best = 0;
    for (int i = 1; i < heads[h]; ++i) {
      if (l[off + static_cast<std::size_t>(i)] > l[off + static_cast<std::size_t>(best)]) best = i;
    }
    out[h] = best;
    off += static_cast<std::size_t>(heads[h]);
  }
  return out;
}

}  // namespace nicsched::ppo
