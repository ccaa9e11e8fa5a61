// Export of a trained policy: TorchScript (policy.pt) and its description (policy.yaml).
#include <torch/script.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "learner.hpp"
#include "nicsched/fileio/file.hpp"

namespace nicsched::ppo {
namespace {

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
  s << "        logits = torch.where(mask > 0, logits, torch.full_like(logits, " << detail::kMaskedLogit
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
