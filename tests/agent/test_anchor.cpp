// Fine-tuning near an imitated policy, on CartPole: Trainer::start_from_policy starts a
// learner from an exported policy (it then decides as the export does); the anchor term
// (PpoConfig::anchor_coef) keeps an update's policy nearer its anchor than plain PPO's
// update on the same rollout, and at coefficient 0 an anchor changes nothing.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "cartpole.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/trainer.hpp"

namespace {

namespace fs = std::filesystem;
using nicsched::ppo::PpoConfig;
using nicsched::ppo::TrainedPolicy;
using nicsched::ppo::Trainer;
using nicsched::testing::CartPole;

// Large steps and many epochs, so that one update moves the policy visibly.
PpoConfig config(double anchor_coef, std::uint64_t seed = 5) {
  PpoConfig cfg;
  cfg.seed = seed;
  cfg.num_envs = 4;
  cfg.num_steps = 128;
  cfg.total_steps = 4 * 128 * 8;
  cfg.env_threads = 1;
  cfg.hidden_sizes = {16, 16};
  cfg.learning_rate = 3e-3;
  cfg.anneal_lr = false;
  cfg.update_epochs = 8;
  cfg.ent_coef = 0.0;
  cfg.anchor_coef = anchor_coef;
  return cfg;
}

std::unique_ptr<Trainer> cartpole_trainer(const PpoConfig& cfg) {
  std::vector<std::unique_ptr<nicsched::control::Env>> envs;
  for (std::uint32_t i = 0; i < cfg.num_envs; ++i) envs.push_back(std::make_unique<CartPole>());
  return std::make_unique<Trainer>(cfg, std::move(envs));
}

// Per process: CTest runs this file's test cases at once, each writing its own anchor.
fs::path scratch(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("nicsched_anchor_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

// 256 CartPole states from random play.
std::vector<std::vector<float>> states() {
  std::vector<std::vector<float>> out;
  CartPole env;
  std::mt19937 rng(17);
  std::vector<float> obs(4);
  std::uint64_t episode = 100;
  env.reset(episode, obs);
  while (out.size() < 256) {
    out.push_back(obs);
    const int a = static_cast<int>(rng() % 2);
    const auto r = env.step(std::span<const int>(&a, 1), obs);
    if (r.terminated || r.truncated) env.reset(++episode, obs);
  }
  return out;
}

std::vector<double> probabilities(const TrainedPolicy& p, const std::vector<float>& obs) {
  const std::vector<std::uint8_t> mask{1, 1};
  std::vector<float> logits(2);
  p.logits(obs, mask, logits);
  const double m = std::max(logits[0], logits[1]);
  const double e0 = std::exp(logits[0] - m), e1 = std::exp(logits[1] - m);
  return {e0 / (e0 + e1), e1 / (e0 + e1)};
}

// Mean over the states of KL(anchor || policy), computed here from the two exports' logits.
double mean_kl(const TrainedPolicy& anchor, const TrainedPolicy& policy) {
  double sum = 0;
  const auto all = states();
  for (const auto& s : all) {
    const auto p = probabilities(anchor, s), q = probabilities(policy, s);
    for (int a = 0; a < 2; ++a) sum += p[a] * (std::log(p[a]) - std::log(q[a]));
  }
  return sum / static_cast<double>(all.size());
}

// A policy that is not the near-uniform fresh one: two plain PPO updates on CartPole.
fs::path anchor_policy() {
  const auto dir = scratch("anchor");
  auto t = cartpole_trainer(config(0.0, 1));
  (void)t->update();
  (void)t->update();
  t->export_policy(dir, "");
  return dir;
}

}  // namespace

TEST_CASE("anchor: a learner started from an exported policy decides as the export does", "[anchor]") {
  const auto anchor_dir = anchor_policy();
  const TrainedPolicy anchor(anchor_dir);
  auto t = cartpole_trainer(config(0.0, 9));  // another seed: other initial weights
  const auto fresh_dir = scratch("fresh");
  t->export_policy(fresh_dir, "");
  CHECK(mean_kl(anchor, TrainedPolicy(fresh_dir)) > 1e-3);  // the check below can fail
  t->start_from_policy(anchor_dir);
  const auto started_dir = scratch("started");
  t->export_policy(started_dir, "");
  const TrainedPolicy started(started_dir);
  const std::vector<std::uint8_t> mask{1, 1};
  for (const auto& s : states()) {
    std::vector<float> want(2), got(2);
    anchor.logits(s, mask, want);
    started.logits(s, mask, got);
    CHECK(got[0] == Approx(want[0]).margin(1e-5));
    CHECK(got[1] == Approx(want[1]).margin(1e-5));
  }
  // Another network, or another observation clip, is refused naming the file and why.
  auto other = config(0.0);
  other.hidden_sizes = {8};
  CHECK_THROWS_WITH(cartpole_trainer(other)->start_from_policy(anchor_dir),
                    Catch::Contains("policy.pt") && Catch::Contains("hidden_sizes"));
  auto clip = config(0.0);
  clip.obs_clip = 0.5;
  CHECK_THROWS_WITH(cartpole_trainer(clip)->start_from_policy(anchor_dir),
                    Catch::Contains("policy.pt") && Catch::Contains("obs_clip"));
}

TEST_CASE("anchor: at coefficient 0 an anchor changes nothing", "[anchor]") {
  const auto anchor_dir = anchor_policy();
  auto plain = cartpole_trainer(config(0.0));
  auto with_anchor = cartpole_trainer(config(0.0));
  plain->start_from_policy(anchor_dir);
  with_anchor->start_from_policy(anchor_dir);
  with_anchor->set_anchor(std::make_shared<const TrainedPolicy>(anchor_dir));
  for (int u = 0; u < 2; ++u) {
    const auto a = plain->update();
    const auto b = with_anchor->update();
    CHECK(a.policy_loss == b.policy_loss);
    CHECK(a.approx_kl == b.approx_kl);
    CHECK(std::isnan(b.anchor_kl));
  }
  CHECK(plain->parameters() == with_anchor->parameters());
}

TEST_CASE("anchor: the anchor term keeps the update nearer the anchor than plain PPO's", "[anchor]") {
  const auto anchor_dir = anchor_policy();
  const TrainedPolicy anchor(anchor_dir);
  double kl[2] = {0, 0};
  double logged[2] = {0, 0};
  const double coefs[2] = {0.0, 10.0};
  for (int k = 0; k < 2; ++k) {
    auto t = cartpole_trainer(config(coefs[k]));
    t->start_from_policy(anchor_dir);
    t->set_anchor(std::make_shared<const TrainedPolicy>(anchor_dir));
    const auto st = t->update();  // the same rollout: same seed, same start, the anchor draws nothing
    logged[k] = st.anchor_kl;
    const auto dir = scratch("after-" + std::to_string(k));
    t->export_policy(dir, "");
    kl[k] = mean_kl(anchor, TrainedPolicy(dir));
  }
  INFO("KL(anchor || policy) after one update: plain " << kl[0] << ", anchored " << kl[1]);
  CHECK(kl[0] > 1e-3);  // plain PPO moved away from the anchor
  CHECK(kl[1] < 0.5 * kl[0]);
  CHECK(std::isnan(logged[0]));
  CHECK(logged[1] >= 0.0);
  CHECK(logged[1] < kl[0]);
}

TEST_CASE("anchor: a positive coefficient without an anchor is refused naming the key", "[anchor]") {
  auto t = cartpole_trainer(config(1.0));
  CHECK_THROWS_WITH(t->update(), Catch::Contains("anchor_coef"));
  CHECK_THROWS_WITH(t->set_anchor(nullptr), Catch::Contains("anchor"));
}
