// Loading and running an exported policy (TorchScript), for eval and serve.
#include "nicsched/ppo/policy.hpp"

#include <torch/csrc/jit/runtime/graph_executor.h>
#include <ATen/Parallel.h>
#include <torch/script.h>
#include <yaml-cpp/yaml.h>

#include "nicsched/fileio/yaml.hpp"
#include "nicsched/ppo/trainer.hpp"

namespace nicsched::ppo {

struct TrainedPolicy::Impl {
  torch::jit::Module module;
  c10::optional<torch::jit::Method> actor;  // the module's actor-only method, if it has one
  std::size_t obs_size = 0;
  std::vector<int> heads;
  std::size_t n_logits = 0;
  std::string env_yaml;
};

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
  try {
    impl_->module = torch::jit::load(model_file.string());
  } catch (const c10::Error& e) {
    throw CheckpointError(model_file.string() + ": cannot load the TorchScript policy");
  }
  impl_->module.eval();
  impl_->actor = impl_->module.find_method("actor");
  // One decision is a tiny MLP: the profiling executor's re-optimisation on the first
  // calls and intra-op threads cost far more than the arithmetic (docs/results.md).
  torch::jit::getProfilingMode() = false;
  torch::jit::getExecutorMode() = false;
  at::set_num_threads(1);
  const std::vector<float> obs(impl_->obs_size, 0.0F);
  const std::vector<std::uint8_t> mask(impl_->n_logits, 1);
  (void)act(obs, mask);  // warm-up: the first call compiles the method
}

TrainedPolicy::~TrainedPolicy() = default;
TrainedPolicy::TrainedPolicy(TrainedPolicy&&) noexcept = default;
TrainedPolicy& TrainedPolicy::operator=(TrainedPolicy&&) noexcept = default;

std::size_t TrainedPolicy::observation_size() const { return impl_->obs_size; }
const std::vector<int>& TrainedPolicy::head_sizes() const { return impl_->heads; }
const std::string& TrainedPolicy::env_yaml() const { return impl_->env_yaml; }
bool TrainedPolicy::actor_only() const { return impl_->actor.has_value(); }

std::vector<int> TrainedPolicy::act(std::span<const float> obs,
                                    std::span<const std::uint8_t> mask) const {
  if (obs.size() != impl_->obs_size || mask.size() != impl_->n_logits) {
    throw std::invalid_argument("TrainedPolicy::act: expected " + std::to_string(impl_->obs_size) +
                                " observations and " + std::to_string(impl_->n_logits) +
                                " mask bytes, got " + std::to_string(obs.size()) + " and " +
                                std::to_string(mask.size()));
  }
  // The actor alone, then each head's argmax over the float logits in C++: the critic
  // would double the weights read per decision (cold caches are the CPU tail), and the
  // exported act() runs a slice, an argmax and a stack per head in the interpreter
  // (docs/results.md, "Agent figures").
  const c10::InferenceMode guard;
  const auto o = torch::from_blob(const_cast<float*>(obs.data()),
                                  {1, static_cast<std::int64_t>(obs.size())}, torch::kFloat32);
  const auto m = torch::from_blob(const_cast<std::uint8_t*>(mask.data()),
                                  {1, static_cast<std::int64_t>(mask.size())}, torch::kUInt8);
  const auto logits = impl_->actor ? (*impl_->actor)({o, m}).toTensor().contiguous()
                                   : impl_->module.forward({o, m}).toTupleRef().elements()[0].toTensor().contiguous();
  if (logits.numel() != static_cast<std::int64_t>(impl_->n_logits) || logits.scalar_type() != torch::kFloat32) {
    throw CheckpointError("TrainedPolicy::act: the policy returned " + std::to_string(logits.numel()) +
                          " logits, expected " + std::to_string(impl_->n_logits) + " floats");
  }
  const float* l = logits.data_ptr<float>();
  std::vector<int> out(impl_->heads.size());
  std::size_t off = 0;
  for (std::size_t h = 0; h < out.size(); ++h) {
    int best = 0;
    for (int i = 1; i < impl_->heads[h]; ++i) {
      if (l[off + static_cast<std::size_t>(i)] > l[off + static_cast<std::size_t>(best)]) best = i;
    }
    out[h] = best;
    off += static_cast<std::size_t>(impl_->heads[h]);
  }
  return out;
}

}  // namespace nicsched::ppo
