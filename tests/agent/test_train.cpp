// nicagent train end to end, on the reference-model NIC with a tiny network: the run
// folder holds everything a resume needs (the scenario file itself may be gone), an
// existing run is refused without --force, a resume drops the log rows written after the
// checkpoint (none appears twice), and SIGINT / SIGTERM write a final checkpoint, say
// where, and exit 130 / 143.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace nicsched::test;

// 16 env steps per update; one epoch of one minibatch; a checkpoint every 2 updates.
const std::string kPpo =
    "seed: 3\nnum_envs: 1\nnum_steps: 16\ntotal_steps: 64\nupdate_epochs: 1\nnum_minibatches: 1\n"
    "hidden_sizes: [8]\nenv_threads: 1\ncheckpoint_every: 2\n";
const std::string kEnv = "interval_cycles: 2000\nepisode_steps: 8\n";

struct Scratch {
  fs::path dir;
  explicit Scratch(const char* name) : dir(fresh_dir("nicagent-train", name)) {
    std::ofstream(dir / "ppo.yaml") << kPpo;
    std::ofstream(dir / "env.yaml") << kEnv;
    // A scenario outside the source tree, removed before resuming.
    fs::copy_file(NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml", dir / "scenario.yaml");
  }
  ~Scratch() { fs::remove_all(dir); }
};

Finished nicagent(const fs::path& dir, std::vector<std::string> args, const char* tag) {
  args.insert(args.begin(), {NICAGENT_EXE, "train"});
  args.push_back("--quiet");
  return run_to_end(args, dir, tag, 600s);
}

// No --backend: train simulates the reference model unless told otherwise.
std::vector<std::string> fresh(const Scratch& s, const fs::path& out) {
  return {"--scenario", (s.dir / "scenario.yaml").string(), "--ppo-config", (s.dir / "ppo.yaml").string(),
          "--env-config", (s.dir / "env.yaml").string(), "--cycles", "400000", "--out", out.string()};
}

constexpr const char* kModelLog = "NIC simulator: the C++ reference model";

// The update numbers of train.csv's rows, in order.
std::vector<unsigned long> csv_updates(const fs::path& csv) {
  std::istringstream in(slurp(csv));
  std::string line;
  std::getline(in, line);
  REQUIRE(line.rfind("update,global_step,", 0) == 0);
  std::vector<unsigned long> out;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(std::stoul(line.substr(0, line.find(','))));
  }
  return out;
}

std::vector<unsigned long> one_to(unsigned long n) {
  std::vector<unsigned long> v;
  for (unsigned long i = 1; i <= n; ++i) v.push_back(i);
  return v;
}

}  // namespace

TEST_CASE("train: the run folder holds what a resume needs, an existing run is not overwritten", "[train]") {
  Scratch s("folder");
  const fs::path out = s.dir / "run";
  auto r = nicagent(s.dir, fresh(s, out), "first");
  INFO("log:\n" << r.log);
  REQUIRE(r.rc == 0);
  for (const char* f : {"run.yaml", "scenarios/0/scenario.yaml", "ppo.yaml", "env.yaml", "checkpoint.pt",
                        "policy/policy.pt", "policy/policy.yaml"}) {
    INFO(f);
    CHECK(fs::is_regular_file(out / f));
  }
  CHECK(slurp(out / "scenarios/0/scenario.yaml") == slurp(s.dir / "scenario.yaml"));
  CHECK(csv_updates(out / "train.csv") == one_to(4));
  // The scenario names no backend (nicsim runs it on the RTL); train simulates the model
  // unless --backend rtl is given, records that in run.yaml and says so.
  CHECK(slurp(s.dir / "scenario.yaml").find("backend") == std::string::npos);
  CHECK(slurp(out / "run.yaml").find("backend: model") != std::string::npos);
  CHECK(r.log.find(kModelLog) != std::string::npos);

  // Training into the same folder again, without --resume: refused, nothing touched.
  const std::string csv_before = slurp(out / "train.csv");
  r = nicagent(s.dir, fresh(s, out), "again");
  CHECK(r.rc == 1);
  CHECK(r.log.find("already holds a training run") != std::string::npos);
  CHECK(r.log.find("--resume " + out.string()) != std::string::npos);
  CHECK(slurp(out / "train.csv") == csv_before);

  // --resume DIR alone continues it, with the scenario file gone; the rows a crash left
  // after the checkpoint (update 4) are dropped and trained again.
  fs::remove(s.dir / "scenario.yaml");
  std::ofstream(out / "train.csv", std::ios::app) << "5,80,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0\n6,96,0,0";
  r = nicagent(s.dir, {"--resume", out.string(), "--steps", "96"}, "resume");
  INFO("resume log:\n" << r.log);
  REQUIRE(r.rc == 0);
  CHECK(r.log.find("resumed from") != std::string::npos);
  CHECK(r.log.find("dropped 2 rows") != std::string::npos);
  CHECK(r.log.find(kModelLog) != std::string::npos);  // the run's own backend
  CHECK(csv_updates(out / "train.csv") == one_to(6));
  CHECK(slurp(out / "train.csv").find("5,80,0,0,0,0") == std::string::npos);

  // --force starts over.
  fs::copy_file(out / "scenarios/0/scenario.yaml", s.dir / "scenario.yaml");
  r = nicagent(s.dir, [&] {
    auto a = fresh(s, out);
    a.push_back("--force");
    return a;
  }(), "force");
  CHECK(r.rc == 0);
  CHECK(csv_updates(out / "train.csv") == one_to(4));
}

TEST_CASE("train: SIGINT and SIGTERM write a final checkpoint, say where, and resume continues", "[train]") {
  for (const int sig : {SIGINT, SIGTERM}) {
    Scratch s(sig == SIGINT ? "sigint" : "sigterm");
    const fs::path out = s.dir / "run";
    auto args = fresh(s, out);
    args.insert(args.end(), {"--steps", "160000", "--quiet"});  // 10000 updates: far more than it will run
    args.insert(args.begin(), {NICAGENT_EXE, "train"});
    const fs::path err = s.dir / "train.err";
    Child c(args, s.dir / "train.out", err);
    REQUIRE(wait_for(out / "train.csv", [](const std::string& t) { return std::count(t.begin(), t.end(), '\n') >= 4; },
                     300s));
    c.signal(sig);
    const int rc = c.wait(300s);
    const std::string log = slurp(err);
    INFO("log:\n" << log);
    CHECK(rc == 128 + sig);
    std::smatch m;
    REQUIRE(std::regex_search(log, m, std::regex(R"((SIGINT|SIGTERM): stopped at update (\d+) of 10000)")));
    CHECK(m[1] == (sig == SIGINT ? "SIGINT" : "SIGTERM"));
    const unsigned long stopped = std::stoul(m[2]);
    CHECK(log.find("checkpoint " + (out / "checkpoint.pt").string()) != std::string::npos);
    CHECK(log.find("--resume " + out.string()) != std::string::npos);
    // The log and the checkpoint agree: every update up to the stop, once.
    CHECK(csv_updates(out / "train.csv") == one_to(stopped));

    auto r = nicagent(s.dir, {"--resume", out.string(), "--steps", std::to_string((stopped + 2) * 16)}, "resume");
    INFO("resume log:\n" << r.log);
    CHECK(r.rc == 0);
    CHECK(r.log.find(fmt::format("at update {}", stopped)) != std::string::npos);
    CHECK(r.log.find("dropped") == std::string::npos);
    CHECK(csv_updates(out / "train.csv") == one_to(stopped + 2));
  }
}

namespace {

// Family runs: 2 envs, 4-step episodes, 16 steps per env per update, a checkpoint every update.
const std::string kFamilyPpo =
    "seed: 5\nnum_envs: 2\nnum_steps: 16\ntotal_steps: 128\nupdate_epochs: 1\nnum_minibatches: 1\n"
    "hidden_sizes: [8]\nenv_threads: 1\ncheckpoint_every: 1\n";
const std::string kFamilyEnv = "interval_cycles: 2000\nepisode_steps: 4\n";
const std::string kTrainFamily = NICSCHED_SOURCE_DIR "/sim/families/train.yaml";

struct FamilyScratch {
  fs::path dir;
  explicit FamilyScratch(const char* name) : dir(fresh_dir("nicagent-train", name)) {
    std::ofstream(dir / "ppo.yaml") << kFamilyPpo;
    std::ofstream(dir / "env.yaml") << kFamilyEnv;
  }
  ~FamilyScratch() { fs::remove_all(dir); }
  // train.yaml with another name and tenant counts.
  [[nodiscard]] fs::path family(const std::string& name, const std::string& tenants) const {
    std::string text = slurp(kTrainFamily);
    const auto replace = [&](const std::string& from, const std::string& to) {
      const auto at = text.find(from);
      REQUIRE(at != std::string::npos);
      text.replace(at, from.size(), to);
    };
    replace("name: train", "name: " + name);
    replace("tenants: {choice: [2, 3, 4, 5, 6, 7, 8]}", "tenants: " + tenants);
    const fs::path p = dir / (name + ".yaml");
    std::ofstream(p) << text;
    return p;
  }
};

// nicagent --log-level debug train ... (the debug log names each episode's draw).
Finished train_debug(const fs::path& dir, std::vector<std::string> args, const char* tag) {
  args.insert(args.begin(), {NICAGENT_EXE, "--log-level", "debug", "train", "--quiet"});
  return run_to_end(args, dir, tag, 600s);
}

std::vector<std::string> family_args(const FamilyScratch& s, const fs::path& out) {
  return {"--family", kTrainFamily, "--ppo-config", (s.dir / "ppo.yaml").string(), "--env-config",
          (s.dir / "env.yaml").string(), "--backend", "model", "--out", out.string()};
}

// Each env's family seeds, in the order its episodes drew them.
std::map<unsigned long, std::vector<unsigned long>> draws(const std::string& log) {
  std::map<unsigned long, std::vector<unsigned long>> out;
  const std::regex re(R"(env (\d+): episode on train-(\d+))");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator(); ++it) {
    out[std::stoul((*it)[1])].push_back(std::stoul((*it)[2]));
  }
  return out;
}

std::vector<unsigned long> slice(const std::vector<unsigned long>& v, std::size_t from, std::size_t to) {
  REQUIRE(to <= v.size());
  return {v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(to)};
}

}  // namespace

TEST_CASE("train --family: a fresh draw every episode, and the same draws after a resume", "[train][family]") {
  FamilyScratch s("family");
  // 4 updates: each env runs 64 steps, 16 episodes, and has drawn the 17th.
  auto r = train_debug(s.dir, family_args(s, s.dir / "full"), "full");
  INFO("log:\n" << r.log);
  REQUIRE(r.rc == 0);
  CHECK(slurp(s.dir / "full/run.yaml").find("family: family/train.yaml") != std::string::npos);
  CHECK(slurp(s.dir / "full/family/train.yaml") == slurp(kTrainFamily));
  const auto full = draws(r.log);
  REQUIRE(full.size() == 2);
  for (const auto& [env, seq] : full) {
    INFO("env " << env);
    CHECK(seq.size() == 17);
    CHECK(std::set<unsigned long>(seq.begin(), seq.end()).size() == seq.size());  // a fresh scenario each time
    for (const auto seed : seq) CHECK((seed >= 1 && seed <= 899999));             // never a validation seed
  }
  CHECK(full.at(0) != full.at(1));

  // The same run in two halves: the resumed half restarts the episode in progress at the
  // checkpoint (the 9th) and continues each env's sequence.
  r = train_debug(s.dir, [&] {
    auto a = family_args(s, s.dir / "part");
    a.insert(a.end(), {"--steps", "64"});
    return a;
  }(), "first-half");
  REQUIRE(r.rc == 0);
  const auto first = draws(r.log);
  r = train_debug(s.dir, {"--resume", (s.dir / "part").string(), "--steps", "128"}, "second-half");
  INFO("resume log:\n" << r.log);
  REQUIRE(r.rc == 0);
  const auto second = draws(r.log);
  for (unsigned long env = 0; env < 2; ++env) {
    INFO("env " << env);
    CHECK(first.at(env) == slice(full.at(env), 0, 9));
    // The trainer's first reset draws episode 1 before the checkpoint's counts replace it.
    REQUIRE(second.at(env).size() == 10);
    CHECK(second.at(env).front() == full.at(env).front());
    CHECK(slice(second.at(env), 1, 10) == slice(full.at(env), 8, 17));
  }
}

TEST_CASE("train --validation-family: every K updates the policy is scored and the best kept", "[train][family]") {
  FamilyScratch s("validation");
  const fs::path out = s.dir / "run";
  auto args = family_args(s, out);
  args.insert(args.end(), {"--cycles", "200000", "--validation-family", kTrainFamily, "--validation-count", "1",
                           "--validation-every", "1"});
  const auto r = train_debug(s.dir, args, "validation");
  INFO("log:\n" << r.log);
  REQUIRE(r.rc == 0);
  CHECK(r.log.find("nicsim:train-900000 ") != std::string::npos);  // the first held-out seed
  // validation.csv: one row per update, the best column the running minimum.
  std::istringstream in(slurp(out / "validation.csv"));
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "update,global_step,norm_iter_time,best_norm_iter_time,new_best,seconds");
  double best = 1e300;
  unsigned long best_update = 0;
  std::vector<unsigned long> updates;
  while (std::getline(in, line)) {
    INFO(line);
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 6);
    updates.push_back(std::stoul(f[0]));
    const double score = std::stod(f[2]);
    REQUIRE(std::isfinite(score));
    CHECK(score >= 0.9);  // normalised by solo: about 1 or slower
    const bool better = score < best;
    if (better) {
      best = score;
      best_update = updates.back();
    }
    CHECK(std::stod(f[3]) == Approx(best));
    CHECK(f[4] == (better ? "1" : "0"));
  }
  CHECK(updates == one_to(4));
  // best/ is the policy of the best row, loadable as any exported policy.
  CHECK(fs::is_regular_file(out / "best/policy.pt"));
  CHECK(fs::is_regular_file(out / "best/policy.yaml"));
  const std::string sel = slurp(out / "best/selection.yaml");
  CHECK(sel.find(fmt::format("update: {}\n", best_update)) != std::string::npos);
  std::smatch m;
  REQUIRE(std::regex_search(sel, m, std::regex(R"(norm_iter_time: ([0-9.eE+-]+))")));
  CHECK(std::stod(m[1]) == Approx(best));
  CHECK_FALSE(fs::exists(out / "validation-candidate"));
}

TEST_CASE("train --family: refusals say why", "[train][family]") {
  FamilyScratch s("refusals");
  const std::string test_family = NICSCHED_SOURCE_DIR "/sim/families/test.yaml";
  const auto refused = [&](std::vector<std::string> args, const std::string& why, const char* tag) {
    const auto r = train_debug(s.dir, std::move(args), tag);
    INFO(tag << " log:\n" << r.log);
    CHECK(r.rc == 1);
    CHECK(r.log.find(why) != std::string::npos);
  };
  auto a = family_args(s, s.dir / "t1");
  a[1] = test_family;
  refused(a, "is the test family, held out", "test-family");
  a = family_args(s, s.dir / "t2");
  a.insert(a.end(), {"--validation-family", test_family});
  refused(a, "is the test family, held out", "test-validation");
  a = family_args(s, s.dir / "t3");
  a[1] = s.family("wide", "{choice: [4, 12]}").string();
  refused(a, "on NICs of 8 and 16 tenant slots: a run trains on one NIC size", "wide");
  a = family_args(s, s.dir / "t4");
  a.insert(a.end(), {"--validation-family", s.family("big", "{choice: [12, 16]}").string()});
  refused(a, "the mlp policy has 8 fixed slots", "mlp-slots");
  CHECK_FALSE(fs::exists(s.dir / "t4/checkpoint.pt"));
  // A resumed run keeps its own family.
  a = family_args(s, s.dir / "t5");
  a.insert(a.end(), {"--steps", "32"});
  REQUIRE(train_debug(s.dir, a, "t5").rc == 0);
  const auto r = train_debug(s.dir, {"--resume", (s.dir / "t5").string(), "--family", kTrainFamily}, "resume");
  INFO("resume log:\n" << r.log);
  CHECK(r.rc == 2);  // a command-line conflict (test_cli.cpp has them all)
  CHECK(r.log.find("--family excludes --resume") != std::string::npos);
}

TEST_CASE("train --bc-teacher best:...: each draw cloned from its best baseline, bad lists refused", "[train][bc]") {
  FamilyScratch s("best-teacher");
  const fs::path out = s.dir / "run";
  auto args = family_args(s, out);
  args.insert(args.end(), {"--cycles", "200000", "--steps", "32", "--bc-teacher", "best:fifo,las,progress",
                           "--bc-steps", "8", "--bc-epochs", "1"});
  const auto r = train_debug(s.dir, args, "best");
  INFO("log:\n" << r.log);
  REQUIRE(r.rc == 0);
  // bc-teachers.csv: one row per draw made while cloning (2 envs x (8 steps / 4-step
  // episodes + the reset after the last step)); the teacher the lowest score, the first on a tie.
  std::istringstream in(slurp(out / "bc-teachers.csv"));
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "env,family_seed,scenario,teacher,score_fifo,score_las,score_progress,cpu_seconds");
  const std::vector<std::string> names{"fifo", "las", "progress"};
  std::map<std::string, int> chosen;
  int rows = 0;
  while (std::getline(in, line)) {
    INFO(line);
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 8);
    CHECK(f[2] == "train-" + f[1]);
    std::size_t best = 0;
    for (std::size_t c = 1; c < names.size(); ++c) {
      if (std::stod(f[4 + c]) < std::stod(f[4 + best])) best = c;
    }
    CHECK(f[3] == names[best]);
    ++chosen[f[3]];
    ++rows;
    // the draw's log line names the same teacher
    CHECK(r.log.find(fmt::format("env {}: train-{}: teacher {} (", f[0], f[1], f[3])) != std::string::npos);
  }
  CHECK(rows == 6);
  const std::string bc = slurp(out / "bc.yaml");
  CHECK(bc.find("teacher: best:fifo,las,progress\n") != std::string::npos);
  CHECK(bc.find("teacher_draws: 6\n") != std::string::npos);
  for (const auto& [name, n] : chosen) CHECK(bc.find(fmt::format("  {}: {}\n", name, n)) != std::string::npos);
  CHECK(fs::is_regular_file(out / "bc-policy/policy.pt"));

  const auto refused = [&](const std::string& teacher, const std::string& why, const char* tag) {
    auto a = family_args(s, s.dir / tag);
    a.insert(a.end(), {"--bc-teacher", teacher});
    const auto rr = train_debug(s.dir, a, tag);
    INFO(tag << " log:\n" << rr.log);
    CHECK(rr.rc == 1);
    CHECK(rr.log.find("--bc-teacher " + teacher + ": " + why) != std::string::npos);
    CHECK_FALSE(fs::exists(s.dir / tag / "checkpoint.pt"));
  };
  refused("best:fifo,nope", "unknown baseline 'nope' (known: fifo, fair,", "unknown");
  refused("best:", "no baselines after 'best:'", "empty");
  refused("best:fifo,,las", "an empty name in the list", "empty-name");
  refused("best:las,fifo,las", "'las' is named twice", "twice");
  refused("best:las", "name at least two baselines", "one");
  refused("nope", "unknown baseline 'nope'", "plain-unknown");
  const auto rr = train_debug(s.dir, [&] {
    auto a = family_args(s, s.dir / "scenario");
    a[0] = "--scenario";
    a[1] = NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml";
    a.insert(a.end(), {"--bc-teacher", "best:fifo,las"});
    return a;
  }(), "scenario");
  INFO("scenario log:\n" << rr.log);
  CHECK(rr.rc == 1);
  CHECK(rr.log.find("chooses a teacher per family draw: give --family") != std::string::npos);
}

#ifdef NICAGENT_MPIEXEC
// mpirun -np 2 nicagent train: rank 0 alone writes the run folder (each update logged once,
// one checkpoint), the other rank trains on the scenarios rank 0 copied in; a refused run
// stops every rank with rank 0's reason; a resume under mpirun continues without duplicates.
TEST_CASE("train: under mpirun -np 2 rank 0 alone writes the run folder", "[train][mpi]") {
  Scratch s("mpi");
  const fs::path out = s.dir / "run";
  const auto mpirun = [&](std::vector<std::string> args, const char* tag) {
    args.insert(args.begin(), {NICAGENT_MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", "2",
                               NICAGENT_EXE, "train", "--quiet"});
    Child c(args, s.dir / fmt::format("{}.out", tag), s.dir / fmt::format("{}.err", tag));
    const int rc = c.wait(600s);
    return Finished{rc, slurp(s.dir / fmt::format("{}.out", tag)) + slurp(s.dir / fmt::format("{}.err", tag))};
  };
  auto args = fresh(s, out);
  args.insert(args.end(), {"--steps", "128"});  // 2 ranks x 16 steps per update: 4 updates
  auto r = mpirun(args, "first");
  INFO("log:\n" << r.log);
  REQUIRE(r.rc == 0);
  CHECK(r.log.find("MPI: rank 0 of 2") != std::string::npos);
  CHECK(r.log.find("MPI: rank 1 of 2") != std::string::npos);
  CHECK(csv_updates(out / "train.csv") == one_to(4));
  CHECK(fs::is_regular_file(out / "checkpoint.pt"));
  CHECK(fs::is_regular_file(out / "policy/policy.pt"));

  const std::string csv_before = slurp(out / "train.csv");
  r = mpirun(args, "again");
  CHECK(r.rc != 0);
  CHECK(r.log.find("already holds a training run") != std::string::npos);
  CHECK(r.log.find("rank 0 could not prepare the run folder") != std::string::npos);
  CHECK(slurp(out / "train.csv") == csv_before);

  fs::remove(s.dir / "scenario.yaml");
  r = mpirun({"--resume", out.string(), "--steps", "192"}, "resume");
  CHECK(r.rc == 0);
  CHECK(r.log.find("resumed from") != std::string::npos);
  CHECK(csv_updates(out / "train.csv") == one_to(6));
}
#endif

TEST_CASE("train --init-policy with anchor_coef: PPO starts from the policy and keeps it as its anchor", "[train][anchor]") {
  FamilyScratch s("anchor");
  // The policy to fine-tune: a short plain run's export.
  auto a = family_args(s, s.dir / "start");
  a.insert(a.end(), {"--steps", "32"});
  REQUIRE(train_debug(s.dir, a, "start").rc == 0);
  const fs::path start = s.dir / "start/policy";
  std::ofstream(s.dir / "anchored.yaml") << kFamilyPpo << "anchor_coef: 1.0\n";
  a = family_args(s, s.dir / "tuned");
  a[3] = (s.dir / "anchored.yaml").string();
  a.insert(a.end(), {"--init-policy", start.string()});
  auto r = train_debug(s.dir, a, "tuned");
  INFO("log:\n" << r.log);
  REQUIRE(r.rc == 0);
  CHECK(slurp(s.dir / "tuned/anchor/policy.pt") == slurp(start / "policy.pt"));
  // train.csv's last column: the anchor term's KL, a number >= 0 (to float rounding) on every row.
  std::istringstream in(slurp(s.dir / "tuned/train.csv"));
  std::string line;
  std::getline(in, line);
  REQUIRE(line.substr(line.rfind(',') + 1) == "anchor_kl");
  int rows = 0;
  while (std::getline(in, line)) {
    const double kl = std::stod(line.substr(line.rfind(',') + 1));
    CHECK((std::isfinite(kl) && kl > -1e-6));
    ++rows;
  }
  CHECK(rows == 4);
  // A resume keeps the anchor it started with.
  r = train_debug(s.dir, {"--resume", (s.dir / "tuned").string(), "--out", (s.dir / "more").string(), "--steps",
                          "192"}, "more");
  INFO("resume log:\n" << r.log);
  REQUIRE(r.rc == 0);
  CHECK(slurp(s.dir / "more/anchor/policy.pt") == slurp(start / "policy.pt"));
  // Without a policy to start from, and with a policy of another network, refused.
  a = family_args(s, s.dir / "nothing");
  a[3] = (s.dir / "anchored.yaml").string();
  r = train_debug(s.dir, a, "nothing");
  CHECK(r.rc == 1);
  CHECK(r.log.find("anchor_coef is 1") != std::string::npos);
  std::ofstream(s.dir / "wide.yaml") << kFamilyPpo << "hidden_sizes: [16]\n";
  a = family_args(s, s.dir / "wide");
  a[3] = (s.dir / "wide.yaml").string();
  a.insert(a.end(), {"--init-policy", start.string()});
  r = train_debug(s.dir, a, "wide");
  CHECK(r.rc == 1);
  CHECK(r.log.find((start / "policy.pt").string()) != std::string::npos);
  CHECK(r.log.find("hidden_sizes") != std::string::npos);
}

TEST_CASE("train --family, draw_weights: trailing: episodes draw from the pool by the logged weights", "[train][draws]") {
  FamilyScratch s("draws");
  // The strategy action: draw_baselines empty, the env's strategies are the baselines (and
  // the policy measured on the pool decides through them).
  std::ofstream(s.dir / "trailing.yaml") << kFamilyPpo
                                         << "draw_weights: trailing\ndraw_pool: 3\ndraw_every: 2\ndraw_mix: 0.5\n";
  std::ofstream(s.dir / "strategy.yaml") << kFamilyEnv << "action: strategy\nstrategies: [fifo, progress]\n";
  auto a = family_args(s, s.dir / "run");
  a[3] = (s.dir / "trailing.yaml").string();
  a[5] = (s.dir / "strategy.yaml").string();
  const auto r = train_debug(s.dir, a, "trailing");
  INFO("log:\n" << r.log);
  REQUIRE(r.rc == 0);
  for (const auto& [env, seq] : draws(r.log)) {
    for (const auto seed : seq) CHECK((seed >= 1 && seed <= 3));  // the pool: the first 3 training seeds
  }
  // draws.csv: measured before update 1 and after update 2 (not after the last); each
  // measurement's weights are the definition's on the logged scores.
  std::istringstream in(slurp(s.dir / "run/draws.csv"));
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "update,family_seed,policy_score,best_score,best_baseline,gap,weight");
  std::map<unsigned long, std::vector<std::vector<std::string>>> by_update;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 7);
    by_update[std::stoul(f[0])].push_back(f);
  }
  REQUIRE(by_update.size() == 2);
  CHECK(by_update.count(0) == 1);
  CHECK(by_update.count(2) == 1);
  for (const auto& [update, rows] : by_update) {
    INFO("update " << update);
    REQUIRE(rows.size() == 3);
    double gap_sum = 0, weight_sum = 0;
    std::vector<double> gaps;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const double policy = std::stod(rows[i][2]), best = std::stod(rows[i][3]);
      CHECK(std::stoul(rows[i][1]) == i + 1);
      CHECK((rows[i][4] == "fifo" || rows[i][4] == "progress"));
      gaps.push_back(std::isfinite(policy) && std::isfinite(best) && best > 0 ? std::max(0.0, policy / best - 1) : 0);
      CHECK(std::stod(rows[i][5]) == Approx(gaps.back()).margin(1e-6));
      gap_sum += gaps.back();
      weight_sum += std::stod(rows[i][6]);
    }
    CHECK(weight_sum == Approx(1.0).margin(1e-5));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const double want = gap_sum > 0 ? 0.5 / 3 + 0.5 * gaps[i] / gap_sum : 1.0 / 3;
      CHECK(std::stod(rows[i][6]) == Approx(want).margin(1e-5));
    }
  }
  // A scenario run has no family to weight.
  std::ofstream(s.dir / "scenario.yaml") << slurp(NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml");
  const auto refused = train_debug(s.dir, {"--scenario", (s.dir / "scenario.yaml").string(), "--ppo-config",
                                           (s.dir / "trailing.yaml").string(), "--env-config",
                                           (s.dir / "env.yaml").string(), "--out", (s.dir / "sc").string()},
                                   "scenario");
  CHECK(refused.rc == 1);
  CHECK(refused.log.find("draw_weights: trailing weights the draws of a family") != std::string::npos);
}
