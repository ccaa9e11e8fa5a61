// Event-driven stepping of the model backend (refmodel::Stepping::kEvent) against the
// per-cycle step, the definition: every hand-written scenario and draws of every family,
// each run through both with the same register traffic (telemetry snapshots every
// interval, a policy with rate limits, the control level and tight crypto quotas
// committed mid-run, then the baseline again), must leave the same metrics JSON
// (wall-clock fields aside), progress series, MAC statistics and registers.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/scenario_policy.hpp"
#include "nicsched/sim/simulation.hpp"
#include "observe.hpp"

using namespace nicsched;
using namespace nicsched::sim;
using nicsched::sim::test::observe;
using nicsched::sim::test::run_intervals;

namespace {

const std::filesystem::path kSource = NICSCHED_SOURCE_DIR;
constexpr std::uint64_t kMaxCycles = 150000;  // per run; the test's runtime is the CI's

// The baseline's policy with every other tenant rate limited (some below what it offers,
// so heads wait for their bucket), the control level on, and crypto quotas of one slot.
host::Policy squeezed(const Scenario& s, const host::Capabilities& caps, const std::string& baseline) {
  host::Policy p = with_scenario_classifier(baseline_policy(baseline, s, caps), s);
  p.control_level = true;
  for (std::size_t t = 0; t < p.tenants.size(); ++t) {
    auto& tc = p.tenants[t];
    tc.crypto_quota = 1;
    tc.ctrl_rate_bytes_per_kcycle = 2048;
    tc.ctrl_burst_bytes = 1600;
    if (t % 2 == 1) {
      tc.rate_limited = true;
      tc.rate_bytes_per_kcycle = static_cast<std::uint32_t>(4000 + 3000 * t);
      tc.burst_bytes = 3000;
    }
  }
  return p;
}

nlohmann::json run(const Scenario& s, const std::string& baseline, refmodel::Stepping stepping) {
  SimOptions o;
  o.baseline = baseline;
  o.cycles = std::min<std::uint64_t>(s.duration_cycles, kMaxCycles);
  o.model_stepping = stepping;
  const std::uint64_t end = *o.cycles;
  Simulation sim(s, o);
  const std::uint64_t interval = 1700;  // not a multiple of anything the workloads use
  run_intervals(sim, end / 3, interval);
  const host::Capabilities caps = host::discover(sim);
  host::apply_policy(sim, caps, squeezed(s, caps, baseline));
  run_intervals(sim, 2 * end / 3, interval);
  host::apply_policy(sim, caps, with_scenario_classifier(baseline_policy(baseline, s, caps), s));
  run_intervals(sim, end, interval);
  CHECK(sim.integrity_errors() == 0);
  return observe(sim);
}

void check_equivalent(Scenario s, const std::string& baseline) {
  s.backend = NicBackend::kModel;
  const nlohmann::json per_cycle = run(s, baseline, refmodel::Stepping::kPerCycle);
  const nlohmann::json event = run(s, baseline, refmodel::Stepping::kEvent);
  CHECK(per_cycle["integrity"][2].get<std::uint64_t>() > 0);  // frames moved
  if (event != per_cycle) {
    // The first differing field, not two pages of JSON.
    const nlohmann::json diff = nlohmann::json::diff(per_cycle, event);
    FAIL("event-driven stepping differs from per-cycle stepping: " << diff.dump().substr(0, 2000));
  }
}

const std::vector<std::string> kBaselines = {"fifo", "fair", "sp"};

}  // namespace

TEST_CASE("event-driven stepping gives the per-cycle results on every hand-written scenario", "[event]") {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(kSource / "sim/scenarios")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 8);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& baseline = kBaselines[i % kBaselines.size()];
    INFO(files[i].filename().string() << " under " << baseline);
    check_equivalent(load_scenario(files[i]), baseline);
  }
}

TEST_CASE("event-driven stepping gives the per-cycle results on draws of every family", "[event]") {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(kSource / "sim/families")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 8);
  std::size_t k = 0;
  for (const auto& file : files) {
    const Family f = load_family(file);
    for (const std::uint64_t seed : {f.seed_first, f.seed_first + (f.seed_last - f.seed_first) / 2}) {
      const std::string& baseline = kBaselines[k++ % kBaselines.size()];
      INFO(file.filename().string() << " seed " << seed << " under " << baseline);
      check_equivalent(f.draw(seed), baseline);
    }
  }
}
