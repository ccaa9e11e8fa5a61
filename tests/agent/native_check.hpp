// TrainedPolicy's native forward pass (what eval and serve run) against the exported
// TorchScript module's actor, on rows of observations and masks: the logits to within
// 1e-5 (relative and absolute, torch::allclose) and the greedy action of every head.
// Include after torch_catch.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nicsched/ppo/policy.hpp"

namespace nicsched::testing {

struct NativeComparison {
  bool logits_close = false;   // torch::allclose(native, module, 1e-5, 1e-5)
  double largest_difference = 0;
  std::size_t rows = 0;
  std::size_t differing_actions = 0;  // rows where some head's greedy action differs
  std::size_t masked_chosen = 0;      // rows where the native action picks a masked value
};

// `obs` [rows, observation size] float, `mask` [rows, logits] uint8.
inline NativeComparison compare_native_with_module(const ppo::TrainedPolicy& policy, const std::string& module_file,
                                                   const torch::Tensor& obs, const torch::Tensor& mask) {
  auto m = torch::jit::load(module_file);
  const auto want = (m.find_method("actor") ? m.get_method("actor")({obs, mask}).toTensor()
                                            : m.forward({obs, mask}).toTupleRef().elements()[0].toTensor())
                        .contiguous();
  auto got = torch::empty_like(want);
  NativeComparison c;
  c.rows = static_cast<std::size_t>(obs.size(0));
  for (std::int64_t r = 0; r < obs.size(0); ++r) {
    const auto o = obs[r].contiguous();
    const auto k = mask[r].contiguous();
    const std::span<const float> os(o.data_ptr<float>(), static_cast<std::size_t>(o.numel()));
    const std::span<const std::uint8_t> ks(k.data_ptr<std::uint8_t>(), static_cast<std::size_t>(k.numel()));
    auto row = got[r];
    policy.logits(os, ks, {row.data_ptr<float>(), static_cast<std::size_t>(row.numel())});
    const auto action = policy.act(os, ks);
    std::int64_t off = 0;
    bool same = true;
    for (std::size_t h = 0; h < action.size(); ++h) {
      const int size = policy.head_sizes()[h];
      same = same && want[r].slice(0, off, off + size).argmax().item<std::int64_t>() == action[h];
      c.masked_chosen += k[off + action[h]].item<std::uint8_t>() == 0 ? 1U : 0U;
      off += size;
    }
    c.differing_actions += same ? 0U : 1U;
  }
  c.logits_close = torch::allclose(got, want, 1e-5, 1e-5);
  c.largest_difference = (got - want).abs().max().item<double>();
  return c;
}

}  // namespace nicsched::testing
