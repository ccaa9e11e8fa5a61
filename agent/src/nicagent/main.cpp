// nicagent: train the PPO scheduler on simulated scenarios, evaluate it against every
// baseline, and serve it as the live control loop of a simulator or a card.
// Exit codes: enum Exit in commands.hpp (docs/reference/exit-codes.md).
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "nicsched/cli/parse.hpp"
#include "nicsched/ppo/config.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/version.hpp"

int main(int argc, char** argv) {
  using namespace nicsched::agent_cli;
  CLI::App app{"nicagent: PPO traffic scheduler for the nicsched SmartNIC"};
  app.set_version_flag("--version", std::string("nicagent ") + nicsched::kVersion);
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();

  TrainOptions t;
  auto* train_cmd = app.add_subcommand("train", "train a policy with PPO on simulated scenarios");
  auto* train_scenarios = train_cmd->add_option(
      "--scenario", t.scenarios, "scenario YAML files (env k trains on scenario k mod n); copied into the run folder")
      ->check(CLI::ExistingFile);
  auto* train_family = train_cmd->add_option("--family", t.family,
                        "train on a fresh draw of this scenario family every episode (its training seeds); copied "
                        "into the run folder")
      ->check(CLI::ExistingFile)
      ->excludes(train_scenarios);
  auto* validation_opt =
      train_cmd->add_option("--validation-family", t.validation_family,
                            "model selection: score the policy on draws of this family's held-out validation seeds "
                            "and keep the best as OUT/best (never the test family)")
          ->check(CLI::ExistingFile);
  train_cmd->add_option("--validation-count", t.validation_count, "scenarios drawn for validation")
      ->capture_default_str()->check(CLI::Range(1, 10000))->needs(validation_opt);
  train_cmd->add_option("--validation-every", t.validation_every, "validate every this many updates (and at the end)")
      ->capture_default_str()->check(CLI::Range(1, 1000000))->needs(validation_opt);
  train_cmd->add_option("--validation-seeds", t.validation_seeds, "runs (workload seeds) per validation scenario")
      ->capture_default_str()->check(CLI::Range(1, 100))->needs(validation_opt);
  train_cmd->add_option("--steps", t.steps, "total environment steps (overrides the PPO config)");
  train_cmd->add_option("--envs", t.envs, "parallel environments (overrides the PPO config)");
  train_cmd->add_option("--seed", t.seed, "seed (overrides the PPO config)");
  train_cmd->add_option("--cycles", t.cycles, "simulate this many cycles per scenario run instead of its duration");
  train_cmd->add_option("--backend", t.backend,
                        std::string("NIC simulator: model (C++ reference model) or rtl (Verilated RTL, tens of times "
                                    "slower); default ") + kDefaultBackend + ", on --resume the run's own")
      ->check(CLI::IsMember({"rtl", "model"}));
  auto* train_out = train_cmd->add_option(
      "--out", t.out, "run folder: scenarios, configs, checkpoint, CSV log, exported policy (default: --resume's)");
  // A resumed run trains on its own scenarios or family, validates as it did and was warm
  // started already: the options that would choose those again conflict with --resume.
  auto* resume_opt =
      train_cmd->add_option("--resume", t.resume,
                            "continue the run in this folder (its scenarios, configs and checkpoint; nothing else "
                            "needed)")
          ->check(CLI::ExistingDirectory)
          ->excludes(train_scenarios)
          ->excludes(train_family)
          ->excludes(validation_opt);
  train_cmd->add_flag("--force", t.force, "replace a training run already in --out")->needs(train_out);
  train_cmd->add_option("--ppo-config", t.ppo_config, "PPO settings (YAML)")->check(CLI::ExistingFile);
  train_cmd->add_option("--env-config", t.env_config, "environment settings (YAML)")->check(CLI::ExistingFile);
  train_cmd->add_flag("--quiet", t.quiet, "no progress bar");
  auto* bc_teacher_opt =
      train_cmd->add_option("--bc-teacher", t.bc_teacher,
                            "warm start: behaviour-clone this baseline (e.g. progress) before PPO; best:A,B,... (with "
                            "--family): on each draw, the baseline of A, B, ... that scores best on it")
          ->excludes(resume_opt);
  train_cmd->add_option("--init-policy", t.init_policy,
                        "fine-tune: PPO starts from this exported policy (e.g. a DAgger student): its weights and "
                        "observation statistics; the network settings must be those it was trained with")
      ->check(CLI::ExistingDirectory)
      ->excludes(resume_opt)
      ->excludes(bc_teacher_opt);
  train_cmd->add_option("--bc-steps", t.bc_steps, "behaviour-cloning steps per env")
      ->capture_default_str()->needs(bc_teacher_opt);
  train_cmd->add_option("--bc-epochs", t.bc_epochs, "behaviour-cloning epochs")
      ->capture_default_str()->needs(bc_teacher_opt);
  train_cmd->add_option("--bc-lr", t.bc_lr, "behaviour-cloning learning rate")
      ->capture_default_str()->needs(bc_teacher_opt);
  train_cmd->add_option("--bc-permutations", t.bc_permutations,
                        "add this many tenant-permuted copies of the behaviour-cloning data")
      ->capture_default_str()->needs(bc_teacher_opt);

  EvalOptions e;
  auto* eval_cmd = app.add_subcommand(
      "eval", "every baseline, the policy, the oracle and solo runs on each scenario; tables and plots");
  eval_cmd->add_option("--policy", e.policy, "exported policy folder (policy.pt + policy.yaml)")
      ->check(CLI::ExistingDirectory);
  auto* scenarios_opt = eval_cmd->add_option("--scenarios", e.scenarios, "scenario YAML files")
                            ->check(CLI::ExistingFile);
  auto* family_opt = eval_cmd->add_option("--family", e.family, "draw the scenarios from this family (YAML)")
                         ->check(CLI::ExistingFile)
                         ->excludes(scenarios_opt);
  eval_cmd->add_option("--count", e.count, "scenarios drawn from --family (its first seeds)")
      ->capture_default_str()->check(CLI::Range(1, 100000))->needs(family_opt);
  eval_cmd->add_option("--baselines", e.baselines, "baselines to run (default: all)");
  eval_cmd->add_option("--seeds", e.seeds, "seeds per scenario")->capture_default_str()->check(CLI::Range(1, 100));
  eval_cmd->add_option("--min-iterations", e.min_iterations,
                       "run until every training tenant finished this many iterations / rounds (or the end)")
      ->capture_default_str()->check(CLI::Range(1, 1000000));
  eval_cmd->add_option("--oracle-evaluations", e.oracle_evaluations,
                       "static configurations the oracle search judges per scenario (0: no oracle)")
      ->capture_default_str();
  auto* lookahead_opt = eval_cmd->add_flag(
      "--lookahead", e.lookahead,
      "add the lookahead oracle: at every k-th decision fork the run, play each baseline run (and the static "
      "oracle's configuration, and holding the current one) for H decisions, continue with the default rule, "
      "commit the best");
  auto* every_opt = eval_cmd->add_option("--lookahead-every", e.lookahead_every, "the lookahead oracle's k (decisions)")
      ->capture_default_str()->check(CLI::Range(1, 1000000))->needs(lookahead_opt);
  auto* horizon_opt = eval_cmd->add_option("--lookahead-horizon", e.lookahead_horizon, "the lookahead oracle's H (decisions)")
      ->capture_default_str()->check(CLI::Range(1, 1000000))->needs(lookahead_opt);
  auto* per_run_opt = eval_cmd->add_option("--lookahead-per-run", e.lookahead_per_run,
                       "k from each run's length instead of --lookahead-every: about this many lookahead decisions "
                       "after the first (k = the default rule's run length / (N + 1), H = --lookahead-horizon-k x k)")
      ->check(CLI::Range(1, 100000))->needs(lookahead_opt)->excludes(every_opt)->excludes(horizon_opt);
  eval_cmd->add_option("--lookahead-horizon-k", e.lookahead_horizon_k, "with --lookahead-per-run: H in units of k")
      ->capture_default_str()->check(CLI::Range(1, 1000))->needs(per_run_opt);
  eval_cmd->add_option("--lookahead-continuation", e.lookahead_continuation,
                       "decisions of the default rule after H in each copy (0: to the run's end)")
      ->capture_default_str()->needs(lookahead_opt);
  eval_cmd->add_option("--first-seed", e.first_seed,
                       "draw --family's scenarios from this seed on (default: the family's first seed)")
      ->needs(family_opt);
  eval_cmd->add_option("--cycles", e.cycles, "simulate at most this many cycles instead of the scenario's duration");
  eval_cmd->add_option("--interval", e.interval, "control interval in cycles (default: the policy's)");
  eval_cmd->add_option("--backend", e.backend, "NIC simulator: model (C++ reference model) or rtl (Verilated RTL)")
      ->capture_default_str()->check(CLI::IsMember({"rtl", "model"}));
  eval_cmd->add_option("--out", e.out, "folder for results.md, CSVs and PNG plots")->capture_default_str();
  auto* training_log_opt = eval_cmd->add_option("--training-log", e.training_log, "train.csv to plot (default: the one in the policy's folder, or beside it; a validation.csv beside it is plotted too)");
  eval_cmd->add_option("--reward-config", e.reward_config,
                       "env config (YAML): add each run's return under its reward to runs.csv")
      ->check(CLI::ExistingFile);
  eval_cmd->add_option("--threads", e.threads, "runs in parallel (0: one per core)")->capture_default_str();
  eval_cmd->add_flag("!--no-plots", e.plots, "skip the gnuplot PNGs")->excludes(training_log_opt);

  ServeOptions s;
  auto* serve_cmd = app.add_subcommand("serve", "live control loop against nicsim serve or a card");
  auto* serve_policy =
      serve_cmd->add_option("--policy", s.policy, "exported policy folder")->check(CLI::ExistingDirectory);
  serve_cmd->add_option("--baseline", s.baseline, "serve a baseline controller instead of a policy")
      ->excludes(serve_policy);
  serve_cmd->add_option("--target", s.target, "sim://HOST:PORT, unix:///PATH, pcie://..., xdma://...")->required();
  auto* interval_ms_opt = serve_cmd->add_option("--interval-ms", s.interval_ms, "wall time between decisions")
      ->capture_default_str()->check(CLI::PositiveNumber);
  serve_cmd->add_option("--step-cycles", s.step_cycles,
                        "lock-step simulator: advance this many cycles per decision instead of sleeping")
      ->excludes(interval_ms_opt);
  serve_cmd->add_option("--max-decisions", s.max_decisions, "stop after this many decisions (0: until SIGINT)");
  serve_cmd->add_option("--retries", s.retries,
                        "failed attempts in a row to reach the target (backoff 0.2 s doubling to 5 s) before exit 3")
      ->capture_default_str();
  serve_cmd->add_option("--interval-tolerance", s.interval_tolerance,
                        "warn when the achieved cycles between decisions differ from the policy's trained interval "
                        "by more than this fraction")
      ->capture_default_str()->check(CLI::Range(0.0, 100.0))->needs(serve_policy);

  std::filesystem::path reexport_from, reexport_to;
  double reexport_clip = nicsched::ppo::PpoConfig{}.obs_clip;
  auto* reexport_cmd = app.add_subcommand(
      "reexport", "write an exported policy (of this or an earlier version) again with this version's exporter");
  reexport_cmd->add_option("--policy", reexport_from, "exported policy folder (policy.pt + policy.yaml)")
      ->required()->check(CLI::ExistingDirectory);
  reexport_cmd->add_option("--out", reexport_to, "folder to write (may be --policy's)")->required();
  reexport_cmd->add_option("--obs-clip", reexport_clip,
                           "the observation clip the policy was trained with (the PPO config's obs_clip)")
      ->capture_default_str()->check(CLI::PositiveNumber);

  DaggerOptions d;
  auto* dagger_cmd = app.add_subcommand(
      "dagger",
      "train a strategy policy by DAgger: the states the policy visits labelled by the lookahead oracle or by their "
      "draw's best strategy");
  dagger_cmd->add_option("--family", d.family, "training draws come from this family's training seeds")
      ->required()->check(CLI::ExistingFile);
  dagger_cmd->add_option("--env-config", d.env_config, "env config with `action: strategy` (the strategies, the observation)")
      ->required()->check(CLI::ExistingFile);
  dagger_cmd->add_option("--ppo-config", d.ppo_config, "PPO config: the network (mlp) and the fit's minibatch size")
      ->required()->check(CLI::ExistingFile);
  dagger_cmd->add_option("--dagger-config", d.dagger_config,
                         "DAgger settings: iterations, draws, labels, label_seeds, every (k), horizon (H), continuation, "
                         "continue_with, weights, min_iterations, epochs, learning_rate (agent/configs/dagger.yaml)")
      ->required()->check(CLI::ExistingFile);
  auto* dagger_validation = dagger_cmd->add_option(
      "--validation-family", d.validation_family,
      "model selection: score each iteration's policy on this family's validation seeds, keep the best as OUT/best")
      ->check(CLI::ExistingFile);
  dagger_cmd->add_option("--validation-count", d.validation_count, "scenarios drawn for validation")
      ->capture_default_str()->check(CLI::Range(1, 10000))->needs(dagger_validation);
  dagger_cmd->add_option("--validation-seeds", d.validation_seeds, "runs (workload seeds) per validation scenario")
      ->capture_default_str()->check(CLI::Range(1, 100))->needs(dagger_validation);
  dagger_cmd->add_option("--threads", d.threads, "draws labelled in parallel")
      ->capture_default_str()->check(CLI::Range(1, 256));
  auto* dagger_out = dagger_cmd->add_option("--out", d.out, "run folder")->required();
  dagger_cmd->add_flag("--force", d.force, "replace a DAgger run already in --out")->needs(dagger_out);

  ClusterOptions c;
  auto* cluster_cmd = app.add_subcommand(
      "cluster", "run a cluster scenario (docs/cluster.md) with the policy as every server's NIC controller");
  cluster_cmd->add_option("scenario", c.scenario, "cluster scenario YAML file")->required()->check(CLI::ExistingFile);
  cluster_cmd->add_option("--policy", c.policy, "exported policy folder")
      ->capture_default_str()->check(CLI::ExistingDirectory);
  cluster_cmd->add_option("--placement", c.placement, "override the scenario's placement policy")
      ->check(CLI::IsMember({"random", "packed", "vclos"}));
  cluster_cmd->add_option("--routing", c.routing, "override the scenario's routing policy")
      ->check(CLI::IsMember({"ecmp", "balanced"}));
  cluster_cmd->add_option("--cycles", c.cycles, "run this many simulated cycles instead of the scenario's duration")
      ->check(CLI::PositiveNumber);
  cluster_cmd->add_flag("--json", c.json, "print the results as JSON");

  if (const auto rc = nicsched::cli::parse_or_exit(app, argc, argv)) return *rc == 0 ? kOk : kUsage;
  spdlog::set_default_logger(spdlog::stderr_color_mt("nicagent"));
  spdlog::set_level(spdlog::level::from_str(log_level));
  try {
    if (*train_cmd) return train(t);
    if (*eval_cmd) return eval(e);
    if (*dagger_cmd) return dagger(d);
    if (*cluster_cmd) return cluster(c);
    if (*reexport_cmd) {
      nicsched::ppo::reexport_policy(reexport_from, reexport_to, reexport_clip);
      spdlog::info("{}: re-exported to {} (the same logits and values, to 1e-5, and greedy actions on 64 random observations)", reexport_from.string(),
                   reexport_to.string());
      return kOk;
    }
    if (s.policy.empty() && s.baseline.empty()) {  // both: CLI11 refused them (excludes)
      std::cerr << "nicagent serve: give --policy or --baseline\n";
      return kUsage;
    }
    return serve(s);
  } catch (const TargetUnreachable& ex) {
    std::cerr << "nicagent: " << ex.what() << "\n";
    return kUnreachable;
  } catch (const std::exception& ex) {
    std::cerr << "nicagent: " << ex.what() << "\n";
    return kError;
  }
}
