// Scenario families: the shipped families load and draw loadable scenarios; a draw is a
// function of (family, seed); train and test are disjoint; bad families are refused with
// file, line and field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "nicsched/sim/error.hpp"
#include "refused.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/presets.hpp"

using namespace nicsched::sim;
using nicsched::test::check_refused;
using nicsched::test::Refusal;

namespace {

std::filesystem::path families_dir() { return std::filesystem::path(NICSCHED_SOURCE_DIR) / "sim" / "families"; }

Family family(const std::string& name) { return load_family(families_dir() / (name + ".yaml")); }

// A family with every section, each line numbered for the error tests.
const std::string kGood =
    "name: f\n"                                              // 1
    "seeds: {first: 10, last: 20}\n"                         // 2
    "duration_s: 5\n"                                        // 3
    "tenants: {choice: [2, 3]}\n"                            // 4
    "link_gbps: {choice: [25, 100]}\n"                       // 5
    "mix: {ddp: 1, fl: 1, background: 1}\n"                  // 6
    "ddp:\n"                                                 // 7
    "  model: {choice: [resnet50-a100, bert-large-h100]}\n"  // 8
    "  compute_factor: {uniform: [0.8, 1.2]}\n"              // 9
    "fl:\n"                                                  // 10
    "  update_mb: {choice: [14, 46.8]}\n"                    // 11
    "  train_ms: {uniform: [100, 200]}\n"                    // 12
    "background:\n"                                          // 13
    "  load: {uniform: [0.1, 0.2]}\n"                        // 14
    "arrivals: {probability: 0.5, at_s: {uniform: [1, 2]}, stay_s: 1}\n";  // 15

ScenarioError fails(const std::string& text) { return nicsched::test::refused(parse_family, text); }

// kGood with line `line` (1-based) replaced.
std::string with_line(std::size_t line, const std::string& replacement) {
  std::string out;
  std::size_t n = 1;
  std::size_t pos = 0;
  while (pos < kGood.size()) {
    const std::size_t end = kGood.find('\n', pos);
    out += n == line ? replacement + "\n" : kGood.substr(pos, end - pos + 1);
    pos = end + 1;
    ++n;
  }
  return out;
}

// kGood with line `line` replaced by `text`: refused at that line, naming `key`, saying `says`.
Refusal bad_line(std::size_t line, const std::string& text, std::string key, std::string says = "") {
  return {with_line(line, text), line, std::move(key), std::move(says)};
}

}  // namespace

TEST_CASE("every shipped family loads and its draws load and fit their NIC", "[family]") {
  int families = 0;
  for (const auto& e : std::filesystem::directory_iterator(families_dir())) {
    if (e.path().extension() != ".yaml") continue;
    INFO(e.path());
    const Family f = load_family(e.path());
    CHECK(f.name == e.path().stem().string());
    for (std::uint64_t seed = f.seed_first; seed < f.seed_first + 25; ++seed) {
      INFO("seed " << seed);
      const Scenario s = f.draw(seed);
      CHECK(s.name == f.scenario_name(seed));
      CHECK(s.seed == seed);
      CHECK(f.tenants.can_produce(static_cast<double>(s.tenants.size())));
      CHECK(s.tenants.size() <= s.nic_tenants);
      CHECK(f.link_gbps.can_produce(s.link_gbps));
      CHECK(s.clock_mhz == kShellClockMhz);  // no draw runs at a clock no core reaches
      CHECK(f.crypto_engine.can_produce(s.crypto_engine));
      CHECK(s.classifier_entries_needed() <= 2 * s.nic_tenants);
      std::uint32_t ddp = 0, fl = 0, bg = 0;
      for (const auto& t : s.tenants) {
        ddp += t.kind == WorkloadKind::kDdp;
        fl += t.kind == WorkloadKind::kFl;
        bg += t.kind == WorkloadKind::kBackground;
        if (t.kind == WorkloadKind::kDdp) CHECK(f.ddp.model.can_produce(t.model));
        CHECK(t.start_cycle < s.duration_cycles);
      }
      CHECK(ddp >= f.min_ddp);
      CHECK(fl >= f.min_fl);
      CHECK(bg >= f.min_background);
    }
    ++families;
  }
  CHECK(families >= 6);
}

TEST_CASE("a draw is a function of the family and the seed", "[family]") {
  const Family a = family("train");
  const Family b = family("train");  // loaded again: nothing carried over between loads
  std::set<std::string> texts;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const std::string text = a.draw_yaml(seed);
    CHECK(text == a.draw_yaml(seed));
    CHECK(text == b.draw_yaml(seed));
    texts.insert(text);
  }
  CHECK(texts.size() == 30);  // different seeds, different scenarios
  // The same seed in another family is another scenario.
  const Family heavy = family("comm-heavy");
  CHECK(heavy.draw_yaml(1) != a.draw_yaml(1));
  // draw() is the parsed text: same tenants, same numbers.
  const Scenario s = a.draw(7);
  const Scenario t = parse_scenario(a.draw_yaml(7), "x.yaml");
  REQUIRE(s.tenants.size() == t.tenants.size());
  for (std::size_t i = 0; i < s.tenants.size(); ++i) {
    CHECK(s.tenants[i].name == t.tenants[i].name);
    CHECK(s.tenants[i].compute_cycles == t.tenants[i].compute_cycles);
    CHECK(s.tenants[i].burst_bytes == t.tenants[i].burst_bytes);
    CHECK(s.tenants[i].start_cycle == t.tenants[i].start_cycle);
  }
}

TEST_CASE("a seed outside the family's range is refused", "[family]") {
  const Family f = parse_family(kGood, "f.yaml");
  CHECK_NOTHROW(f.draw_yaml(10));
  CHECK_NOTHROW(f.draw_yaml(20));
  CHECK_THROWS_AS(f.draw_yaml(9), SimError);
  CHECK_THROWS_WITH(f.draw_yaml(21), Catch::Contains("outside the family's seeds [10, 20]"));
}

TEST_CASE("train and test draw from disjoint seeds", "[family]") {
  const Family train = family("train");
  const Family test = family("test");
  CHECK((train.seed_last < test.seed_first || test.seed_last < train.seed_first));
  CHECK_THROWS_AS(train.draw_yaml(test.seed_first), SimError);
  CHECK_THROWS_AS(test.draw_yaml(train.seed_last), SimError);
}

TEST_CASE("the test family produces combinations the train family never produces", "[family]") {
  const Family train = family("train");
  const Family test = family("test");
  // What the test family's header promises, from the distributions themselves.
  CHECK(test.tenants.can_produce(16));
  CHECK_FALSE(train.tenants.can_produce(16));
  CHECK(test.link_gbps.can_produce(50));
  CHECK_FALSE(train.link_gbps.can_produce(50));
  CHECK(test.crypto_engine.can_produce("cast-gcm-x2"));
  CHECK_FALSE(train.crypto_engine.can_produce("cast-gcm-x2"));
  CHECK(test.ddp.model.can_produce("gpt2-xl-h100"));
  CHECK_FALSE(train.ddp.model.can_produce("gpt2-xl-h100"));
  CHECK(test.fl.update_mb.can_produce(440));
  CHECK_FALSE(train.fl.update_mb.can_produce(440));
  CHECK(test.fl.expansion.max() > train.fl.expansion.max());

  // And the draws: over 200 seeds each, the test family produces them, the train never.
  int test_16 = 0, test_50g = 0, test_x2 = 0, test_gpt_h100 = 0;
  for (std::uint64_t seed = test.seed_first; seed < test.seed_first + 200; ++seed) {
    const Scenario s = test.draw(seed);
    test_16 += s.tenants.size() == 16;
    test_50g += s.link_gbps == 50;
    test_x2 += s.crypto_engine == "cast-gcm-x2";
    for (const auto& t : s.tenants) test_gpt_h100 += t.model == "gpt2-xl-h100";
  }
  CHECK(test_16 > 0);
  CHECK(test_50g > 0);
  CHECK(test_x2 > 0);
  CHECK(test_gpt_h100 > 0);
  for (std::uint64_t seed = train.seed_first; seed < train.seed_first + 200; ++seed) {
    const Scenario s = train.draw(seed);
    CHECK(s.tenants.size() <= 8);
    CHECK(s.link_gbps <= 100);
    CHECK(s.crypto_engine != "cast-gcm-x2");
    for (const auto& t : s.tenants) CHECK(t.model != "gpt2-xl-h100");
  }
}

TEST_CASE("a family's link fits the 64-byte datapath at the shell's 250 MHz, or is refused", "[family]") {
  // 128 Gbit/s is the most 64 bytes a clock carry at 250 MHz; above it no synthesised core keeps up.
  const Scenario s = parse_family(with_line(5, "link_gbps: 128"), "f.yaml").draw(10);
  CHECK(s.clock_mhz == kShellClockMhz);
  CHECK(s.link_bytes_per_cycle() == Approx(64.0));
  CHECK_THROWS_WITH(parse_family(with_line(5, "link_gbps: 200"), "f.yaml"), Catch::Contains("link_gbps"));
}

TEST_CASE("at_least puts the minimum tenants of each kind first", "[family]") {
  const Family f = parse_family(kGood + "at_least: {fl: 1, background: 1}\n", "f.yaml");
  for (std::uint64_t seed = 10; seed <= 20; ++seed) {
    const Scenario s = f.draw(seed);
    REQUIRE(s.tenants.size() >= 2);
    CHECK(s.tenants[0].kind == WorkloadKind::kFl);
    CHECK(s.tenants[1].kind == WorkloadKind::kBackground);
  }
}

TEST_CASE("late arrivals arrive inside the window and stay as long as drawn", "[family]") {
  const Family f = parse_family(with_line(15, "arrivals: {probability: 1, at_s: {uniform: [1, 2]}, stay_s: 1}"), "f.yaml");
  for (std::uint64_t seed = 10; seed <= 20; ++seed) {
    const Scenario s = f.draw(seed);
    for (std::size_t i = 1; i < s.tenants.size(); ++i) {
      const auto& t = s.tenants[i];
      const double start_s = static_cast<double>(t.start_cycle) / s.clock_mhz / 1e6 * s.scale;
      CHECK(start_s >= 0.999);
      CHECK(start_s <= 2.001);
      REQUIRE(t.stop_cycle != kNever);
      CHECK(static_cast<double>(t.stop_cycle - t.start_cycle) / s.clock_mhz / 1e6 * s.scale == Approx(1.0).epsilon(0.01));
    }
  }
}

TEST_CASE("bad families are refused with file, line and field", "[family]") {
  SECTION("unknown top-level key") {
    const auto e = fails(kGood + "colour: red\n");
    CHECK(e.line() == 16);
    CHECK(e.key() == "colour");
    CHECK(std::string(e.what()).rfind("bad.yaml:16: colour: unknown key", 0) == 0);
  }
  SECTION("one bad line or section: refused naming the field (and its line, and what is wrong)") {
    check_refused(
        parse_family,
        {
            // unknown nested key
            bad_line(9, "  compute_factr: 1", "ddp.compute_factr"),
            // uniform with lo above hi
            bad_line(9, "  compute_factor: {uniform: [1.2, 0.8]}", "ddp.compute_factor.uniform", "lo <= hi"),
            // a value out of range inside a choice
            bad_line(5, "link_gbps: {choice: [25, 400]}", "link_gbps.choice[1]", "[0.1, 128]"),
            // an unknown model preset; lists the presets
            bad_line(8, "  model: {choice: [resnet50-a100, alexnet]}", "ddp.model.choice[1]", "resnet50-a100"),
            // a count drawn uniformly
            bad_line(4, "tenants: {uniform: [2, 8]}", "tenants.uniform", "choice"),
            // both uniform and choice
            bad_line(9, "  compute_factor: {uniform: [1, 2], choice: [1]}", "ddp.compute_factor"),
            // weights that do not match the choices
            bad_line(5, "link_gbps: {choice: [25, 100], weights: [1]}", "link_gbps.weights"),
            // arrivals after the end
            bad_line(15, "arrivals: {probability: 0.5, at_s: {uniform: [1, 9]}}", "arrivals.at_s"),
            // a missing seed range
            {with_line(2, "scale: 1000"), 0, "seeds", ""},
            // a kind in the mix without its section
            {"name: f\nseeds: {first: 1, last: 2}\nduration_s: 1\ntenants: 2\nmix: {fl: 1}\n", 0, "fl", "mix.fl"},
            // more guaranteed tenants than the smallest count
            {kGood + "at_least: {ddp: 2, fl: 1}\n", 16, "at_least", ""},
        });
  }
  SECTION("a YAML syntax error") {
    const auto e = fails(with_line(5, "link_gbps: {choice: [25, 100"));
    CHECK(e.line() >= 5);
  }
  SECTION("a file that is not there") {
    try {
      (void)load_family(families_dir() / "no-such-family.yaml");
      FAIL("loaded a missing file");
    } catch (const ScenarioError& e) {
      CHECK(e.key() == "(file)");
      CHECK(std::string(e.what()).find("no-such-family.yaml") != std::string::npos);
    }
  }
}

TEST_CASE("load figures: line-rate communication share and crypto demand", "[family]") {
  // resnet50-a100 alone on 100 Gbit/s: 1.75 x 102.2 MB burst at 50 B/cycle with 1542 wire
  // bytes per 1472 payload bytes, against 103.6 ms of compute (scale 1000).
  const Scenario s = parse_scenario(
      "name: t\nduration_s: 1\nnic: {crypto_engine: cast-gcm-f}\ntenants:\n"
      "  - {name: a, type: ddp, model: resnet50-a100}\n"
      "  - {name: b, type: fl, update_mb: 10, train_ms: 10, expansion: 2}\n",
      "t.yaml");
  const LoadFigures f = load_figures(s);
  const double comm = 178850.0 * 1542.0 / 1472.0 / 50.0;
  CHECK(f.ddp_comm_share_line_rate == Approx(comm / (comm + 25900.0)).epsilon(1e-3));
  CHECK(f.ddp_tenants == 1);
  CHECK(f.fl_tenants == 1);
  // FL: 10 kB down + 20 kB up per round of 10 us (2500 cycles) + transfer at line rate;
  // engines: 4 slots x 1 byte/cycle.
  const double round = 2500.0 + 30000.0 * 1542.0 / 1472.0 / 50.0;
  CHECK(f.crypto_demand == Approx(30000.0 / round / 4.0).epsilon(1e-3));
}

TEST_CASE("crypto engine presets set the engine rate and latency", "[family]") {
  for (const auto& p : crypto_presets()) {
    const Scenario s = parse_scenario(std::string("name: t\nduration_s: 1\nnic: {crypto_engine: ") + p.name +
                                          "}\ntenants:\n  - {name: a, type: ddp, model: bert}\n",
                                      "t.yaml");
    CHECK(s.crypto_engine == p.name);
    CHECK(s.crypto_bytes_per_cycle == p.bytes_per_cycle);
    CHECK(s.crypto_latency == p.latency);
  }
  try {
    (void)parse_scenario("name: t\nduration_s: 1\nnic: {crypto_engine: cast-gcm-f, crypto_latency: 3}\n"
                         "tenants:\n  - {name: a, type: ddp, model: bert}\n",
                         "t.yaml");
    FAIL("accepted a preset and an explicit latency");
  } catch (const ScenarioError& e) {
    CHECK(e.line() == 3);
    CHECK(e.key() == "nic.crypto_latency");
  }
}
