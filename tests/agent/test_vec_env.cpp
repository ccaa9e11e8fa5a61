// VecEnv: automatic reset, final observations, episode records, masks, determinism
// across thread counts, and errors from worker threads reaching the caller.
#include <catch2/catch.hpp>

#include "nicsched/control/vec_env.hpp"

using namespace nicsched::control;

namespace {

// Observation: [steps so far, seed % 1000]. Reward = action. Episodes last `length`
// steps and end terminated (odd length) or truncated (even). Head 0 masks value 2.
class CountingEnv final : public Env {
 public:
  explicit CountingEnv(int length) : length_(length) {}
  [[nodiscard]] std::size_t observation_size() const override { return 2; }
  [[nodiscard]] ActionSpace action_space() const override { return {{3, 2}}; }
  void reset(std::uint64_t seed, std::span<float> obs) override {
    steps_ = 0;
    seed_tag_ = static_cast<float>(seed % 1000);
    write(obs);
  }
  StepResult step(std::span<const int> action, std::span<float> obs) override {
    if (action[0] == 2) throw EnvError("CountingEnv: masked action taken");
    ++steps_;
    write(obs);
    StepResult r;
    r.reward = static_cast<float>(action[0] + action[1]);
    const bool end = steps_ >= length_;
    r.terminated = end && (length_ % 2 == 1);
    r.truncated = end && (length_ % 2 == 0);
    return r;
  }
  void action_mask(std::span<std::uint8_t> mask) const override {
    for (auto& m : mask) m = 1;
    mask[2] = 0;
  }

 private:
  void write(std::span<float> obs) const {
    obs[0] = static_cast<float>(steps_);
    obs[1] = seed_tag_;
  }
  int length_;
  int steps_ = 0;
  float seed_tag_ = 0;
};

VecEnv make(std::size_t threads, std::uint64_t seed = 5) {
  std::vector<std::unique_ptr<Env>> envs;
  envs.push_back(std::make_unique<CountingEnv>(2));
  envs.push_back(std::make_unique<CountingEnv>(3));
  envs.push_back(std::make_unique<CountingEnv>(4));
  return VecEnv(std::move(envs), seed, threads);
}

}  // namespace

TEST_CASE("vec_env: episodes end, are recorded and restart automatically", "[vec_env]") {
  auto v = make(1);
  v.reset();
  const std::vector<int> act{1, 1, 0, 1, 1, 0};  // rewards 2, 1, 1 per step
  v.step(act);
  CHECK(v.take_finished_episodes().empty());
  v.step(act);  // env 0 (length 2, even) is truncated
  CHECK(v.truncated()[0] == 1);
  CHECK(v.terminated()[0] == 0);
  CHECK(v.final_observations()[0] == 2.0F);  // its last observation
  CHECK(v.observations()[0] == 0.0F);        // already the first of the next episode
  auto eps = v.take_finished_episodes();
  REQUIRE(eps.size() == 1);
  CHECK(eps[0].env == 0);
  CHECK(eps[0].episode_return == Approx(4.0));
  CHECK(eps[0].length == 2);
  v.step(act);  // env 1 (length 3, odd) terminates
  CHECK(v.terminated()[1] == 1);
  CHECK(v.truncated()[1] == 0);
  eps = v.take_finished_episodes();
  REQUIRE(eps.size() == 1);
  CHECK(eps[0].env == 1);
  CHECK(eps[0].length == 3);
}

TEST_CASE("vec_env: masks come from the environments", "[vec_env]") {
  auto v = make(1);
  v.reset();
  REQUIRE(v.masks().size() == 3 * 5);
  CHECK(v.masks()[2] == 0);
  CHECK(v.masks()[7] == 0);
  CHECK(v.masks()[0] == 1);
}

TEST_CASE("vec_env: parallel stepping gives the serial results", "[vec_env]") {
  auto serial = make(1);
  auto parallel = make(3);
  serial.reset();
  parallel.reset();
  const std::vector<int> act{1, 0, 0, 1, 1, 1};
  for (int i = 0; i < 20; ++i) {
    serial.step(act);
    parallel.step(act);
    REQUIRE(std::vector<float>(serial.observations().begin(), serial.observations().end()) ==
            std::vector<float>(parallel.observations().begin(), parallel.observations().end()));
    REQUIRE(std::vector<float>(serial.rewards().begin(), serial.rewards().end()) ==
            std::vector<float>(parallel.rewards().begin(), parallel.rewards().end()));
  }
}

TEST_CASE("vec_env: episode seeds differ per env and per episode, fixed by the seed", "[vec_env]") {
  auto a = make(2, 11);
  auto b = make(2, 11);
  auto c = make(2, 12);
  a.reset();
  b.reset();
  c.reset();
  CHECK(a.observations()[1] == b.observations()[1]);
  CHECK(a.observations()[1] != a.observations()[3]);
  CHECK(a.observations()[1] != c.observations()[1]);
  const float first_tag = a.observations()[1];
  const std::vector<int> act{0, 0, 0, 0, 0, 0};
  a.step(act);
  a.step(act);  // env 0 restarted with the next seed of its sequence
  CHECK(a.observations()[1] != first_tag);
}

TEST_CASE("vec_env: an error in a worker thread reaches the caller", "[vec_env]") {
  auto v = make(3);
  v.reset();
  const std::vector<int> bad{0, 0, 0, 0, 2, 0};  // env 2 takes its masked action
  CHECK_THROWS_AS(v.step(bad), EnvError);
  const std::vector<int> short_actions{0, 0};
  CHECK_THROWS_AS(v.step(short_actions), EnvError);
}
