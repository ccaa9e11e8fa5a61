// Export of a trained policy: TorchScript (policy.pt) and its description (policy.yaml).
#include <torch/script.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "learner.hpp"
#include "nicsched/fileio/file.hpp"

namespace nicsched::ppo {
namespace {

// Greedy actions over the heads, given the masked logits.
void act_method(std::ostringstream& s, const std::vector<int>& heads) {
  s << "def act(self, obs: Tensor, mask: Tensor) -> Tensor:\n";
  s << "        logits, value = self.forward(obs, mask)\n";
  s << "        return torch.stack([";
  int off = 0;
  for (std::size_t h = 0; h < heads.size(); ++h) {
    s << (h ? ", " : "") << "torch.argmax(logits[:, " << off << ":" << off + heads[h] << "], 1)";
    off += heads[h];
  }
  s << "], 1)\n";
}

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

// TorchScript source of the exported policy: the same computation as the trained
// model (normalise, MLPs, masking) with weights as module parameters.
std::string mlp_script(const PpoConfig& cfg, const std::vector<int>& heads) {
  std::ostringstream s;
  const auto n_layers = cfg.hidden_sizes.size() + 1;
  s << "def forward(self, obs: Tensor, mask: Tensor) -> Tuple[Tensor, Tensor]:\n";
  if (cfg.norm_obs) {
    s << "        x = torch.clamp((obs - self.obs_mean) / torch.sqrt(self.obs_var + 1e-8), "
      << -cfg.obs_clip << ", " << cfg.obs_clip << ")\n";
  } else {
    s << "        x = obs\n";
  }
  layers(s, "actor", n_layers, "x", "logits", true);
  s << "        logits = torch.where(mask > 0, logits, torch.full_like(logits, " << detail::kMaskedLogit
    << "))\n";
  layers(s, "critic", n_layers, "x", "value", true);
  s << "        return logits, value.squeeze(1)\n\n";
  act_method(s, heads);
  return s.str();
}

// The set network (learner.hpp, ActorCriticImpl): the tenant count is read from the
// observation's size, so the exported policy runs on any count with the same weights.
std::string set_script(const PpoConfig& cfg, const std::vector<int>& heads, const detail::SetShape& sh) {
  std::ostringstream s;
  const auto H = sh.frames, F = sh.features, G = sh.globals;
  const auto enc_layers = cfg.hidden_sizes.size();
  s << "def features(self, obs: Tensor) -> Tuple[Tensor, Tensor]:\n";
  s << "        b = obs.size(0)\n";
  s << "        v = obs.reshape([b, " << H << ", -1])\n";
  s << "        t = (v.size(2) - " << G << ") // " << F << "\n";
  s << "        ten = v[:, :, 0:t * " << F << "].reshape([b, " << H << ", t, " << F << "])\n";
  s << "        glob = v[:, :, t * " << F << ":]\n";
  if (cfg.norm_obs) {
    s << "        ten = torch.clamp((ten - self.tenant_mean) / torch.sqrt(self.tenant_var + 1e-8), "
      << -cfg.obs_clip << ", " << cfg.obs_clip << ")\n";
    if (G > 0) {
      s << "        glob = torch.clamp((glob - self.global_mean) / torch.sqrt(self.global_var + 1e-8), "
        << -cfg.obs_clip << ", " << cfg.obs_clip << ")\n";
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
  s << "def forward(self, obs: Tensor, mask: Tensor) -> Tuple[Tensor, Tensor]:\n";
  s << "        x, present = self.features(obs)\n";
  layers(s, "actor_encoder", enc_layers, "x", "e", false);
  s << "        ctx = self.pool(e, present)\n";
  s << "        a = torch.cat([e, ctx.unsqueeze(1).expand([e.size(0), e.size(1), ctx.size(1)])], 2)\n";
  layers(s, "actor", 2, "a", "logits", true);
  s << "        logits = logits.reshape([obs.size(0), -1])\n";
  s << "        logits = torch.where(mask > 0, logits, torch.full_like(logits, " << detail::kMaskedLogit
    << "))\n";
  layers(s, "critic_encoder", enc_layers, "x", "c", false);
  layers(s, "critic", 2, "self.pool(c, present)", "value", true);
  s << "        return logits, value.squeeze(1)\n\n";
  act_method(s, heads);
  return s.str();
}

}  // namespace

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
  const auto& model = impl_->model;
  add_mlp("actor", model->actor);
  add_mlp("critic", model->critic);
  if (model->is_set) {
    add_mlp("actor_encoder", model->actor_encoder);
    add_mlp("critic_encoder", model->critic_encoder);
    const auto [t_mean, t_var] = model->tenant_stats();
    m.register_buffer("tenant_mean", t_mean);
    m.register_buffer("tenant_var", t_var);
    if (model->shape.globals > 0) {
      m.register_buffer("global_mean", model->global_norm->mean.to(torch::kFloat32)
                                           .reshape({model->shape.frames, model->shape.globals}).clone());
      m.register_buffer("global_var", model->global_norm->var.to(torch::kFloat32)
                                          .reshape({model->shape.frames, model->shape.globals}).clone());
    }
    m.define(set_script(impl_->cfg, impl_->heads, model->shape));
  } else {
    m.register_buffer("obs_mean", model->obs_norm->mean.to(torch::kFloat32).clone());
    m.register_buffer("obs_var", model->obs_norm->var.to(torch::kFloat32).clone());
    m.define(mlp_script(impl_->cfg, impl_->heads));
  }
  std::ostringstream bytes;
  m.save(bytes);
  fileio::write_file_atomically(dir / "policy.pt", bytes.str());

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

}  // namespace nicsched::ppo
