// nicagent train: PPO on NicEnv over simulated scenarios, with a progress bar, a CSV
// log, atomic checkpoints, resume, and TorchScript export.
#include <spdlog/spdlog.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>

#include "commands.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/fileio/file.hpp"
#include "nicsched/ppo/trainer.hpp"

namespace nicsched::agent_cli {
namespace {

constexpr const char* kCsvHeader =
    "update,global_step,learning_rate,mean_step_reward,episode_return_mean,episodes,policy_loss,value_loss,"
    "entropy,approx_kl,old_approx_kl,clip_fraction,explained_variance,epochs_run,steps_per_second,"
    "rollout_seconds,update_seconds";

double mean_return(const ppo::UpdateStats& st) {
  if (st.episodes.empty()) return std::nan("");
  double s = 0;
  for (const auto& e : st.episodes) s += e.episode_return;
  return s / static_cast<double>(st.episodes.size());
}

}  // namespace

int train(const TrainOptions& o) {
  std::filesystem::create_directories(o.out);
  // Configs: explicit files win; on resume, the run's own copies; else the defaults.
  ppo::PpoConfig cfg;
  control::NicEnvConfig env_cfg;
  if (!o.ppo_config.empty()) {
    cfg = ppo::load_ppo_config(o.ppo_config);
  } else if (!o.resume.empty() && std::filesystem::exists(o.resume / "ppo.yaml")) {
    cfg = ppo::load_ppo_config(o.resume / "ppo.yaml");
  }
  if (!o.env_config.empty()) {
    env_cfg = control::load_env_config(o.env_config);
  } else if (!o.resume.empty() && std::filesystem::exists(o.resume / "env.yaml")) {
    env_cfg = control::load_env_config(o.resume / "env.yaml");
  }
  if (o.steps) cfg.total_steps = *o.steps;
  if (o.envs) cfg.num_envs = *o.envs;
  if (o.seed) cfg.seed = *o.seed;
  cfg.validate();
  fileio::write_file_atomically(o.out / "ppo.yaml", ppo::ppo_config_yaml(cfg));
  fileio::write_file_atomically(o.out / "env.yaml", control::env_config_yaml(env_cfg));

  std::optional<sim::NicBackend> backend;
  if (!o.backend.empty()) backend = sim::parse_backend(o.backend);
  auto scenarios = std::make_shared<std::vector<control::ScenarioEntry>>();
  for (const auto& s : o.scenarios) {
    spdlog::info("scenario {}: loading and measuring solo baselines (cached)", s.string());
    scenarios->push_back(control::load_scenario_entry(s, o.cycles, backend));
  }
  std::vector<std::unique_ptr<control::Env>> envs;
  const bool resuming = !o.resume.empty();
  const bool cloning = !o.bc_teacher.empty() && !resuming;
  for (std::uint32_t k = 0; k < cfg.num_envs; ++k) {
    auto env = std::make_unique<control::NicEnv>(env_cfg, control::sim_target_factory(scenarios, k));
    if (cloning) env->set_teacher(control::make_baseline(o.bc_teacher));
    envs.push_back(std::move(env));
  }
  ppo::Trainer trainer(cfg, std::move(envs));
  const auto checkpoint = o.out / "checkpoint.pt";
  const std::string env_yaml = control::env_config_yaml(env_cfg);
  if (resuming) {
    trainer.load_checkpoint(o.resume / "checkpoint.pt");
    spdlog::info("resumed from {} at update {} (step {})", (o.resume / "checkpoint.pt").string(),
                 trainer.updates_done(), trainer.global_step());
  } else if (cloning) {
    spdlog::info("behaviour cloning '{}': {} envs x {} steps, {} epochs", o.bc_teacher, cfg.num_envs, o.bc_steps,
                 o.bc_epochs);
    ppo::TenantLayout layout;
    if (o.bc_permutations > 0) {
      const auto tenants = static_cast<std::size_t>(trainer.envs().action_space().heads() / 3);
      layout.frames = env_cfg.history;
      layout.frame_size = tenants * control::ObservationEncoder::kTenantFeatures +
                          control::ObservationEncoder::kGlobalFeatures;
      layout.tenants = tenants;
      layout.tenant_features = control::ObservationEncoder::kTenantFeatures;
      layout.heads_per_tenant = 3;
      layout.logits_per_tenant = env_cfg.priority_levels + env_cfg.weight_levels + env_cfg.quota_levels;
      layout.copies = o.bc_permutations;
    }
    const auto bc = trainer.behaviour_clone(o.bc_steps, o.bc_epochs, o.bc_lr, layout);
    spdlog::info("behaviour cloning done: {} samples, teacher reward/step {:.4f}, cross-entropy {:.4f} -> {:.4f}, "
                 "value loss {:.4f}, greedy agreement {:.3f}; collect {:.0f} s, fit {:.0f} s",
                 bc.samples, bc.mean_step_reward, bc.first_loss, bc.final_loss, bc.final_value_loss, bc.accuracy,
                 bc.collect_seconds, bc.train_seconds);
    std::ofstream bc_log(o.out / "bc.yaml");
    bc_log << "teacher: " << o.bc_teacher << "\npermuted_copies: " << o.bc_permutations << "\nsamples: " << bc.samples << "\nepochs: " << bc.epochs
           << "\nteacher_reward_per_step: " << bc.mean_step_reward << "\ncross_entropy_first: " << bc.first_loss
           << "\ncross_entropy_final: " << bc.final_loss << "\nvalue_loss_final: " << bc.final_value_loss
           << "\ngreedy_agreement: " << bc.accuracy << "\ncollect_seconds: " << bc.collect_seconds
           << "\nfit_seconds: " << bc.train_seconds << "\n";
    trainer.save_checkpoint(checkpoint);
    trainer.export_policy(o.out / "bc-policy", env_yaml);
  }
  const auto csv_path = o.out / "train.csv";
  const bool append = resuming && std::filesystem::exists(csv_path) &&
                      std::filesystem::equivalent(o.resume, o.out);
  if (resuming && !append && std::filesystem::exists(o.resume / "train.csv")) {
    std::filesystem::copy_file(o.resume / "train.csv", csv_path, std::filesystem::copy_options::overwrite_existing);
  }
  std::ofstream csv(csv_path, (resuming ? std::ios::app : std::ios::trunc));
  if (!resuming) csv << kCsvHeader << "\n";

  spdlog::info("training: {} envs x {} steps per update, {} updates, obs {}, {} action heads", cfg.num_envs,
               cfg.num_steps, cfg.num_updates, trainer.envs().observation_size(),
               trainer.envs().action_space().heads());
  double last_return = std::nan("");
  while (!trainer.finished()) {
    const auto st = trainer.update();
    const double ret = mean_return(st);
    if (!std::isnan(ret)) last_return = ret;
    csv << st.update << ',' << st.global_step << ',' << st.learning_rate << ',' << st.mean_step_reward << ','
        << ret << ',' << st.episodes.size() << ',' << st.policy_loss << ',' << st.value_loss << ',' << st.entropy
        << ',' << st.approx_kl << ',' << st.old_approx_kl << ',' << st.clip_fraction << ','
        << st.explained_variance << ',' << st.epochs_run << ',' << st.steps_per_second << ','
        << st.rollout_seconds << ',' << st.update_seconds << '\n';
    csv.flush();
    if (!o.quiet) {
      const double frac = static_cast<double>(st.update) / static_cast<double>(st.num_updates);
      const int filled = static_cast<int>(frac * 30);
      std::cerr << '\r' << '[' << std::string(static_cast<std::size_t>(filled), '#')
                << std::string(static_cast<std::size_t>(30 - filled), '.') << "] " << st.update << '/'
                << st.num_updates << std::fixed << std::setprecision(3) << " r/step " << st.mean_step_reward
                << " ep " << std::setprecision(1) << last_return << std::setprecision(3) << " pg "
                << st.policy_loss << " v " << st.value_loss << " H " << st.entropy << " kl " << st.approx_kl
                << " clip " << st.clip_fraction << " ev " << st.explained_variance << std::setprecision(0)
                << ' ' << st.steps_per_second << " sps   " << std::flush;
    }
    if ((cfg.checkpoint_every > 0 && st.update % cfg.checkpoint_every == 0) || trainer.finished()) {
      trainer.save_checkpoint(checkpoint);
      trainer.export_policy(o.out / "policy", env_yaml);
    }
  }
  if (!o.quiet) std::cerr << "\n";
  spdlog::info("done: {} steps; checkpoint {}, policy {}", trainer.global_step(), checkpoint.string(),
               (o.out / "policy").string());
  return 0;
}

}  // namespace nicsched::agent_cli
