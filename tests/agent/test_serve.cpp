// nicagent serve end to end: the nicagent binary drives a real `nicsim serve` (the
// Verilated NIC, lock-step, on a Unix socket) with the committed PPO policy. Checks that
// the decisions it logs are what the NIC's registers hold afterwards (read back through
// the host library), that it survives the server being killed and started again on the
// same socket (reconnects and keeps deciding), that SIGINT ends it with exit 0, that it
// gives up on an unreachable target after --retries attempts (exit 3), and that it warns
// when the cycles between its decisions are far from the policy's trained interval.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace nicsched::test;

const std::string kScenario = NICSCHED_SOURCE_DIR "/sim/scenarios/default.yaml";
const std::string kPolicy = NICSCHED_SOURCE_DIR "/agent/policies/default";

// `nicsim serve` in lock-step mode on a Unix socket (the same path on every start).
class Server {
 public:
  Server(const fs::path& dir, const fs::path& sock, int n) {
    const fs::path out = dir / fmt::format("nicsim{}.out", n);
    child_ = std::make_unique<Child>(std::vector<std::string>{NICSIM_EXE, "serve", kScenario, "--unix", sock.string(),
                                                              "--lockstep"},
                                     out, dir / fmt::format("nicsim{}.err", n));
    INFO("nicsim stderr: " << slurp(dir / fmt::format("nicsim{}.err", n)));
    REQUIRE(wait_for(out, [](const std::string& s) { return s.find("listening") != std::string::npos; }, 120s));
  }
  void kill_hard() {
    child_->signal(SIGKILL);
    child_->wait(10s);
  }

 private:
  std::unique_ptr<Child> child_;
};

struct Decision {
  std::uint32_t priority = 0, weight = 0, quota = 0;
};

// The tenants' settings in the last "decision N ...: t0:pP/wW/qQ ..." line of the log.
std::vector<Decision> last_decision(const std::string& log) {
  const auto at = log.rfind("] decision ");
  REQUIRE(at != std::string::npos);
  const std::string line = log.substr(at, log.find('\n', at) - at);
  INFO("last decision line: " << line);
  std::vector<Decision> out;
  const std::regex re(R"(t(\d+):p(\d+)/w(\d+)/q(\d+))");
  for (std::sregex_iterator it(line.begin(), line.end(), re), end; it != end; ++it) {
    REQUIRE(std::stoul((*it)[1]) == out.size());
    out.push_back({static_cast<std::uint32_t>(std::stoul((*it)[2])), static_cast<std::uint32_t>(std::stoul((*it)[3])),
                   static_cast<std::uint32_t>(std::stoul((*it)[4]))});
  }
  return out;
}

// The NIC's committed tenant settings equal the last logged decision.
void check_registers_hold(const std::string& uri, const std::string& log) {
  const auto logged = last_decision(log);
  auto bus = nicsched::drivers::open_bus(uri);
  const auto caps = nicsched::host::discover(*bus);
  REQUIRE(logged.size() == caps.tenants);
  const auto now = nicsched::host::read_policy(*bus, caps);
  REQUIRE(now.arb_mode == nicsched::host::ArbMode::kSpDwrr);
  for (std::size_t t = 0; t < logged.size(); ++t) {
    INFO("tenant " << t);
    CHECK(now.tenants[t].priority == logged[t].priority);
    CHECK(now.tenants[t].weight == logged[t].weight);
    CHECK(now.tenants[t].crypto_quota == logged[t].quota);
  }
}

// Different tenant settings appear among the logged decisions (the policy reacts).
std::size_t distinct_decisions(const std::string& log) {
  std::vector<std::string> seen;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("us): ");
    if (line.find("] decision ") == std::string::npos || at == std::string::npos) continue;
    const std::string d = line.substr(at + 5);
    if (std::find(seen.begin(), seen.end(), d) == seen.end()) seen.push_back(d);
  }
  return seen.size();
}

fs::path scratch_dir(const char* name) { return fresh_dir("nicagent-serve", name); }

// A fresh folder with `nicsim serve` listening on the socket in it.
struct ServedNic {
  explicit ServedNic(const char* name)
      : dir(scratch_dir(name)), sock(dir / "nicsim.sock"), uri("unix://" + sock.string()), server(dir, sock, 0) {}
  fs::path dir, sock;
  std::string uri;
  Server server;
};

// Runs `nicagent serve --policy <the committed policy> --target <uri> <args>` to its end.
Finished serve(const fs::path& dir, const std::string& uri, std::vector<std::string> args,
               std::chrono::seconds limit = 120s) {
  args.insert(args.begin(), {NICAGENT_EXE, "serve", "--policy", kPolicy, "--target", uri});
  return run_to_end(args, dir, "agent", limit);
}

}  // namespace

TEST_CASE("serve: the policy's decisions reach the NIC's registers", "[serve]") {
  const ServedNic nic("decisions");
  const auto [rc, log] = serve(nic.dir, nic.uri, {"--step-cycles", "2000", "--max-decisions", "12"});
  INFO("nicagent log:\n" << log);
  REQUIRE(rc == 0);
  CHECK(count(log, "] decision ") == 12);
  CHECK(log.find("stopped after 12 decisions") != std::string::npos);
  CHECK(log.find("latency of the last 12 decisions: wall p50 ") != std::string::npos);
  CHECK(log.find(", CPU ") != std::string::npos);  // each decision's thread CPU time
  CHECK(distinct_decisions(log) >= 2);
  check_registers_hold(nic.uri, log);
  fs::remove_all(nic.dir);
}

TEST_CASE("serve: reconnects after the server restarts, SIGINT stops it cleanly", "[serve]") {
  const fs::path dir = scratch_dir("reconnect");
  const fs::path sock = dir / "nicsim.sock";
  const std::string uri = "unix://" + sock.string();
  auto server = std::make_unique<Server>(dir, sock, 0);
  // Enough retries (0.2 s doubling to 5 s) to outlast a server start on a loaded machine.
  Child agent({NICAGENT_EXE, "serve", "--policy", kPolicy, "--target", uri, "--step-cycles", "2000", "--retries",
               "100"},
              dir / "agent.out", dir / "agent.err");
  const fs::path log_file = dir / "agent.err";
  auto decisions = [](std::size_t n) {
    return [n](const std::string& s) { return count(s, "] decision ") >= n; };
  };
  REQUIRE(wait_for(log_file, decisions(5), 120s));

  server->kill_hard();  // the NIC goes away mid-run
  REQUIRE(wait_for(log_file, [](const std::string& s) { return s.find("lost") != std::string::npos; }, 60s));
  // Still trying (backing off), not exited.
  std::this_thread::sleep_for(1s);
  const std::size_t before_restart = count(slurp(log_file), "] decision ");

  server = std::make_unique<Server>(dir, sock, 1);
  REQUIRE(wait_for(log_file, [](const std::string& s) { return count(s, "] serving ppo") >= 2; }, 60s));
  REQUIRE(wait_for(log_file, decisions(before_restart + 5), 120s));

  agent.signal(SIGINT);
  const int rc = agent.wait(60s);
  const std::string log = slurp(log_file);
  INFO("nicagent log:\n" << log);
  CHECK(rc == 0);
  CHECK(log.find("stopped after") != std::string::npos);
  // The new server (a fresh NIC) holds the last decision made after the reconnect.
  check_registers_hold(uri, log);
  fs::remove_all(dir);
}

TEST_CASE("serve: an unreachable target is given up after --retries attempts, exit 3", "[serve]") {
  const fs::path dir = scratch_dir("unreachable");
  const std::string uri = "unix://" + (dir / "nobody-listens.sock").string();
  const auto [rc, log] = serve(dir, uri, {"--retries", "2"}, 60s);
  INFO("nicagent log:\n" << log);
  CHECK(rc == 3);
  CHECK(count(log, "retrying in") == 2);
  CHECK(log.find("cannot reach " + uri + " after 3 attempts") != std::string::npos);
  CHECK(log.find("--retries") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("serve: a pace far from the policy's trained interval is warned about", "[serve]") {
  const ServedNic nic("interval");
  // The policy was trained at 2000 cycles per decision; step 20000.
  const auto [rc, log] = serve(nic.dir, nic.uri, {"--step-cycles", "20000", "--max-decisions", "10"});
  INFO("nicagent log:\n" << log);
  REQUIRE(rc == 0);
  REQUIRE(count(log, "achieved control interval ") == 1);
  const std::smatch m = [&] {
    std::smatch r;
    std::regex_search(log, r, std::regex(R"(achieved control interval (\d+) cycles)"));
    return r;
  }();
  REQUIRE(m.size() == 2);
  const auto achieved = std::stoul(m[1]);
  CHECK(achieved >= 20000);  // the NIC's own cycle counter: the steps plus the loop's register traffic
  CHECK(achieved < 30000);
  CHECK(log.find("the 2000 cycles the policy was trained at") != std::string::npos);
  // Stepping 20000 leaves the traffic's cycles (achieved - 20000) to subtract from 2000.
  CHECK(log.find("the loop's register traffic") != std::string::npos);
  fs::remove_all(nic.dir);
}

TEST_CASE("serve: within --interval-tolerance there is no interval warning", "[serve]") {
  const ServedNic nic("tolerance");
  // 2000-cycle steps plus the register traffic land well within 3x of the trained 2000.
  const auto [rc, log] =
      serve(nic.dir, nic.uri, {"--step-cycles", "2000", "--max-decisions", "10", "--interval-tolerance", "2"});
  INFO("nicagent log:\n" << log);
  REQUIRE(rc == 0);
  CHECK(count(log, "] decision ") == 10);
  CHECK(log.find("achieved control interval") == std::string::npos);
  fs::remove_all(nic.dir);
}
