// The exported policy as eval and serve run it (mlp network; the set network's checks are
// in test_set_policy.cpp):
//  - the actor-only method gives the logits of the full forward, and TrainedPolicy acts
//    on it: the greedy action of every head of forward's logits;
//  - an export from before the actor-only method (forward and act only) still loads and
//    gives the same actions, and `reexport_policy` turns it into one with the method,
//    with the same logits (to 1e-5) and actions; the wrong observation clip is refused,
//    naming the file;
//  - TrainedPolicy's native forward pass (no TorchScript at decision time) gives the
//    module's logits (1e-5) and greedy actions: fresh, old and unnormalised exports and the
//    earlier committed mlp policy (agent/policies/candidates/mlp-progress-clone, the default
//    until 2026-11-26; the committed set policy's checks are in test_set_policy.cpp); a module
//    it does not reproduce is refused;
//  - that mlp policy (no control head) keeps its action space and leaves the control
//    buckets as the base policy has them.
#include "torch_catch.hpp"  // first: Catch's CHECK, not torch's

#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include <unistd.h>

#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/trainer.hpp"
#include "native_check.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/ppo/ppo_controller.hpp"
#include "small_ppo_config.hpp"
#include "telemetry_fixture.hpp"

namespace {

using nicsched::ppo::TrainedPolicy;

const std::vector<int> kHeads{3, 4, 2};
constexpr std::size_t kObs = 12;

// Random observations of a wide range (so that normalisation and clipping matter);
// reward for matching head 0 to the sign of the first feature.
class NoiseEnv final : public nicsched::control::Env {
 public:
  [[nodiscard]] std::size_t observation_size() const override { return kObs; }
  [[nodiscard]] nicsched::control::ActionSpace action_space() const override { return {kHeads}; }
  void reset(std::uint64_t seed, std::span<float> obs) override {
    rng_.seed(seed);
    steps_ = 0;
    fill(obs);
  }
  nicsched::control::StepResult step(std::span<const int> action, std::span<float> obs) override {
    nicsched::control::StepResult r;
    r.reward = action[0] == (first_ > 0.0F ? 2 : 0) ? 1.0F : 0.0F;
    fill(obs);
    r.truncated = ++steps_ >= 16;
    return r;
  }

 private:
  void fill(std::span<float> obs) {
    std::normal_distribution<float> n(0.0F, 3.0F);
    for (std::size_t i = 0; i < obs.size(); ++i) obs[i] = n(rng_) * static_cast<float>(i + 1);
    first_ = obs[0];
  }
  std::mt19937 rng_;
  std::uint32_t steps_ = 0;
  float first_ = 0.0F;
};

std::filesystem::path temp_dir(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("nicsched-export-" + name + "-" + std::to_string(::getpid()));
}

// An mlp policy after two PPO updates (weights and observation statistics away from their
// initial values), exported; shared by the tests below.
const std::filesystem::path& exported() {
  static const std::filesystem::path dir = [] {
    const auto cfg = nicsched::testing::small_ppo_config(3, 2, 32, 2);
    std::vector<std::unique_ptr<nicsched::control::Env>> envs;
    for (int i = 0; i < 2; ++i) envs.push_back(std::make_unique<NoiseEnv>());
    nicsched::ppo::Trainer trainer(cfg, std::move(envs));
    while (!trainer.finished()) (void)trainer.update();
    const auto d = temp_dir("mlp");
    trainer.export_policy(d, "");
    return d;
  }();
  return dir;
}

// Rows of observations (features up to +-1e3) and masks that allow at least one value per head.
struct Batch {
  torch::Tensor obs, mask;
};
Batch batch(std::int64_t rows, std::mt19937& rng) {
  std::normal_distribution<float> n(0.0F, 1.0F);
  std::vector<float> o(static_cast<std::size_t>(rows) * kObs);
  for (std::size_t i = 0; i < o.size(); ++i) o[i] = n(rng) * std::pow(10.0F, static_cast<float>(i % 4));
  std::vector<std::uint8_t> m;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (int h : kHeads) {
      const int keep = std::uniform_int_distribution<int>(0, h - 1)(rng);
      for (int i = 0; i < h; ++i) m.push_back(i == keep || rng() % 2 == 0 ? 1 : 0);
    }
  }
  const auto total = static_cast<std::int64_t>(m.size()) / rows;
  return {torch::tensor(o).reshape({rows, static_cast<std::int64_t>(kObs)}),
          torch::tensor(std::vector<std::int64_t>(m.begin(), m.end())).to(torch::kUInt8).reshape({rows, total})};
}

torch::Tensor forward_logits(torch::jit::Module& m, const Batch& b) {
  return m.forward({b.obs, b.mask}).toTuple()->elements()[0].toTensor();
}

// TrainedPolicy's action on row r, and the greedy action of every head of `logits` row r.
std::vector<int> policy_action(const TrainedPolicy& p, const Batch& b, std::int64_t r) {
  const auto o = b.obs[r].contiguous();
  const auto m = b.mask[r].contiguous();
  return p.act({o.data_ptr<float>(), static_cast<std::size_t>(o.numel())},
               {m.data_ptr<std::uint8_t>(), static_cast<std::size_t>(m.numel())});
}
std::vector<int> greedy(const torch::Tensor& logits, std::int64_t r) {
  std::vector<int> a;
  std::int64_t off = 0;
  for (int h : kHeads) {
    a.push_back(static_cast<int>(logits[r].slice(0, off, off + h).argmax().item<std::int64_t>()));
    off += h;
  }
  return a;
}

// An export in the format written before the actor-only method, as
// agent/policies/candidates/mlp-progress-clone was: the same parameters and buffers,
// `forward` computing actor and critic in one body with torch.addmm (not torch.linear:
// results ~1e-6 apart), `act` over forward.
std::filesystem::path legacy_copy(const std::filesystem::path& from, const std::string& name) {
  auto fresh = torch::jit::load((from / "policy.pt").string());
  torch::jit::Module m("NicschedPolicy");
  for (const auto& p : fresh.named_parameters(false)) m.register_parameter(p.name, p.value.clone(), false);
  for (const auto& b : fresh.named_buffers(false)) m.register_buffer(b.name, b.value.clone());
  std::ostringstream s;
  s << "def forward(self, obs: Tensor, mask: Tensor) -> Tuple[Tensor, Tensor]:\n"
    << "        x = torch.clamp((obs - self.obs_mean) / torch.sqrt(self.obs_var + 1e-8), -10, 10)\n";
  for (const std::string net : {"actor", "critic"}) {
    const std::string out = net == "actor" ? "logits" : "value";
    s << "        " << out << " = x\n";
    for (int i = 0; i < 3; ++i) {
      const std::string lin = "torch.addmm(self." + net + "_b" + std::to_string(i) + ", " + out + ", torch.t(self." +
                              net + "_w" + std::to_string(i) + "))";
      s << "        " << out << " = " << (i == 2 ? lin : "torch.tanh(" + lin + ")") << "\n";
    }
    if (net == "actor") s << "        logits = torch.where(mask > 0, logits, torch.full_like(logits, -1e+08))\n";
  }
  s << "        return logits, value.squeeze(1)\n\n"
    << "def act(self, obs: Tensor, mask: Tensor) -> Tensor:\n"
    << "        logits, value = self.forward(obs, mask)\n"
    << "        return torch.stack([torch.argmax(logits[:, 0:3], 1), torch.argmax(logits[:, 3:7], 1), "
       "torch.argmax(logits[:, 7:9], 1)], 1)\n";
  m.define(s.str());
  const auto dir = temp_dir(name);
  std::filesystem::create_directories(dir);
  m.save((dir / "policy.pt").string());
  std::filesystem::copy_file(from / "policy.yaml", dir / "policy.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  return dir;
}

}  // namespace

TEST_CASE("policy export: the actor-only method gives forward's logits, and TrainedPolicy acts on it",
          "[ppo][export]") {
  auto m = torch::jit::load((exported() / "policy.pt").string());
  REQUIRE(m.find_method("actor").has_value());
  std::mt19937 rng(21);
  const auto b = batch(200, rng);
  const auto actor = m.get_method("actor")({b.obs, b.mask}).toTensor();
  const auto logits = forward_logits(m, b);
  CHECK(torch::equal(actor, logits));
  // act() (the exported greedy action) agrees with forward's logits too.
  const auto acts = m.get_method("act")({b.obs, b.mask}).toTensor();

  const TrainedPolicy policy(exported());
  CHECK(policy.actor_only());
  std::size_t differ = 0;
  for (std::int64_t r = 0; r < 200; ++r) {
    const auto want = greedy(logits, r);
    const auto got = policy_action(policy, b, r);
    for (std::size_t h = 0; h < kHeads.size(); ++h) {
      if (got[h] != want[h] || acts[r][static_cast<std::int64_t>(h)].item<std::int64_t>() != want[h]) ++differ;
      const int first = std::accumulate(kHeads.begin(), kHeads.begin() + static_cast<std::ptrdiff_t>(h), 0);
      CHECK(b.mask[r][first + got[h]].item<std::uint8_t>() == 1);  // a masked value is never chosen
    }
  }
  CHECK(differ == 0);
}

TEST_CASE("policy export: an export without the actor method still loads, and reexport_policy adds it with the same logits",
          "[ppo][export]") {
  const auto legacy = legacy_copy(exported(), "legacy");
  auto old = torch::jit::load((legacy / "policy.pt").string());
  REQUIRE_FALSE(old.find_method("actor").has_value());
  std::mt19937 rng(22);
  const auto b = batch(200, rng);
  const auto old_logits = forward_logits(old, b);
  auto fresh = torch::jit::load((exported() / "policy.pt").string());
  REQUIRE(torch::allclose(old_logits, forward_logits(fresh, b), 1e-5, 1e-5));  // the fixture is the same policy

  const TrainedPolicy loaded(legacy);
  CHECK_FALSE(loaded.actor_only());
  const auto out = temp_dir("reexported");
  nicsched::ppo::reexport_policy(legacy, out, 10.0);
  const TrainedPolicy upgraded(out);
  CHECK(upgraded.actor_only());
  auto m = torch::jit::load((out / "policy.pt").string());
  CHECK(torch::allclose(m.get_method("actor")({b.obs, b.mask}).toTensor(), old_logits, 1e-5, 1e-5));
  const auto old_value = old.forward({b.obs, b.mask}).toTuple()->elements()[1].toTensor();
  CHECK(torch::allclose(m.forward({b.obs, b.mask}).toTuple()->elements()[1].toTensor(), old_value, 1e-5, 1e-5));
  std::size_t differ = 0;
  for (std::int64_t r = 0; r < 200; ++r) {
    if (policy_action(loaded, b, r) != greedy(old_logits, r) || policy_action(upgraded, b, r) != greedy(old_logits, r)) {
      ++differ;
    }
  }
  CHECK(differ == 0);
  std::ifstream a(legacy / "policy.yaml"), c(out / "policy.yaml");
  CHECK(std::string(std::istreambuf_iterator<char>(a), {}) == std::string(std::istreambuf_iterator<char>(c), {}));

  // In place, as the committed policy was re-exported.
  const auto in_place = legacy_copy(exported(), "in-place");
  nicsched::ppo::reexport_policy(in_place, in_place, 10.0);
  CHECK(TrainedPolicy(in_place).actor_only());

  // A clip the policy was not exported with computes something else: refused, nothing written.
  const auto wrong = temp_dir("wrong-clip");
  try {
    nicsched::ppo::reexport_policy(legacy, wrong, 3.0);
    FAIL("a wrong observation clip was accepted");
  } catch (const nicsched::ppo::CheckpointError& e) {
    CHECK_THAT(e.what(), Catch::Contains((legacy / "policy.pt").string()) && Catch::Contains("observation clip"));
  }
  CHECK_FALSE(std::filesystem::exists(wrong / "policy.pt"));
  // Not a policy export at all.
  const auto junk = temp_dir("junk");
  std::filesystem::create_directories(junk);
  std::filesystem::copy_file(legacy / "policy.yaml", junk / "policy.yaml");
  std::ofstream(junk / "policy.pt") << "not a torch archive";
  CHECK_THROWS_AS(nicsched::ppo::reexport_policy(junk, wrong, 10.0), nicsched::ppo::CheckpointError);
  for (const auto& d : {legacy, out, in_place, wrong, junk}) std::filesystem::remove_all(d);
}

TEST_CASE("policy export: the native forward pass gives the module's logits (1e-5) and actions, old exports too",
          "[ppo][export][native]") {
  std::mt19937 rng(23);
  const auto b = batch(500, rng);
  const TrainedPolicy policy(exported());
  const auto c = nicsched::testing::compare_native_with_module(policy, (exported() / "policy.pt").string(), b.obs, b.mask);
  CHECK(c.logits_close);
  CHECK(c.largest_difference < 1e-5);
  CHECK(c.differing_actions == 0);
  CHECK(c.masked_chosen == 0);
  // An export from before the actor method: the native pass against its forward.
  const auto legacy = legacy_copy(exported(), "native-legacy");
  const auto l = nicsched::testing::compare_native_with_module(TrainedPolicy(legacy), (legacy / "policy.pt").string(),
                                                               b.obs, b.mask);
  CHECK(l.logits_close);
  CHECK(l.differing_actions == 0);
  // Without observation normalisation (norm_obs: false): the observation goes in as it is.
  auto cfg = nicsched::testing::small_ppo_config(4, 2, 32, 1);
  cfg.norm_obs = false;
  std::vector<std::unique_ptr<nicsched::control::Env>> envs;
  for (int i = 0; i < 2; ++i) envs.push_back(std::make_unique<NoiseEnv>());
  nicsched::ppo::Trainer trainer(cfg, std::move(envs));
  (void)trainer.update();
  const auto raw = temp_dir("native-raw");
  trainer.export_policy(raw, "");
  const auto r = nicsched::testing::compare_native_with_module(TrainedPolicy(raw), (raw / "policy.pt").string(),
                                                               b.obs / 100.0, b.mask);
  CHECK(r.logits_close);
  CHECK(r.differing_actions == 0);
  std::filesystem::remove_all(legacy);
  std::filesystem::remove_all(raw);
}

TEST_CASE("policy export: a module whose actor the native pass does not reproduce is refused, naming the file",
          "[ppo][export][native]") {
  // The exported weights, but an `actor` that computes something else (logits doubled).
  auto fresh = torch::jit::load((exported() / "policy.pt").string());
  torch::jit::Module m("NicschedPolicy");
  for (const auto& p : fresh.named_parameters(false)) m.register_parameter(p.name, p.value.clone(), false);
  for (const auto& b : fresh.named_buffers(false)) m.register_buffer(b.name, b.value.clone());
  m.define(
      "def actor(self, obs: Tensor, mask: Tensor) -> Tensor:\n"
      "        x = torch.clamp((obs - self.obs_mean) / torch.sqrt(self.obs_var + 1e-8), -10.0, 10.0)\n"
      "        logits = torch.tanh(torch.linear(x, self.actor_w0, self.actor_b0))\n"
      "        logits = torch.tanh(torch.linear(logits, self.actor_w1, self.actor_b1))\n"
      "        logits = 2.0 * torch.linear(logits, self.actor_w2, self.actor_b2)\n"
      "        return torch.where(mask > 0, logits, torch.full_like(logits, -1e+08))\n");
  const auto dir = temp_dir("native-other");
  std::filesystem::create_directories(dir);
  m.save((dir / "policy.pt").string());
  std::filesystem::copy_file(exported() / "policy.yaml", dir / "policy.yaml");
  try {
    const TrainedPolicy p(dir);
    FAIL("a module the native forward pass does not reproduce was loaded");
  } catch (const nicsched::ppo::CheckpointError& e) {
    CHECK_THAT(e.what(), Catch::Contains((dir / "policy.pt").string()) && Catch::Contains("native forward pass"));
  }
  std::filesystem::remove_all(dir);
}

// The mlp policy that was agent/policies/default until 2026-11-26 (kept as a candidate: it is
// the one export of the mlp network in the repository).
const std::filesystem::path kMlpPolicy =
    std::filesystem::path(NICSCHED_SOURCE_DIR) / "agent/policies/candidates/mlp-progress-clone";

TEST_CASE("policy export: the earlier mlp policy's native decisions are the TorchScript actor's",
          "[ppo][export][native]") {
  const auto& dir = kMlpPolicy;
  const TrainedPolicy policy(dir);
  REQUIRE(policy.observation_size() == 620);
  // Observations in the encoder's ranges (features mostly in [0, 1], some larger), tenants
  // present or not (feature 0 of each tenant block), masks as ActionCodec writes them
  // (absent tenants pinned to index 0 of each head), and some rows of wider magnitude.
  const std::int64_t rows = 400, n = 620, tenant_features = 19, tenants = 8;
  std::mt19937 rng(24);
  std::uniform_real_distribution<float> u(0.0F, 1.0F);
  std::vector<float> o(static_cast<std::size_t>(rows * n));
  std::vector<std::int64_t> mk;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float scale = r % 4 == 3 ? 100.0F : 1.5F;
    std::vector<bool> present(tenants);
    for (auto&& p : present) p = rng() % 4 != 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t in_frame = i % (n / 4);
      const bool flag = in_frame < tenants * tenant_features && in_frame % tenant_features == 0;
      o[static_cast<std::size_t>(r * n + i)] =
          flag ? (present[static_cast<std::size_t>(in_frame / tenant_features)] ? 1.0F : 0.0F) : u(rng) * scale;
    }
    for (std::int64_t t = 0; t < tenants; ++t) {
      for (int h = 0; h < 3; ++h) {
        for (int i = 0; i < 4; ++i) mk.push_back(present[static_cast<std::size_t>(t)] || i == 0 ? 1 : 0);
      }
    }
  }
  const auto obs = torch::tensor(o).reshape({rows, n});
  const auto mask = torch::tensor(mk).to(torch::kUInt8).reshape({rows, -1});
  const auto c = nicsched::testing::compare_native_with_module(policy, (dir / "policy.pt").string(), obs, mask);
  CHECK(c.logits_close);
  CHECK(c.differing_actions == 0);
  CHECK(c.masked_chosen == 0);
}

TEST_CASE("policy export: the earlier mlp policy keeps its action space and leaves the control buckets as they were",
          "[ppo][export][control]") {
  // The mlp policy was trained before the control head: its policy.yaml `env:`
  // has no control_levels, so the controller rebuilds 3 heads and 19 features per tenant
  // and never touches T_CTRL_RATE / T_CTRL_BURST.
  const auto policy = std::make_shared<const TrainedPolicy>(kMlpPolicy);
  nicsched::ppo::PpoController controller(policy);
  CHECK(controller.env_config().control_levels == 1);
  nicsched::testing::TrackedNic nic(nicsched::testing::test_caps(8, 4, 4));
  auto& [caps, s, tr] = nic;
  auto base = nicsched::host::default_policy(caps);
  for (std::uint32_t t = 0; t < caps.tenants; ++t) {  // a scenario's own control buckets
    base.tenants[t].ctrl_rate_bytes_per_kcycle = 100 + t;
    base.tenants[t].ctrl_burst_bytes = 2000 + t;
  }
  std::set<std::vector<int>> actions;
  for (int i = 0; i < 40; ++i) {
    s.bulk(0, 20000).bulk(2, static_cast<std::uint64_t>(5000 * (i % 4))).control(1, 256).control(0, 1024, 8);
    tr.update(s.next(2000));
    const auto p = controller.decide(tr, base);
    REQUIRE(controller.last_action().size() == 24);
    actions.insert(controller.last_action());
    for (std::uint32_t t = 0; t < caps.tenants; ++t) {
      CHECK(p.tenants[t].ctrl_rate_bytes_per_kcycle == 100 + t);
      CHECK(p.tenants[t].ctrl_burst_bytes == 2000 + t);
    }
  }
  CHECK(actions.size() > 1);  // it does decide (the test is not about a constant policy)
}

TEST_CASE("policy export: a policy's starvation guard (policy.yaml env) lifts a held-back tenant in its controller",
          "[ppo][export][guard]") {
  // The same exported policy with guard_intervals: 3 added to its env: both controllers
  // decide alike until tenant 0 (a bulk backlog it cannot send, tenant 1 sending) has been held back three
  // intervals in a row; then the guarded one puts it at the top level, until it drains.
  const auto dir = temp_dir("guarded");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* f : {"policy.pt", "policy.yaml"}) std::filesystem::copy_file(kMlpPolicy / f, dir / f);
  std::ofstream(dir / "policy.yaml", std::ios::app) << "  guard_intervals: 3\n";
  nicsched::ppo::PpoController plain(std::make_shared<const TrainedPolicy>(kMlpPolicy));
  nicsched::ppo::PpoController guarded(std::make_shared<const TrainedPolicy>(dir));
  CHECK_FALSE(plain.env_config().guard().on());
  CHECK(guarded.env_config().guard_intervals == 3);
  nicsched::testing::TrackedNic nic(nicsched::testing::test_caps(8, 4, 4));
  auto& [caps, s, tr] = nic;
  const auto base = nicsched::host::default_policy(caps);
  for (int i = 0; i < 3; ++i) {
    tr.update(s.bulk(1, 40000).depth(1, 30000).depth(0, 9000).next(2000));
    const auto p = plain.decide(tr, base);
    const auto g = guarded.decide(tr, base);
    if (i < 2) {
      CHECK(g == p);
    } else {
      REQUIRE(p.tenants[0].priority != 0);  // the policy itself keeps it below the top
      CHECK(g.tenants[0].priority == 0);
      for (std::uint32_t t = 1; t < caps.tenants; ++t) CHECK(g.tenants[t] == p.tenants[t]);
    }
  }
  // Tenant 0 drained: its level is the policy's own again (the priority head, 3 per tenant).
  tr.update(s.bulk(1, 40000).bulk(0, 9000).depth(1, 30000).next(2000));
  const auto g = guarded.decide(tr, base);
  CHECK(g.tenants[0].priority == static_cast<std::uint32_t>(guarded.last_action()[0]));
  CHECK(g.tenants[1].priority == static_cast<std::uint32_t>(guarded.last_action()[3]));
  guarded.reset();
  std::filesystem::remove_all(dir);
}
