// VecEnv: several environments of the same shape stepped together, in parallel worker
// threads, with automatic reset at the end of an episode. Results are deterministic:
// each environment is stepped by exactly one thread and gets its own seed sequence.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "nicsched/control/env.hpp"

namespace nicsched::control {

// An episode that ended during the last step() calls.
struct EpisodeRecord {
  std::size_t env = 0;
  double episode_return = 0.0;
  std::uint64_t length = 0;
};

// Runs fn(i) for i in [0, n) on a fixed set of worker threads (the calling thread
// takes part). threads <= 1 runs everything on the calling thread.
class ParallelFor {
 public:
  explicit ParallelFor(std::size_t threads);
  ~ParallelFor();
  ParallelFor(const ParallelFor&) = delete;
  ParallelFor& operator=(const ParallelFor&) = delete;
  void run(std::size_t n, const std::function<void(std::size_t)>& fn);
  [[nodiscard]] std::size_t threads() const { return workers_.size() + 1; }

 private:
  void worker_loop(std::size_t worker);
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t job_n_ = 0;
  std::uint64_t generation_ = 0;
  std::size_t pending_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;  // first exception thrown by a worker in this run
};

class VecEnv {
 public:
  // All envs must have the same observation size and action space. threads: worker
  // threads for stepping (0 = one per env, capped at the env count).
  VecEnv(std::vector<std::unique_ptr<Env>> envs, std::uint64_t seed, std::size_t threads);

  [[nodiscard]] std::size_t size() const { return envs_.size(); }
  [[nodiscard]] std::size_t observation_size() const { return obs_size_; }
  [[nodiscard]] const ActionSpace& action_space() const { return space_; }
  [[nodiscard]] Env& env(std::size_t i) { return *envs_.at(i); }

  // Resets every env; observations()/masks() then hold the first observations.
  void reset();
  // actions: size() * heads indices, env after env. Afterwards observations() holds
  // each env's next observation (the first of a new episode where one ended),
  // final_observations() the last observation of an episode that ended.
  void step(std::span<const int> actions);

  [[nodiscard]] std::span<const float> observations() const { return obs_; }
  [[nodiscard]] std::span<const std::uint8_t> masks() const { return masks_; }
  [[nodiscard]] std::span<const float> final_observations() const { return final_obs_; }
  [[nodiscard]] std::span<const float> rewards() const { return rewards_; }
  [[nodiscard]] std::span<const std::uint8_t> terminated() const { return terminated_; }
  [[nodiscard]] std::span<const std::uint8_t> truncated() const { return truncated_; }
  // Episodes finished since the last call; clears the list.
  std::vector<EpisodeRecord> take_finished_episodes();
  // Episodes each env has started, the one in progress included (saved in checkpoints).
  [[nodiscard]] const std::vector<std::uint64_t>& episodes_started() const { return episodes_started_; }
  // Resets every env so that env i runs again, from its beginning and with the same seed,
  // the episode that was in progress when episodes_started() returned `started`: a resumed
  // run continues each env's sequence of episode seeds. Throws EnvError on a size mismatch.
  void restart_episodes(std::span<const std::uint64_t> started);

 private:
  [[nodiscard]] std::uint64_t episode_seed(std::size_t env);
  std::vector<std::unique_ptr<Env>> envs_;
  std::size_t obs_size_ = 0;
  ActionSpace space_;
  std::uint64_t seed_;
  ParallelFor pool_;
  std::vector<float> obs_, final_obs_, rewards_;
  std::vector<std::uint8_t> masks_, terminated_, truncated_;
  std::vector<std::uint64_t> episodes_started_, lengths_;
  std::vector<double> returns_;
  std::vector<EpisodeRecord> finished_;
};

// SplitMix64: the seed mixer used to derive independent per-env episode seeds.
[[nodiscard]] std::uint64_t mix_seed(std::uint64_t x);

}  // namespace nicsched::control
