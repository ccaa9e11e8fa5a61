// nicagent subcommands: options and entry points (docs/agent.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace nicsched::agent_cli {

struct TrainOptions {
  std::vector<std::filesystem::path> scenarios;
  std::optional<std::uint64_t> steps;         // overrides ppo total_steps
  std::optional<std::uint32_t> envs;          // overrides ppo num_envs
  std::optional<std::uint64_t> seed;          // overrides ppo seed
  std::optional<std::uint64_t> cycles;        // scenario run length override
  std::string backend;                        // "rtl" or "model": NIC simulator (default: the scenario's)
  std::filesystem::path out;
  std::filesystem::path resume;
  std::filesystem::path ppo_config;
  std::filesystem::path env_config;
  bool quiet = false;                         // no progress bar
  std::string bc_teacher;                     // behaviour-cloning warm start from this baseline
  std::uint64_t bc_steps = 1000;              // BC steps per env
  std::uint32_t bc_epochs = 30;
  double bc_lr = 1e-3;
  std::uint32_t bc_permutations = 0;          // tenant-permuted copies of the BC data
};
int train(const TrainOptions& o);

struct EvalOptions {
  std::filesystem::path policy;               // empty: baselines only
  std::vector<std::filesystem::path> scenarios;
  std::vector<std::string> baselines;         // empty: all
  std::uint32_t seeds = 3;
  std::optional<std::uint64_t> cycles;
  std::optional<std::uint64_t> interval;      // without a policy: control interval
  std::string backend;                        // "rtl" or "model" (default: the scenario's)
  std::filesystem::path out = "eval-out";
  std::filesystem::path training_log;         // train.csv for the training-curve plot
  std::uint32_t threads = 0;                  // 0: hardware threads
  bool plots = true;
};
int eval(const EvalOptions& o);

struct ServeOptions {
  std::filesystem::path policy;
  std::string target;
  double interval_ms = 10.0;
  std::uint64_t step_cycles = 0;              // lock-step simulator: cycles per decision
  std::uint64_t max_decisions = 0;            // 0: until SIGINT
  std::string baseline;                       // run a baseline instead of a policy
};
int serve(const ServeOptions& o);

}  // namespace nicsched::agent_cli
