// nicagent dagger: DAgger with the lookahead oracle's labels or scenario labels
// (docs/agent.md, "DAgger"). Each iteration: the student runs fresh training draws, the
// oracle labels the states it visits (control::run_labelled) or each state gets its draw's
// label (control::run_scenario_labelled), the labels join the earlier iterations' (DaggerData), a
// fresh strategy policy is fitted to all of them (Trainer::fit_labels, the fit behaviour
// cloning uses) and becomes the next student; model selection scores it on validation
// draws and keeps the best. The run folder OUT:
//   env.yaml, ppo.yaml, dagger.yaml   the settings the run used
//   labels.csv                        every labelled state: iteration, draw, decision, label, each strategy's score
//   dagger.csv                        per iteration: rows, the student's mean score, the fit, the validation score
//   iteration-N/                      the policy fitted in iteration N (exported)
//   best/                             the one with the lowest validation score
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <mutex>
#include <vector>

#include "commands.hpp"
#include "nicsched/control/lookahead.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/control/vec_env.hpp"
#include "nicsched/fileio/file.hpp"
#include "nicsched/ppo/config.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/ppo_controller.hpp"
#include "nicsched/ppo/trainer.hpp"

namespace nicsched::agent_cli {
namespace fs = std::filesystem;
namespace {

constexpr std::uint64_t kWorkloadSeed = 1;  // one run per training draw

// A trainer of the strategy policy (its envs only give it the sizes: nothing steps them).
std::unique_ptr<ppo::Trainer> make_trainer(const ppo::PpoConfig& cfg, const control::NicEnvConfig& env,
                                           const std::shared_ptr<const sim::Family>& family) {
  const std::uint64_t cycles = (std::uint64_t{env.episode_steps} + 1) * env.interval_cycles;
  std::vector<std::unique_ptr<control::Env>> envs;
  for (std::uint32_t e = 0; e < cfg.num_envs; ++e) {
    envs.push_back(std::make_unique<control::NicEnv>(
        env, control::family_target_factory(family, cycles, sim::NicBackend::kModel)));
  }
  return std::make_unique<ppo::Trainer>(cfg, std::move(envs));
}

std::string scores_text(const std::vector<double>& scores) {
  std::string out;
  for (const double s : scores) out += fmt::format("{}{:.6f}", out.empty() ? "" : ";", s);
  return out;
}

}  // namespace

int dagger(const DaggerOptions& o) {
  const auto family = std::make_shared<const sim::Family>(load_usable_family(o.family, "--family", "dagger"));
  const control::NicEnvConfig env = control::load_env_config(o.env_config);
  if (env.action != control::ActionKind::kStrategy) {
    throw std::runtime_error("dagger: --env-config " + o.env_config.string() + " must have `action: strategy`");
  }
  const ppo::PpoConfig ppo_cfg = ppo::load_ppo_config(o.ppo_config);
  const ppo::DaggerConfig cfg = ppo::load_dagger_config(o.dagger_config);
  if (fs::exists(o.out / "dagger.csv") && !o.force) {
    throw std::runtime_error("dagger: " + o.out.string() + " holds a run already; give --force to start over in it");
  }
  fs::create_directories(o.out);
  const std::string env_yaml = control::env_config_yaml(env);
  fileio::write_file_atomically(o.out / "env.yaml", env_yaml);
  fileio::write_file_atomically(o.out / "ppo.yaml", ppo::ppo_config_yaml(ppo_cfg));
  fileio::write_file_atomically(o.out / "dagger.yaml", ppo::dagger_config_yaml(cfg));

  std::vector<control::ScenarioEntry> validation;
  if (!o.validation_family.empty()) {
    const sim::Family vf = load_usable_family(o.validation_family, "--validation-family", "dagger");
    const auto seeds = control::validation_seeds(vf);
    spdlog::info("validation: {} draws of {} (seeds {}..), {} runs each", o.validation_count, vf.name, seeds.first,
                 o.validation_seeds);
    validation = control::family_entries(vf, seeds.first, o.validation_count, std::nullopt, sim::NicBackend::kModel);
  }
  const control::LookaheadConfig oracle{cfg.every, cfg.horizon, cfg.continuation};
  const auto then =
      cfg.continue_with == "student" ? control::LabelContinuation::kStudent : control::LabelContinuation::kDefaultRule;
  const auto training = control::training_seeds(*family);
  control::ParallelFor pool(std::max<std::uint32_t>(1, o.threads));

  std::ofstream labels_csv(o.out / "labels.csv");
  labels_csv << "iteration,family_seed,decision,label,scores\n";
  std::ofstream log_csv(o.out / "dagger.csv");
  log_csv << "iteration,student,rows,student_score,oracle_default_score,fit_accuracy,fit_loss,validation_score,seconds\n";

  control::DaggerData data;
  std::shared_ptr<const ppo::TrainedPolicy> student;  // none: the first strategy is the student
  double best = NAN;
  for (std::uint32_t it = 0; it < cfg.iterations; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    // Roll out the student on this iteration's draws and label the states it visits.
    std::vector<control::LabelledRun> runs(cfg.draws);
    std::vector<std::uint64_t> seeds(cfg.draws);
    std::mutex log_mutex;
    pool.run(cfg.draws, [&](std::size_t j) {
      seeds[j] = training.first + std::uint64_t{it} * cfg.draws + j;
      const control::ScenarioEntry entry =
          control::make_scenario_entry(family->draw(seeds[j]), std::nullopt, sim::NicBackend::kModel);
      std::unique_ptr<control::Controller> who;
      if (student) {
        who = std::make_unique<ppo::PpoController>(student);
      } else {
        who = control::make_baseline(env.strategies.front());
      }
      if (cfg.labels == "scenario") {
        control::ParallelFor serial(1);  // the draws are what runs in parallel
        const control::BaselineChoice label = control::best_baseline(entry, env.strategies, cfg.label_seeds,
                                                                     env.interval_cycles, cfg.min_iterations, serial);
        runs[j] = control::run_scenario_labelled(entry, kWorkloadSeed, std::move(who), env, cfg.min_iterations,
                                                 cfg.every, label);
      } else {
        runs[j] = control::run_labelled(entry, kWorkloadSeed, std::move(who), env, cfg.min_iterations, oracle, then);
      }
      const std::lock_guard lock(log_mutex);
      spdlog::info("iteration {}: draw {} student {:.4f}, default `{}` {:.4f}, {} labels, {} copies", it, seeds[j],
                   runs[j].score, env.strategies[runs[j].default_arm],
                   runs[j].default_scores[runs[j].default_arm], runs[j].states.size(), runs[j].forks);
    });
    double student_sum = 0, default_sum = 0;
    for (std::size_t j = 0; j < runs.size(); ++j) {
      data.append(runs[j], it);
      student_sum += runs[j].score;
      default_sum += runs[j].default_scores[runs[j].default_arm];
      for (const auto& st : runs[j].states) {
        labels_csv << fmt::format("{},{},{},{},{}\n", it, seeds[j], st.decision, env.strategies[st.label],
                                  scores_text(st.arm_scores));
      }
    }
    labels_csv.flush();
    // Fit a fresh policy to every label so far.
    auto trainer = make_trainer(ppo_cfg, env, family);
    const std::vector<float> weights = cfg.weights == "gap" ? data.gap_weights() : std::vector<float>{};
    const ppo::BcStats fit = trainer->fit_labels(
        ppo::LabelledBatch{data.rows(), data.observations, data.labels, data.masks, weights}, cfg.epochs,
        cfg.learning_rate);
    const fs::path dir = o.out / fmt::format("iteration-{}", it);
    trainer->export_policy(dir, env_yaml);
    const std::string student_name = student ? fmt::format("iteration-{}", it - 1) : env.strategies.front();
    student = std::make_shared<const ppo::TrainedPolicy>(dir);
    double score = NAN;
    if (!validation.empty()) {
      score = control::validation_score(
          validation, o.validation_seeds, [&] { return std::make_unique<ppo::PpoController>(student); },
          env.interval_cycles, cfg.min_iterations, pool);
      if (!std::isnan(score) && (std::isnan(best) || score < best)) {
        best = score;
        trainer->export_policy(o.out / "best", env_yaml);
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    log_csv << fmt::format("{},{},{},{:.6f},{:.6f},{:.4f},{:.6f},{:.6f},{:.0f}\n", it, student_name, data.rows(),
                           student_sum / static_cast<double>(runs.size()), default_sum / static_cast<double>(runs.size()), fit.accuracy, fit.final_loss, score,
                           seconds);
    log_csv.flush();
    spdlog::info("iteration {}: {} labelled rows in all, fit accuracy {:.3f}, validation {:.4f} (best {:.4f}), {:.0f} s",
                 it, data.rows(), fit.accuracy, score, best, seconds);
  }
  return kOk;
}

}  // namespace nicsched::agent_cli
