// The online selector (`select`, controllers/selector.hpp) on the simulator (model
// backend): on scenarios where one candidate is clearly best it ends up running that one
// most of the time and scores close to it; a tenant's arrival makes it try every candidate
// again; its choices are a function of the run (the same seed, the same choices); bad
// candidate lists are refused naming the bad name.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>

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

// Crypto-bound: three FL clients on 4 slots of a slow engine, one with a 20x larger update.
const char* const kCryptoBound = R"(
name: selector_crypto_bound
seed: 5
scale: 1000
duration_s: 10
nic: {backend: model, tenants: 4, crypto_slots: 4, crypto_bytes_per_cycle: 4, crypto_latency: 64}
tenants:
  - {name: hog, type: fl, update_mb: 200, train_ms: 20, expansion: 1.0}
  - {name: small-a, type: fl, update_mb: 10, train_ms: 20, expansion: 1.0, start_ms: 1}
  - {name: small-b, type: fl, update_mb: 10, train_ms: 20, expansion: 1.0, start_ms: 2}
)";
// Four ResNet-50 jobs whose bursts collide (sim/scenarios/ddp_compatible.yaml), the
// fourth arriving a third of the way into the run.
const char* const kLateArrival = R"(
name: selector_late_arrival
seed: 2
scale: 1000
duration_s: 10
tenants:
  - {name: resnet-a, type: ddp, model: resnet50, compute_ms: 60, start_ms: 0, jitter: 0.02}
  - {name: resnet-b, type: ddp, model: resnet50, compute_ms: 60, start_ms: 3, jitter: 0.02}
  - {name: resnet-c, type: ddp, model: resnet50, compute_ms: 60, start_ms: 6, jitter: 0.02}
  - {name: resnet-d, type: ddp, model: resnet50, compute_ms: 60, start_ms: 600, jitter: 0.02}
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

// A selector run to the end: the run's result and the selector that decided in it
// (run_controller decides with a clone of the controller it is given, which it leaves as is).
struct SelectorRun {
  nicsched::control::RunResult result;
  std::unique_ptr<nicsched::control::Controller> ran;
  [[nodiscard]] const OnlineSelector& selector() const { return dynamic_cast<const OnlineSelector&>(*ran); }
};

SelectorRun run_selector(const ScenarioEntry& e, std::uint64_t seed, const std::string& name) {
  nicsched::control::ControlledRun run(e, seed, make(name, e), kInterval, kIterations);
  while (run.step()) {
  }
  return {run.result(), run.controller().clone()};
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
  const auto r = run_selector(e, seed, name);
  o.selected = nicsched::control::score_run(r.result, e.scenario).norm_time;
  o.share = time_shares(r.selector(), r.result.metrics.cycles);
  return o;
}

// What "clearly best" means here: the worst candidate is at least this much slower than
// the best, run alone; and the selector's margin: its score at most this much above the best.
constexpr double kClearGap = 0.04;
constexpr double kMargin = 0.05;

void check_exploits_best(const ScenarioEntry& e, const std::vector<std::string>& candidates) {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    const auto o = compare(e, candidates, seed);
    INFO(e.scenario.name << " seed " << seed << ": best " << candidates[o.best] << " " << o.alone[o.best]
                         << ", selector " << o.selected << ", its share of the run " << o.share[o.best]);
    REQUIRE(std::isfinite(o.selected));
    REQUIRE(*std::max_element(o.alone.begin(), o.alone.end()) > (1 + kClearGap) * o.alone[o.best]);
    CHECK(o.share[o.best] > 0.5);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      if (c != o.best) CHECK(o.share[o.best] > o.share[c]);
    }
    CHECK(o.selected <= (1 + kMargin) * o.alone[o.best]);
  }
}

}  // namespace

TEST_CASE("selector: exploits the progress-aware baseline where it is clearly best", "[selector]") {
  // sim/scenarios/default.yaml: four DDP jobs, two FL clients, background traffic; the least
  // remaining burst first is 5 % faster than FIFO and DWRR.
  check_exploits_best(entry_of_file("default.yaml"), {"fifo", "fair", "progress"});
}

TEST_CASE("selector: on a crypto-bound scenario keeps the candidate that wins there", "[selector]") {
  // Splitting the slots (crypto-equal, crypto-prop) leaves slots idle while the small
  // clients train: FIFO wins by 13 % and more; the selector must find that from the run.
  check_exploits_best(entry_of(kCryptoBound, "selector_crypto_bound"), {"crypto-equal", "crypto-prop", "fifo"});
}

TEST_CASE("selector: a tenant's arrival makes it try every candidate again", "[selector]") {
  const auto e = entry_of(kLateArrival, "selector_late_arrival");
  const std::vector<std::string> candidates{"fifo", "fair", "progress"};
  const auto r = run_selector(e, 1, "select:fifo,fair,progress");
  const auto& run = r.result;
  const auto& sel = r.selector();
  const std::uint64_t arrival = e.scenario.tenants[3].start_cycle;
  REQUIRE(arrival > 100000);
  REQUIRE(run.metrics.tenants[3].completed > 3);  // it arrived, and the run went on long enough
  // A reset soon after the arrival (the tenant's first send follows its first compute
  // phase, 60 us = 15,000 cycles, and the interval in which it is seen).
  const auto& resets = sel.reset_cycles();
  const auto after = std::find_if(resets.begin(), resets.end(), [&](std::uint64_t c) { return c >= arrival; });
  REQUIRE(after != resets.end());
  CHECK(*after <= arrival + 15000 + 4 * kInterval);
  // Before the arrival the selector had settled (no reset in the last 100,000 cycles before it)...
  CHECK(std::none_of(resets.begin(), resets.end(),
                     [&](std::uint64_t c) { return c + 100000 > arrival && c < arrival; }));
  // ... and after it, every candidate had a trial again.
  std::vector<bool> tried(candidates.size(), false);
  for (const auto& t : sel.trials()) {
    if (t.start_cycle >= *after) tried[t.arm] = true;
  }
  CHECK(std::all_of(tried.begin(), tried.end(), [](bool b) { return b; }));
}

TEST_CASE("selector: the same seed gives the same choices", "[selector]") {
  const auto e = entry_of_file("default.yaml");
  const auto trials = [&](std::uint64_t seed) {
    return run_selector(e, seed, "select").selector().trials();
  };
  const auto a = trials(1), b = trials(1), c = trials(2);
  REQUIRE(a.size() > 4);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].arm == b[i].arm);
    CHECK(a[i].start_cycle == b[i].start_cycle);
    CHECK(a[i].dwell == b[i].dwell);
    CHECK((a[i].score == b[i].score || (std::isnan(a[i].score) && std::isnan(b[i].score))));
  }
  // Another seed is another run (jitter): the trials are not a fixed schedule.
  bool differs = a.size() != c.size();
  for (std::size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].start_cycle != c[i].start_cycle || a[i].score != c[i].score;
  CHECK(differs);
}

TEST_CASE("selector: named like any baseline, bad candidate lists refused naming the bad name", "[selector]") {
  const auto& names = nicsched::control::baseline_names();
  CHECK(std::find(names.begin(), names.end(), "select") != names.end());
  auto sel = make_baseline("select");
  CHECK(sel->name() == "select");
  CHECK(dynamic_cast<const OnlineSelector&>(*sel).candidates() == nicsched::control::kDefaultSelectCandidates);
  auto own = make_baseline("select:fifo,progress+guard,sp+guard8");
  CHECK(own->name() == "select:fifo,progress+guard,sp+guard8");
  CHECK(dynamic_cast<const OnlineSelector&>(*own).candidates() ==
        std::vector<std::string>{"fifo", "progress+guard", "sp+guard8"});
  using Catch::Contains;
  CHECK_THROWS_WITH(make_baseline("select:fifo,lifo"), Contains("candidate 2") && Contains("'lifo'"));
  CHECK_THROWS_WITH(make_baseline("select:fifo,sp+guardx"), Contains("candidate 2") && Contains("interval count"));
  CHECK_THROWS_WITH(make_baseline("select:"), Contains("candidate 1 is empty"));
  CHECK_THROWS_WITH(make_baseline("select:fifo,,sp"), Contains("candidate 2 is empty"));
  CHECK_THROWS_WITH(make_baseline("select:fifo,fifo"), Contains("'fifo' is given twice"));
  CHECK_THROWS_WITH(make_baseline("select:fifo,select"), Contains("'select' is a selector itself"));
  CHECK_THROWS_WITH(make_baseline("selectx"), Contains("unknown baseline 'selectx'") && Contains("select:A,B"));
}
