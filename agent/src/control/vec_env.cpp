#include "nicsched/control/vec_env.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

namespace nicsched::control {

std::uint64_t mix_seed(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

ParallelFor::ParallelFor(std::size_t threads) {
  for (std::size_t w = 1; w < threads; ++w) {
    workers_.emplace_back([this, w] { worker_loop(w); });
  }
}

ParallelFor::~ParallelFor() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ParallelFor::worker_loop(std::size_t worker) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(std::size_t)>* job = nullptr;
    std::size_t n = 0;
    {
      std::unique_lock lock(mutex_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      n = job_n_;
    }
    // Static striding: worker w handles w, w + T, ... so each index has one owner.
    std::exception_ptr error;
    try {
      for (std::size_t i = worker; i < n; i += threads()) (*job)(i);
    } catch (...) {
      error = std::current_exception();
    }
    {
      const std::lock_guard lock(mutex_);
      if (error && !error_) error_ = error;
      --pending_;
    }
    done_cv_.notify_one();
  }
}

void ParallelFor::run(std::size_t n, const std::function<void(std::size_t)>& fn) {
  if (workers_.empty()) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    job_ = &fn;
    job_n_ = n;
    pending_ = workers_.size();
    ++generation_;
  }
  start_cv_.notify_all();
  std::exception_ptr error;
  try {
    for (std::size_t i = 0; i < n; i += threads()) fn(i);
  } catch (...) {
    error = std::current_exception();
  }
  std::unique_lock lock(mutex_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
  if (!error) error = std::exchange(error_, nullptr);
  error_ = nullptr;
  if (error) std::rethrow_exception(error);
}

VecEnv::VecEnv(std::vector<std::unique_ptr<Env>> envs, std::uint64_t seed, std::size_t threads)
    : envs_(std::move(envs)),
      seed_(seed),
      pool_(std::min(threads == 0 ? envs_.size() : threads, std::max<std::size_t>(envs_.size(), 1))) {
  if (envs_.empty()) throw EnvError("VecEnv: no environments given");
  obs_size_ = envs_[0]->observation_size();
  space_ = envs_[0]->action_space();
  for (std::size_t i = 1; i < envs_.size(); ++i) {
    if (envs_[i]->observation_size() != obs_size_ ||
        envs_[i]->action_space().head_sizes != space_.head_sizes) {
      throw EnvError("VecEnv: environment " + std::to_string(i) +
                     " has a different observation size or action space than environment 0");
    }
  }
  const std::size_t n = envs_.size();
  obs_.assign(n * obs_size_, 0.0F);
  final_obs_.assign(n * obs_size_, 0.0F);
  rewards_.assign(n, 0.0F);
  masks_.assign(n * space_.total(), 1);
  terminated_.assign(n, 0);
  truncated_.assign(n, 0);
  episodes_started_.assign(n, 0);
  lengths_.assign(n, 0);
  returns_.assign(n, 0.0);
}

std::uint64_t VecEnv::episode_seed(std::size_t env) {
  return mix_seed(mix_seed(seed_ ^ mix_seed(env)) + episodes_started_[env]++);
}

void VecEnv::reset() {
  const std::size_t total = space_.total();
  pool_.run(envs_.size(), [&](std::size_t i) {
    std::span<float> obs(obs_.data() + i * obs_size_, obs_size_);
    envs_[i]->reset(episode_seed(i), obs);
    envs_[i]->action_mask(std::span(masks_.data() + i * total, total));
    lengths_[i] = 0;
    returns_[i] = 0.0;
  });
}

void VecEnv::restart_episodes(std::span<const std::uint64_t> started) {
  if (started.size() != envs_.size()) {
    throw EnvError("VecEnv::restart_episodes: " + std::to_string(started.size()) + " episode counts for " +
                   std::to_string(envs_.size()) + " environments");
  }
  for (std::size_t i = 0; i < envs_.size(); ++i) episodes_started_[i] = started[i] > 0 ? started[i] - 1 : 0;
  reset();
}

void VecEnv::step(std::span<const int> actions) {
  const std::size_t heads = space_.heads();
  const std::size_t total = space_.total();
  if (actions.size() != envs_.size() * heads) {
    throw EnvError("VecEnv::step: expected " + std::to_string(envs_.size() * heads) +
                   " action indices, got " + std::to_string(actions.size()));
  }
  std::vector<std::uint8_t> ended(envs_.size(), 0);
  pool_.run(envs_.size(), [&](std::size_t i) {
    std::span<float> obs(obs_.data() + i * obs_size_, obs_size_);
    const StepResult r = envs_[i]->step(actions.subspan(i * heads, heads), obs);
    rewards_[i] = r.reward;
    terminated_[i] = r.terminated ? 1 : 0;
    truncated_[i] = (r.truncated && !r.terminated) ? 1 : 0;
    returns_[i] += static_cast<double>(r.reward);
    ++lengths_[i];
    if (r.terminated || r.truncated) {
      ended[i] = 1;
      std::copy(obs.begin(), obs.end(), final_obs_.begin() + static_cast<std::ptrdiff_t>(i * obs_size_));
      envs_[i]->reset(episode_seed(i), obs);
    }
    envs_[i]->action_mask(std::span(masks_.data() + i * total, total));
  });
  for (std::size_t i = 0; i < envs_.size(); ++i) {
    if (ended[i] != 0) {
      finished_.push_back({i, returns_[i], lengths_[i]});
      returns_[i] = 0.0;
      lengths_[i] = 0;
    }
  }
}

std::vector<EpisodeRecord> VecEnv::take_finished_episodes() {
  std::vector<EpisodeRecord> out;
  out.swap(finished_);
  return out;
}

}  // namespace nicsched::control
