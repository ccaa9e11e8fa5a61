// Whole-scenario evaluation on the simulator (model backend): the stopping rule (every
// training tenant finished N iterations / rounds, or the scenario's end), the run score,
// and the oracle judged by the simulator, never worse than FIFO on a small fixture.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <set>

#include "nicsched/control/oracle.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/scenario.hpp"
#include "nicsched/sim/scenario_policy.hpp"

using nicsched::control::make_scenario_entry;
using nicsched::control::run_controller;
using nicsched::control::ScenarioEntry;

namespace {

// Two DDP jobs that need more than the link together and one FL client on slow crypto
// engines; small sizes so that an iteration takes tens of simulated microseconds.
const char* const kFixture = R"(
name: eval_fixture
seed: 3
scale: 1000
duration_s: 3
nic: {backend: model, tenants: 4, crypto_slots: 2, crypto_bytes_per_cycle: 4, crypto_latency: 64}
tenants:
  - {name: a, type: ddp, model: custom, model_mb: 200, compute_ms: 20}
  - {name: b, type: ddp, model: custom, model_mb: 300, compute_ms: 25, start_ms: 2}
  - {name: fl, type: fl, update_mb: 10, train_ms: 30, expansion: 2.0}
)";

constexpr std::uint64_t kInterval = 2000;

const ScenarioEntry& fixture() {
  static const ScenarioEntry e =
      make_scenario_entry(nicsched::sim::parse_scenario(kFixture, "eval_fixture"), std::nullopt, std::nullopt, 4);
  return e;
}

std::uint64_t fewest_iterations(const nicsched::control::RunResult& r) {
  std::uint64_t fewest = ~0ULL;
  for (const auto& t : r.metrics.tenants) {
    if (t.kind == "ddp" || t.kind == "fl") fewest = std::min(fewest, t.completed);
  }
  return fewest;
}

}  // namespace

TEST_CASE("eval: a run stops at the first interval where every tenant did N iterations", "[eval]") {
  const auto& e = fixture();
  auto fifo = nicsched::control::make_baseline("fifo");
  const auto r = run_controller(e, 1, *fifo, kInterval, 5);
  const std::uint64_t end = e.scenario.duration_cycles;
  REQUIRE(r.metrics.cycles < end);  // the rule, not the scenario's end, stopped it
  CHECK(fewest_iterations(r) >= 5);
  // One interval earlier (the same seed replays the same run), some tenant had not.
  ScenarioEntry shorter = e;
  shorter.cycles = r.metrics.cycles - kInterval;
  const auto before = run_controller(shorter, 1, *fifo, kInterval);
  CHECK(before.metrics.cycles == r.metrics.cycles - kInterval);
  CHECK(fewest_iterations(before) < 5);
}

TEST_CASE("eval: a run that cannot reach N iterations ends with the scenario", "[eval]") {
  ScenarioEntry e = fixture();
  e.cycles = 400000;  // far too short for 1000 iterations
  auto fifo = nicsched::control::make_baseline("fifo");
  const auto r = run_controller(e, 1, *fifo, kInterval, 1000);
  CHECK(r.metrics.cycles == 400000);
  CHECK(fewest_iterations(r) < 1000);
}

TEST_CASE("eval: a tenant that left does not hold the run open", "[eval]") {
  auto s = nicsched::sim::parse_scenario(kFixture, "eval_fixture");
  s.name = "eval_fixture_leaves";   // its own solo-baseline cache entry
  s.tenants[2].stop_cycle = 20000;  // the FL client leaves after 80 us
  const auto e = make_scenario_entry(s, std::nullopt, std::nullopt, 4);
  auto fifo = nicsched::control::make_baseline("fifo");
  const auto r = run_controller(e, 1, *fifo, kInterval, 5);
  CHECK(r.metrics.cycles < e.scenario.duration_cycles);
  CHECK(r.metrics.tenants[2].completed < 5);
  CHECK(r.metrics.tenants[0].completed >= 5);
  CHECK(r.metrics.tenants[1].completed >= 5);
}

TEST_CASE("eval: the oracle judged by the simulator is never worse than FIFO", "[eval][oracle]") {
  const auto& e = fixture();
  nicsched::control::OracleSpace space;
  space.tenants = e.scenario.nic_tenants;
  space.crypto_slots = e.scenario.crypto_slots;
  space.active = {0, 1, 2};
  space.crypto = {2};
  auto judge = [&](const nicsched::control::StaticConfig& c) {
    double sum = 0;
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      nicsched::control::StaticController ctl(c, "oracle");
      sum += nicsched::control::score_run(run_controller(e, seed, ctl, kInterval, 4), e.scenario).norm_time;
    }
    return sum / 2;
  };
  nicsched::control::OracleBudget b;
  b.evaluations = 6;
  const auto r = nicsched::control::search_oracle(space, judge, b);
  // FIFO judged independently: the fifo baseline on the same seeds and stopping rule.
  double fifo_sum = 0;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    auto fifo = nicsched::control::make_baseline("fifo");
    fifo_sum += nicsched::control::score_run(run_controller(e, seed, *fifo, kInterval, 4), e.scenario).norm_time;
  }
  REQUIRE(std::isfinite(fifo_sum));
  CHECK(r.fifo_score == Approx(fifo_sum / 2));
  CHECK(r.best_score <= r.fifo_score);
  CHECK(r.best_score == Approx(judge(r.best)));
  CHECK(r.evaluations == 6);
  CHECK(fifo_sum / 2 > 1.0);  // contended: FIFO is slower than solo
}

TEST_CASE("eval: a run's score is its tenants' iteration time over their solo time", "[eval]") {
  const auto& e = fixture();
  auto fifo = nicsched::control::make_baseline("fifo");
  const auto r = run_controller(e, 1, *fifo, kInterval, 4);
  double sum = 0;
  int n = 0;
  std::vector<double> each;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& t = r.metrics.tenants[i];
    REQUIRE(t.iter_mean_us);
    REQUIRE(e.solo[i]);
    each.push_back(*t.iter_mean_us / (*e.solo[i]->iter_mean_cycles / e.scenario.clock_mhz));
    sum += each.back();
    ++n;
  }
  const auto s = nicsched::control::score_run(r, e.scenario);
  CHECK(s.norm_time == Approx(sum / n));
  // Its terms, tenant by tenant (eval's tenants.csv).
  REQUIRE(s.tenants.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(s.tenants[i].tenant == i);
    CHECK(s.tenants[i].norm_time == Approx(each[i]));
    CHECK(s.tenants[i].finished);
  }
  CHECK(s.speed <= 1.0 + 1e-9);
}

namespace {

// A deliberately bad controller: every tenant rate-limited to ~256 bytes per 1024 cycles.
class Starve final : public nicsched::control::Controller {
 public:
  [[nodiscard]] std::string name() const override { return "starve"; }
  [[nodiscard]] std::unique_ptr<nicsched::control::Controller> clone() const override {
    return std::make_unique<Starve>(*this);
  }
  nicsched::host::Policy decide(const nicsched::control::TelemetryTracker& /*tracker*/,
                                const nicsched::host::Policy& base) override {
    auto p = base;
    for (auto& t : p.tenants) {
      t.rate_limited = true;
      t.rate_bytes_per_kcycle = 256;
      t.burst_bytes = 4096;
    }
    return p;
  }
};

nicsched::sim::Family train_family() { return nicsched::sim::load_family(NICSCHED_SOURCE_DIR "/sim/families/train.yaml"); }

}  // namespace

TEST_CASE("family training: validation seeds are held out of the training draws", "[eval][family]") {
  const auto f = train_family();
  const auto train = nicsched::control::training_seeds(f);
  const auto val = nicsched::control::validation_seeds(f);
  CHECK(train.first == f.seed_first);
  CHECK(val.last == f.seed_last);
  CHECK(train.last + 1 == val.first);
  CHECK(val.first == 900000);  // train.yaml: seeds 1..999999
  CHECK(val.last - val.first + 1 == (f.seed_last - f.seed_first + 1 + 9) / 10);
  // Every episode seed maps into the training seeds; different episodes draw different scenarios.
  std::vector<std::uint64_t> drawn;
  auto family = std::make_shared<const nicsched::sim::Family>(f);
  auto factory = nicsched::control::family_target_factory(
      family, 20000, nicsched::sim::NicBackend::kModel,
      [&](std::uint64_t s, const ScenarioEntry& draw) {
        drawn.push_back(s);
        CHECK(draw.scenario.name == family->scenario_name(s));
      });
  for (const std::uint64_t seed : {1ULL, 2ULL, 1000ULL, 123456789ULL, ~0ULL, 899998ULL, 899999ULL}) (void)factory(seed);
  (void)factory(0);  // the shape probe is no episode
  // family seed = 1 + episode seed mod 899999 (the training seeds 1..899999)
  CHECK(drawn == std::vector<std::uint64_t>{2, 3, 1001, 156927, 129521, 899999, 1});
  // A family of one seed cannot be split.
  auto one = f;
  one.seed_last = one.seed_first;
  CHECK_THROWS_AS(nicsched::control::validation_seeds(one), nicsched::control::EnvError);
}

TEST_CASE("family training: each episode observes its own draw's NIC", "[eval][family]") {
  // An episode on a draw whose link differs from the draw NicEnv probed its shape on sees
  // exactly what an env built on that draw alone sees (rates relative to its own link).
  auto family = std::make_shared<const nicsched::sim::Family>(train_family());
  const auto train = nicsched::control::training_seeds(*family);
  const double probe_link = family->draw(train.first).link_bytes_per_cycle();
  std::uint64_t s = train.first + 1;
  while (family->draw(s).link_bytes_per_cycle() == probe_link) ++s;
  // Tenants start within 300 simulated us (75,000 cycles): 50 steps see them all.
  constexpr std::uint64_t kCycles = 102000;
  nicsched::control::NicEnvConfig cfg;
  cfg.episode_steps = 50;
  nicsched::control::NicEnv drawn(
      cfg, nicsched::control::family_target_factory(family, kCycles, nicsched::sim::NicBackend::kModel));
  auto alone = std::make_shared<std::vector<ScenarioEntry>>();
  alone->push_back(make_scenario_entry(family->draw(s), kCycles, nicsched::sim::NicBackend::kModel, 6, {}));
  nicsched::control::NicEnv fixed(cfg, nicsched::control::sim_target_factory(alone, 0));
  REQUIRE(drawn.observation_size() == fixed.observation_size());
  std::vector<float> a(drawn.observation_size()), b(fixed.observation_size());
  const std::uint64_t episode_seed = s - train.first;  // family seed train.first + episode seed
  drawn.reset(episode_seed, a);
  fixed.reset(episode_seed, b);
  CHECK(a == b);
  std::vector<int> action(drawn.action_space().heads(), 0);
  float busiest = 0;  // the largest bytes / line-rate bytes of a tenant in an interval
  for (int k = 0; k < 50; ++k) {
    const auto ra = drawn.step(action, a);
    const auto rb = fixed.step(action, b);
    CHECK(a == b);
    CHECK(ra.reward == rb.reward);
    CHECK(ra.truncated == rb.truncated);
    for (std::size_t t = 0; t < drawn.caps().tenants; ++t) {
      busiest = std::max(busiest, a[t * nicsched::control::ObservationEncoder::kTenantFeatures +
                                    nicsched::control::TenantFeature::kLinkFraction]);
    }
  }
  CHECK(busiest > 0.05F);  // traffic was seen
}

TEST_CASE("validation: the score ranks a starving controller below FIFO", "[eval][validation]") {
  const auto f = train_family();
  const auto entries = nicsched::control::family_entries(f, nicsched::control::validation_seeds(f).first, 2, 400000,
                                                         nicsched::sim::NicBackend::kModel);
  nicsched::control::ParallelFor pool(1);
  const auto score = [&](const std::function<std::unique_ptr<nicsched::control::Controller>()>& make) {
    return nicsched::control::validation_score(entries, 1, make, kInterval, 20, pool);
  };
  const double fifo = score([] { return nicsched::control::make_baseline("fifo"); });
  const double starve = score([] { return std::make_unique<Starve>(); });
  REQUIRE(std::isfinite(fifo));
  REQUIRE(std::isfinite(starve));
  CHECK(fifo >= 1.0);
  CHECK(starve > 2 * fifo);
  // The score is the mean over scenarios of each one's mean_norm_time.
  double sum = 0;
  for (const auto& e : entries) {
    auto ctl = nicsched::control::make_baseline("fifo");
    sum += nicsched::control::mean_norm_time({run_controller(e, 1, *ctl, kInterval, 20)}, e.scenario);
  }
  CHECK(fifo == Approx(sum / 2));
}

TEST_CASE("best_baseline: the chosen teacher is the argmin of the scores computed independently", "[eval][teacher]") {
  // behaviour cloning's per-draw teacher (nicagent train --bc-teacher best:...): on a few
  // training draws, each candidate run and scored here by hand (run_controller, score_run,
  // sp with the scenario's priorities), the choice the lowest of them.
  const auto f = train_family();
  const auto train = nicsched::control::training_seeds(f);
  const std::vector<std::string> candidates{"fifo", "fair", "sp", "las", "progress"};
  nicsched::control::ParallelFor pool(1);
  std::set<std::string> winners;
  double widest_spread = 0;
  for (std::uint64_t seed = train.first; seed < train.first + 3; ++seed) {
    const auto entry = make_scenario_entry(f.draw(seed), 300000, nicsched::sim::NicBackend::kModel, 6, {});
    const auto choice = nicsched::control::best_baseline(entry, candidates, 1, kInterval, 20, pool);
    INFO(entry.scenario.name);
    REQUIRE(choice.scores.size() == candidates.size());
    std::vector<double> mine;
    for (const auto& name : candidates) {
      auto ctl = nicsched::control::make_baseline(
          name, nicsched::sim::scenario_priorities(entry.scenario, entry.scenario.nic_tenants));
      const auto run = run_controller(entry, 1, *ctl, kInterval, 20);
      mine.push_back(nicsched::control::score_run(run, entry.scenario).norm_time);
    }
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      INFO(candidates[c]);
      REQUIRE(std::isfinite(mine[c]));
      CHECK(choice.scores[c] == Approx(mine[c]).epsilon(1e-12));
    }
    const auto lowest = std::min_element(mine.begin(), mine.end());
    CHECK(choice.best == static_cast<std::size_t>(lowest - mine.begin()));
    widest_spread = std::max(widest_spread, *std::max_element(mine.begin(), mine.end()) / *lowest - 1);
    winners.insert(candidates[choice.best]);
  }
  CHECK(widest_spread > 0.01);  // the candidates differ, so the choice means something
  CHECK_THROWS_AS(nicsched::control::best_baseline(fixture(), {}, 1, kInterval, 20, pool),
                  nicsched::control::EnvError);
  CHECK_THROWS_WITH(nicsched::control::best_baseline(fixture(), {"fifo", "nope"}, 1, kInterval, 20, pool),
                    Catch::Contains("unknown baseline 'nope'"));
}
