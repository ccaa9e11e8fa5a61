// Scenarios drawn from the shipped families run on the simulated NIC: frames intact and
// attributed, traffic delivered, the crypto engines used where FL clients are.
#include <catch2/catch.hpp>

#include <string>

#include "nicsched/sim/family.hpp"
#include "nicsched/sim/simulation.hpp"

using namespace nicsched::sim;

namespace {

Family family(const std::string& name) {
  return load_family(std::string(NICSCHED_SOURCE_DIR) + "/sim/families/" + name + ".yaml");
}

RunMetrics run_short(Scenario s, std::uint64_t cycles) {
  s.backend = NicBackend::kModel;
  SimOptions o;
  o.cycles = cycles;
  Simulation sim(s, o);
  sim.run_to_end();
  CHECK(sim.integrity_errors() == 0);
  CHECK(sim.misattributed() == 0);
  CHECK(sim.frames_checked() > 100);
  return sim.metrics();
}

}  // namespace

TEST_CASE("scenarios drawn from every family run a short while with intact traffic", "[family]") {
  for (const char* name : {"train", "test", "comm-heavy", "crypto-bound", "background", "arrivals"}) {
    const Family f = family(name);
    for (std::uint64_t seed = f.seed_first; seed < f.seed_first + 2; ++seed) {
      INFO(name << " seed " << seed);
      const RunMetrics m = run_short(f.draw(seed), 300000);
      CHECK(m.link_utilisation_tx > 0.0);
      CHECK(m.link_utilisation_tx <= 1.0);
    }
  }
}

TEST_CASE("a crypto-bound draw keeps the engines busy under FIFO", "[family]") {
  // Two FL clients at least, on 4 x 1 byte/cycle engines, over 1.5 M cycles.
  const Family f = family("crypto-bound");
  const Scenario s = f.draw(f.seed_first);
  REQUIRE(load_figures(s).fl_tenants >= 2);
  const RunMetrics m = run_short(s, 1500000);
  CHECK(m.crypto_utilisation > 0.5);
}
