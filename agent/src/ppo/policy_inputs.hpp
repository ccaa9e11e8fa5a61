// Random inputs on which two computations of an exported policy are compared: the native
// forward pass against the module when a policy is loaded (policy.cpp), a re-export
// against the original (policy_export.cpp). Private to agent/src/ppo.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <torch/script.h>

#include <cstdint>

namespace nicsched::ppo::detail {

struct PolicyInputs {
  torch::Tensor obs;   // [rows, observation size], float
  torch::Tensor mask;  // [rows, logits], uint8 0 / 1
};

// 64 observations whose values span 1e-3 .. 1e5 in magnitude, either sign (so that the
// normalisation and any other observation clip than the module's show), and random
// masks. For a set network (the module has tenant statistics: [frames, 1, features],
// globals [frames, globals]) every tenant's presence flag in every frame is 0 or 1.
// Drawn from their own generator, seeded by `seed`: the global torch seed is left alone.
inline PolicyInputs random_policy_inputs(const torch::jit::Module& m, std::size_t obs_size, std::size_t n_logits,
                                         std::uint64_t seed) {
  constexpr std::int64_t rows = 64;
  const auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto n_obs = static_cast<std::int64_t>(obs_size);
  const auto sign = [&](std::int64_t cols) {
    return torch::randint(0, 2, {rows, cols}, gen, torch::kFloat32) * 2.0 - 1.0;
  };
  auto obs = torch::pow(10.0, torch::rand({rows, n_obs}, gen) * 8.0 - 3.0) * sign(n_obs);
  if (m.hasattr("tenant_mean")) {
    const auto t_mean = m.attr("tenant_mean").toTensor();
    const auto frames = t_mean.size(0), features = t_mean.size(2);
    const auto globals = m.hasattr("global_mean") ? m.attr("global_mean").toTensor().size(1) : 0;
    const auto frame = n_obs / frames;
    const auto tenants = (frame - globals) / features;
    auto v = obs.view({rows, frames, frame});
    auto flags = v.slice(2, 0, tenants * features).view({rows, frames, tenants, features});
    flags.select(3, 0).copy_(torch::randint(0, 2, {rows, frames, tenants}, gen, torch::kFloat32));
  }
  const auto mask = torch::randint(0, 2, {rows, static_cast<std::int64_t>(n_logits)}, gen, torch::kUInt8);
  return {obs.contiguous(), mask};
}

}  // namespace nicsched::ppo::detail
