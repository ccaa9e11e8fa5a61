// CartPole-v1, the classic control task (Barto, Sutton & Anderson 1983), with the
// dynamics and limits of Gymnasium's CartPole-v1: a pole on a cart, push left or
// right, +1 per step while the pole stays up; terminated past 12 degrees or 2.4 m,
// truncated at 500 steps. Used to check the PPO learner independently of the NIC.
#pragma once

#include <cmath>
#include <numbers>
#include <random>

#include <cstdint>
#include <vector>

#include "nicsched/control/env.hpp"
#include "nicsched/ppo/policy.hpp"

namespace nicsched::testing {

class CartPole final : public control::Env {
 public:
  static constexpr int kMaxSteps = 500;

  [[nodiscard]] std::size_t observation_size() const override { return 4; }
  [[nodiscard]] control::ActionSpace action_space() const override { return {{2}}; }

  void reset(std::uint64_t seed, std::span<float> obs) override {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-0.05, 0.05);
    x_ = u(rng);
    x_dot_ = u(rng);
    theta_ = u(rng);
    theta_dot_ = u(rng);
    steps_ = 0;
    write(obs);
  }

  control::StepResult step(std::span<const int> action, std::span<float> obs) override {
    constexpr double kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1, kHalfLength = 0.5;
    constexpr double kForceMag = 10.0, kTau = 0.02;
    constexpr double kTotalMass = kMassCart + kMassPole, kPoleMassLength = kMassPole * kHalfLength;
    if (action.size() != 1 || action[0] < 0 || action[0] > 1) {
      throw control::EnvError("CartPole: action must be one index in {0, 1}");
    }
    const double force = action[0] == 1 ? kForceMag : -kForceMag;
    const double cos_t = std::cos(theta_), sin_t = std::sin(theta_);
    const double temp = (force + kPoleMassLength * theta_dot_ * theta_dot_ * sin_t) / kTotalMass;
    const double theta_acc =
        (kGravity * sin_t - cos_t * temp) /
        (kHalfLength * (4.0 / 3.0 - kMassPole * cos_t * cos_t / kTotalMass));
    const double x_acc = temp - kPoleMassLength * theta_acc * cos_t / kTotalMass;
    x_ += kTau * x_dot_;
    x_dot_ += kTau * x_acc;
    theta_ += kTau * theta_dot_;
    theta_dot_ += kTau * theta_acc;
    ++steps_;
    write(obs);
    control::StepResult r;
    r.reward = 1.0F;
    r.terminated = std::abs(x_) > 2.4 || std::abs(theta_) > 12.0 * std::numbers::pi / 180.0;
    r.truncated = !r.terminated && steps_ >= kMaxSteps;
    return r;
  }

 private:
  void write(std::span<float> obs) const {
    obs[0] = static_cast<float>(x_);
    obs[1] = static_cast<float>(x_dot_);
    obs[2] = static_cast<float>(theta_);
    obs[3] = static_cast<float>(theta_dot_);
  }
  double x_ = 0, x_dot_ = 0, theta_ = 0, theta_dot_ = 0;
  int steps_ = 0;
};

// Return of one greedy CartPole episode under `policy` (deterministic for a seed).
inline double greedy_return(const ppo::TrainedPolicy& policy, std::uint64_t seed) {
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

}  // namespace nicsched::testing
