// nicagent train: PPO on NicEnv over simulated scenarios, with a progress bar, a CSV
// log, atomic checkpoints, resume, and TorchScript export.
//
// The run folder (--out) holds everything a resume needs (docs/agent.md, "Run folders"):
//   run.yaml              the run: its scenarios (copies, inside the folder), cycles, backend
//   scenarios/K/NAME.yaml copy of the K-th --scenario (and the pcap files it replays
//                         from its own folder, at the same relative paths)
//   ppo.yaml, env.yaml    the settings in force
//   checkpoint.pt         model, optimiser, counters, RNG (every checkpoint_every updates,
//                         at the end, and on SIGINT/SIGTERM)
//   train.csv             one row per update; on resume, rows after the checkpoint's update
//                         (written before a crash) are dropped, so no update appears twice
//   policy/               the exported policy of the last checkpoint
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "commands.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/fileio/file.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/ppo/trainer.hpp"
#include "nicsched/ppo/world.hpp"
#include "nicsched/sim/pcap_io.hpp"

namespace nicsched::agent_cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCsvHeader =
    "update,global_step,learning_rate,mean_step_reward,episode_return_mean,episodes,policy_loss,value_loss,"
    "entropy,approx_kl,old_approx_kl,clip_fraction,explained_variance,epochs_run,steps_per_second,"
    "rollout_seconds,update_seconds";
constexpr const char* kRunFormat = "nicsched-train-run-1";
// train.csv grows by ~200 bytes per update; a million updates fit.
constexpr std::uint64_t kMaxCsvBytes = std::uint64_t{256} << 20;

double mean_return(const ppo::UpdateStats& st) {
  if (st.episodes.empty()) return std::nan("");
  double s = 0;
  for (const auto& e : st.episodes) s += e.episode_return;
  return s / static_cast<double>(st.episodes.size());
}

// ---------------------------------------------------------------- signals

// The first SIGINT/SIGTERM asks the loop to stop after the current update and write a
// checkpoint; a second one ends the process at once (the last checkpoint stays).
std::atomic<int> g_stop_signal{0};

extern "C" void on_train_signal(int sig) {
  if (g_stop_signal.exchange(sig) != 0) {
    constexpr char msg[] = "\nnicagent: interrupted again: exiting now; the last checkpoint written stays\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(128 + sig);
  }
  constexpr char msg[] =
      "\nnicagent: interrupted: finishing the current update, then writing a checkpoint (interrupt again to quit "
      "without it)\n";
  (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
}

// ---------------------------------------------------------------- the run folder

struct RunInfo {
  std::vector<fs::path> scenarios;  // relative to the run folder
  std::optional<std::uint64_t> cycles;
  std::string backend;  // "" (each scenario's own), "rtl" or "model"
};

// A folder holds a run when training has written progress into it.
bool holds_run(const fs::path& dir) {
  return fs::exists(dir / "checkpoint.pt") || fs::exists(dir / "train.csv");
}

std::string run_yaml(const RunInfo& r) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << kRunFormat;
  out << YAML::Key << "scenarios" << YAML::Value << YAML::BeginSeq;
  for (const auto& s : r.scenarios) out << s.generic_string();
  out << YAML::EndSeq;
  if (r.cycles) out << YAML::Key << "cycles" << YAML::Value << *r.cycles;
  if (!r.backend.empty()) out << YAML::Key << "backend" << YAML::Value << r.backend;
  out << YAML::EndMap;
  return "# nicagent train run (docs/agent.md, \"Run folders\"); read by --resume\n" + std::string(out.c_str()) +
         "\n";
}

RunInfo read_run(const fs::path& dir) {
  const fs::path file = dir / "run.yaml";
  if (!fs::exists(file)) {
    throw std::runtime_error(dir.string() + " has no run.yaml: not a run folder of nicagent train " +
                             "(runs made before run folders held their scenarios cannot be resumed)");
  }
  const auto doc = fileio::YamlDoc::load(file, "the run description");
  fileio::MapReader r(doc, doc.root(), "");
  r.choice("format", {kRunFormat}, std::nullopt);
  RunInfo run;
  const YAML::Node list = r.node("scenarios");
  if (!list.IsSequence() || list.size() == 0) r.fail(list ? list : doc.root(), "scenarios", "expected a non-empty list of paths");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const fs::path p = doc.scalar(list[i], "scenarios[" + std::to_string(i) + "]");
    if (p.is_absolute() || p.lexically_normal().string().starts_with("..")) {
      doc.fail(list[i], "scenarios[" + std::to_string(i) + "]", "expected a path inside the run folder");
    }
    run.scenarios.push_back(p);
  }
  if (r.has("cycles")) run.cycles = r.integer("cycles", std::nullopt, 1, ~0ULL >> 1, "simulated cycles per run");
  run.backend = r.choice("backend", {"rtl", "model"}, std::string());
  r.finish("format, scenarios, cycles, backend");
  return run;
}

// Copies a scenario (and the pcap files it replays from its own folder) into
// out/scenarios/K/; returns its path relative to out.
fs::path copy_scenario(const fs::path& file, std::size_t k, const fs::path& out) {
  const fs::path rel = fs::path("scenarios") / std::to_string(k) / file.filename();
  const fs::path dest_dir = out / rel.parent_path();
  fs::create_directories(dest_dir);
  fileio::write_file_atomically(out / rel, fileio::read_text_file(file, "the scenario file"));
  const sim::Scenario sc = sim::load_scenario(file);
  for (const auto& t : sc.tenants) {
    if (t.kind != sim::WorkloadKind::kPcap) continue;
    const fs::path in_dir = t.pcap_file.lexically_relative(file.parent_path());
    if (t.pcap_file.is_relative() || (!in_dir.empty() && !in_dir.string().starts_with(".."))) {
      if (in_dir.empty() || in_dir.string().starts_with("..")) {
        throw std::runtime_error(file.string() + ": tenant " + t.name + " replays " + t.pcap_file.string() +
                                 ", outside the scenario's folder: give it an absolute path so the run folder " +
                                 "can refer to it");
      }
      fs::create_directories((dest_dir / in_dir).parent_path());
      // the capture as the simulator would accept it: a regular file of at most kMaxCaptureBytes
      fileio::check_readable_file(t.pcap_file, sim::kMaxCaptureBytes, "the capture of tenant " + t.name);
      fs::copy_file(t.pcap_file, dest_dir / in_dir, fs::copy_options::overwrite_existing);
    } else {
      spdlog::warn("scenario {}: tenant {} replays {} (absolute path): the run folder refers to it, not a copy",
                   file.string(), t.name, t.pcap_file.string());
    }
  }
  return rel;
}

// train.csv of a resumed run: the rows of `from` up to the checkpoint's update, written to
// `to`. Rows after it were written before a crash; the updates they logged are run again.
void resume_csv(const fs::path& from, const fs::path& to, std::uint64_t checkpoint_update) {
  std::string kept = std::string(kCsvHeader) + "\n";
  std::size_t dropped = 0;
  if (fs::exists(from)) {
    std::istringstream in(fileio::read_text_file(from, "the training log", kMaxCsvBytes));
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      std::uint64_t update = 0;
      try {
        update = std::stoull(line.substr(0, line.find(',')));
      } catch (const std::exception&) {
        ++dropped;  // a row cut off by a crash
        continue;
      }
      if (update <= checkpoint_update) {
        kept += line + "\n";
      } else {
        ++dropped;
      }
    }
  }
  fileio::write_file_atomically(to, kept);
  if (dropped > 0) {
    spdlog::info("{}: dropped {} rows logged after the checkpoint's update {} (they are trained again)", to.string(),
                 dropped, checkpoint_update);
  }
}

// The run folder of a new or resumed run: refuses to overwrite a run without --force,
// copies the scenarios in, and writes run.yaml, ppo.yaml and env.yaml (the settings after
// the command line's overrides). Fills `run`, `cfg` and `env_cfg`.
void prepare_run_folder(const TrainOptions& o, const fs::path& out, bool in_place, RunInfo& run, ppo::PpoConfig& cfg,
                        control::NicEnvConfig& env_cfg) {
  const bool resuming = !o.resume.empty();
  if (!in_place && holds_run(out)) {
    if (!o.force) {
      throw std::runtime_error("train: " + out.string() + " already holds a training run (checkpoint.pt, train.csv): " +
                               "continue it with --resume " + out.string() + ", or give --force to start over in it");
    }
    spdlog::warn("--force: replacing the run in {}", out.string());
    for (const char* f : {"checkpoint.pt", "train.csv", "run.yaml", "bc.yaml", "scenarios", "policy", "bc-policy"}) {
      fs::remove_all(out / f);
    }
  }
  fs::create_directories(out);

  // The run: its scenarios copied into the folder (a resume reads them from there).
  if (resuming) {
    run = read_run(o.resume);
    if (!in_place) {
      fs::remove_all(out / "scenarios");
      fs::copy(o.resume / "scenarios", out / "scenarios", fs::copy_options::recursive);
    }
  } else {
    fs::remove_all(out / "scenarios");  // left by an attempt that never trained
    for (std::size_t k = 0; k < o.scenarios.size(); ++k) run.scenarios.push_back(copy_scenario(o.scenarios[k], k, out));
  }
  if (o.cycles) run.cycles = o.cycles;
  if (!o.backend.empty()) run.backend = o.backend;
  fileio::write_file_atomically(out / "run.yaml", run_yaml(run));

  // Configs: explicit files win; on resume, the run's own copies; else the defaults.
  if (!o.ppo_config.empty()) {
    cfg = ppo::load_ppo_config(o.ppo_config);
  } else if (resuming && fs::exists(o.resume / "ppo.yaml")) {
    cfg = ppo::load_ppo_config(o.resume / "ppo.yaml");
  }
  if (!o.env_config.empty()) {
    env_cfg = control::load_env_config(o.env_config);
  } else if (resuming && fs::exists(o.resume / "env.yaml")) {
    env_cfg = control::load_env_config(o.resume / "env.yaml");
  }
  if (o.steps) cfg.total_steps = *o.steps;
  if (o.envs) cfg.num_envs = *o.envs;
  if (o.seed) cfg.seed = *o.seed;
  cfg.validate();
  fileio::write_file_atomically(out / "ppo.yaml", ppo::ppo_config_yaml(cfg));
  fileio::write_file_atomically(out / "env.yaml", control::env_config_yaml(env_cfg));
}

}  // namespace

int train(const TrainOptions& o) {
  const bool resuming = !o.resume.empty();
  const fs::path out = o.out.empty() ? o.resume : o.out;
  if (out.empty()) throw std::runtime_error("train: give --out DIR (or --resume DIR to continue a run in place)");
  if (!resuming && o.scenarios.empty()) throw std::runtime_error("train: give --scenario (or --resume DIR)");
  if (resuming && !o.scenarios.empty()) {
    throw std::runtime_error("train: --resume trains on the run's own scenarios (" + (o.resume / "run.yaml").string() +
                             "); --scenario cannot be given with it");
  }
  if (!o.bc_teacher.empty() && !resuming && ppo::world_size() > 1) {
    throw std::runtime_error("train: behaviour cloning (--bc-teacher) runs in one process, not under mpirun: start "
                             "the run without mpirun, then continue it with mpirun ... nicagent train --resume DIR");
  }
  // Under mpirun only rank 0 touches the run folder: it checks, copies the scenarios and
  // writes run.yaml, ppo.yaml and env.yaml; the other ranks wait for it, then read the same
  // files (so every rank trains on the same scenarios and settings) or stop with its error.
  const int rank = ppo::world_rank();
  const bool in_place = resuming && fs::exists(out) && fs::equivalent(o.resume, out);
  RunInfo run;
  ppo::PpoConfig cfg;
  control::NicEnvConfig env_cfg;
  std::exception_ptr failure;
  std::string failure_text;
  if (rank == 0) {
    try {
      prepare_run_folder(o, out, in_place, run, cfg, env_cfg);
    } catch (const std::exception& e) {
      failure = std::current_exception();
      failure_text = e.what();
    }
  }
  failure_text = ppo::world_from_root(failure_text);
  if (failure) std::rethrow_exception(failure);
  if (!failure_text.empty()) throw std::runtime_error("train: rank 0 could not prepare the run folder: " + failure_text);
  if (rank != 0) {
    run = read_run(out);
    cfg = ppo::load_ppo_config(out / "ppo.yaml");
    env_cfg = control::load_env_config(out / "env.yaml");
  }

  std::optional<sim::NicBackend> backend;
  if (!run.backend.empty()) backend = sim::parse_backend(run.backend);
  auto scenarios = std::make_shared<std::vector<control::ScenarioEntry>>();
  for (const auto& rel : run.scenarios) {
    const fs::path s = out / rel;
    spdlog::info("scenario {}: loading and measuring solo baselines (cached)", s.string());
    scenarios->push_back(control::load_scenario_entry(s, run.cycles, backend));
  }
  std::vector<std::unique_ptr<control::Env>> envs;
  const bool cloning = !o.bc_teacher.empty() && !resuming;
  for (std::uint32_t k = 0; k < cfg.num_envs; ++k) {
    auto env = std::make_unique<control::NicEnv>(env_cfg, control::sim_target_factory(scenarios, k));
    if (cloning) env->set_teacher(control::make_baseline(o.bc_teacher));
    envs.push_back(std::move(env));
  }
  // Where each tenant sits in observations and actions (the set network, BC augmentation).
  ppo::TenantLayout layout;
  {
    const control::ActionCodec codec(env_cfg, host::Capabilities{});
    const auto tenants = static_cast<std::size_t>(envs.front()->action_space().heads() / codec.heads_per_tenant());
    layout.frames = env_cfg.history;
    layout.frame_size = tenants * control::ObservationEncoder::kTenantFeatures +
                        control::ObservationEncoder::kGlobalFeatures;
    layout.tenants = tenants;
    layout.tenant_features = control::ObservationEncoder::kTenantFeatures;
    layout.heads_per_tenant = codec.heads_per_tenant();
    layout.logits_per_tenant = codec.logits_per_tenant();
  }
  ppo::Trainer trainer(cfg, std::move(envs), layout);
  spdlog::info("{}", trainer.world_description());
  const auto checkpoint = out / "checkpoint.pt";
  const auto policy_dir = out / "policy";
  const std::string env_yaml = control::env_config_yaml(env_cfg);
  const auto csv_path = out / "train.csv";
  g_stop_signal.store(0);
  std::signal(SIGINT, on_train_signal);
  std::signal(SIGTERM, on_train_signal);
  if (resuming) {
    trainer.load_checkpoint(o.resume / "checkpoint.pt");
    spdlog::info("resumed from {} at update {} (step {})", (o.resume / "checkpoint.pt").string(),
                 trainer.updates_done(), trainer.global_step());
    if (rank == 0) {
      resume_csv(o.resume / "train.csv", csv_path, trainer.updates_done());
      if (!in_place) trainer.save_checkpoint(checkpoint);
    }
  } else if (rank == 0) {
    fileio::write_file_atomically(csv_path, std::string(kCsvHeader) + "\n");
  }
  if (cloning) {
    spdlog::info("behaviour cloning '{}': {} envs x {} steps, {} epochs", o.bc_teacher, cfg.num_envs, o.bc_steps,
                 o.bc_epochs);
    ppo::TenantLayout augment;
    if (o.bc_permutations > 0) {
      augment = layout;
      augment.copies = o.bc_permutations;
    }
    const auto bc = trainer.behaviour_clone(o.bc_steps, o.bc_epochs, o.bc_lr, augment);
    spdlog::info("behaviour cloning done: {} samples, teacher reward/step {:.4f}, cross-entropy {:.4f} -> {:.4f}, "
                 "value loss {:.4f}, greedy agreement {:.3f}; collect {:.0f} s, fit {:.0f} s",
                 bc.samples, bc.mean_step_reward, bc.first_loss, bc.final_loss, bc.final_value_loss, bc.accuracy,
                 bc.collect_seconds, bc.train_seconds);
    std::ostringstream bc_log;
    bc_log << "teacher: " << o.bc_teacher << "\npermuted_copies: " << o.bc_permutations << "\nsamples: " << bc.samples << "\nepochs: " << bc.epochs
           << "\nteacher_reward_per_step: " << bc.mean_step_reward << "\ncross_entropy_first: " << bc.first_loss
           << "\ncross_entropy_final: " << bc.final_loss << "\nvalue_loss_final: " << bc.final_value_loss
           << "\ngreedy_agreement: " << bc.accuracy << "\ncollect_seconds: " << bc.collect_seconds
           << "\nfit_seconds: " << bc.train_seconds << "\n";
    if (rank == 0) {
      fileio::write_file_atomically(out / "bc.yaml", bc_log.str());
      trainer.save_checkpoint(checkpoint);
      trainer.export_policy(out / "bc-policy", env_yaml);
    }
  }
  spdlog::info("training: {} envs x {} steps per update, {} updates, obs {}, {} action heads", cfg.num_envs,
               cfg.num_steps, cfg.num_updates, trainer.envs().observation_size(),
               trainer.envs().action_space().heads());
  double last_return = std::nan("");
  bool saved_at_stop = false;
  // A signal to any rank stops every rank after the same update: the ranks agree after
  // each update (a rank that was not signalled reports SIGTERM).
  int stop_signal = 0;
  const auto agree_stop = [&] {
    const int mine = g_stop_signal.load();
    if (stop_signal == 0 && ppo::world_any(mine != 0)) stop_signal = mine != 0 ? mine : SIGTERM;
    return stop_signal != 0;
  };
  // The checkpoint and the policy exported from it, written together (rank 0 only).
  const auto save = [&] {
    trainer.save_checkpoint(checkpoint);
    trainer.export_policy(policy_dir, env_yaml);
  };
  bool stopping = agree_stop();
  while (!trainer.finished() && !stopping) {
    const auto st = trainer.update();
    const double ret = mean_return(st);
    if (!std::isnan(ret)) last_return = ret;
    stopping = agree_stop();
    if (rank != 0) continue;  // rank 0 logs and saves; the parameters are identical on every rank
    std::ofstream csv(csv_path, std::ios::app);
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
    if ((cfg.checkpoint_every > 0 && st.update % cfg.checkpoint_every == 0) || trainer.finished() || stopping) {
      save();
      saved_at_stop = stopping;
    }
  }
  if (rank == 0 && !o.quiet) std::cerr << "\n";
  if (stop_signal != 0) {
    if (rank == 0 && !saved_at_stop) save();  // stopped before the first update of this session ended
    spdlog::warn("{}: stopped at update {} of {} (step {}); checkpoint {}, policy {}; continue with: nicagent train "
                 "--resume {}",
                 stop_signal == SIGTERM ? "SIGTERM" : "SIGINT", trainer.updates_done(), cfg.num_updates,
                 trainer.global_step(), checkpoint.string(), policy_dir.string(), out.string());
    return 128 + stop_signal;
  }
  spdlog::info("done: {} steps; checkpoint {}, policy {}", trainer.global_step(), checkpoint.string(),
               policy_dir.string());
  return 0;
}

}  // namespace nicsched::agent_cli
