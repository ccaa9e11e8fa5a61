// nicagent subcommands: options and entry points (docs/agent.md). Entry points return
// the exit code or throw; main() catches: TargetUnreachable -> 3, anything else -> 1.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "nicsched/sim/family.hpp"

namespace nicsched::agent_cli {

// Exit codes of nicagent (docs/reference/exit-codes.md).
enum Exit : int {
  kOk = 0,
  kError = 1,            // any other error (one line on stderr)
  kUsage = 2,            // bad command line
  kUnreachable = 3,      // serve: the target could not be reached within --retries attempts
  kStoppedBySignal = 128,  // + the signal: train stopped by SIGINT (130) / SIGTERM (143) after a checkpoint
};

// The NIC simulator train and eval use unless --backend says otherwise: the C++ reference
// model (cycle-exact scheduling, register accesses take no cycles), tens of times faster
// than the Verilated RTL (docs/agent.md, "Behaviour-cloning warm start and the fast backend").
inline constexpr char kDefaultBackend[] = "model";

// serve gave up reaching its target.
class TargetUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TrainOptions {
  std::vector<std::filesystem::path> scenarios;  // empty on --resume (the run's own)
  std::filesystem::path family;               // or: a fresh draw of this family every episode
  // Model selection: every validation_every updates, the policy on validation_count draws
  // of validation_family (its held-out seeds), validation_seeds runs each; best/ kept.
  std::filesystem::path validation_family;
  std::uint32_t validation_count = 8;
  std::uint32_t validation_every = 10;
  std::uint32_t validation_seeds = 1;
  std::optional<std::uint64_t> steps;         // overrides ppo total_steps
  std::optional<std::uint32_t> envs;          // overrides ppo num_envs
  std::optional<std::uint64_t> seed;          // overrides ppo seed
  std::optional<std::uint64_t> cycles;        // scenario run length override
  std::string backend;                        // "rtl" or "model"; empty: kDefaultBackend (a resume: the run's own)
  std::filesystem::path out;                  // the run folder (default: --resume's)
  std::filesystem::path resume;               // continue the run in this folder
  bool force = false;                         // replace a run already in --out
  std::filesystem::path ppo_config;
  std::filesystem::path env_config;
  bool quiet = false;                         // no progress bar
  std::string bc_teacher;                     // behaviour-cloning warm start from this baseline
  std::uint64_t bc_steps = 1000;              // BC steps per env
  std::uint32_t bc_epochs = 30;
  double bc_lr = 1e-3;
  std::uint32_t bc_permutations = 0;          // tenant-permuted copies of the BC data
  std::filesystem::path init_policy;          // fine-tune: PPO starts from this exported policy
};
int train(const TrainOptions& o);

// The family in `file`, refused when it is the test family, held out for the final numbers
// (docs/agent.md, "Training over a family"): neither training nor model selection may see
// it. The error names the command and the option.
[[nodiscard]] sim::Family load_usable_family(const std::filesystem::path& file, const std::string& option,
                                             const std::string& command);

// nicagent dagger (docs/agent.md, "DAgger").
struct DaggerOptions {
  std::filesystem::path family;               // training draws: the family's training seeds
  std::filesystem::path env_config;           // the strategy action's env config
  std::filesystem::path ppo_config;           // the network (mlp) and its minibatches
  std::filesystem::path dagger_config;        // DAgger's own settings (ppo::DaggerConfig)
  std::filesystem::path validation_family;    // model selection: its validation seeds
  std::uint32_t validation_count = 8;
  std::uint32_t validation_seeds = 1;
  std::uint32_t threads = 2;                  // draws labelled (and validation runs) in parallel
  std::filesystem::path out;
  bool force = false;
};
int dagger(const DaggerOptions& o);

struct EvalOptions {
  std::filesystem::path policy;               // empty: baselines only
  std::vector<std::filesystem::path> scenarios;
  std::filesystem::path family;               // or: scenarios drawn from this family
  std::uint32_t count = 20;                   // scenarios drawn (seeds first .. first + count - 1)
  std::vector<std::string> baselines;         // empty: all
  std::uint32_t seeds = 5;
  std::uint64_t min_iterations = 20;          // run until every training tenant finished this many
  std::uint32_t oracle_evaluations = 24;      // static configurations the oracle judges (0: no oracle)
  bool lookahead = false;                     // add the lookahead oracle's row (control::run_lookahead)
  std::uint64_t lookahead_every = 500;        // its k: decisions between lookahead decisions
  std::uint64_t lookahead_horizon = 500;      // its H: decisions each candidate plays before the default rule
  std::uint64_t lookahead_continuation = 0;   // decisions of the default rule after H (0: to the run's end)
  std::uint64_t lookahead_per_run = 0;        // k from the run's length: about this many decisions per run (0: k is lookahead_every)
  std::uint64_t lookahead_horizon_k = 2;      // with lookahead_per_run: H in units of k
  std::optional<std::uint64_t> first_seed;    // with --family: draw seeds from this one (default: the family's first)
  std::optional<std::uint64_t> cycles;
  std::optional<std::uint64_t> interval;      // without a policy: control interval
  std::string backend = kDefaultBackend;      // "rtl" or "model"; empty: each scenario's own
  std::filesystem::path out = "eval-out";
  std::filesystem::path training_log;         // train.csv for the training-curve plot
  std::filesystem::path reward_config;        // env config whose reward each run's return is summed in (runs.csv)
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
  std::uint32_t retries = 20;                 // failed connection attempts in a row before exit 3
  double interval_tolerance = 0.25;           // warn when the achieved interval is off by more
};
int serve(const ServeOptions& o);

// nicagent cluster: a cluster scenario with the policy as every server's NIC controller
// (nicsim cluster runs the baselines; docs/cluster.md).
struct ClusterOptions {
  std::filesystem::path scenario;
  std::filesystem::path policy = "agent/policies/default";
  std::string placement;                // random | packed | vclos; empty: the scenario's
  std::string routing;                  // ecmp | balanced; empty: the scenario's
  std::optional<std::uint64_t> cycles;
  bool json = false;
};
int cluster(const ClusterOptions& o);

}  // namespace nicsched::agent_cli
