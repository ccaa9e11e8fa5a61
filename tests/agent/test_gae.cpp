// GAE(lambda) against values worked out by hand (the arithmetic is in the comments).
#include <catch2/catch.hpp>

#include <initializer_list>
#include <vector>

#include "nicsched/ppo/gae.hpp"

using nicsched::ppo::compute_gae;
using nicsched::ppo::GaeInput;

namespace {

struct Rollout {
  std::vector<float> rewards, values, next_values;
  std::vector<std::uint8_t> terminated, ended;
  GaeInput input(std::size_t steps, std::size_t envs, double gamma, double lambda) const {
    GaeInput in;
    in.steps = steps;
    in.envs = envs;
    in.rewards = rewards;
    in.values = values;
    in.next_values = next_values;
    in.terminated = terminated;
    in.episode_end = ended;
    in.gamma = gamma;
    in.lambda = lambda;
    return in;
  }
};

// One env, three steps, gamma 0.9, lambda 0.8 (gamma * lambda = 0.72).
Rollout three_steps() {
  return {{1, 2, 3}, {0.5F, 1.0F, 1.5F}, {1.0F, 1.5F, 2.0F}, {0, 0, 0}, {0, 0, 0}};
}

// `got` holds `expect`, element by element.
void check_all(const std::vector<float>& got, std::initializer_list<double> expect) {
  REQUIRE(got.size() == expect.size());
  std::size_t i = 0;
  for (double e : expect) {
    INFO("element " << i);
    CHECK(got[i++] == Approx(e));
  }
}

}  // namespace

TEST_CASE("gae: advantages discount and accumulate deltas backwards", "[gae]") {
  const auto r = three_steps();
  const auto out = compute_gae(r.input(3, 1, 0.9, 0.8));
  // delta = r + 0.9 V' - V: 1.4, 2.35, 3.3
  // A2 = 3.3; A1 = 2.35 + 0.72 * 3.3 = 4.726; A0 = 1.4 + 0.72 * 4.726 = 4.80272
  check_all(out.advantages, {4.80272, 4.726, 3.3});
  check_all(out.returns, {4.80272 + 0.5, 4.726 + 1.0, 3.3 + 1.5});
}

TEST_CASE("gae: termination neither bootstraps nor carries the next advantage", "[gae]") {
  auto r = three_steps();
  r.terminated[1] = 1;
  r.ended[1] = 1;
  r.next_values[1] = 99.0F;  // must be ignored: the state after a termination has no value
  const auto out = compute_gae(r.input(3, 1, 0.9, 0.8));
  // delta1 = 2 - 1.0 = 1.0, A1 = 1.0; A2 = 3.3 (a new episode); A0 = 1.4 + 0.72 * 1.0
  check_all(out.advantages, {2.12, 1.0, 3.3});
}

TEST_CASE("gae: truncation bootstraps from the final state's value", "[gae]") {
  auto r = three_steps();
  r.ended[1] = 1;           // cut by a time limit, not terminal
  r.next_values[1] = 4.0F;  // V of the final observation of the cut episode
  const auto out = compute_gae(r.input(3, 1, 0.9, 0.8));
  // delta1 = 2 + 0.9 * 4 - 1 = 4.6, A1 = 4.6 (no carry across the cut); A0 = 1.4 + 0.72 * 4.6
  check_all(out.advantages, {4.712, 4.6, 3.3});
}

TEST_CASE("gae: lambda 1 gives discounted Monte-Carlo return minus the baseline", "[gae]") {
  auto r = three_steps();
  const auto out = compute_gae(r.input(3, 1, 0.5, 1.0));
  // G0 = 1 + 0.5 * 2 + 0.25 * 3 + 0.125 * V'(2.0) = 3.0; A0 = G0 - V0 = 2.5
  CHECK(out.returns[0] == Approx(3.0));
  CHECK(out.advantages[0] == Approx(2.5));
}

TEST_CASE("gae: environments are independent columns of the t * N + e layout", "[gae]") {
  // env 0 = the three-step rollout; env 1 = all zeros except a reward of 10 at t = 2
  Rollout r;
  const auto a = three_steps();
  for (std::size_t t = 0; t < 3; ++t) {
    r.rewards.insert(r.rewards.end(), {a.rewards[t], t == 2 ? 10.0F : 0.0F});
    r.values.insert(r.values.end(), {a.values[t], 0.0F});
    r.next_values.insert(r.next_values.end(), {a.next_values[t], 0.0F});
    r.terminated.insert(r.terminated.end(), {0, 0});
    r.ended.insert(r.ended.end(), {0, 0});
  }
  const auto out = compute_gae(r.input(3, 2, 0.9, 0.8));
  CHECK(out.advantages[0] == Approx(4.80272));
  // env 1: A2 = 10, A1 = 7.2, A0 = 5.184
  CHECK(out.advantages[5] == Approx(10.0));
  CHECK(out.advantages[3] == Approx(7.2));
  CHECK(out.advantages[1] == Approx(5.184));
}

TEST_CASE("gae: inputs of the wrong length are rejected", "[gae]") {
  auto r = three_steps();
  r.values.pop_back();
  CHECK_THROWS_AS(compute_gae(r.input(3, 1, 0.9, 0.8)), std::invalid_argument);
}
