// nicagent train end to end, on the reference-model NIC with a tiny network: the run
// folder holds everything a resume needs (the scenario file itself may be gone), an
// existing run is refused without --force, a resume drops the log rows written after the
// checkpoint (none appears twice), and SIGINT / SIGTERM write a final checkpoint, say
// where, and exit 130 / 143.
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
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

std::vector<std::string> fresh(const Scratch& s, const fs::path& out) {
  return {"--scenario", (s.dir / "scenario.yaml").string(), "--ppo-config", (s.dir / "ppo.yaml").string(),
          "--env-config", (s.dir / "env.yaml").string(), "--backend", "model", "--cycles", "400000",
          "--out", out.string()};
}

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
