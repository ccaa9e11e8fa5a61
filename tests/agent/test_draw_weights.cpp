// Draw weighting towards the scenarios where the policy trails the best baseline
// (draw_weights: trailing): the weights follow their definition on hand-made tables,
// episode seeds pick draws with those frequencies, and the pool's target factory runs
// the draw the weights pick.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "nicsched/control/draw_weights.hpp"
#include "nicsched/sim/scenario.hpp"

using nicsched::control::EnvError;
using nicsched::control::pick_draw;
using nicsched::control::trailing_draw_weights;

TEST_CASE("draw weights: trailing draws get the mixed share by their gap to the best baseline", "[draws]") {
  // Draw 0 trails by 20 %, draw 1 is level, draw 2 trails by 10 %, draw 3 is ahead, draw 4
  // has no policy score: gaps 0.2, 0, 0.1, 0, 0 (sum 0.3).
  const std::vector<double> policy{1.2, 2.0, 3.3, 0.9, NAN};
  const std::vector<double> best{1.0, 2.0, 3.0, 1.0, 1.0};
  const auto w = trailing_draw_weights(policy, best, 0.5);
  REQUIRE(w.size() == 5);
  CHECK(w[0] == Approx(0.1 + 0.5 * 0.2 / 0.3));
  CHECK(w[1] == Approx(0.1));
  CHECK(w[2] == Approx(0.1 + 0.5 * 0.1 / 0.3));
  CHECK(w[3] == Approx(0.1));
  CHECK(w[4] == Approx(0.1));
  double sum = 0;
  for (const double x : w) sum += x;
  CHECK(sum == Approx(1.0));
  // mix 0: uniform; mix 1: proportional to the gap alone.
  for (const double x : trailing_draw_weights(policy, best, 0.0)) CHECK(x == Approx(0.2));
  const auto only = trailing_draw_weights(policy, best, 1.0);
  CHECK(only[0] == Approx(2.0 / 3.0));
  CHECK(only[2] == Approx(1.0 / 3.0));
  CHECK(only[1] == 0.0);
  CHECK(only[3] == 0.0);
  // Nowhere behind: uniform whatever the mix.
  for (const double x : trailing_draw_weights(std::vector<double>{1.0, 0.5}, std::vector<double>{1.0, 1.0}, 1.0)) {
    CHECK(x == Approx(0.5));
  }
  CHECK_THROWS_AS(trailing_draw_weights(policy, std::vector<double>{1.0}, 0.5), EnvError);
  CHECK_THROWS_AS(trailing_draw_weights(policy, best, 1.5), EnvError);
  CHECK_THROWS_AS(trailing_draw_weights(std::vector<double>{}, std::vector<double>{}, 0.5), EnvError);
}

TEST_CASE("draw weights: episode seeds pick each draw as often as its weight says", "[draws]") {
  const std::vector<double> w{0.5, 0.0, 0.3, 0.2};
  std::map<std::size_t, int> count;
  constexpr int kSeeds = 40000;
  for (std::uint64_t s = 1; s <= kSeeds; ++s) ++count[pick_draw(w, s)];
  CHECK(count[1] == 0);
  CHECK(count[0] / double{kSeeds} == Approx(0.5).margin(0.01));
  CHECK(count[2] / double{kSeeds} == Approx(0.3).margin(0.01));
  CHECK(count[3] / double{kSeeds} == Approx(0.2).margin(0.01));
  CHECK(pick_draw(w, 12345) == pick_draw(w, 12345));
}

TEST_CASE("draw weights: the pool's factory runs the draw the weights pick", "[draws]") {
  using namespace nicsched::control;
  std::vector<ScenarioEntry> entries(3);
  for (auto& e : entries) {
    e.scenario = nicsched::sim::load_scenario(NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml");
    e.scenario.backend = nicsched::sim::NicBackend::kModel;
    e.cycles = 20000;
    e.solo.resize(e.scenario.tenants.size());
  }
  auto draws = std::make_shared<WeightedDraws>(std::move(entries), std::vector<std::uint64_t>{11, 12, 13});
  for (const double x : draws->weights()) CHECK(x == Approx(1.0 / 3.0));  // uniform until measured
  std::vector<std::uint64_t> told;
  auto factory = weighted_target_factory(draws, [&](std::uint64_t seed, const ScenarioEntry&) { told.push_back(seed); });
  CHECK(factory(0) != nullptr);  // the probe of the NIC's shape: not an episode, not told
  CHECK(told.empty());
  draws->set_weights({0.0, 1.0, 0.0});
  for (std::uint64_t s = 1; s <= 20; ++s) CHECK(factory(s) != nullptr);
  CHECK(told == std::vector<std::uint64_t>(20, 12));
  CHECK_THROWS_AS(draws->set_weights({0.5, 0.5}), EnvError);
}
