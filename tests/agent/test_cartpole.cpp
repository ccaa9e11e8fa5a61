// The check that the PPO learner is right: it must solve CartPole-v1 (average return
// >= 475 over the last 20 episodes) within a bounded number of steps, with a fixed
// seed; the exported TorchScript policy must balance the pole on its own. Also:
// seeds make runs reproducible, and checkpoints restore the learner exactly.
#include <catch2/catch.hpp>

#include <deque>
#include <filesystem>
#include <numeric>

#include "cartpole.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/trainer.hpp"

using namespace nicsched::ppo;
using namespace nicsched::testing;

namespace {

std::vector<std::unique_ptr<nicsched::control::Env>> cartpoles(std::size_t n) {
  std::vector<std::unique_ptr<nicsched::control::Env>> envs;
  for (std::size_t i = 0; i < n; ++i) envs.push_back(std::make_unique<CartPole>());
  return envs;
}

PpoConfig cartpole_config() {
  PpoConfig cfg;
  cfg.seed = 1;
  cfg.num_envs = 8;
  cfg.num_steps = 128;
  cfg.total_steps = 300000;
  cfg.learning_rate = 1e-3;
  cfg.update_epochs = 4;
  cfg.num_minibatches = 4;
  cfg.env_threads = 1;
  return cfg;
}

std::filesystem::path temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("nicsched_agent_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("cartpole: PPO solves CartPole-v1 within the step budget", "[cartpole]") {
  Trainer trainer(cartpole_config(), cartpoles(8));
  std::deque<double> last;
  double solved_at = 0;
  while (!trainer.finished()) {
    const auto st = trainer.update();
    for (const auto& ep : st.episodes) {
      last.push_back(ep.episode_return);
      if (last.size() > 20) last.pop_front();
    }
    INFO("update " << st.update << " step " << st.global_step << " avg "
                   << (last.empty() ? 0.0 : std::accumulate(last.begin(), last.end(), 0.0) / static_cast<double>(last.size())));
    if (last.size() == 20 && std::accumulate(last.begin(), last.end(), 0.0) / 20.0 >= 475.0) {
      solved_at = static_cast<double>(st.global_step);
      break;
    }
  }
  INFO("steps used: " << trainer.global_step());
  REQUIRE(solved_at > 0);

  const auto dir = temp_dir("cartpole_policy");
  trainer.export_policy(dir, "name: cartpole\n");
  const TrainedPolicy policy(dir);
  CHECK(policy.observation_size() == 4);
  CHECK(policy.head_sizes() == std::vector<int>{2});
  CHECK_THAT(policy.env_yaml(), Catch::Contains("cartpole"));
  double total = 0.0;
  for (std::uint64_t s = 0; s < 5; ++s) total += greedy_return(policy, 1000 + s);
  CHECK(total / 5.0 >= 475.0);
}

TEST_CASE("cartpole: the same seed gives the same training run", "[cartpole]") {
  auto cfg = cartpole_config();
  cfg.num_steps = 32;
  cfg.total_steps = 8 * 32 * 3;
  Trainer a(cfg, cartpoles(8));
  Trainer b(cfg, cartpoles(8));
  cfg.seed = 2;
  Trainer c(cfg, cartpoles(8));
  for (int i = 0; i < 3; ++i) {
    const auto sa = a.update();
    const auto sb = b.update();
    const auto sc = c.update();
    CHECK(sa.policy_loss == sb.policy_loss);
    CHECK(sa.value_loss == sb.value_loss);
    CHECK(sa.approx_kl == sb.approx_kl);
    CHECK(sa.value_loss != sc.value_loss);
  }
}

TEST_CASE("cartpole: a checkpoint restores model, optimiser and counters", "[cartpole]") {
  auto cfg = cartpole_config();
  cfg.num_steps = 32;
  cfg.total_steps = 8 * 32 * 4;
  const auto dir = temp_dir("checkpoint");
  Trainer a(cfg, cartpoles(8));
  a.update();
  a.update();
  a.save_checkpoint(dir / "checkpoint.pt");
  CHECK_FALSE(std::filesystem::exists(dir / "checkpoint.pt.tmp"));
  Trainer b(cfg, cartpoles(8));
  b.load_checkpoint(dir / "checkpoint.pt");
  CHECK(b.updates_done() == 2);
  CHECK(b.global_step() == a.global_step());
  a.export_policy(dir / "a", "");
  b.export_policy(dir / "b", "");
  const TrainedPolicy pa(dir / "a");
  const TrainedPolicy pb(dir / "b");
  const std::vector<std::uint8_t> mask{1, 1};
  for (int i = -20; i <= 20; ++i) {
    const float x = 0.01F * static_cast<float>(i);
    const std::vector<float> obs{x, -x, 0.5F * x, 2.0F * x};
    CHECK(pa.act(obs, mask) == pb.act(obs, mask));
  }
  auto other = cfg;
  other.hidden_sizes = {8};
  Trainer wrong(other, cartpoles(8));
  CHECK_THROWS_AS(wrong.load_checkpoint(dir / "checkpoint.pt"), nicsched::ppo::CheckpointError);
  CHECK_THROWS_AS(b.load_checkpoint(dir / "missing.pt"), nicsched::ppo::CheckpointError);
  std::vector<std::unique_ptr<nicsched::control::Env>> none;
  CHECK_THROWS(Trainer(cfg, std::move(none)));
}
