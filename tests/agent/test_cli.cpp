// nicagent's command line: options that conflict are declared to CLI11, so a command line
// that gives both (or one without the option it needs) exits with kUsage (2) and CLI11's
// message naming both options, before anything is read or written, instead of one of them
// being silently dropped.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace nicsched::test;

constexpr int kUsage = 2;  // agent/src/nicagent/commands.hpp, docs/reference/exit-codes.md

const std::string kScenario = NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml";
const std::string kFamily = NICSCHED_SOURCE_DIR "/sim/families/train.yaml";
const std::string kPolicy = NICSCHED_SOURCE_DIR "/agent/policies/default";
const std::string kStrategyEnv = NICSCHED_SOURCE_DIR "/docs/results/strategy-action/env_strategy3.yaml";
const std::string kPpoStrategy = NICSCHED_SOURCE_DIR "/agent/configs/ppo_strategy.yaml";
const std::string kDagger = NICSCHED_SOURCE_DIR "/agent/configs/dagger.yaml";

struct Conflict {
  std::vector<std::string> args;  // after `nicagent`
  std::string first, second;      // the options the message names
  std::string relation;           // CLI11's word between them: excludes or requires
};

}  // namespace

TEST_CASE("nicagent: conflicting options exit 2 naming both, and nothing is written", "[cli]") {
  const fs::path dir = fresh_dir("nicagent-cli", "conflicts");
  const fs::path run = dir / "run";  // an existing folder: --resume checks that it exists
  fs::create_directories(run);
  const std::string out = (dir / "out").string();
  const std::string resume = run.string();
  const std::vector<Conflict> conflicts{
      // train: a resumed run keeps its scenarios, family, validation and warm start
      {{"train", "--resume", resume, "--bc-teacher", "progress"}, "--resume", "--bc-teacher", "excludes"},
      {{"train", "--resume", resume, "--scenario", kScenario}, "--scenario", "--resume", "excludes"},
      {{"train", "--resume", resume, "--family", kFamily}, "--family", "--resume", "excludes"},
      {{"train", "--resume", resume, "--validation-family", kFamily}, "--validation-family", "--resume", "excludes"},
      {{"train", "--scenario", kScenario, "--family", kFamily, "--out", out}, "--scenario", "--family", "excludes"},
      // train: a fine-tune starts from one policy: an exported one, a clone or a checkpoint
      {{"train", "--resume", resume, "--init-policy", kPolicy}, "--init-policy", "--resume", "excludes"},
      {{"train", "--family", kFamily, "--out", out, "--bc-teacher", "progress", "--init-policy", kPolicy},
       "--init-policy", "--bc-teacher", "excludes"},
      // train: the cloning settings need a teacher, the validation settings a family
      {{"train", "--family", kFamily, "--out", out, "--bc-steps", "8"}, "--bc-steps", "--bc-teacher", "requires"},
      {{"train", "--family", kFamily, "--out", out, "--bc-epochs", "2"}, "--bc-epochs", "--bc-teacher", "requires"},
      {{"train", "--family", kFamily, "--out", out, "--bc-lr", "0.01"}, "--bc-lr", "--bc-teacher", "requires"},
      {{"train", "--family", kFamily, "--out", out, "--bc-permutations", "2"}, "--bc-permutations", "--bc-teacher",
       "requires"},
      {{"train", "--family", kFamily, "--out", out, "--validation-every", "2"}, "--validation-every",
       "--validation-family", "requires"},
      // train: --force replaces a run in --out; continuing in place there is none to replace
      {{"train", "--resume", resume, "--force"}, "--force", "--out", "requires"},
      // eval: the training log is only plotted
      {{"eval", "--family", kFamily, "--no-plots", "--training-log", (run / "train.csv").string(), "--out", out},
       "--training-log", "--no-plots", "excludes"},
      {{"eval", "--scenarios", kScenario, "--count", "3", "--out", out}, "--count", "--family", "requires"},
      // dagger: the validation settings need a validation family
      {{"dagger", "--family", kFamily, "--env-config", kStrategyEnv, "--ppo-config", kPpoStrategy, "--dagger-config",
        kDagger, "--out", out, "--validation-count", "2"},
       "--validation-count", "--validation-family", "requires"},
      // serve: one controller; one pace; the interval check is the policy's
      {{"serve", "--target", "unix:///nonexistent.sock", "--policy", kPolicy, "--baseline", "fifo"}, "--policy",
       "--baseline", "excludes"},
      {{"serve", "--target", "unix:///nonexistent.sock", "--policy", kPolicy, "--step-cycles", "2000",
        "--interval-ms", "5"},
       "--interval-ms", "--step-cycles", "excludes"},
      {{"serve", "--target", "unix:///nonexistent.sock", "--baseline", "fifo", "--interval-tolerance", "0.5"},
       "--interval-tolerance", "--policy", "requires"},
  };
  int k = 0;
  for (const auto& c : conflicts) {
    std::vector<std::string> args{NICAGENT_EXE};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::string line;
    for (const auto& a : c.args) line += " " + a;
    INFO("nicagent" << line);
    const auto r = run_to_end(args, dir, "conflict-" + std::to_string(k++), 60s);
    INFO("stderr:\n" << r.log);
    CHECK(r.rc == kUsage);
    // CLI11 names them in its own order for excludes (which is symmetric)
    const bool named = r.log.find(c.first + " " + c.relation + " " + c.second) != std::string::npos ||
                       (c.relation == "excludes" &&
                        r.log.find(c.second + " " + c.relation + " " + c.first) != std::string::npos);
    CHECK(named);
    CHECK_FALSE(fs::exists(out));
    CHECK(fs::is_empty(run));
  }
  fs::remove_all(dir);
}

TEST_CASE("nicagent: without the conflict the same options get past the command line", "[cli]") {
  // What makes the lines above exit 2 is the conflict: --resume alone is parsed, and
  // refused by train itself (exit 1) because the folder holds no run.
  const fs::path dir = fresh_dir("nicagent-cli", "controls");
  fs::create_directories(dir / "run");
  const auto r = run_to_end({NICAGENT_EXE, "train", "--resume", (dir / "run").string()}, dir, "resume", 60s);
  INFO("stderr:\n" << r.log);
  CHECK(r.rc == 1);
  CHECK(r.log.find("has no run.yaml") != std::string::npos);
  // serve with neither controller: refused by serve (give one of them), also a usage error.
  const auto s = run_to_end({NICAGENT_EXE, "serve", "--target", "unix:///nonexistent.sock"}, dir, "serve", 60s);
  CHECK(s.rc == kUsage);
  CHECK(s.log.find("give --policy or --baseline") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("nicagent dagger: the test family and an env without the strategy action are refused, naming them", "[cli]") {
  const fs::path dir = fresh_dir("nicagent-cli", "dagger");
  const std::string out = (dir / "out").string();
  const auto dagger = [&](const std::string& family, const std::string& env, const std::string& tag) {
    return run_to_end({NICAGENT_EXE, "dagger", "--family", family, "--env-config", env, "--ppo-config", kPpoStrategy,
                       "--dagger-config", kDagger, "--out", out},
                      dir, tag, 60s);
  };
  const auto t = dagger(NICSCHED_SOURCE_DIR "/sim/families/test.yaml", kStrategyEnv, "test-family");
  INFO("stderr:\n" << t.log);
  CHECK(t.rc == 1);
  CHECK(t.log.find("dagger: --family") != std::string::npos);
  CHECK(t.log.find("is the test family, held out") != std::string::npos);
  const auto e = dagger(kFamily, NICSCHED_SOURCE_DIR "/agent/configs/env_family.yaml", "tenant-action");
  INFO("stderr:\n" << e.log);
  CHECK(e.rc == 1);
  CHECK(e.log.find("must have `action: strategy`") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}
