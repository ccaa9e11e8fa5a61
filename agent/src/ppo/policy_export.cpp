// Export of a trained policy: TorchScript (policy.pt) and its description (policy.yaml);
// and the re-export of an earlier export with this exporter (reexport_policy).
#include <torch/script.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "learner.hpp"
#include "policy_inputs.hpp"
#include "nicsched/fileio/file.hpp"
#include "nicsched/ppo/policy.hpp"

namespace nicsched::ppo {
namespace {

// How far a re-exported policy's logits and values may be from the original's (relative
// and absolute, torch::allclose).
constexpr double kReexportTolerance = 1e-5;

// What the exported module's TorchScript needs besides its weights.
struct ScriptSpec {
  bool set = false;        // the set network (learner.hpp), else the mlp
  std::size_t layers = 0;  // mlp: linear layers of the actor and of the critic; set: of each encoder
  bool norm_obs = true;    // observation statistics in the module (buffers), applied first
  double obs_clip = 10.0;  // normalised observations clipped to +-obs_clip
  std::vector<int> heads;  // action head sizes, for act()
  detail::SetShape shape;  // the set network's observation layout
};

// `out = layers of self.<name>_w<i>/_b<i>` over `in`: tanh after every layer, or after
// all but the last when `linear_last`.
void layers(std::ostringstream& s, const std::string& name, std::size_t n, const std::string& in,
            const std::string& out, bool linear_last) {
  s << "        " << out << " = " << in << "\n";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string lin = "torch.linear(" + out + ", self." + name + "_w" + std::to_string(i) +
                            ", self." + name + "_b" + std::to_string(i) + ")";
    s << "        " << out << " = " << (linear_last && i + 1 == n ? lin : "torch.tanh(" + lin + ")") << "\n";
  }
}

void mask_logits(std::ostringstream& s) {
  s << "        logits = torch.where(mask > 0, logits, torch.full_like(logits, " << detail::kMaskedLogit << "))\n";
}

// The mlp: `x` = the normalised observation; `logits` = the actor's masked logits;
// `value` = the critic's output [B, 1].
void mlp_normalise(std::ostringstream& s, const ScriptSpec& sp) {
  if (sp.norm_obs) {
    s << "        x = torch.clamp((obs - self.obs_mean) / torch.sqrt(self.obs_var + 1e-8), " << -sp.obs_clip << ", "
      << sp.obs_clip << ")\n";
  } else {
    s << "        x = obs\n";
  }
}
void mlp_actor(std::ostringstream& s, const ScriptSpec& sp) {
  layers(s, "actor", sp.layers, "x", "logits", true);
  mask_logits(s);
}

// The set network: `x, present` = per-tenant encoder inputs and presence; `logits` = the
// actor's masked logits; `value` = the critic's output [B, 1].
void set_inputs(std::ostringstream& s) { s << "        x, present = self.features(obs)\n"; }
void set_actor(std::ostringstream& s, const ScriptSpec& sp) {
  layers(s, "actor_encoder", sp.layers, "x", "e", false);
  s << "        ctx = self.pool(e, present)\n";
  s << "        a = torch.cat([e, ctx.unsqueeze(1).expand([e.size(0), e.size(1), ctx.size(1)])], 2)\n";
  layers(s, "actor", 2, "a", "logits", true);
  s << "        logits = logits.reshape([obs.size(0), -1])\n";
  mask_logits(s);
}

// The methods every export has, from its network's pieces:
//  actor(obs, mask) -> masked logits: the actor alone, what a deployed policy runs per
//    decision (TrainedPolicy::act): the critic's weights are neither read nor computed;
//  forward(obs, mask) -> (logits, value): the same logits, and the critic's value;
//  act(obs, mask) -> the greedy action of every head.
template <typename Inputs, typename Actor, typename Critic>
void common_methods(std::ostringstream& s, const ScriptSpec& sp, Inputs inputs, Actor actor, Critic critic) {
  s << "def actor(self, obs: Tensor, mask: Tensor) -> Tensor:\n";
  inputs(s);
  actor(s);
  s << "        return logits\n\n";
  s << "def forward(self, obs: Tensor, mask: Tensor) -> Tuple[Tensor, Tensor]:\n";
  inputs(s);
  actor(s);
  critic(s);
  s << "        return logits, value.squeeze(1)\n\n";
  s << "def act(self, obs: Tensor, mask: Tensor) -> Tensor:\n";
  s << "        logits = self.actor(obs, mask)\n";
  s << "        return torch.stack([";
  int off = 0;
  for (std::size_t h = 0; h < sp.heads.size(); ++h) {
    s << (h ? ", " : "") << "torch.argmax(logits[:, " << off << ":" << off + sp.heads[h] << "], 1)";
    off += sp.heads[h];
  }
  s << "], 1)\n";
}

// TorchScript source of the mlp policy: the same computation as the trained model
// (normalise, MLPs, masking) with weights as module parameters.
std::string mlp_script(const ScriptSpec& sp) {
  std::ostringstream s;
  common_methods(
      s, sp, [&](std::ostringstream& o) { mlp_normalise(o, sp); }, [&](std::ostringstream& o) { mlp_actor(o, sp); },
      [&](std::ostringstream& o) { layers(o, "critic", sp.layers, "x", "value", true); });
  return s.str();
}

// The set network (learner.hpp, ActorCriticImpl): the tenant count is read from the
// observation's size, so the exported policy runs on any count with the same weights.
std::string set_script(const ScriptSpec& sp) {
  std::ostringstream s;
  const auto H = sp.shape.frames, F = sp.shape.features, G = sp.shape.globals;
  s << "def features(self, obs: Tensor) -> Tuple[Tensor, Tensor]:\n";
  s << "        b = obs.size(0)\n";
  s << "        v = obs.reshape([b, " << H << ", -1])\n";
  s << "        t = (v.size(2) - " << G << ") // " << F << "\n";
  s << "        ten = v[:, :, 0:t * " << F << "].reshape([b, " << H << ", t, " << F << "])\n";
  s << "        glob = v[:, :, t * " << F << ":]\n";
  if (sp.norm_obs) {
    s << "        ten = torch.clamp((ten - self.tenant_mean) / torch.sqrt(self.tenant_var + 1e-8), " << -sp.obs_clip
      << ", " << sp.obs_clip << ")\n";
    if (G > 0) {
      s << "        glob = torch.clamp((glob - self.global_mean) / torch.sqrt(self.global_var + 1e-8), "
        << -sp.obs_clip << ", " << sp.obs_clip << ")\n";
    }
  }
  s << "        per = ten.permute([0, 2, 1, 3]).reshape([b, t, " << H * F << "])\n";
  s << "        g = glob.reshape([b, 1, " << H * G << "]).expand([b, t, " << H * G << "])\n";
  s << "        present = (ten[:, 0, :, 0] > 0.5).float().unsqueeze(2)\n";
  s << "        return torch.cat([per, g], 2), present\n\n";
  s << "def pool(self, enc: Tensor, present: Tensor) -> Tensor:\n";
  s << "        count = torch.clamp(present.sum(1), min=1.0)\n";
  s << "        mean = (enc * present).sum(1) / count\n";
  s << "        mx = torch.amax(torch.where(present > 0, enc, torch.full_like(enc, -1.0)), [1])\n";
  s << "        return torch.cat([mean, mx], 1)\n\n";
  common_methods(
      s, sp, set_inputs, [&](std::ostringstream& o) { set_actor(o, sp); },
      [&](std::ostringstream& o) {
        layers(o, "critic_encoder", sp.layers, "x", "c", false);
        layers(o, "critic", 2, "self.pool(c, present)", "value", true);
      });
  return s.str();
}

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// The exported module: `parameters` and `buffers` under their names, then the methods.
torch::jit::Module build_module(const ScriptSpec& sp, const NamedTensors& parameters, const NamedTensors& buffers) {
  torch::jit::Module m("NicschedPolicy");
  for (const auto& [name, t] : parameters) m.register_parameter(name, t.detach().clone(), false);
  for (const auto& [name, t] : buffers) m.register_buffer(name, t.detach().clone());
  m.define(sp.set ? set_script(sp) : mlp_script(sp));
  return m;
}

void save_module(const torch::jit::Module& m, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ostringstream bytes;
  m.save(bytes);
  fileio::write_file_atomically(dir / "policy.pt", bytes.str());
}

// How many of `prefix`0, `prefix`1, ... the module has.
std::size_t count_numbered(const torch::jit::Module& m, const std::string& prefix) {
  std::size_t n = 0;
  while (m.hasattr(prefix + std::to_string(n))) ++n;
  return n;
}

}  // namespace

void Trainer::export_policy(const std::filesystem::path& dir, const std::string& env_yaml) const {
  NamedTensors parameters, buffers;
  auto add_mlp = [&](const std::string& name, const torch::nn::Sequential& seq) {
    std::size_t layer = 0;
    for (const auto& child : seq->children()) {
      if (const auto* lin = child->as<torch::nn::Linear>()) {
        parameters.emplace_back(name + "_w" + std::to_string(layer), lin->weight);
        parameters.emplace_back(name + "_b" + std::to_string(layer), lin->bias);
        ++layer;
      }
    }
  };
  const auto& model = impl_->model;
  const auto& cfg = impl_->cfg;
  ScriptSpec sp;
  sp.set = model->is_set;
  sp.norm_obs = cfg.norm_obs;
  sp.obs_clip = cfg.obs_clip;
  sp.heads = impl_->heads;
  add_mlp("actor", model->actor);
  add_mlp("critic", model->critic);
  if (model->is_set) {
    sp.layers = cfg.hidden_sizes.size();
    sp.shape = model->shape;
    add_mlp("actor_encoder", model->actor_encoder);
    add_mlp("critic_encoder", model->critic_encoder);
    const auto [t_mean, t_var] = model->tenant_stats();
    buffers.emplace_back("tenant_mean", t_mean);
    buffers.emplace_back("tenant_var", t_var);
    if (model->shape.globals > 0) {
      const auto stats = [&](const torch::Tensor& t) {
        return t.to(torch::kFloat32).reshape({model->shape.frames, model->shape.globals});
      };
      buffers.emplace_back("global_mean", stats(model->global_norm->mean));
      buffers.emplace_back("global_var", stats(model->global_norm->var));
    }
  } else {
    sp.layers = cfg.hidden_sizes.size() + 1;
    buffers.emplace_back("obs_mean", model->obs_norm->mean.to(torch::kFloat32));
    buffers.emplace_back("obs_var", model->obs_norm->var.to(torch::kFloat32));
  }
  save_module(build_module(sp, parameters, buffers), dir);

  YAML::Emitter meta;
  meta << YAML::BeginMap;
  meta << YAML::Key << "format" << YAML::Value << "nicsched-ppo-policy-1";
  meta << YAML::Key << "observation_size" << YAML::Value << impl_->obs_size;
  meta << YAML::Key << "head_sizes" << YAML::Value << YAML::Flow << impl_->heads;
  meta << YAML::Key << "hidden_sizes" << YAML::Value << YAML::Flow << impl_->cfg.hidden_sizes;
  meta << YAML::Key << "network" << YAML::Value << impl_->cfg.network;
  meta << YAML::Key << "global_step" << YAML::Value << impl_->global_step;
  meta << YAML::Key << "env" << YAML::Value << (env_yaml.empty() ? YAML::Load("{}") : YAML::Load(env_yaml));
  meta << YAML::EndMap;
  fileio::write_file_atomically(dir / "policy.yaml", std::string(meta.c_str()) + "\n");
}

void Trainer::start_from_policy(const std::filesystem::path& dir) {
  const TrainedPolicy policy(dir);  // checks policy.yaml and that policy.pt loads
  auto& impl = *impl_;
  const auto file = (dir / "policy.pt").string();
  const auto fail = [&](const std::string& why) {
    throw CheckpointError(file + ": cannot start from this policy: " + why);
  };
  const std::vector<int> heads(impl.heads.begin(), impl.heads.end());
  if (policy.observation_size() != static_cast<std::size_t>(impl.obs_size) || policy.head_sizes() != heads) {
    fail("it was exported for observations of " + std::to_string(policy.observation_size()) +
         " floats and other action heads than this run's (" + std::to_string(impl.obs_size) + " floats)");
  }
  auto m = torch::jit::load(file);
  const torch::NoGradGuard no_grad;
  auto& model = impl.model;
  // Each Linear of `seq` from the module's name_w<i> / name_b<i>, in order.
  const auto load_stack = [&](const std::string& name, const torch::nn::Sequential& seq) {
    std::size_t layer = 0;
    for (const auto& child : seq->children()) {
      auto* lin = child->as<torch::nn::Linear>();
      if (lin == nullptr) continue;
      const std::string w = name + "_w" + std::to_string(layer), b = name + "_b" + std::to_string(layer);
      if (!m.hasattr(w) || !m.hasattr(b) || m.attr(w).toTensor().sizes() != lin->weight.sizes() ||
          m.attr(b).toTensor().sizes() != lin->bias.sizes()) {
        fail("its " + w + " is missing or of another size: the PPO config's network and hidden_sizes must be "
             "those it was trained with");
      }
      lin->weight.copy_(m.attr(w).toTensor());
      lin->bias.copy_(m.attr(b).toTensor());
      ++layer;
    }
    if (m.hasattr(name + "_w" + std::to_string(layer))) fail("its " + name + " has more layers than this network");
  };
  load_stack("actor", model->actor);
  load_stack("critic", model->critic);
  if (model->is_set) {
    load_stack("actor_encoder", model->actor_encoder);
    load_stack("critic_encoder", model->critic_encoder);
  }
  // The observation statistics, as their own count of observations.
  const auto load_stats = [&](detail::ObsNorm& norm, const std::string& mean, const std::string& var) {
    if (!m.hasattr(mean) || !m.hasattr(var)) fail("it has no " + mean + " (exported without norm_obs?)");
    norm->mean.copy_(m.attr(mean).toTensor().reshape({-1}).to(torch::kFloat64));
    norm->var.copy_(m.attr(var).toTensor().reshape({-1}).to(torch::kFloat64));
    norm->count.fill_(kStartPolicyObservations);
  };
  if (impl.cfg.norm_obs) {
    if (model->is_set) {
      load_stats(model->tenant_norm, "tenant_mean", "tenant_var");
      if (model->shape.globals > 0) load_stats(model->global_norm, "global_mean", "global_var");
    } else {
      load_stats(model->obs_norm, "obs_mean", "obs_var");
    }
  } else if (m.hasattr("obs_mean") || m.hasattr("tenant_mean")) {
    fail("it normalises its observations and the PPO config says norm_obs: false");
  }
  // The loaded learner must decide as the file does.
  const auto [obs, mask] = detail::random_policy_inputs(m, policy.observation_size(),
                                                        static_cast<std::size_t>(impl.n_logits), 11);
  m.eval();
  const auto want = m.forward({obs, mask}).toTuple()->elements()[0].toTensor();
  const auto raw = model->logits(impl.normalise(obs));
  const auto got = torch::where(mask > 0, raw, torch::full_like(raw, detail::kMaskedLogit));
  if (!torch::allclose(got, want, kReexportTolerance, kReexportTolerance)) {
    fail("the loaded network's logits differ from the file's by up to " +
         std::to_string((got - want).abs().max().item<double>()) +
         "; was it trained with another obs_clip than the PPO config's " + std::to_string(impl.cfg.obs_clip) + "?");
  }
  impl.broadcast_parameters();
}

void reexport_policy(const std::filesystem::path& from, const std::filesystem::path& to, double obs_clip) {
  const TrainedPolicy policy(from);  // checks policy.yaml and that policy.pt loads
  const auto old_file = from / "policy.pt";
  auto old = torch::jit::load(old_file.string());
  old.eval();
  ScriptSpec sp;
  sp.set = old.hasattr("actor_encoder_w0");
  sp.layers = count_numbered(old, sp.set ? "actor_encoder_w" : "actor_w");
  sp.norm_obs = old.hasattr(sp.set ? "tenant_mean" : "obs_mean");
  sp.obs_clip = obs_clip;
  sp.heads = policy.head_sizes();
  if (sp.layers == 0 || !old.find_method("forward")) {
    throw CheckpointError(old_file.string() + ": not a policy exported by nicagent (no actor_w0 / actor_encoder_w0 "
                          "weights or no forward method)");
  }
  if (sp.set) {
    if (!sp.norm_obs) {
      throw CheckpointError(old_file.string() + ": a set policy without observation statistics cannot be re-exported "
                            "(its observation layout is only known from them)");
    }
    const auto t_mean = old.attr("tenant_mean").toTensor();  // [frames, 1, features]
    sp.shape.frames = t_mean.size(0);
    sp.shape.features = t_mean.size(2);
    sp.shape.globals = old.hasattr("global_mean") ? old.attr("global_mean").toTensor().size(1) : 0;
  }
  NamedTensors parameters, buffers;
  for (const auto& p : old.named_parameters(false)) parameters.emplace_back(p.name, p.value);
  for (const auto& b : old.named_buffers(false)) buffers.emplace_back(b.name, b.value);
  auto fresh = build_module(sp, parameters, buffers);
  fresh.eval();

  // The new module must compute what the old one did: random observations and masks
  // (policy_inputs.hpp) give the same logits and values to within kReexportTolerance
  // (exporters before this one wrote torch.addmm(b, x, w.t()) where it writes
  // torch.linear(x, w, b): the same sums, in another order, ~1e-6 apart) and the same
  // greedy action in every head.
  const c10::InferenceMode guard;
  std::int64_t n_logits = 0;
  for (int h : sp.heads) n_logits += h;
  const auto [obs, mask] = detail::random_policy_inputs(old, policy.observation_size(),
                                                        static_cast<std::size_t>(n_logits), 1);
  const auto before = old.forward({obs, mask}).toTuple();
  const auto after = fresh.forward({obs, mask}).toTuple();
  const auto actor = fresh.get_method("actor")({obs, mask}).toTensor();
  const auto& old_logits = before->elements()[0].toTensor();
  const auto& old_value = before->elements()[1].toTensor();
  const auto close = [](const torch::Tensor& a, const torch::Tensor& b) {
    return torch::allclose(a, b, kReexportTolerance, kReexportTolerance);
  };
  bool same_actions = true;
  std::int64_t off = 0;
  for (int h : sp.heads) {
    same_actions = same_actions && torch::equal(actor.slice(1, off, off + h).argmax(1),
                                                old_logits.slice(1, off, off + h).argmax(1));
    off += h;
  }
  if (!close(actor, old_logits) || !torch::equal(actor, after->elements()[0].toTensor()) ||
      !close(after->elements()[1].toTensor(), old_value) || !same_actions) {
    const double diff = (actor - old_logits).abs().max().item<double>();
    throw CheckpointError(old_file.string() + ": the re-exported policy does not compute what this one does (largest "
                          "logit difference " + std::to_string(diff) + (same_actions ? "" : ", other greedy actions") +
                          "); was it exported with an observation clip other than " + std::to_string(obs_clip) +
                          " (the PPO config's obs_clip)?");
  }
  save_module(fresh, to);
  if (std::filesystem::absolute(to).lexically_normal() != std::filesystem::absolute(from).lexically_normal()) {
    fileio::write_file_atomically(to / "policy.yaml",
                                  fileio::read_text_file(from / "policy.yaml", "the policy description"));
  }
}

}  // namespace nicsched::ppo
