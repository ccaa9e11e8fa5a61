// Simulation::fork: a copy taken at any point of a run continues exactly as the original
// (every metric, the progress series, the NIC's counters and integrity checks equal at the
// end), shares nothing with it (a copy run under another policy leaves the original as an
// unforked run), and a run that cannot be copied says why.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/scenario_policy.hpp"
#include "nicsched/sim/simulation.hpp"
#include "observe.hpp"

using namespace nicsched;
using namespace nicsched::sim;
using nicsched::sim::test::observe;
using nicsched::sim::test::run_intervals;
using nlohmann::json;

namespace {

Scenario on_model(Scenario s) {
  s.backend = NicBackend::kModel;
  return s;
}

Scenario scenario(const char* name) {
  return on_model(load_scenario(std::string(NICSCHED_SOURCE_DIR) + "/sim/scenarios/" + name));
}

// A draw of the train family with FL clients (crypto) and background traffic beside DDP:
// every workload kind but pcap in one run. The first such seed, so the test is fixed.
Scenario mixed_family_draw() {
  const Family f = load_family(std::string(NICSCHED_SOURCE_DIR) + "/sim/families/train.yaml");
  for (std::uint64_t seed = f.seed_first; seed < f.seed_first + 200; ++seed) {
    Scenario s = f.draw(seed);
    bool fl = false, background = false;
    for (const auto& t : s.tenants) {
      fl = fl || t.kind == WorkloadKind::kFl;
      background = background || t.kind == WorkloadKind::kBackground;
    }
    if (fl && background) return on_model(std::move(s));
  }
  FAIL("no train draw among the first 200 seeds has both FL and background tenants");
  return {};
}

SimOptions options(std::uint64_t cycles, const char* baseline = "fair") {
  SimOptions o;
  o.baseline = baseline;
  o.cycles = cycles;
  return o;
}

// Runs `s` to the end, forking at `points` random cycles (drawn from `seed`) and running
// every copy to the end too: each copy's observation must equal the original's, and the
// original's must equal a run that was never forked.
void check_forks_continue_exactly(const Scenario& s, std::uint64_t cycles, std::uint64_t seed, int points) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> at;
  for (int k = 0; k < points; ++k) at.push_back(std::uniform_int_distribution<std::uint64_t>(1, cycles - 1)(rng));
  std::sort(at.begin(), at.end());
  const std::uint64_t interval = 1000 + rng() % 4000;  // fork points mid-interval too

  Simulation original(s, options(cycles));
  std::vector<std::unique_ptr<Simulation>> copies;
  for (const std::uint64_t c : at) {
    run_intervals(original, c, interval);
    copies.push_back(original.fork());
  }
  run_intervals(original, cycles, interval);
  const json expected = observe(original);
  CHECK(original.integrity_errors() == 0);
  CHECK(original.frames_checked() > 100);

  for (std::size_t k = 0; k < copies.size(); ++k) {
    INFO("forked at cycle " << at[k]);
    run_intervals(*copies[k], cycles, interval);
    CHECK(observe(*copies[k]) == expected);
  }

  Simulation unforked(s, options(cycles));
  for (const std::uint64_t c : at) run_intervals(unforked, c, interval);
  run_intervals(unforked, cycles, interval);
  CHECK(observe(unforked) == expected);
}

}  // namespace

TEST_CASE("a forked simulation continues exactly as the original", "[fork]") {
  struct Case {
    const char* what;
    Scenario s;
    std::uint64_t cycles;
  };
  const std::vector<Case> cases = {
      {"default", scenario("default.yaml"), 400000},
      {"contended", scenario("contended.yaml"), 400000},
      {"heavy_crypto", scenario("heavy_crypto.yaml"), 400000},
      {"with_background", scenario("with_background.yaml"), 400000},
      {"sixteen_tenants", scenario("sixteen_tenants.yaml"), 400000},
      {"train family draw with FL and background", mixed_family_draw(), 600000},
  };
  for (const auto& c : cases) {
    for (const std::uint64_t seed : {1ULL, 2ULL, 3ULL}) {
      INFO(c.what << ", fork seed " << seed);
      Scenario s = c.s;
      s.seed += seed;  // other workload draws (jitter, Poisson gaps) per seed
      check_forks_continue_exactly(s, c.cycles, seed, 8);
    }
  }
}

TEST_CASE("a forked simulation is independent of the original", "[fork]") {
  const Scenario s = scenario("heavy_crypto.yaml");
  const std::uint64_t cycles = 300000, interval = 2000;
  Simulation original(s, options(cycles, "fair"));
  run_intervals(original, cycles / 3, interval);
  const auto copy = original.fork();
  // The copy runs the rest under strict priority and then some register traffic of its own.
  const host::Capabilities caps = host::discover(*copy);
  host::apply_policy(*copy, caps, with_scenario_classifier(baseline_policy("sp", s, caps), s));
  run_intervals(*copy, cycles, interval / 2);
  const json copied = observe(*copy);
  run_intervals(original, cycles, interval);
  const json kept = observe(original);

  Simulation unforked(s, options(cycles, "fair"));
  run_intervals(unforked, cycles / 3, interval);
  run_intervals(unforked, cycles, interval);
  CHECK(kept == observe(unforked));
  CHECK(copied["tenants"] != kept["tenants"]);  // the copy really ran another policy
}

TEST_CASE("a fork of a fork, and a fork dropped early, change nothing", "[fork]") {
  const Scenario s = scenario("default.yaml");
  const std::uint64_t cycles = 200000;
  Simulation original(s, options(cycles));
  run_intervals(original, 50000, 3000);
  auto first = original.fork();
  run_intervals(*first, 90000, 3000);
  auto second = first->fork();
  {
    auto dropped = second->fork();  // destroyed mid-run: must free nothing the others use
    run_intervals(*dropped, 120000, 3000);
  }
  first.reset();
  run_intervals(*second, cycles, 3000);
  run_intervals(original, cycles, 3000);
  CHECK(observe(*second) == observe(original));
}

TEST_CASE("forking the rtl backend is refused with the reason", "[fork]") {
  Scenario s = scenario("default.yaml");
  s.backend = NicBackend::kRtl;
  Simulation sim(s, options(20000));
  sim.step(5000);
  const std::uint64_t before = sim.cycle();
  CHECK_THROWS_WITH(sim.fork(), Catch::Contains("rtl backend cannot be forked") && Catch::Contains("--backend model"));
  sim.step(5000);  // the refused fork left the run as it was
  CHECK(sim.cycle() == before + 5000);
  CHECK(sim.integrity_errors() == 0);
}

TEST_CASE("forking a run that writes a capture is refused with the file", "[fork]") {
  const auto file = std::filesystem::temp_directory_path() / "nicsched_test_fork.pcap";
  SimOptions o = options(20000);
  o.pcap_out = file;
  Simulation sim(scenario("default.yaml"), o);
  sim.step(5000);
  CHECK_THROWS_WITH(sim.fork(), Catch::Contains(file.string()) && Catch::Contains("pcap_out"));
  std::filesystem::remove(file);
}
