// Behaviour cloning (Trainer::behaviour_clone), the warm start of the NIC policy, checked
// on CartPole against a known-good teacher: the cloned policy agrees with the teacher and
// balances the pole on unseen episodes on its own, where the untrained policy does not.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cartpole.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/trainer.hpp"

namespace {

using nicsched::testing::CartPole;

// CartPole whose teacher pushes towards where the pole is falling (angle + 0.5 x angular
// velocity), a controller that holds the pole for the full 500 steps.
class TaughtCartPole final : public nicsched::control::Env {
 public:
  [[nodiscard]] std::size_t observation_size() const override { return inner_.observation_size(); }
  [[nodiscard]] nicsched::control::ActionSpace action_space() const override { return inner_.action_space(); }
  void reset(std::uint64_t seed, std::span<float> obs) override {
    inner_.reset(seed, obs);
    last_.assign(obs.begin(), obs.end());
  }
  nicsched::control::StepResult step(std::span<const int> action, std::span<float> obs) override {
    const auto r = inner_.step(action, obs);
    last_.assign(obs.begin(), obs.end());
    return r;
  }
  bool expert_action(std::span<int> out) override {
    out[0] = last_[2] + 0.5F * last_[3] > 0.0F ? 1 : 0;
    return true;
  }

 private:
  CartPole inner_;
  std::vector<float> last_;
};

double greedy_return(const nicsched::ppo::TrainedPolicy& policy, std::uint64_t seed) {
  CartPole env;
  std::vector<float> obs(4);
  const std::vector<std::uint8_t> mask{1, 1};
  env.reset(seed, obs);
  double total = 0.0;
  for (;;) {
    const auto r = env.step(policy.act(obs, mask), obs);
    total += static_cast<double>(r.reward);
    if (r.terminated || r.truncated) return total;
  }
}

nicsched::ppo::PpoConfig config() {
  nicsched::ppo::PpoConfig cfg;
  cfg.seed = 3;
  cfg.num_envs = 4;
  cfg.num_steps = 128;
  cfg.total_steps = 4 * 128;
  cfg.env_threads = 1;
  return cfg;
}

std::vector<std::unique_ptr<nicsched::control::Env>> envs(bool taught) {
  std::vector<std::unique_ptr<nicsched::control::Env>> out;
  for (int i = 0; i < 4; ++i) {
    if (taught) {
      out.push_back(std::make_unique<TaughtCartPole>());
    } else {
      out.push_back(std::make_unique<CartPole>());
    }
  }
  return out;
}

}  // namespace

TEST_CASE("bc: behaviour cloning a CartPole teacher gives a policy that balances the pole", "[bc]") {
  const auto dir = std::filesystem::temp_directory_path() / "nicsched_agent_bc";
  std::filesystem::remove_all(dir);

  nicsched::ppo::Trainer untrained(config(), envs(false));
  untrained.export_policy(dir / "untrained", "");
  const nicsched::ppo::TrainedPolicy before(dir / "untrained");

  nicsched::ppo::Trainer trainer(config(), envs(true));
  const auto st = trainer.behaviour_clone(500, 40, 3e-3);
  CHECK(st.samples == 2000);
  CHECK(st.epochs == 40);
  CHECK(st.mean_step_reward == Approx(1.0));  // the teacher never drops the pole
  CHECK(st.final_loss < st.first_loss);
  CHECK(st.accuracy >= 0.9);
  trainer.export_policy(dir / "cloned", "");
  const nicsched::ppo::TrainedPolicy cloned(dir / "cloned");
  for (std::uint64_t seed = 100; seed < 105; ++seed) {
    INFO("seed " << seed);
    CHECK(greedy_return(before, seed) < 200.0);
    CHECK(greedy_return(cloned, seed) >= 475.0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("bc: environments without a teacher are rejected", "[bc]") {
  nicsched::ppo::Trainer trainer(config(), envs(false));
  CHECK_THROWS_AS(trainer.behaviour_clone(10, 1, 1e-3), nicsched::ppo::ConfigError);
}
