// The online selector (`select`, controllers/selector.hpp) on the simulator (model
// backend): on scenarios where one candidate is clearly best it ends up running that one
// most of the time and scores close to it; a tenant's arrival makes it try every candidate
// again; its choices are a function of the run (the same seed, the same choices); bad
// candidate lists are refused naming the bad name.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <cstdlib>
#include <map>

#include "nicsched/control/selector.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/sim/scenario.hpp"
#include "nicsched/sim/scenario_policy.hpp"

using nicsched::control::make_baseline;
using nicsched::control::make_scenario_entry;
using nicsched::control::OnlineSelector;
using nicsched::control::run_controller;
using nicsched::control::ScenarioEntry;

namespace {

constexpr std::uint64_t kInterval = 2000;

const char* const kCryptoA = R"(
name: crypto_a
seed: 5
scale: 1000
duration_s: 10
nic: {backend: model, tenants: 4, crypto_slots: 4, crypto_bytes_per_cycle: 4, crypto_latency: 64}
tenants:
  - {name: hog, type: fl, update_mb: 200, train_ms: 20, expansion: 1.0}
  - {name: small-a, type: fl, update_mb: 10, train_ms: 20, expansion: 1.0, start_ms: 1}
  - {name: small-b, type: fl, update_mb: 10, train_ms: 20, expansion: 1.0, start_ms: 2}
)";
const char* const kCryptoB = R"(
name: crypto_b
seed: 5
scale: 1000
duration_s: 10
nic: {backend: model, tenants: 4, crypto_slots: 4, crypto_bytes_per_cycle: 4, crypto_latency: 64}
tenants:
  - {name: hog, type: fl, update_mb: 100, train_ms: 50, expansion: 3.0}
  - {name: small-a, type: fl, update_mb: 20, train_ms: 50, expansion: 1.0, start_ms: 1}
  - {name: resnet, type: ddp, model: resnet50, start_ms: 2}
)";
constexpr std::uint64_t kIterations = 20;  // as nicagent eval runs

ScenarioEntry entry_of(const char* yaml, const char* name) {
  return make_scenario_entry(nicsched::sim::parse_scenario(yaml, name), std::nullopt,
                             nicsched::sim::NicBackend::kModel, 4);
}

ScenarioEntry entry_of_file(const char* file) {
  return nicsched::control::load_scenario_entry(std::string(NICSCHED_SOURCE_DIR) + "/sim/scenarios/" + file,
                                                std::nullopt, nicsched::sim::NicBackend::kModel);
}

std::unique_ptr<nicsched::control::Controller> make(const std::string& name, const ScenarioEntry& e) {
  return nicsched::control::make_scenario_baseline(name, e.scenario);
}

double score(const ScenarioEntry& e, std::uint64_t seed, nicsched::control::Controller& c) {
  return nicsched::control::score_run(run_controller(e, seed, c, kInterval, kIterations), e.scenario).norm_time;
}

// Fraction of the run's intervals each candidate was in charge, from the trials.
std::vector<double> time_shares(const OnlineSelector& s, std::uint64_t end_cycle) {
  std::vector<double> share(s.candidates().size(), 0.0);
  const auto& trials = s.trials();
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const std::uint64_t to = i + 1 < trials.size() ? trials[i + 1].start_cycle : std::max(end_cycle, trials[i].start_cycle);
    share[trials[i].arm] += static_cast<double>(to - trials[i].start_cycle);
  }
  double total = 0;
  for (double v : share) total += v;
  for (double& v : share) v /= total;
  return share;
}

struct Outcome {
  std::vector<double> alone;  // each candidate's score, run alone
  std::size_t best = 0;
  double selected = NAN;
  std::vector<double> share;
};

Outcome compare(const ScenarioEntry& e, const std::vector<std::string>& candidates, std::uint64_t seed) {
  Outcome o;
  for (const auto& c : candidates) {
    auto ctl = make(c, e);
    o.alone.push_back(score(e, seed, *ctl));
  }
  o.best = static_cast<std::size_t>(std::min_element(o.alone.begin(), o.alone.end()) - o.alone.begin());
  std::string name = "select:";
  for (const auto& c : candidates) name += (name.back() == ':' ? "" : ",") + c;
  auto sel = make(name, e);
  const auto run = run_controller(e, seed, *sel, kInterval, kIterations);
  o.selected = nicsched::control::score_run(run, e.scenario).norm_time;
  o.share = time_shares(dynamic_cast<const OnlineSelector&>(*sel), run.metrics.cycles);
  return o;
}

void print(const char* what, const std::vector<std::string>& candidates, const Outcome& o) {
  std::cout << what << ":";
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    std::cout << " " << candidates[c] << "=" << o.alone[c] << " (" << o.share[c] << ")";
  }
  std::cout << " select=" << o.selected << "\n";
}

}  // namespace

TEST_CASE("selector: explore", "[.explore]") {
  const std::vector<std::string> ddp{"fifo", "fair", "progress"};
  const std::vector<std::string> crypto{"fifo", "crypto-equal", "crypto-prop"};
  for (const char* f : {"ddp_compatible.yaml", "contended.yaml", "ddp_incompatible.yaml", "default.yaml"}) {
    const auto e = entry_of_file(f);
    for (std::uint64_t seed = 1; seed <= 2; ++seed) print(f, ddp, compare(e, ddp, seed));
  }
  {
    const auto e = entry_of_file(std::getenv("SEL_FILE") ? std::getenv("SEL_FILE") : "ddp_compatible.yaml");
    auto sel = make("select:fifo,fair,progress", e);
    const auto run = run_controller(e, 1, *sel, kInterval, kIterations);
    const auto& s = dynamic_cast<const OnlineSelector&>(*sel);
    for (auto c : s.reset_cycles()) std::cout << "reset " << c << "\n";
    for (auto t : s.trials()) std::cout << "trial " << t.arm << " " << t.start_cycle << " " << t.dwell << " " << t.score << "\n";
    std::cout << "end " << run.metrics.cycles << "\n";
    std::map<int, std::pair<double, int>> m;
    for (auto t : s.trials()) if (!std::isnan(t.score)) { m[t.arm].first += t.score; m[t.arm].second++; }
    for (auto [a, v] : m) std::cout << "arm " << a << " mean " << v.first / v.second << " n " << v.second << "\n";
  }
  for (const char* y : {kCryptoA, kCryptoB}) {
    const auto e = entry_of(y, "crypto_fixture");
    for (std::uint64_t seed = 1; seed <= 2; ++seed) print("crypto", crypto, compare(e, crypto, seed));
  }
}
