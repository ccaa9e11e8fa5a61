// PPO loss terms against values worked out by hand (the arithmetic is in the comments).
#include <catch2/catch.hpp>

#include <cmath>

#include "nicsched/ppo/losses.hpp"

using nicsched::ppo::evaluate_losses;
using nicsched::ppo::LossInputs;
using nicsched::ppo::PpoConfig;

namespace {

struct Batch {
  std::vector<float> new_logp, old_logp, adv, new_v, old_v, ret, ent;
  LossInputs inputs() const { return {new_logp, old_logp, adv, new_v, old_v, ret, ent}; }
};

// ratio = exp(new - old) = [1, 1.5]; advantages [1, 2]
Batch two_samples() {
  return {{0.0F, static_cast<float>(std::log(1.5))}, {0.0F, 0.0F}, {1.0F, 2.0F},
          {1.0F, 2.0F}, {0.5F, 1.0F}, {1.5F, 3.0F}, {0.5F, 0.7F}};
}

PpoConfig plain_config() {
  PpoConfig cfg;
  cfg.norm_adv = false;
  cfg.clip_coef = 0.2;
  cfg.ent_coef = 0.01;
  cfg.vf_coef = 0.5;
  cfg.clip_vloss = true;
  return cfg;
}

}  // namespace

TEST_CASE("losses: clipped surrogate takes the pessimistic term", "[losses]") {
  const auto b = two_samples();
  const auto out = evaluate_losses(b.inputs(), plain_config());
  // -A r = [-1, -3]; -A clip(r, 0.8, 1.2) = [-1, -2.4]; max = [-1, -2.4]; mean -1.7
  CHECK(out.policy_loss == Approx(-1.7));
  CHECK(out.clip_fraction == Approx(0.5));
  // approx_kl = mean((r - 1) - log r) = (0 + 0.5 - ln 1.5) / 2; old = mean(-log r)
  CHECK(out.approx_kl == Approx((0.5 - std::log(1.5)) / 2.0));
  CHECK(out.old_approx_kl == Approx(-std::log(1.5) / 2.0));
}

TEST_CASE("losses: negative advantages are clipped from below", "[losses]") {
  auto b = two_samples();
  b.new_logp = {0.0F, static_cast<float>(std::log(0.5))};  // ratio [1, 0.5]
  b.adv = {-1.0F, -2.0F};
  const auto out = evaluate_losses(b.inputs(), plain_config());
  // -A r = [1, 1]; -A clip = [1, 1.6]; max = [1, 1.6]; mean 1.3
  CHECK(out.policy_loss == Approx(1.3));
}

TEST_CASE("losses: clipped value loss takes the larger of both errors", "[losses]") {
  const auto b = two_samples();
  auto cfg = plain_config();
  auto out = evaluate_losses(b.inputs(), cfg);
  // unclipped (v - R)^2 = [0.25, 1.0]; clipped v = old + clamp(v - old, +-0.2) = [0.7, 1.2]
  // -> [0.64, 3.24]; 0.5 * mean(max) = 0.5 * 1.94
  CHECK(out.value_loss == Approx(0.97));
  CHECK(out.entropy == Approx(0.6));
  // total = pg - 0.01 * H + 0.5 * V = -1.7 - 0.006 + 0.485
  CHECK(out.total == Approx(-1.221));
  cfg.clip_vloss = false;
  out = evaluate_losses(b.inputs(), cfg);
  CHECK(out.value_loss == Approx(0.3125));  // 0.5 * mean([0.25, 1.0]) = 0.5 * 0.625
}

TEST_CASE("losses: advantages are normalised per minibatch when norm_adv", "[losses]") {
  auto b = two_samples();
  b.adv = {1.0F, 3.0F};  // mean 2, sample std sqrt(2): normalised [-a, a], a = 1/sqrt(2)
  auto cfg = plain_config();
  cfg.norm_adv = true;
  const auto out = evaluate_losses(b.inputs(), cfg);
  // -A r = [a, -1.5 a]; -A clip = [a, -1.2 a]; max = [a, -1.2 a]; mean = -0.1 a
  CHECK(out.policy_loss == Approx(-0.1 / std::sqrt(2.0)).epsilon(1e-4));
}
