// Behaviour cloning (Trainer::behaviour_clone), the warm start of the NIC policy, checked
// on CartPole against a known-good teacher: the cloned policy agrees with the teacher and
// balances the pole on unseen episodes on its own, where the untrained policy does not.
#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "cartpole.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/trainer.hpp"

namespace {

using nicsched::testing::CartPole;
using nicsched::testing::greedy_return;

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

namespace {

// Two tenants, one feature each; the teacher sets each tenant's head to 1 when its own
// feature is positive. Only tenant 0's feature ever varies, so tenant 1's slot never shows
// the case the teacher decides on.
class TwoTenants final : public nicsched::control::Env {
 public:
  [[nodiscard]] std::size_t observation_size() const override { return 2; }
  [[nodiscard]] nicsched::control::ActionSpace action_space() const override { return {{2, 2}}; }
  void reset(std::uint64_t seed, std::span<float> obs) override {
    rng_.seed(seed);
    draw(obs);
  }
  nicsched::control::StepResult step(std::span<const int> /*action*/, std::span<float> obs) override {
    draw(obs);
    return {};
  }
  bool expert_action(std::span<int> out) override {
    out[0] = f_[0] > 0.0F ? 1 : 0;
    out[1] = f_[1] > 0.0F ? 1 : 0;
    return true;
  }

 private:
  void draw(std::span<float> obs) {
    f_ = {std::uniform_real_distribution<float>(-1.0F, 1.0F)(rng_), 0.0F};
    obs[0] = f_[0];
    obs[1] = f_[1];
  }
  std::mt19937_64 rng_;
  std::array<float, 2> f_{};
};

std::vector<int> greedy(const std::filesystem::path& dir, std::vector<float> obs) {
  const nicsched::ppo::TrainedPolicy p(dir);
  return p.act(obs, std::vector<std::uint8_t>(4, 1));
}

}  // namespace

TEST_CASE("bc: tenant-permuted copies teach the teacher's rule to a slot that never saw it", "[bc]") {
  const auto dir = std::filesystem::temp_directory_path() / "nicsched_agent_bc_perm";
  std::filesystem::remove_all(dir);
  auto run = [&](std::uint32_t copies, const std::string& name) {
    auto cfg = config();
    std::vector<std::unique_ptr<nicsched::control::Env>> e;
    for (int i = 0; i < 4; ++i) e.push_back(std::make_unique<TwoTenants>());
    nicsched::ppo::Trainer trainer(cfg, std::move(e));
    nicsched::ppo::TenantLayout layout{1, 2, 2, 1, 1, 2, copies};
    const auto st = trainer.behaviour_clone(200, 30, 3e-3, layout);
    CHECK(st.samples == 800U * (copies + 1));
    trainer.export_policy(dir / name, "");
  };
  run(0, "plain");
  run(3, "permuted");
  // Tenant 1 with a positive feature, a case its slot never showed: the permuted clone acts.
  CHECK(greedy(dir / "permuted", {-0.5F, 0.8F}) == std::vector<int>{0, 1});
  CHECK(greedy(dir / "permuted", {0.6F, -0.7F}) == std::vector<int>{1, 0});
  CHECK(greedy(dir / "plain", {0.6F, 0.0F}) == std::vector<int>{1, 0});
  // A layout that does not fit the sizes is an error.
  std::vector<std::unique_ptr<nicsched::control::Env>> e;
  for (int i = 0; i < 4; ++i) e.push_back(std::make_unique<TwoTenants>());
  nicsched::ppo::Trainer bad(config(), std::move(e));
  CHECK_THROWS_AS(bad.behaviour_clone(10, 1, 1e-3, nicsched::ppo::TenantLayout{1, 3, 2, 1, 1, 2, 1}),
                  nicsched::ppo::ConfigError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("bc: DAgger's fit follows the heavier label where labels conflict", "[bc][dagger]") {
  const auto dir = std::filesystem::temp_directory_path() / "nicsched_agent_bc_weights";
  std::filesystem::remove_all(dir);
  // Every observation twice, once labelled 0 and once 1: only the weights break the tie.
  constexpr std::size_t kObs = 32;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-1.0F, 1.0F);
  std::vector<float> obs;
  std::vector<int> labels;
  for (std::size_t i = 0; i < kObs; ++i) {
    std::array<float, 4> x{u(rng), u(rng), u(rng), u(rng)};
    for (int label = 0; label < 2; ++label) {
      obs.insert(obs.end(), x.begin(), x.end());
      labels.push_back(label);
    }
  }
  const std::vector<std::uint8_t> masks(2 * kObs * 2, 1);
  auto fit = [&](float weight_of_1, const std::string& name) {
    std::vector<float> weights;
    for (std::size_t i = 0; i < kObs; ++i) weights.insert(weights.end(), {2.0F - weight_of_1, weight_of_1});
    nicsched::ppo::Trainer trainer(config(), envs(false));
    (void)trainer.fit_labels(nicsched::ppo::LabelledBatch{2 * kObs, obs, labels, masks, weights}, 30, 3e-3);
    trainer.export_policy(dir / name, "");
    const nicsched::ppo::TrainedPolicy p(dir / name);
    int ones = 0;
    for (std::size_t i = 0; i < kObs; ++i) {
      ones += p.act(std::span<const float>(obs).subspan(8 * i, 4), std::vector<std::uint8_t>(2, 1)).at(0);
    }
    return ones;
  };
  CHECK(fit(1.8F, "towards-1") == static_cast<int>(kObs));
  CHECK(fit(0.2F, "towards-0") == 0);
  // One weight per row or none.
  nicsched::ppo::Trainer trainer(config(), envs(false));
  const std::vector<float> short_weights(3, 1.0F);
  CHECK_THROWS_AS(trainer.fit_labels(nicsched::ppo::LabelledBatch{2 * kObs, obs, labels, masks, short_weights}, 1, 1e-3),
                  nicsched::ppo::ConfigError);
  std::filesystem::remove_all(dir);
}
