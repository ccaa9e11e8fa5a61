// The permutation-equivariant ("set") policy network (PpoConfig::network = "set"):
// trained for a few PPO updates on a small tenant environment, exported to TorchScript,
// then checked through the exported module (the one eval and serve load):
//  - permuting the tenants permutes the logits and leaves the value unchanged;
//  - an absent tenant's features do not change the other tenants' outputs;
//  - the policy trained with 4 tenants runs on 2 and 8, and adding absent tenants
//    changes nothing for the present ones;
//  - TrainedPolicy's native forward pass gives the module's logits and actions;
//  - the committed agent/policies/default: native = TorchScript, and equivariant.
#include "torch_catch.hpp"  // first: Catch's CHECK, not torch's

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numeric>
#include <random>

#include <unistd.h>

#include "nicsched/control/nic_env.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/ppo_controller.hpp"
#include "nicsched/ppo/trainer.hpp"
#include "native_check.hpp"
#include "small_ppo_config.hpp"

namespace {

constexpr std::size_t kFrames = 2, kFeatures = 3, kGlobals = 1, kTenants = 4;
constexpr int kHeadA = 3, kHeadB = 2;  // two heads per tenant: 5 logits per tenant

std::size_t frame_size(std::size_t tenants) { return tenants * kFeatures + kGlobals; }

// Tenants with random features; feature 0 is presence (tenant 3 is absent in odd
// episodes). Reward: tenants whose head A matches round(feature 1 * 2) score.
class TenantEnv final : public nicsched::control::Env {
 public:
  [[nodiscard]] std::size_t observation_size() const override { return kFrames * frame_size(kTenants); }
  [[nodiscard]] nicsched::control::ActionSpace action_space() const override {
    nicsched::control::ActionSpace s;
    for (std::size_t t = 0; t < kTenants; ++t) {
      s.head_sizes.push_back(kHeadA);
      s.head_sizes.push_back(kHeadB);
    }
    return s;
  }
  void reset(std::uint64_t seed, std::span<float> obs) override {
    rng_.seed(seed);
    absent_ = seed % 2 == 1;
    steps_ = 0;
    fill(obs);
  }
  nicsched::control::StepResult step(std::span<const int> action, std::span<float> obs) override {
    float r = 0.0F;
    for (std::size_t t = 0; t < kTenants; ++t) {
      const int want = static_cast<int>(std::lround(last_[t * kFeatures + 1] * 2.0F));
      r += action[t * 2] == want ? 1.0F : 0.0F;
    }
    fill(obs);
    nicsched::control::StepResult res;
    res.reward = r;
    res.truncated = ++steps_ >= 32;
    return res;
  }

 private:
  void fill(std::span<float> obs) {
    std::uniform_real_distribution<float> u(0.0F, 1.0F);
    for (std::size_t i = 0; i < obs.size(); ++i) obs[i] = u(rng_);
    for (std::size_t f = 0; f < kFrames; ++f) {
      for (std::size_t t = 0; t < kTenants; ++t) {
        obs[f * frame_size(kTenants) + t * kFeatures] = (absent_ && t == 3) ? 0.0F : 1.0F;
      }
    }
    last_.assign(obs.begin(), obs.end());
  }
  std::mt19937 rng_;
  bool absent_ = false;
  std::uint32_t steps_ = 0;
  std::vector<float> last_;
};

nicsched::ppo::TenantLayout layout() {
  nicsched::ppo::TenantLayout l;
  l.frames = kFrames;
  l.frame_size = frame_size(kTenants);
  l.tenants = kTenants;
  l.tenant_features = kFeatures;
  l.heads_per_tenant = 2;
  l.logits_per_tenant = kHeadA + kHeadB;
  return l;
}

nicsched::ppo::PpoConfig set_config() {
  auto cfg = nicsched::testing::small_ppo_config(5, 2, 64, 3);
  cfg.network = "set";
  return cfg;
}

std::vector<std::unique_ptr<nicsched::control::Env>> envs(std::size_t n) {
  std::vector<std::unique_ptr<nicsched::control::Env>> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(std::make_unique<TenantEnv>());
  return out;
}

// A trained and exported set policy, shared by the tests below.
const std::filesystem::path& exported() {
  static const std::filesystem::path dir = [] {
    const auto d = std::filesystem::temp_directory_path() / ("nicsched-set-policy-" + std::to_string(::getpid()));
    nicsched::ppo::Trainer trainer(set_config(), envs(2), layout());
    while (!trainer.finished()) (void)trainer.update();
    trainer.export_policy(d, "");
    return d;
  }();
  return dir;
}

// Observation [1, H * (T * F + G)] of random features; presence given per tenant.
torch::Tensor observation(std::size_t tenants, const std::vector<bool>& present, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0F, 2.0F);
  std::vector<float> v(kFrames * frame_size(tenants));
  for (auto& x : v) x = u(rng);
  for (std::size_t f = 0; f < kFrames; ++f) {
    for (std::size_t t = 0; t < tenants; ++t) v[f * frame_size(tenants) + t * kFeatures] = present[t] ? 1.0F : 0.0F;
  }
  return torch::tensor(v).reshape({1, -1});
}

// The observation with tenant blocks reordered: new tenant i is old tenant perm[i]
// (`frames` frames of per-tenant `features`, then the globals).
torch::Tensor permute_obs(const torch::Tensor& obs, const std::vector<std::int64_t>& perm,
                          std::int64_t n_frames = kFrames, std::int64_t features = kFeatures) {
  const auto t = static_cast<std::int64_t>(perm.size());
  const auto frames = obs.reshape({n_frames, -1});
  std::vector<torch::Tensor> rows;
  for (std::int64_t f = 0; f < n_frames; ++f) {
    const auto fr = frames[f];
    const auto ten = fr.slice(0, 0, t * features).reshape({t, features});
    rows.push_back(torch::cat({ten.index_select(0, torch::tensor(perm)).reshape({-1}), fr.slice(0, t * features)}));
  }
  return torch::cat(rows).reshape({1, -1});
}

torch::Tensor permute_logits(const torch::Tensor& logits, const std::vector<std::int64_t>& perm) {
  return logits.reshape({static_cast<std::int64_t>(perm.size()), -1})
      .index_select(0, torch::tensor(perm))
      .reshape({1, -1});
}

std::pair<torch::Tensor, torch::Tensor> run(torch::jit::Module& m, const torch::Tensor& obs) {
  const auto n_logits = (obs.size(1) / static_cast<std::int64_t>(kFrames) - static_cast<std::int64_t>(kGlobals)) /
                        static_cast<std::int64_t>(kFeatures) * (kHeadA + kHeadB);
  const auto mask = torch::ones({1, n_logits}, torch::kUInt8);
  const auto out = m.forward({obs, mask}).toTuple();
  return {out->elements()[0].toTensor(), out->elements()[1].toTensor()};
}

}  // namespace

TEST_CASE("set policy: permuted tenants give permuted logits and the same value", "[ppo][set]") {
  auto m = torch::jit::load((exported() / "policy.pt").string());
  std::mt19937 rng(11);
  for (const bool one_absent : {false, true}) {
    const std::vector<bool> present{true, !one_absent, true, true};
    const auto obs = observation(kTenants, present, rng);
    const auto [logits, value] = run(m, obs);
    std::vector<std::int64_t> perm{0, 1, 2, 3};
    for (int k = 0; k < 5; ++k) {
      std::shuffle(perm.begin(), perm.end(), rng);
      const auto [p_logits, p_value] = run(m, permute_obs(obs, perm));
      CHECK(torch::allclose(p_logits, permute_logits(logits, perm), 1e-4, 1e-5));
      CHECK(p_value.item<float>() == Approx(value.item<float>()).margin(1e-5));
    }
    // Not trivially constant: different tenants get different logits.
    const auto per = logits.reshape({4, -1});
    CHECK_FALSE(torch::allclose(per[0], per[2], 1e-4, 1e-6));
  }
}

TEST_CASE("set policy: an absent tenant's features do not change the others' outputs", "[ppo][set]") {
  auto m = torch::jit::load((exported() / "policy.pt").string());
  std::mt19937 rng(12);
  const std::vector<bool> present{true, true, false, true};
  const auto a = observation(kTenants, present, rng);
  auto b = a.clone();
  // New random features for tenant 2 (absent) in every frame; its presence flag stays 0.
  for (std::size_t f = 0; f < kFrames; ++f) {
    for (std::size_t k = 1; k < kFeatures; ++k) {
      b[0][static_cast<std::int64_t>(f * frame_size(kTenants) + 2 * kFeatures + k)] = 5.0F + static_cast<float>(k);
    }
  }
  const auto [la, va] = run(m, a);
  const auto [lb, vb] = run(m, b);
  CHECK(vb.item<float>() == Approx(va.item<float>()).margin(1e-6));
  for (const std::int64_t t : {0, 1, 3}) {
    CHECK(torch::allclose(la.reshape({4, -1})[t], lb.reshape({4, -1})[t], 1e-5, 1e-6));
  }
  // A present tenant's features do move the others (the context is not ignored).
  auto c = a.clone();
  c[0][1] = 5.0F;  // tenant 0, feature 1, newest frame
  const auto [lc, vc] = run(m, c);
  CHECK_FALSE(torch::allclose(la.reshape({4, -1})[1], lc.reshape({4, -1})[1], 1e-6, 1e-7));
}

TEST_CASE("set policy: trained with 4 tenants, runs on 2 and 8, absent extra tenants change nothing",
          "[ppo][set]") {
  auto m = torch::jit::load((exported() / "policy.pt").string());
  std::mt19937 rng(13);
  for (const std::size_t n : {std::size_t{2}, std::size_t{8}}) {
    const auto [l, v] = run(m, observation(n, std::vector<bool>(n, true), rng));
    CHECK(l.size(1) == static_cast<std::int64_t>(n) * (kHeadA + kHeadB));
    CHECK(std::isfinite(v.item<float>()));
  }
  // The 4-tenant observation padded with 4 absent tenants (same globals): same outputs.
  const auto small = observation(kTenants, std::vector<bool>(kTenants, true), rng);
  std::vector<torch::Tensor> frames;
  const auto sf = small.reshape({kFrames, -1});
  for (std::int64_t f = 0; f < static_cast<std::int64_t>(kFrames); ++f) {
    const auto ten = sf[f].slice(0, 0, kTenants * kFeatures);
    const auto pad = torch::rand({static_cast<std::int64_t>(kTenants * kFeatures)}).reshape({4, kFeatures});
    pad.select(1, 0).zero_();  // absent
    frames.push_back(torch::cat({ten, pad.reshape({-1}), sf[f].slice(0, kTenants * kFeatures)}));
  }
  const auto big = torch::cat(frames).reshape({1, -1});
  const auto [ls, vs] = run(m, small);
  const auto [lb, vb] = run(m, big);
  CHECK(vb.item<float>() == Approx(vs.item<float>()).margin(1e-6));
  CHECK(torch::allclose(lb.slice(1, 0, ls.size(1)), ls, 1e-5, 1e-6));
}

// TrainedPolicy is what eval's and serve's PpoController decide with.
TEST_CASE("set policy: TrainedPolicy decides for other tenant counts and refuses sizes that fit none",
          "[ppo][set][native]") {
  const nicsched::ppo::TrainedPolicy policy(exported());
  auto m = torch::jit::load((exported() / "policy.pt").string());
  const auto heads_of = [](std::size_t n) {
    std::vector<int> h;
    for (std::size_t t = 0; t < n; ++t) h.insert(h.end(), {kHeadA, kHeadB});
    return h;
  };
  CHECK(policy.fits(kFrames * frame_size(kTenants), heads_of(kTenants)));
  CHECK(policy.fits(kFrames * frame_size(2), heads_of(2)));
  CHECK(policy.fits(kFrames * frame_size(16), heads_of(16)));
  CHECK_FALSE(policy.fits(kFrames * frame_size(16), heads_of(8)));       // heads of another count
  CHECK_FALSE(policy.fits(kFrames * frame_size(16) + 1, heads_of(16)));  // not a whole number of tenants
  CHECK_FALSE(policy.fits(kFrames * frame_size(16), std::vector<int>(32, kHeadA)));  // another per-tenant layout
  std::mt19937 rng(17);
  for (const std::size_t n : {std::size_t{2}, std::size_t{16}}) {
    std::vector<bool> present(n, true);
    present[1] = false;
    const auto obs = observation(n, present, rng).contiguous();
    const auto [l, v] = run(m, obs);  // the module, all values allowed
    const std::vector<std::uint8_t> mask(n * (kHeadA + kHeadB), 1);
    const auto acts = policy.act({obs.data_ptr<float>(), static_cast<std::size_t>(obs.numel())}, mask);
    REQUIRE(acts.size() == n * 2);
    const auto lr = l.reshape({static_cast<std::int64_t>(n), kHeadA + kHeadB});
    for (std::size_t t = 0; t < n; ++t) {
      const auto row = lr[static_cast<std::int64_t>(t)];
      CHECK(acts[t * 2] == row.slice(0, 0, kHeadA).argmax().item<std::int64_t>());
      CHECK(acts[t * 2 + 1] == row.slice(0, kHeadA).argmax().item<std::int64_t>());
    }
  }
  // An observation that fits no tenant count is an error, not a wrong decision.
  const std::vector<float> odd(kFrames * frame_size(16) + 1, 0.0F);
  const std::vector<std::uint8_t> mask16(16 * (kHeadA + kHeadB), 1);
  CHECK_THROWS_AS(policy.act(odd, mask16), std::invalid_argument);
}

TEST_CASE("set policy: loads for inference, checkpoints round-trip, a layout that does not fit is an error",
          "[ppo][set]") {
  const nicsched::ppo::TrainedPolicy policy(exported());
  CHECK(policy.head_sizes().size() == kTenants * 2);
  std::vector<float> obs(policy.observation_size(), 0.5F);
  std::vector<std::uint8_t> mask(kTenants * (kHeadA + kHeadB), 1);
  const auto a = policy.act(obs, mask);
  REQUIRE(a.size() == kTenants * 2);
  for (std::size_t h = 0; h < a.size(); ++h) CHECK(a[h] < (h % 2 == 0 ? kHeadA : kHeadB));

  const auto ckpt = std::filesystem::temp_directory_path() / ("nicsched-set-ckpt-" + std::to_string(::getpid()) + ".pt");
  nicsched::ppo::Trainer t1(set_config(), envs(2), layout());
  (void)t1.update();
  t1.save_checkpoint(ckpt);
  nicsched::ppo::Trainer t2(set_config(), envs(2), layout());
  t2.load_checkpoint(ckpt);
  CHECK(t2.updates_done() == 1);
  // Same weights: the two trainers export the same policy bytes' behaviour.
  const auto d1 = ckpt.parent_path() / ("nicsched-set-e1-" + std::to_string(::getpid()));
  const auto d2 = ckpt.parent_path() / ("nicsched-set-e2-" + std::to_string(::getpid()));
  t1.export_policy(d1, "");
  t2.export_policy(d2, "");
  auto m1 = torch::jit::load((d1 / "policy.pt").string());
  auto m2 = torch::jit::load((d2 / "policy.pt").string());
  std::mt19937 rng(14);
  const auto o = observation(kTenants, std::vector<bool>(kTenants, true), rng);
  CHECK(torch::equal(run(m1, o).first, run(m2, o).first));
  std::filesystem::remove(ckpt);
  std::filesystem::remove_all(d1);
  std::filesystem::remove_all(d2);

  auto bad = layout();
  bad.tenant_features = 4;  // 4 tenants x 4 features do not fit a frame of 13 floats
  CHECK_THROWS_AS(nicsched::ppo::Trainer(set_config(), envs(2), bad), nicsched::ppo::ConfigError);
  bad = layout();
  bad.logits_per_tenant = 4;  // the heads have 5 logits per tenant
  CHECK_THROWS_AS(nicsched::ppo::Trainer(set_config(), envs(2), bad), nicsched::ppo::ConfigError);
  CHECK_THROWS_AS(nicsched::ppo::Trainer(set_config(), envs(2)), nicsched::ppo::ConfigError);
}

TEST_CASE("set policy: the actor-only method gives forward's logits, and a re-export computes the same",
          "[ppo][set][export]") {
  auto m = torch::jit::load((exported() / "policy.pt").string());
  REQUIRE(m.find_method("actor").has_value());
  std::mt19937 rng(15);
  for (const std::size_t tenants : {2UL, 4UL, 8UL}) {
    std::vector<bool> present(tenants, true);
    present[1] = false;
    const auto obs = observation(tenants, present, rng);
    const auto mask = torch::ones({1, static_cast<std::int64_t>(tenants) * (kHeadA + kHeadB)}, torch::kUInt8);
    CHECK(torch::equal(m.get_method("actor")({obs, mask}).toTensor(), run(m, obs).first));
  }
  CHECK(nicsched::ppo::TrainedPolicy(exported()).actor_only());
  // The re-export reads the set network's layout from its statistics (frames, features,
  // globals) and checks its own outputs against the original's before writing.
  const auto again = std::filesystem::temp_directory_path() / ("nicsched-set-reexport-" + std::to_string(::getpid()));
  nicsched::ppo::reexport_policy(exported(), again, 10.0);
  auto r = torch::jit::load((again / "policy.pt").string());
  const auto obs = observation(kTenants, std::vector<bool>(kTenants, true), rng);
  CHECK(torch::equal(run(r, obs).first, run(m, obs).first));
  CHECK(torch::equal(run(r, obs).second, run(m, obs).second));
  std::filesystem::remove_all(again);
}

TEST_CASE("set policy: the native forward pass gives the module's logits (1e-5) and actions, normalised or not",
          "[ppo][set][native]") {
  const nicsched::ppo::TrainedPolicy policy(exported());
  std::mt19937 rng(16);
  // Rows of random features, each tenant present or not, masks keeping at least one value per head.
  std::vector<torch::Tensor> obs_rows, mask_rows;
  for (int r = 0; r < 300; ++r) {
    std::vector<bool> present(kTenants);
    for (auto&& p : present) p = rng() % 3 != 0;
    obs_rows.push_back(observation(kTenants, present, rng) * (r % 5 == 4 ? 50.0F : 1.0F));
    std::vector<std::int64_t> m;
    for (std::size_t t = 0; t < kTenants; ++t) {
      for (const int h : {kHeadA, kHeadB}) {
        const int keep = static_cast<int>(rng() % static_cast<unsigned>(h));
        for (int i = 0; i < h; ++i) m.push_back(i == keep || rng() % 2 == 0 ? 1 : 0);
      }
    }
    mask_rows.push_back(torch::tensor(m).to(torch::kUInt8).reshape({1, -1}));
  }
  auto obs = torch::cat(obs_rows);
  // Presence flags stay 0 / 1 in the rows that were scaled.
  for (std::size_t f = 0; f < kFrames; ++f) {
    for (std::size_t t = 0; t < kTenants; ++t) {
      auto col = obs.select(1, static_cast<std::int64_t>(f * frame_size(kTenants) + t * kFeatures));
      col.copy_((col > 0.5).to(torch::kFloat32));
    }
  }
  const auto c = nicsched::testing::compare_native_with_module(policy, (exported() / "policy.pt").string(), obs,
                                                               torch::cat(mask_rows));
  CHECK(c.logits_close);
  CHECK(c.largest_difference < 1e-5);
  CHECK(c.differing_actions == 0);
  CHECK(c.masked_chosen == 0);

  // A set policy trained without observation normalisation (norm_obs: false; the export
  // carries the statistics, which give the layout, but the script does not apply them).
  auto cfg = set_config();
  cfg.norm_obs = false;
  cfg.total_steps = cfg.num_envs * cfg.num_steps;
  nicsched::ppo::Trainer trainer(cfg, envs(2), layout());
  (void)trainer.update();
  const auto raw = std::filesystem::temp_directory_path() / ("nicsched-set-raw-" + std::to_string(::getpid()));
  trainer.export_policy(raw, "");
  const auto r = nicsched::testing::compare_native_with_module(nicsched::ppo::TrainedPolicy(raw),
                                                               (raw / "policy.pt").string(), obs, torch::cat(mask_rows));
  CHECK(r.logits_close);
  CHECK(r.differing_actions == 0);
  std::filesystem::remove_all(raw);
}

// The committed policy (agent/policies/default, a set network with the control head):
// what eval, serve and `make run` load. Its native forward pass gives the TorchScript
// actor's logits and greedy actions, and reordering the tenants of an observation reorders
// its logits and nothing else (the layout comes from the policy's own env: history frames,
// tenant features, globals; one tenant's heads).
TEST_CASE("set policy: the committed policy decides natively as its TorchScript actor, and equivariantly",
          "[ppo][set][native][committed]") {
  const auto dir = std::filesystem::path(NICSCHED_SOURCE_DIR) / "agent/policies/default";
  const auto policy = std::make_shared<const nicsched::ppo::TrainedPolicy>(dir);
  const nicsched::ppo::PpoController controller(policy);
  const auto& env = controller.env_config();
  using nicsched::control::ObservationEncoder;
  const auto features = static_cast<std::int64_t>(ObservationEncoder::tenant_features(env));
  const auto globals = static_cast<std::int64_t>(ObservationEncoder::kGlobalFeatures);
  const auto frames = static_cast<std::int64_t>(env.history);
  const auto n = static_cast<std::int64_t>(policy->observation_size());
  const auto tenants = (n / frames - globals) / features;
  REQUIRE(frames * (tenants * features + globals) == n);
  const auto& heads = policy->head_sizes();
  REQUIRE(heads.size() % static_cast<std::size_t>(tenants) == 0);
  const std::size_t heads_per_tenant = heads.size() / static_cast<std::size_t>(tenants);
  const auto logits_per_tenant = std::accumulate(heads.begin(), heads.begin() + static_cast<long>(heads_per_tenant), 0);

  std::mt19937 rng(29);
  std::uniform_real_distribution<float> u(0.0F, 1.0F);
  const std::int64_t rows = 300;
  auto obs = torch::empty({rows, n});
  auto mask = torch::ones({rows, tenants * logits_per_tenant}, torch::kUInt8);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float scale = r % 4 == 3 ? 20.0F : 1.5F;
    std::vector<bool> present(static_cast<std::size_t>(tenants));
    for (auto&& p : present) p = rng() % 4 != 0;
    for (std::int64_t i = 0; i < n; ++i) obs[r][i] = u(rng) * scale;
    for (std::int64_t t = 0; t < tenants; ++t) {
      const bool here = present[static_cast<std::size_t>(t)];
      for (std::int64_t f = 0; f < frames; ++f) obs[r][f * (tenants * features + globals) + t * features] = here ? 1.0F : 0.0F;
      if (here) continue;
      // absent tenants pinned to index 0 of each head, as ActionCodec masks them
      std::int64_t off = t * logits_per_tenant;
      for (std::size_t h = 0; h < heads_per_tenant; ++h) {
        for (int i = 0; i < heads[h]; ++i) mask[r][off + i] = i == 0 ? 1 : 0;
        off += heads[h];
      }
    }
  }
  const auto c = nicsched::testing::compare_native_with_module(*policy, (dir / "policy.pt").string(), obs, mask);
  CHECK(c.logits_close);
  CHECK(c.differing_actions == 0);
  CHECK(c.masked_chosen == 0);

  // Permuted tenants: the logits of tenant i are those of tenant perm[i] before.
  auto native = [&](const torch::Tensor& o, const torch::Tensor& m) {
    auto out = torch::empty({m.size(0)});
    const auto oc = o.contiguous();
    const auto mc = m.contiguous();
    policy->logits({oc.data_ptr<float>(), static_cast<std::size_t>(oc.numel())},
                   {mc.data_ptr<std::uint8_t>(), static_cast<std::size_t>(mc.numel())},
                   {out.data_ptr<float>(), static_cast<std::size_t>(out.numel())});
    return out;
  };
  std::vector<std::int64_t> perm(static_cast<std::size_t>(tenants));
  std::iota(perm.begin(), perm.end(), 0);
  for (std::int64_t r = 0; r < rows; r += 10) {
    std::shuffle(perm.begin(), perm.end(), rng);
    const auto permuted_obs = permute_obs(obs[r], perm, frames, features).reshape({-1});
    const auto permuted_mask = permute_logits(mask[r], perm).reshape({-1});
    const auto want = permute_logits(native(obs[r], mask[r]), perm).reshape({-1});
    const auto got = native(permuted_obs, permuted_mask);
    CHECK(torch::allclose(got, want, 1e-5, 1e-5));
  }
}
