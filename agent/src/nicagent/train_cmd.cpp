// nicagent train: PPO on NicEnv over simulated scenarios, with a progress bar, a CSV
// log, atomic checkpoints, resume, and TorchScript export.
//
// The run folder (--out) holds everything a resume needs (docs/agent.md, "Run folders"):
//   run.yaml              the run: its scenarios or family (copies, inside the folder),
//                         cycles, backend, model selection
//   scenarios/K/NAME.yaml copy of the K-th --scenario (and the pcap files it replays
//                         from its own folder, at the same relative paths)
//   family/NAME.yaml      copy of --family (a fresh draw every episode)
//   validation/NAME.yaml  copy of --validation-family
//   validation.csv        one row per validation; best/: the policy that scored best
//   ppo.yaml, env.yaml    the settings in force
//   checkpoint.pt         model, optimiser, counters, RNG (every checkpoint_every updates,
//                         at the end, and on SIGINT/SIGTERM)
//   train.csv             one row per update; on resume, rows after the checkpoint's update
//                         (written before a crash) are dropped, so no update appears twice
//   policy/               the exported policy of the last checkpoint
//   bc.yaml, bc-policy/   the behaviour-cloning warm start (--bc-teacher) and its clone;
//                         bc-teachers.csv: with best:..., each draw's scores and teacher
//   draws.csv             with draw_weights: trailing, per measurement and pool draw: the
//                         policy's score, the best baseline's, the gap and the weight
//   anchor/               with anchor_coef > 0: the frozen policy the anchor term keeps PPO
//                         near (the policy PPO started from; a resume keeps it)
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string_view>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "commands.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/draw_weights.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/control/thread_clock.hpp"
#include "nicsched/fileio/file.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/ppo_controller.hpp"
#include "nicsched/ppo/trainer.hpp"
#include "nicsched/ppo/world.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/pcap_io.hpp"

namespace nicsched::agent_cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCsvHeader =
    "update,global_step,learning_rate,mean_step_reward,episode_return_mean,episodes,policy_loss,value_loss,"
    "entropy,approx_kl,old_approx_kl,clip_fraction,explained_variance,epochs_run,steps_per_second,"
    "rollout_seconds,update_seconds,anchor_kl";
constexpr const char* kValidationHeader = "update,global_step,norm_iter_time,best_norm_iter_time,new_best,seconds";
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
    ::_exit(kStoppedBySignal + sig);
  }
  constexpr char msg[] =
      "\nnicagent: interrupted: finishing the current update, then writing a checkpoint (interrupt again to quit "
      "without it)\n";
  (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
}

// ---------------------------------------------------------------- the run folder

// Model selection (--validation-*).
struct Validation {
  fs::path family;  // relative to the run folder
  std::uint32_t count = 0;
  std::uint32_t every = 0;
  std::uint32_t seeds = 0;
};

struct RunInfo {
  std::vector<fs::path> scenarios;  // relative to the run folder; empty with a family
  fs::path family;                  // relative to the run folder; empty with scenarios
  std::optional<Validation> validation;
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
  if (r.family.empty()) {
    out << YAML::Key << "scenarios" << YAML::Value << YAML::BeginSeq;
    for (const auto& s : r.scenarios) out << s.generic_string();
    out << YAML::EndSeq;
  } else {
    out << YAML::Key << "family" << YAML::Value << r.family.generic_string();
  }
  if (r.validation) {
    out << YAML::Key << "validation" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "family" << YAML::Value << r.validation->family.generic_string();
    out << YAML::Key << "count" << YAML::Value << r.validation->count;
    out << YAML::Key << "every" << YAML::Value << r.validation->every;
    out << YAML::Key << "seeds" << YAML::Value << r.validation->seeds;
    out << YAML::EndMap;
  }
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
  const auto inside = [&](const YAML::Node& at, const std::string& key) {
    const fs::path p = doc.scalar(at, key);
    if (p.is_absolute() || p.lexically_normal().string().starts_with("..")) {
      doc.fail(at, key, "expected a path inside the run folder");
    }
    return p;
  };
  if (r.has("family") == r.has("scenarios")) r.fail_key("scenarios", "expected either scenarios or family");
  if (r.has("family")) {
    run.family = inside(r.node("family"), "family");
  } else {
    const YAML::Node list = r.node("scenarios");
    if (!list.IsSequence() || list.size() == 0) r.fail(list, "scenarios", "expected a non-empty list of paths");
    for (std::size_t i = 0; i < list.size(); ++i) {
      run.scenarios.push_back(inside(list[i], "scenarios[" + std::to_string(i) + "]"));
    }
  }
  if (r.has("validation")) {
    fileio::MapReader v(doc, r.node("validation"), "validation");
    Validation val;
    val.family = inside(v.node("family"), "validation.family");
    val.count = static_cast<std::uint32_t>(v.integer("count", std::nullopt, 1, 10000, "validation scenarios"));
    val.every = static_cast<std::uint32_t>(v.integer("every", std::nullopt, 1, 1000000, "updates between validations"));
    val.seeds = static_cast<std::uint32_t>(v.integer("seeds", std::nullopt, 1, 100, "runs per validation scenario"));
    v.finish("family, count, every, seeds");
    run.validation = val;
  }
  if (r.has("cycles")) run.cycles = r.integer("cycles", std::nullopt, 1, ~0ULL >> 1, "simulated cycles per run");
  run.backend = r.choice("backend", {"rtl", "model"}, std::string());
  r.finish("format, scenarios, family, validation, cycles, backend");
  return run;
}

// What the run simulates the NIC with, for the log.
std::string backend_description(const std::string& backend) {
  if (backend == "model") return "the C++ reference model (--backend model; --backend rtl simulates the Verilated RTL)";
  if (backend == "rtl") return "the Verilated RTL (--backend rtl; --backend model is tens of times faster)";
  return "each scenario's own backend (a run made before train chose the model by default)";
}

// Copies a family file into out/DIR/ (a family is one file); returns its path relative to out.
fs::path copy_family(const fs::path& file, const std::string& option, const std::string& dir, const fs::path& out) {
  (void)load_usable_family(file, option, "train");
  const fs::path rel = fs::path(dir) / file.filename();
  fs::create_directories(out / dir);
  fileio::write_file_atomically(out / rel, fileio::read_text_file(file, "the family file"));
  return rel;
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

// train.csv (validation.csv) of a resumed run: the rows of `from` up to the checkpoint's
// update, written to `to`. Rows after it were written before a crash; the updates they
// logged are run again.
void resume_csv(const fs::path& from, const fs::path& to, std::uint64_t checkpoint_update,
                const char* header = kCsvHeader) {
  std::string kept = std::string(header) + "\n";
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
    for (const char* f : {"checkpoint.pt", "train.csv", "run.yaml", "bc.yaml", "bc-teachers.csv", "scenarios",
                          "policy", "bc-policy", "family", "validation", "validation.csv", "best",
                          "validation-candidate", "anchor", "draws.csv", "draw-candidate"}) {
      fs::remove_all(out / f);
    }
  }
  fs::create_directories(out);

  // The run: its scenarios copied into the folder (a resume reads them from there).
  if (resuming) {
    run = read_run(o.resume);
    if (!in_place) {
      for (const char* d : {"scenarios", "family", "validation", "best"}) {
        fs::remove_all(out / d);
        if (fs::exists(o.resume / d)) fs::copy(o.resume / d, out / d, fs::copy_options::recursive);
      }
    }
  } else {
    for (const char* d : {"scenarios", "family", "validation"}) fs::remove_all(out / d);  // an attempt that never trained
    for (std::size_t k = 0; k < o.scenarios.size(); ++k) run.scenarios.push_back(copy_scenario(o.scenarios[k], k, out));
    if (!o.family.empty()) run.family = copy_family(o.family, "--family", "family", out);
    if (!o.validation_family.empty()) {
      run.validation = Validation{copy_family(o.validation_family, "--validation-family", "validation", out),
                                  o.validation_count, o.validation_every, o.validation_seeds};
    }
  }
  if (o.cycles) run.cycles = o.cycles;
  if (!o.backend.empty()) {
    run.backend = o.backend;
  } else if (!resuming) {
    run.backend = kDefaultBackend;
  }
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

// ---------------------------------------------------------------- the cloning teacher

// --bc-teacher: one baseline for every episode, or "best:a,b,..." (docs/agent.md,
// "Behaviour-cloning warm start"): on every family draw, the candidate that scores best on
// that draw (control::best_baseline, model selection's score).
constexpr std::string_view kBestOf = "best:";

struct TeacherSpec {
  std::vector<std::string> candidates;  // per_draw false: the one baseline
  bool per_draw = false;
};

TeacherSpec parse_teacher(const std::string& text) {
  const auto fail = [&](const std::string& why) {
    throw std::runtime_error("train: --bc-teacher " + text + ": " + why);
  };
  const auto check_name = [&](const std::string& name) {
    try {
      (void)control::make_baseline(name);
    } catch (const control::EnvError& e) {
      fail(e.what());
    }
  };
  TeacherSpec t;
  if (!text.starts_with(kBestOf)) {
    check_name(text);
    t.candidates.push_back(text);
    return t;
  }
  t.per_draw = true;
  const std::string list = text.substr(kBestOf.size());
  if (list.empty()) fail("no baselines after 'best:' (e.g. best:fifo,fair,las,progress)");
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t comma = std::min(list.find(',', from), list.size());
    const std::string name = list.substr(from, comma - from);
    if (name.empty()) fail("an empty name in the list after 'best:' (e.g. best:fifo,fair,las,progress)");
    check_name(name);
    if (std::find(t.candidates.begin(), t.candidates.end(), name) != t.candidates.end()) {
      fail("'" + name + "' is named twice");
    }
    t.candidates.push_back(name);
    from = comma + 1;
  }
  if (t.candidates.size() < 2) {
    fail("name at least two baselines after 'best:' (one teacher: --bc-teacher " + list + ")");
  }
  return t;
}

// Under --bc-teacher best:..., one env's teacher: the draw callback of its family factory
// puts the candidate that scored best on the new draw into the slot, before NicEnv::reset
// resets the teacher, so every cloned episode is taught by its own draw's best.
struct DrawTeacherSlot {
  std::unique_ptr<control::Controller> current;
};

class DrawTeacher final : public control::Controller {
 public:
  explicit DrawTeacher(std::shared_ptr<DrawTeacherSlot> slot) : slot_(std::move(slot)) {}
  // A copy with a slot of its own holding a copy of the current teacher: the draw callback
  // feeds the original only.
  [[nodiscard]] std::unique_ptr<control::Controller> clone() const override {
    auto slot = std::make_shared<DrawTeacherSlot>();
    if (slot_->current) slot->current = slot_->current->clone();
    return std::make_unique<DrawTeacher>(std::move(slot));
  }
  [[nodiscard]] std::string name() const override {
    return slot_->current ? slot_->current->name() : std::string("best-of (no draw yet)");
  }
  void reset() override {
    if (slot_->current) slot_->current->reset();
  }
  [[nodiscard]] host::Policy decide(const control::TelemetryTracker& tracker, const host::Policy& base) override {
    if (!slot_->current) throw std::logic_error("train: the per-draw teacher was asked for a decision before a draw");
    return slot_->current->decide(tracker, base);
  }

 private:
  std::shared_ptr<DrawTeacherSlot> slot_;
};

// The per-draw choices of all envs (bc.yaml, bc-teachers.csv); the envs' callbacks run on
// the env threads.
struct TeacherChoices {
  std::atomic<bool> choosing{true};  // off once cloning is done: PPO's draws need no teacher
  std::mutex mutex;
  std::vector<std::string> rows;     // bc-teachers.csv
  std::map<std::string, std::uint32_t> counts;
  double cpu_seconds = 0;
};

// ---------------------------------------------------------------- the steps of train()

// What the command line asks for, checked before anything is touched. (--resume with
// --scenario, --family, --validation-family or --bc-teacher never gets here: CLI11 refuses
// those, main.cpp.)
struct TrainRequest {
  fs::path out;           // the run folder
  bool resuming = false;  // --resume
  bool in_place = false;  // resuming into the run's own folder
  bool cloning = false;   // --bc-teacher: a behaviour-cloning warm start
  TeacherSpec teacher;
};

TrainRequest check_request(const TrainOptions& o) {
  TrainRequest req;
  req.resuming = !o.resume.empty();
  req.out = o.out.empty() ? o.resume : o.out;
  if (req.out.empty()) throw std::runtime_error("train: give --out DIR (or --resume DIR to continue a run in place)");
  if (!req.resuming && o.scenarios.empty() && o.family.empty()) {
    throw std::runtime_error("train: give --scenario or --family (or --resume DIR)");
  }
  req.cloning = !o.bc_teacher.empty();
  if (req.cloning) {
    req.teacher = parse_teacher(o.bc_teacher);
    if (req.teacher.per_draw && o.family.empty()) {
      throw std::runtime_error("train: --bc-teacher " + o.bc_teacher + " chooses a teacher per family draw: give " +
                               "--family (with --scenario, name one baseline)");
    }
    if (ppo::world_size() > 1) {
      throw std::runtime_error("train: behaviour cloning (--bc-teacher) runs in one process, not under mpirun: start "
                               "the run without mpirun, then continue it with mpirun ... nicagent train --resume DIR");
    }
  }
  req.in_place = req.resuming && fs::exists(req.out) && fs::equivalent(o.resume, req.out);
  return req;
}

// The run and its settings, the same on every rank.
struct RunSettings {
  RunInfo run;
  ppo::PpoConfig cfg;
  control::NicEnvConfig env_cfg;
  std::optional<sim::NicBackend> backend;  // empty: each scenario's own
  // Simulated cycles per scenario run: --cycles, else a family's draws run as long as an
  // episode (its first observation's interval and episode_steps steps): the episode is
  // truncated there anyway, and each draw's solo baselines are measured over no more than
  // that. Empty: each scenario's duration.
  std::optional<std::uint64_t> cycles;
};

// Under mpirun only rank 0 touches the run folder: it checks, copies the scenarios and
// writes run.yaml, ppo.yaml and env.yaml; the other ranks wait for it, then read the same
// files (so every rank trains on the same scenarios and settings) or stop with its error.
RunSettings settle_run(const TrainOptions& o, const TrainRequest& req, int rank) {
  RunSettings s;
  std::exception_ptr failure;
  std::string failure_text;
  if (rank == 0) {
    try {
      prepare_run_folder(o, req.out, req.in_place, s.run, s.cfg, s.env_cfg);
    } catch (const std::exception& e) {
      failure = std::current_exception();
      failure_text = e.what();
    }
  }
  failure_text = ppo::world_from_root(failure_text);
  if (failure) std::rethrow_exception(failure);
  if (!failure_text.empty()) {
    throw std::runtime_error("train: rank 0 could not prepare the run folder: " + failure_text);
  }
  if (rank != 0) {
    s.run = read_run(req.out);
    s.cfg = ppo::load_ppo_config(req.out / "ppo.yaml");
    s.env_cfg = control::load_env_config(req.out / "env.yaml");
  }
  if (!s.run.backend.empty()) s.backend = sim::parse_backend(s.run.backend);
  if (rank == 0) spdlog::info("NIC simulator: {}", backend_description(s.run.backend));
  s.cycles = s.run.cycles;
  if (!s.cycles && !s.run.family.empty()) {
    s.cycles = (std::uint64_t{s.env_cfg.episode_steps} + 1) * s.env_cfg.interval_cycles;
  }
  return s;
}

// The training envs (one per cfg.num_envs) and, under --bc-teacher best:..., the record of
// each draw's teacher.
struct TrainingEnvs {
  std::vector<std::unique_ptr<control::Env>> envs;
  std::shared_ptr<TeacherChoices> choices;
  std::shared_ptr<control::WeightedDraws> draws;  // draw_weights: trailing: the pool the envs draw from
};

// Env k's draw callback under --bc-teacher best:...: scores the candidates on the new draw
// and puts the best into the env's teacher slot (bc-teachers.csv gets a row).
control::DrawCallback choose_draw_teacher(std::uint32_t k, std::shared_ptr<const sim::Family> family,
                                          std::shared_ptr<DrawTeacherSlot> slot,
                                          std::shared_ptr<TeacherChoices> choices,
                                          std::vector<std::string> candidates, std::uint32_t seeds,
                                          std::uint64_t interval) {
  return [k, family = std::move(family), slot = std::move(slot), choices = std::move(choices),
          candidates = std::move(candidates), seeds, interval,
          pool = std::make_shared<control::ParallelFor>(1)](std::uint64_t seed, const control::ScenarioEntry& draw) {
    if (!choices->choosing) return;
    const double c0 = control::thread_cpu_us();
    const auto pick = control::best_baseline(draw, candidates, seeds, interval, EvalOptions{}.min_iterations, *pool);
    slot->current = control::make_scenario_baseline(candidates[pick.best], draw.scenario);
    const double cpu = (control::thread_cpu_us() - c0) / 1e6;
    std::string row = fmt::format("{},{},{},{}", k, seed, family->scenario_name(seed), candidates[pick.best]);
    std::string text;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      row += fmt::format(",{:.6f}", pick.scores[c]);
      text += fmt::format("{}{} {:.4f}", c == 0 ? "" : ", ", candidates[c], pick.scores[c]);
    }
    row += fmt::format(",{:.3f}", cpu);
    spdlog::info("env {}: {}: teacher {} ({}; {:.1f} s CPU)", k, family->scenario_name(seed), candidates[pick.best],
                 text, cpu);
    const std::lock_guard lock(choices->mutex);
    choices->rows.push_back(std::move(row));
    ++choices->counts[candidates[pick.best]];
    choices->cpu_seconds += cpu;
  };
}

// --family: a fresh draw of the family per episode, from its training seeds. Fills the
// teachers' slots and choices under --bc-teacher best:....
std::vector<control::TargetFactory> family_factories(const TrainOptions& o, const TrainRequest& req,
                                                     const RunSettings& s,
                                                     std::vector<std::shared_ptr<DrawTeacherSlot>>& teacher_slots,
                                                     std::shared_ptr<TeacherChoices>& choices,
                                                     std::shared_ptr<control::WeightedDraws>& draws) {
  const auto family = std::make_shared<const sim::Family>(load_usable_family(req.out / s.run.family, "--family", "train"));
  const std::uint32_t nic_lo = sim::nic_tenants_for(static_cast<std::uint32_t>(family->tenants.min()));
  const std::uint32_t nic_hi = sim::nic_tenants_for(static_cast<std::uint32_t>(family->tenants.max()));
  if (nic_lo != nic_hi) {
    throw std::runtime_error(fmt::format(
        "train: family {} draws {}..{} tenants, on NICs of {} and {} tenant slots: a run trains on one NIC size "
        "(the observation's size); split the family by tenant count",
        family->file.string(), family->tenants.min(), family->tenants.max(), nic_lo, nic_hi));
  }
  const auto seeds = control::training_seeds(*family);
  spdlog::info("family {}: a fresh draw per episode from seeds {}..{} ({} cycles each); seeds {}..{} are held out "
               "for validation", family->name, seeds.first, seeds.last, *s.cycles, seeds.last + 1, family->seed_last);
  if (req.teacher.per_draw) {
    choices = std::make_shared<TeacherChoices>();
    std::string header = "env,family_seed,scenario,teacher";
    for (const auto& c : req.teacher.candidates) header += ",score_" + c;
    choices->rows.push_back(header + ",cpu_seconds");
  }
  if (s.cfg.draw_weights == "trailing") {
    const std::uint64_t pool = std::min<std::uint64_t>(s.cfg.draw_pool, seeds.last - seeds.first + 1);
    spdlog::info("draw_weights: trailing: episodes draw from the {} draws of seeds {}..{}; measuring their solo "
                 "baselines (cached)", pool, seeds.first, seeds.first + pool - 1);
    std::vector<std::uint64_t> family_seeds;
    for (std::uint64_t i = 0; i < pool; ++i) family_seeds.push_back(seeds.first + i);
    draws = std::make_shared<control::WeightedDraws>(
        control::family_entries(*family, seeds.first, static_cast<std::uint32_t>(pool), s.cycles, s.backend),
        std::move(family_seeds));
  }
  std::vector<control::TargetFactory> factories;
  for (std::uint32_t k = 0; k < s.cfg.num_envs; ++k) {
    control::DrawCallback on_draw = [k, family](std::uint64_t seed, const control::ScenarioEntry&) {
      spdlog::debug("env {}: episode on {}", k, family->scenario_name(seed));
    };
    if (choices) {
      teacher_slots.push_back(std::make_shared<DrawTeacherSlot>());
      on_draw = choose_draw_teacher(k, family, teacher_slots.back(), choices, req.teacher.candidates,
                                    o.validation_seeds, s.env_cfg.interval_cycles);
    }
    factories.push_back(draws ? control::weighted_target_factory(draws, std::move(on_draw))
                              : control::family_target_factory(family, s.cycles, s.backend, std::move(on_draw)));
  }
  return factories;
}

// --scenario: env k trains on scenario k mod n (the run folder's copies).
std::vector<control::TargetFactory> scenario_factories(const TrainRequest& req, const RunSettings& s) {
  auto scenarios = std::make_shared<std::vector<control::ScenarioEntry>>();
  for (const auto& rel : s.run.scenarios) {
    const fs::path file = req.out / rel;
    spdlog::info("scenario {}: loading and measuring solo baselines (cached)", file.string());
    scenarios->push_back(control::load_scenario_entry(file, s.cycles, s.backend));
  }
  std::vector<control::TargetFactory> factories;
  for (std::uint32_t k = 0; k < s.cfg.num_envs; ++k) factories.push_back(control::sim_target_factory(scenarios, k));
  return factories;
}

// One NicEnv per factory, each with its teacher when cloning.
TrainingEnvs make_training_envs(const TrainOptions& o, const TrainRequest& req, const RunSettings& s) {
  if (s.cfg.draw_weights == "trailing" && (s.run.family.empty() || ppo::world_size() > 1)) {
    throw std::runtime_error("train: the PPO config's draw_weights: trailing weights the draws of a family, in one "
                             "process: give --family, and start it without mpirun");
  }
  TrainingEnvs out;
  std::vector<std::shared_ptr<DrawTeacherSlot>> teacher_slots;  // one per env under best:...
  auto factories =
      s.run.family.empty() ? scenario_factories(req, s) : family_factories(o, req, s, teacher_slots, out.choices, out.draws);
  for (std::size_t k = 0; k < factories.size(); ++k) {
    auto env = std::make_unique<control::NicEnv>(s.env_cfg, std::move(factories[k]));
    if (req.cloning) {
      env->set_teacher(req.teacher.per_draw ? std::make_unique<DrawTeacher>(teacher_slots[k])
                                            : control::make_baseline(req.teacher.candidates.front()));
    }
    out.envs.push_back(std::move(env));
  }
  return out;
}

// Where each tenant sits in observations and actions (the set network, BC augmentation).
ppo::TenantLayout tenant_layout(const control::NicEnvConfig& env_cfg, const control::Env& env) {
  const control::ActionCodec codec(env_cfg, host::Capabilities{});
  ppo::TenantLayout layout;
  layout.frames = env_cfg.history;
  layout.tenant_features = control::ObservationEncoder::tenant_features(env_cfg);
  layout.frame_size = env.observation_size() / env_cfg.history;
  layout.tenants = (layout.frame_size - control::ObservationEncoder::kGlobalFeatures) / layout.tenant_features;
  if (codec.strategy_action()) return layout;  // one head for the whole NIC: no tenant's heads
  layout.heads_per_tenant = codec.heads_per_tenant();
  layout.logits_per_tenant = codec.logits_per_tenant();
  return layout;
}

// Model selection's draws, fixed for the run: every rank checks the family, so that a
// refusal stops them all; rank 0 alone validates, so only it draws them.
std::vector<control::ScenarioEntry> validation_draws(const RunSettings& s, const fs::path& out,
                                                     const ppo::TenantLayout& layout, int rank) {
  if (!s.run.validation) return {};
  const auto vf = load_usable_family(out / s.run.validation->family, "--validation-family", "train");
  const std::uint32_t nic_hi = sim::nic_tenants_for(static_cast<std::uint32_t>(vf.tenants.max()));
  if (s.cfg.network != "set" && (sim::nic_tenants_for(static_cast<std::uint32_t>(vf.tenants.min())) != layout.tenants ||
                                 nic_hi != layout.tenants)) {
    throw std::runtime_error(fmt::format(
        "train: validation family {} draws NICs of up to {} tenant slots, the {} policy has {} fixed slots: "
        "validate on a family of this NIC size, or train the set network (network: set), which runs on any",
        vf.file.string(), nic_hi, s.cfg.network, layout.tenants));
  }
  if (rank != 0) return {};
  const auto seeds = control::validation_seeds(vf);
  const std::uint32_t count =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(s.run.validation->count, seeds.last - seeds.first + 1));
  spdlog::info("validation: {} draws of {} (seeds {}..{}), {} runs each, every {} updates; measuring their solo "
               "baselines (cached)", count, vf.name, seeds.first, seeds.first + count - 1, s.run.validation->seeds,
               s.run.validation->every);
  return control::family_entries(vf, seeds.first, count, s.cycles, s.backend);
}

// What train writes in the run folder (the header comment of this file).
struct RunFiles {
  explicit RunFiles(const fs::path& out)
      : checkpoint(out / "checkpoint.pt"), policy(out / "policy"), train_csv(out / "train.csv"),
        validation_csv(out / "validation.csv"), best(out / "best"), candidate(out / "validation-candidate"),
        bc_yaml(out / "bc.yaml"), bc_teachers_csv(out / "bc-teachers.csv"), bc_policy(out / "bc-policy"),
        anchor(out / "anchor"), draws_csv(out / "draws.csv"), draw_candidate(out / "draw-candidate") {}
  fs::path checkpoint, policy, train_csv, validation_csv, best, candidate, bc_yaml, bc_teachers_csv, bc_policy,
      anchor, draws_csv, draw_candidate;
};

// Model selection (rank 0 only): the current policy on the validation draws, scored as
// eval scores it; the best so far is kept in best/ (with selection.yaml saying when).
class ModelSelection {
 public:
  ModelSelection(const std::optional<Validation>& settings, std::vector<control::ScenarioEntry> draws,
                 const RunFiles& files, std::string env_yaml, std::uint64_t interval_cycles)
      : draws_(std::move(draws)), files_(files), env_yaml_(std::move(env_yaml)), interval_cycles_(interval_cycles) {
    if (draws_.empty()) return;
    every_ = settings->every;
    seeds_ = settings->seeds;
    pool_.emplace(std::min<std::size_t>(seeds_, std::max(1U, std::thread::hardware_concurrency())));
  }

  // On resume: the score best/ was selected with, so that only a better policy replaces it.
  void resume_best(const fs::path& resumed_from) {
    const fs::path file = resumed_from / "best" / "selection.yaml";
    if (draws_.empty() || !fs::exists(file)) return;
    const auto doc = fileio::YamlDoc::load(file, "the model selection record");
    fileio::MapReader r(doc, doc.root(), "");
    best_score_ = r.num("norm_iter_time", std::nullopt, 0, 1e12, "validation score");
  }

  // Every `every` updates and after the last.
  [[nodiscard]] bool due(const ppo::UpdateStats& st, bool finished) const {
    return !draws_.empty() && (st.update % every_ == 0 || finished);
  }

  void validate(const ppo::Trainer& trainer, const ppo::UpdateStats& st) {
    const auto t0 = std::chrono::steady_clock::now();
    fs::remove_all(files_.candidate);
    trainer.export_policy(files_.candidate, env_yaml_);
    const auto policy = std::make_shared<const ppo::TrainedPolicy>(files_.candidate);
    const double score = control::validation_score(
        draws_, seeds_, [&] { return std::make_unique<ppo::PpoController>(policy); }, interval_cycles_,
        EvalOptions{}.min_iterations, *pool_);
    const bool better = score < best_score_;
    if (better) {
      best_score_ = score;
      std::ostringstream sel;
      sel << "# the policy of update " << st.update << ", best on the validation draws (validation.csv)\nupdate: "
          << st.update << "\nglobal_step: " << st.global_step << "\nnorm_iter_time: " << std::setprecision(17)
          << score << "\n";
      fileio::write_file_atomically(files_.candidate / "selection.yaml", sel.str());
      fs::remove_all(files_.best);
      fs::rename(files_.candidate, files_.best);
    } else {
      fs::remove_all(files_.candidate);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ofstream(files_.validation_csv, std::ios::app) << st.update << ',' << st.global_step << ',' << score << ','
                                                        << best_score_ << ',' << (better ? 1 : 0) << ',' << seconds
                                                        << '\n';
    spdlog::info("validation at update {}: normalised iteration time {:.4f}{} ({:.0f} s)", st.update, score,
                 better ? ", the best so far: exported to " + files_.best.string()
                        : fmt::format(" (best {:.4f})", best_score_),
                 seconds);
  }

 private:
  std::vector<control::ScenarioEntry> draws_;  // empty: no model selection (or not rank 0)
  const RunFiles& files_;
  std::string env_yaml_;
  std::uint64_t interval_cycles_;
  std::uint32_t every_ = 0, seeds_ = 0;
  std::optional<control::ParallelFor> pool_;
  double best_score_ = std::numeric_limits<double>::infinity();  // the one best/ was selected with
};

// draw_weights: trailing (docs/agent.md, "Draw weighting"): the best of the baselines on
// every pool draw, measured once; the policy's score on each, measured before the first
// update and every draw_every updates, then the weights the envs draw by. draws.csv gets a
// row per draw and measurement.
class DrawWeighting {
 public:
  DrawWeighting(std::shared_ptr<control::WeightedDraws> draws, const RunSettings& s, const RunFiles& files)
      : draws_(std::move(draws)), cfg_(s.cfg), env_yaml_(control::env_config_yaml(s.env_cfg)),
        interval_cycles_(s.env_cfg.interval_cycles), files_(files),
        pool_(std::max(1U, std::thread::hardware_concurrency())) {
    baselines_ = cfg_.draw_baselines;
    if (baselines_.empty()) {
      if (s.env_cfg.action != control::ActionKind::kStrategy) {
        throw std::runtime_error("train: the PPO config's draw_baselines is empty and the env's action is not "
                                 "`strategy` (whose strategies it would take): name the baselines");
      }
      baselines_ = s.env_cfg.strategies;
    }
    for (const auto& name : baselines_) {
      try {
        (void)control::make_baseline(name);
      } catch (const control::EnvError& e) {
        throw std::runtime_error(std::string("train: the PPO config's draw_baselines: ") + e.what());
      }
    }
    const auto& entries = draws_->entries();
    best_.assign(entries.size(), NAN);
    best_name_.assign(entries.size(), "");
    const auto t0 = std::chrono::steady_clock::now();
    pool_.run(entries.size(), [&](std::size_t i) {
      control::ParallelFor serial(1);
      const auto pick = control::best_baseline(entries[i], baselines_, cfg_.draw_seeds, interval_cycles_,
                                               EvalOptions{}.min_iterations, serial);
      best_[i] = pick.scores[pick.best];
      best_name_[i] = baselines_[pick.best];
    });
    fileio::write_file_atomically(files_.draws_csv, "update,family_seed,policy_score,best_score,best_baseline,gap,weight\n");
    spdlog::info("draw weighting: the best of {} on {} draws measured ({:.0f} s)", fmt::join(baselines_, ", "),
                 entries.size(), seconds_since(t0));
  }

  [[nodiscard]] bool due(const ppo::UpdateStats& st) const { return st.update % cfg_.draw_every == 0; }

  // The policy on every draw, then the weights.
  void measure(const ppo::Trainer& trainer) {
    const auto t0 = std::chrono::steady_clock::now();
    fs::remove_all(files_.draw_candidate);
    trainer.export_policy(files_.draw_candidate, env_yaml_);
    const auto policy = std::make_shared<const ppo::TrainedPolicy>(files_.draw_candidate);
    const auto& entries = draws_->entries();
    std::vector<double> score(entries.size(), NAN);
    pool_.run(entries.size(), [&](std::size_t i) {
      control::ParallelFor serial(1);
      const auto runs = control::run_seeds(
          entries[i], cfg_.draw_seeds, [&] { return std::make_unique<ppo::PpoController>(policy); },
          interval_cycles_, EvalOptions{}.min_iterations, serial);
      score[i] = control::mean_norm_time(runs, entries[i].scenario);
    });
    fs::remove_all(files_.draw_candidate);
    const auto weights = control::trailing_draw_weights(score, best_, cfg_.draw_mix);
    draws_->set_weights(weights);
    std::ofstream csv(files_.draws_csv, std::ios::app);
    std::size_t trailing = 0;
    double gap_sum = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const double gap = control::trailing_gap(score[i], best_[i]);
      trailing += gap > 0 ? 1 : 0;
      gap_sum += gap;
      csv << fmt::format("{},{},{:.6f},{:.6f},{},{:.6f},{:.6f}\n", trainer.updates_done(),
                         draws_->family_seeds()[i], score[i], best_[i], best_name_[i], gap, weights[i]);
    }
    spdlog::info("draw weighting at update {}: the policy trails the best baseline on {} of {} draws (mean gap "
                 "{:.2f} %); {:.0f} s",
                 trainer.updates_done(), trailing, entries.size(), 100.0 * gap_sum / static_cast<double>(entries.size()),
                 seconds_since(t0));
  }

 private:
  std::shared_ptr<control::WeightedDraws> draws_;
  const ppo::PpoConfig& cfg_;
  std::string env_yaml_;  // the policy's env (PpoController rebuilds its encoder and codec from it)
  std::uint64_t interval_cycles_;
  const RunFiles& files_;
  control::ParallelFor pool_;
  std::vector<std::string> baselines_;
  std::vector<double> best_;
  std::vector<std::string> best_name_;

  static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

// SIGINT / SIGTERM from here on ask the update loop to stop (on_train_signal).
void install_stop_signals() {
  g_stop_signal.store(0);
  std::signal(SIGINT, on_train_signal);
  std::signal(SIGTERM, on_train_signal);
}

// A new run starts its logs; a resumed one loads the checkpoint and keeps the logs' rows up
// to its update (and, continued in another folder, writes the checkpoint there).
void start_or_resume(ppo::Trainer& trainer, const TrainOptions& o, const TrainRequest& req, const RunSettings& s,
                     const RunFiles& files, int rank) {
  if (req.resuming) {
    trainer.load_checkpoint(o.resume / "checkpoint.pt");
    spdlog::info("resumed from {} at update {} (step {})", (o.resume / "checkpoint.pt").string(),
                 trainer.updates_done(), trainer.global_step());
    if (rank == 0) {
      resume_csv(o.resume / "train.csv", files.train_csv, trainer.updates_done());
      if (s.run.validation) {
        resume_csv(o.resume / "validation.csv", files.validation_csv, trainer.updates_done(), kValidationHeader);
      }
      if (!req.in_place) trainer.save_checkpoint(files.checkpoint);
    }
    return;
  }
  if (rank == 0) {
    fileio::write_file_atomically(files.train_csv, std::string(kCsvHeader) + "\n");
    if (s.run.validation) fileio::write_file_atomically(files.validation_csv, std::string(kValidationHeader) + "\n");
  }
  if (!o.init_policy.empty()) {
    trainer.start_from_policy(o.init_policy);
    spdlog::info("starting from the policy in {} (--init-policy)", o.init_policy.string());
    if (rank == 0) trainer.save_checkpoint(files.checkpoint);  // a resume before the first checkpoint starts here
  }
}

// With anchor_coef > 0, the anchor term's policy: the one PPO starts from (--init-policy's,
// the clone of --bc-teacher, or on a resume the resumed run's anchor/, else its checkpoint's
// policy), kept in OUT/anchor/ by rank 0 and read back by every rank.
void set_up_anchor(ppo::Trainer& trainer, const TrainOptions& o, const TrainRequest& req, const RunFiles& files,
                   const std::string& env_yaml, int rank) {
  if (trainer.config().anchor_coef <= 0.0) return;
  std::string failure;
  if (rank == 0) {
    try {
      const fs::path resumed_anchor = o.resume / "anchor";
      if (req.resuming && fs::exists(resumed_anchor)) {
        if (!req.in_place) {
          fs::remove_all(files.anchor);
          fs::copy(resumed_anchor, files.anchor, fs::copy_options::recursive);
        }
      } else if (!o.init_policy.empty()) {
        fs::remove_all(files.anchor);
        fs::create_directories(files.anchor);
        for (const char* f : {"policy.pt", "policy.yaml"}) fs::copy_file(o.init_policy / f, files.anchor / f);
      } else if (req.resuming || req.cloning) {
        trainer.export_policy(files.anchor, env_yaml);
      } else {
        throw std::runtime_error("train: the PPO config's anchor_coef is " +
                                 fmt::format("{}", trainer.config().anchor_coef) +
                                 ": the anchor term keeps PPO near the policy it starts from; give one: --init-policy "
                                 "DIR, --bc-teacher NAME or --resume DIR (or anchor_coef: 0)");
      }
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  failure = ppo::world_from_root(failure);
  if (!failure.empty()) throw std::runtime_error(failure);
  trainer.set_anchor(std::make_shared<const ppo::TrainedPolicy>(files.anchor));
  spdlog::info("anchor term: {} x KL(anchor || policy), the anchor in {}", trainer.config().anchor_coef,
               files.anchor.string());
}

// --bc-teacher: the warm start. The actor and critic cloned from the teacher's decisions,
// bc.yaml (and bc-teachers.csv under best:...) saying how; the clone checkpointed and
// exported to bc-policy/.
void warm_start_by_cloning(ppo::Trainer& trainer, const TrainOptions& o, const ppo::TenantLayout& layout,
                           TeacherChoices* choices, const RunFiles& files, const std::string& env_yaml, int rank) {
  spdlog::info("behaviour cloning '{}': {} envs x {} steps, {} epochs", o.bc_teacher, trainer.config().num_envs,
               o.bc_steps, o.bc_epochs);
  ppo::TenantLayout augment;
  if (o.bc_permutations > 0) {
    augment = layout;
    augment.copies = o.bc_permutations;
  }
  const auto bc = trainer.behaviour_clone(o.bc_steps, o.bc_epochs, o.bc_lr, augment);
  if (choices) choices->choosing = false;
  spdlog::info("behaviour cloning done: {} samples, teacher reward/step {:.4f}, cross-entropy {:.4f} -> {:.4f}, "
               "value loss {:.4f}, greedy agreement {:.3f}; collect {:.0f} s, fit {:.0f} s",
               bc.samples, bc.mean_step_reward, bc.first_loss, bc.final_loss, bc.final_value_loss, bc.accuracy,
               bc.collect_seconds, bc.train_seconds);
  std::ostringstream bc_log;
  bc_log << "teacher: " << o.bc_teacher << "\npermuted_copies: " << o.bc_permutations << "\nsamples: " << bc.samples
         << "\nepochs: " << bc.epochs << "\nteacher_reward_per_step: " << bc.mean_step_reward
         << "\ncross_entropy_first: " << bc.first_loss << "\ncross_entropy_final: " << bc.final_loss
         << "\nvalue_loss_final: " << bc.final_value_loss << "\ngreedy_agreement: " << bc.accuracy
         << "\ncollect_seconds: " << bc.collect_seconds << "\nfit_seconds: " << bc.train_seconds << "\n";
  if (choices) {
    // Every draw an env made while cloning, the one its last step reset to included (PPO's
    // first episode: chosen, not cloned); the CPU is included in collect_seconds.
    const std::lock_guard lock(choices->mutex);
    bc_log << "teacher_draws: " << choices->rows.size() - 1 << "\nteacher_choices:\n";
    for (const auto& [name, n] : choices->counts) bc_log << "  " << name << ": " << n << "\n";
    bc_log << "teacher_choice_cpu_seconds: " << choices->cpu_seconds << "\n";
    std::string csv;
    for (const auto& row : choices->rows) csv += row + "\n";
    fileio::write_file_atomically(files.bc_teachers_csv, csv);
    spdlog::info("per-draw teachers: {} draws, {:.0f} s CPU choosing; bc-teachers.csv", choices->rows.size() - 1,
                 choices->cpu_seconds);
  }
  if (rank == 0) {
    fileio::write_file_atomically(files.bc_yaml, bc_log.str());
    trainer.save_checkpoint(files.checkpoint);
    trainer.export_policy(files.bc_policy, env_yaml);
  }
}

// train.csv's row of an update (kCsvHeader's columns).
void append_update_row(const fs::path& csv_path, const ppo::UpdateStats& st, double episode_return) {
  std::ofstream csv(csv_path, std::ios::app);
  csv << st.update << ',' << st.global_step << ',' << st.learning_rate << ',' << st.mean_step_reward << ','
      << episode_return << ',' << st.episodes.size() << ',' << st.policy_loss << ',' << st.value_loss << ','
      << st.entropy << ',' << st.approx_kl << ',' << st.old_approx_kl << ',' << st.clip_fraction << ','
      << st.explained_variance << ',' << st.epochs_run << ',' << st.steps_per_second << ',' << st.rollout_seconds
      << ',' << st.update_seconds << ',' << st.anchor_kl << '\n';
}

// The progress bar on stderr, redrawn after each update.
void print_progress(const ppo::UpdateStats& st, double last_return) {
  const double frac = static_cast<double>(st.update) / static_cast<double>(st.num_updates);
  const int filled = static_cast<int>(frac * 30);
  std::cerr << '\r' << '[' << std::string(static_cast<std::size_t>(filled), '#')
            << std::string(static_cast<std::size_t>(30 - filled), '.') << "] " << st.update << '/' << st.num_updates
            << std::fixed << std::setprecision(3) << " r/step " << st.mean_step_reward << " ep "
            << std::setprecision(1) << last_return << std::setprecision(3) << " pg " << st.policy_loss << " v "
            << st.value_loss << " H " << st.entropy << " kl " << st.approx_kl << " clip " << st.clip_fraction
            << " ev " << st.explained_variance << std::setprecision(0) << ' ' << st.steps_per_second << " sps   "
            << std::flush;
}

// A signal to any rank stops every rank after the same update: the ranks agree after each
// update (a rank that was not signalled reports SIGTERM).
class StopAgreement {
 public:
  bool agree() {
    const int mine = g_stop_signal.load();
    if (signal_ == 0 && ppo::world_any(mine != 0)) signal_ = mine != 0 ? mine : SIGTERM;
    return signal_ != 0;
  }
  [[nodiscard]] int signal() const { return signal_; }

 private:
  int signal_ = 0;
};

// PPO updates until the run is done or a signal stops it: each logged to train.csv (rank 0;
// the parameters are identical on every rank), validated when due, checkpointed with its
// exported policy every checkpoint_every updates, at the end and at a stop. Returns the
// exit code.
int run_updates(ppo::Trainer& trainer, const TrainOptions& o, const fs::path& out, const RunFiles& files,
                ModelSelection& selection, DrawWeighting* weighting, const std::string& env_yaml, int rank) {
  const ppo::PpoConfig& cfg = trainer.config();
  spdlog::info("training: {} envs x {} steps per update, {} updates, obs {}, {} action heads", cfg.num_envs,
               cfg.num_steps, cfg.num_updates, trainer.envs().observation_size(),
               trainer.envs().action_space().heads());
  const auto save = [&] {
    trainer.save_checkpoint(files.checkpoint);
    trainer.export_policy(files.policy, env_yaml);
  };
  double last_return = std::nan("");
  bool saved_at_stop = false;
  StopAgreement stop;
  bool stopping = stop.agree();
  if (weighting && !trainer.finished()) weighting->measure(trainer);
  while (!trainer.finished() && !stopping) {
    const auto st = trainer.update();
    const double ret = mean_return(st);
    if (!std::isnan(ret)) last_return = ret;
    stopping = stop.agree();
    if (rank != 0) continue;
    append_update_row(files.train_csv, st, ret);
    if (!o.quiet) print_progress(st, last_return);
    if (selection.due(st, trainer.finished())) {
      if (!o.quiet) std::cerr << "\n";
      selection.validate(trainer, st);
    }
    if (weighting && weighting->due(st) && !trainer.finished()) weighting->measure(trainer);
    if ((cfg.checkpoint_every > 0 && st.update % cfg.checkpoint_every == 0) || trainer.finished() || stopping) {
      save();
      saved_at_stop = stopping;
    }
  }
  if (rank == 0 && !o.quiet) std::cerr << "\n";
  if (stop.signal() != 0) {
    if (rank == 0 && !saved_at_stop) save();  // stopped before the first update of this session ended
    spdlog::warn("{}: stopped at update {} of {} (step {}); checkpoint {}, policy {}; continue with: nicagent train "
                 "--resume {}",
                 stop.signal() == SIGTERM ? "SIGTERM" : "SIGINT", trainer.updates_done(), cfg.num_updates,
                 trainer.global_step(), files.checkpoint.string(), files.policy.string(), out.string());
    return kStoppedBySignal + stop.signal();
  }
  spdlog::info("done: {} steps; checkpoint {}, policy {}", trainer.global_step(), files.checkpoint.string(),
               files.policy.string());
  return 0;
}

}  // namespace

sim::Family load_usable_family(const fs::path& file, const std::string& option, const std::string& command) {
  sim::Family f = sim::load_family(file);
  if (f.name == "test") {
    throw std::runtime_error(command + ": " + option + " " + file.string() + " is the test family, held out for the " +
                             "final numbers (nicagent eval --family); train on the train family and select on its " +
                             "validation seeds");
  }
  return f;
}

// The method, step by step: the command line checked; the run folder prepared (or read
// back on a resume); the envs built on the run's scenarios or family (each with its
// teacher when cloning); model selection's draws; the learner; a resume's checkpoint and
// logs (or the exported policy a fine-tune starts from); the behaviour-cloning warm start;
// the anchor term's policy; then PPO updates with validation and checkpoints.
int train(const TrainOptions& o) {
  const TrainRequest req = check_request(o);
  const int rank = ppo::world_rank();
  const RunSettings settings = settle_run(o, req, rank);
  TrainingEnvs training = make_training_envs(o, req, settings);
  const ppo::TenantLayout layout = tenant_layout(settings.env_cfg, *training.envs.front());
  auto validation = validation_draws(settings, req.out, layout, rank);
  ppo::Trainer trainer(settings.cfg, std::move(training.envs), layout);
  spdlog::info("{}", trainer.world_description());
  const RunFiles files(req.out);
  const std::string env_yaml = control::env_config_yaml(settings.env_cfg);
  ModelSelection selection(settings.run.validation, std::move(validation), files, env_yaml,
                           settings.env_cfg.interval_cycles);
  if (req.resuming) selection.resume_best(o.resume);
  install_stop_signals();
  start_or_resume(trainer, o, req, settings, files, rank);
  if (req.cloning) warm_start_by_cloning(trainer, o, layout, training.choices.get(), files, env_yaml, rank);
  set_up_anchor(trainer, o, req, files, env_yaml, rank);
  std::optional<DrawWeighting> weighting;
  if (training.draws) weighting.emplace(training.draws, settings, files);
  return run_updates(trainer, o, req.out, files, selection, weighting ? &*weighting : nullptr, env_yaml, rank);
}

}  // namespace nicsched::agent_cli
