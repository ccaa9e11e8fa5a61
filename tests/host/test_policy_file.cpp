// Policy files: every shipped example loads; each kind of mistake is an error naming the
// file, the line, the key and what is allowed; YAML written back loads to the same policy.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <fmt/format.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include "nic_params.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/spelling.hpp"

using namespace nicsched;
using Catch::Contains;

namespace {

// The default NIC: 8 tenants, 4 priority levels, 4 crypto slots, 16 classifier entries.
host::Capabilities caps8() { return test::capabilities(); }

host::Policy parse(const std::string& text, const host::Capabilities& caps = caps8()) {
  return host::parse_policy(text, "p.yaml", caps);
}

// The PolicyError of `text`, checked to name file, line and key.
host::PolicyError error_of(const std::string& text, int line, const std::string& key,
                           const host::Capabilities& caps = caps8()) {
  try {
    (void)parse(text, caps);
  } catch (const host::PolicyError& e) {
    INFO(e.what());
    CHECK(e.file() == "p.yaml");
    CHECK(e.line() == line);
    CHECK(e.key() == key);
    CHECK_THAT(e.what(), Contains(fmt::format("p.yaml:{}: {}", line, key)));
    return e;
  }
  FAIL("no PolicyError for:\n" << text);
  throw std::logic_error("unreachable");
}

// A policy text that must be refused: the line and key the error names, and what it says.
struct Refused {
  std::string text;
  int line;
  std::string key;
  std::vector<std::string> says;
};

void check_refused(const std::vector<Refused>& cases) {
  for (const auto& c : cases) {
    INFO(c.text);
    const auto e = error_of(c.text, c.line, c.key);
    for (const auto& s : c.says) CHECK_THAT(e.what(), Contains(s));
  }
}

}  // namespace

TEST_CASE("policy file: every example under host/policies loads against an 8-tenant NIC", "[policy]") {
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(NICSCHED_POLICY_DIR)) {
    if (f.path().extension() != ".yaml") continue;
    INFO(f.path());
    CHECK_NOTHROW(host::load_policy(f.path().string(), caps8()));
    ++n;
  }
  CHECK(n >= 3);
}

TEST_CASE("policy file: values, units and defaults land in the right fields", "[policy]") {
  const host::Policy p = host::load_policy(std::string(NICSCHED_POLICY_DIR) + "/ddp-priority.yaml", caps8());
  REQUIRE(p.tenants.size() == 8);
  CHECK(p.arb_mode == host::ArbMode::kSpDwrr);
  CHECK(p.tenants[0].priority == 0);
  CHECK(p.tenants[2].priority == 1);
  CHECK(p.tenants[2].weight == 3036);
  CHECK(p.tenants[3].priority == 2);  // from defaults
  CHECK(p.tenants[3].weight == 1518);
  CHECK(p.tenants[3].burst_bytes == 16 * 1024);
  CHECK(p.tenants[4].crypto_quota == 2);
  CHECK(p.tenants[7].crypto_quota == 1);
  // 10 Gbit/s at 250 MHz = 5 bytes/cycle = 5120 bytes per 1024 cycles
  CHECK(p.tenants[6].rate_limited);
  CHECK(p.tenants[6].rate_bytes_per_kcycle == 5120);
  CHECK(p.tenants[6].qlimit_bulk_bytes == 128 * 1024);
  CHECK(p.tenants[6].qlimit_control_bytes == 16 * 1024);
  CHECK_FALSE(p.tenants[0].rate_limited);
  CHECK(p.control_level);
  CHECK(p.tenants[0].ctrl_rate_bytes_per_kcycle == 512);  // 1 Gbit/s at 250 MHz
  CHECK(p.tenants[0].ctrl_burst_bytes == 4096);
  CHECK(p.tenants[6].ctrl_rate_bytes_per_kcycle == 0);
  CHECK(p.tenants[6].ctrl_burst_bytes == 1518);
  CHECK_FALSE(p.classifier.has_value());  // table left as it is
  CHECK_FALSE(p.default_action.has_value());

  const host::Policy c = host::load_policy(std::string(NICSCHED_POLICY_DIR) + "/classifier.yaml", caps8());
  REQUIRE(c.classifier);
  REQUIRE(c.classifier->size() == 6);
  const auto& e0 = (*c.classifier)[0];
  CHECK(e0.vlan == 100);
  CHECK(e0.vlan_mask == 0xFFF);
  CHECK(e0.dscp == 46);
  CHECK(e0.dscp_mask == 0x3F);
  CHECK(e0.port_mask == 0);  // not given: wildcard
  CHECK(e0.action.cls == 0);
  const auto& e3 = (*c.classifier)[3];
  CHECK(e3.proto == 17);
  CHECK(e3.proto_mask == 0xFF);
  CHECK(e3.port == 5000);
  CHECK(e3.action.crypto_op == host::CryptoOp::kEncrypt);
  CHECK((*c.classifier)[5].vlan_mask == 0xFF0);
  REQUIRE(c.default_action);
  CHECK(c.default_action->tenant == 7);
}

TEST_CASE("policy file: rates in Gbit/s and Mbit/s follow clock_mhz", "[policy]") {
  double clock = 0;
  const auto p = host::parse_policy("clock_mhz: 125\ntenants:\n  - {id: 1, rate: 800 Mbit/s}\n", "p.yaml", caps8(), &clock);
  CHECK(clock == 125);
  // 800e6/8 B/s / 125e6 cycles/s * 1024 = 819.2 -> 819
  CHECK(p.tenants[1].rate_bytes_per_kcycle == 819);
  CHECK(host::parse_rate("25Gbps", 250) == 12800);
  CHECK(host::rate_to_gbps(12800, 250) == Approx(25.0));
  CHECK(host::parse_bytes("64 KiB") == 65536);
  CHECK(host::parse_bytes("1MiB") == 1048576);
  CHECK(host::parse_bytes("1500") == 1500);
}

TEST_CASE("policy file: out-of-range values name line, key and the hardware's range", "[policy]") {
  check_refused({
      {"tenants:\n  - id: 2\n    priority: 4\n", 3, "tenants[0].priority", {"4 is out of range (allowed: 0..3", "4 priority levels"}},
      {"defaults:\n  crypto_quota: 9\n", 2, "defaults.crypto_quota", {"allowed: 0..4", "4 crypto slots"}},
      {"tenants:\n  - id: 8\n", 2, "tenants[0].id", {"allowed: 0..7"}},
      {"tenants:\n  - id: 0\n    weight: 0\n", 3, "tenants[0].weight", {"allowed: 1..65535"}},
      {"tenants:\n  - id: 0\n    queue_limit: {bulk: 1MiB}\n", 3, "tenants[0].queue_limit.bulk", {"1048576", "allowed: 0..262144", "256 KiB"}},
      {"tenants:\n  - id: 0\n    burst: 10\n", 3, "tenants[0].burst", {"allowed: 64..16777215"}},
      {"tenants:\n  - id: 0\n    rate_bytes_per_kcycle: 16777216\n", 3, "tenants[0].rate_bytes_per_kcycle", {"allowed: 1..16777215"}},
  });
}

TEST_CASE("policy file: the control level and control buckets load, default and round-trip", "[policy]") {
  const host::Policy p = parse(
      "scheduler: {arb_mode: sp, control_level: false}\n"
      "defaults:\n  control: {rate: 1Gbps, burst: 8KiB}\n"
      "tenants:\n  - id: 2\n    control: {rate_bytes_per_kcycle: 99}\n");
  CHECK_FALSE(p.control_level);
  CHECK(p.tenants[0].ctrl_rate_bytes_per_kcycle == 512);  // 1 Gbit/s at 250 MHz
  CHECK(p.tenants[0].ctrl_burst_bytes == 8192);
  CHECK(p.tenants[2].ctrl_rate_bytes_per_kcycle == 99);
  CHECK(p.tenants[2].ctrl_burst_bytes == 8192);  // from defaults
  CHECK(parse(host::policy_to_yaml(p, caps8())) == p);
  // A file from before the control level: the register resets (on, 256 B/kcycle, 4096 B).
  const host::Policy old = parse("scheduler: {arb_mode: sp}\ntenants:\n  - id: 1\n    priority: 2\n");
  CHECK(old.control_level);
  CHECK(old.tenants[1].ctrl_rate_bytes_per_kcycle == 256);
  CHECK(old.tenants[1].ctrl_burst_bytes == 4096);
}

TEST_CASE("policy file: bad control fields name line and key", "[policy]") {
  check_refused({
      {"tenants:\n  - id: 0\n    control: {burst: 10}\n", 3, "tenants[0].control.burst", {"allowed: 64..16777215"}},
      {"tenants:\n  - id: 0\n    control:\n      rate_bytes_per_kcycle: 16777216\n", 4,
       "tenants[0].control.rate_bytes_per_kcycle", {"allowed: 0..16777215"}},
      {"tenants:\n  - id: 0\n    control:\n      rate: 1Gbps\n      rate_bytes_per_kcycle: 5\n", 5,
       "tenants[0].control.rate_bytes_per_kcycle", {"not both"}},
      {"defaults:\n  control: {rate: fast}\n", 2, "defaults.control.rate", {"not a rate"}},
      {"defaults:\n  control: {rate: off}\n", 2, "defaults.control.rate", {"not a rate"}},
      {"defaults:\n  control: {ratee: 1Gbps}\n", 2, "defaults.control.ratee", {"unknown key", "rate, rate_bytes_per_kcycle, burst"}},
      {"defaults:\n  control: 5\n", 2, "defaults.control", {}},
      {"scheduler:\n  control_level: sometimes\n", 2, "scheduler.control_level", {"not a boolean"}},
  });
}

TEST_CASE("policy file: a crypto_engine section is refused (engine speed is the NIC's, not a policy's)", "[policy]") {
  auto e = error_of("version: 1\ncrypto_engine:\n  bytes_per_cycle: 16\n  latency_cycles: 32\n", 2, "crypto_engine");
  CHECK_THAT(e.what(), Contains("property of the NIC, not a policy"));
  e = error_of("scheduler: {arb_mode: dwrr}\ncrypto_engine: {}\n", 2, "crypto_engine");
  // What a policy writes never includes the engine, so a saved policy loads again.
  const std::string yaml = host::policy_to_yaml(host::default_policy(caps8()), caps8());
  CHECK(yaml.find("crypto_engine") == std::string::npos);
  CHECK_NOTHROW(parse(yaml));
}

TEST_CASE("policy file: classifier mistakes name the entry and key", "[policy]") {
  check_refused({
      {"classifier:\n  - match: {vlan: 5000}\n    action: {tenant: 0}\n", 2, "classifier[0].match.vlan", {"allowed: 0..4095"}},
      {"classifier:\n  - match: {vlan: 5}\n    action: {tenant: 9}\n", 3, "classifier[0].action.tenant", {"allowed: 0..7"}},
      {"classifier:\n  - match: {proto: sctp}\n    action: {tenant: 0}\n", 2, "classifier[0].match.proto", {"tcp, udp"}},
      {"classifier:\n  - match: {vlan: 1}\n", 2, "classifier[0].action", {"missing"}},
      {"classifier:\n  - action: {tenant: 0, class: urgent}\n", 2, "classifier[0].action.class", {"control, bulk"}},
      {"classifier:\n  - action: {tenant: 0, crypto: ENCRYPT}\n", 2, "classifier[0].action.crypto",
       {"'ENCRYPT' is not one of: none, encrypt, decrypt"}},
  });
  auto small = caps8();
  small.cls_entries = 1;
  const auto e = error_of("classifier:\n  - action: {tenant: 0}\n  - action: {tenant: 1}\n", 2, "classifier", small);
  CHECK_THAT(e.what(), Contains("2 entries") && Contains("holds 1"));
}

TEST_CASE("policy file: unknown keys, wrong types and bad words are named", "[policy]") {
  check_refused({
      {"version: 1\nschedular:\n  arb_mode: sp\n", 2, "schedular", {"unknown key", "scheduler"}},
      {"tenants:\n  - id: 1\n    wieght: 3\n", 3, "tenants[0].wieght", {"allowed: enable, priority, weight"}},
      {"scheduler:\n  arb_mode: round_robin\n", 2, "scheduler.arb_mode", {"fifo, sp, dwrr, sp_dwrr"}},
      {"tenants:\n  id: 1\n", 2, "tenants", {"expected a list"}},
      {"defaults:\n  priority: high\n", 2, "defaults.priority", {"not a non-negative integer"}},
      {"defaults:\n  priority: -1\n", 2, "defaults.priority", {}},
      {"defaults:\n  enable: maybe\n", 2, "defaults.enable", {"not a boolean"}},
      {"defaults:\n  rate: 10 furlongs\n", 2, "defaults.rate", {"Gbps"}},
      {"defaults:\n  rate: 0.1Mbps\n", 2, "defaults.rate", {"below the smallest rate"}},
      {"tenants:\n  - id: 1\n    rate: 1Gbps\n    rate_bytes_per_kcycle: 5\n", 4, "tenants[0].rate_bytes_per_kcycle", {"not both"}},
      {"tenants:\n  - id: 1\n  - id: 1\n", 3, "tenants[1].id", {"already configured at line 2"}},
      {"version: 2\n", 1, "version", {}},
      {"tenants:\n  - priority: 1\n", 2, "tenants[0].id", {"needs an id"}},
  });
}

TEST_CASE("policy file: YAML syntax errors and empty files give a line", "[policy]") {
  try {
    (void)parse("tenants:\n  - id: 1\n    priority: [1, 2\n");
    FAIL("no error");
  } catch (const host::PolicyError& e) {
    CHECK_THAT(e.what(), Contains("p.yaml:") && Contains("YAML syntax"));
    CHECK(e.line() >= 3);
  }
  CHECK_THROWS_WITH(parse(""), Contains("p.yaml:1") && Contains("empty"));
  CHECK_THROWS_WITH(host::load_policy("/nonexistent/policy.yaml", caps8()),
                    Contains("/nonexistent/policy.yaml") && Contains("cannot open"));
}

TEST_CASE("policy file: devices, directories and oversized files are refused before reading", "[policy]") {
  CHECK_THROWS_WITH(host::load_policy("/dev/urandom", caps8()),
                    Contains("/dev/urandom") && Contains("character device") && Contains("not a regular file"));
  const auto dir = std::filesystem::temp_directory_path() / ("nicsched_policy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  CHECK_THROWS_WITH(host::load_policy(dir.string(), caps8()), Contains("a directory"));
  const auto big = dir / "big.yaml";
  std::ofstream(big) << "version: 1\n";
  std::filesystem::resize_file(big, 300'000'000);  // sparse: refused by its size, never read
  CHECK_THROWS_WITH(host::load_policy(big.string(), caps8()),
                    Contains("big.yaml") && Contains("300000000 bytes") && Contains("over the limit"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("policy file: an alias bomb is refused by the node budget", "[policy]") {
  std::string doc = "defaults: {}\nx0: &x0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 8; ++i) {
    doc += fmt::format("x{0}: &x{0} [*x{1}, *x{1}, *x{1}, *x{1}, *x{1}, *x{1}, *x{1}, *x{1}, *x{1}, *x{1}]\n", i, i - 1);
  }
  CHECK_THROWS_WITH(parse(doc), Contains("p.yaml:") && Contains("more than 200000 nodes"));
}

TEST_CASE("policy file: written YAML loads back to the same policy", "[policy]") {
  host::Policy p = host::load_policy(std::string(NICSCHED_POLICY_DIR) + "/classifier.yaml", caps8());
  p.tenants[3].rate_limited = true;
  p.tenants[3].rate_bytes_per_kcycle = 777;
  p.tenants[5].enable = false;
  p.arb_mode = host::ArbMode::kDwrr;
  p.enable = false;
  p.control_level = false;
  p.tenants[4].ctrl_rate_bytes_per_kcycle = 0;
  p.tenants[6].ctrl_burst_bytes = 100000;
  const std::string yaml = host::policy_to_yaml(p, caps8());
  INFO(yaml);
  CHECK(parse(yaml) == p);
  host::Policy empty_table = p;
  empty_table.classifier = std::vector<host::ClassifierEntry>{};
  CHECK(parse(host::policy_to_yaml(empty_table, caps8())) == empty_table);
}

TEST_CASE("policy file: enumerated values are the register map's names in lower case", "[policy]") {
  CHECK(host::spellings<host::ArbMode>() == std::vector<std::string>{"fifo", "sp", "dwrr", "sp_dwrr"});
  CHECK(host::spellings<host::CryptoOp>() == std::vector<std::string>{"none", "encrypt", "decrypt"});
  CHECK(host::spelling(host::ArbMode::kSpDwrr) == "sp_dwrr");
  CHECK(host::parse_spelling<host::ArbMode>("sp_dwrr") == host::ArbMode::kSpDwrr);
  CHECK(host::parse_spelling<host::CryptoOp>("encrypt") == host::CryptoOp::kEncrypt);
  CHECK_FALSE(host::parse_spelling<host::CryptoOp>("ENCRYPT").has_value());
  CHECK(host::spelling(static_cast<host::CryptoOp>(3)) == "?");
  CHECK(host::spelling(static_cast<host::CryptoOp>(3), "none") == "none");
  // Every arbitration mode is written as it is read.
  for (const std::string& mode : host::spellings<host::ArbMode>()) {
    const host::Policy p = parse("scheduler:\n  arb_mode: " + mode + "\n");
    CHECK(host::spelling(p.arb_mode) == mode);
    CHECK_THAT(host::policy_to_yaml(p, caps8()), Contains("arb_mode: " + mode + "\n"));
  }
}

TEST_CASE("validate_policy: policies built in code are checked with tenant and field named", "[policy]") {
  host::Policy p = host::default_policy(caps8());
  CHECK_NOTHROW(host::validate_policy(p, caps8()));
  p.tenants[5].priority = 7;
  CHECK_THROWS_WITH(host::validate_policy(p, caps8()), Contains("tenant 5 priority") && Contains("allowed: 0..3"));
  p = host::default_policy(caps8());
  p.tenants.pop_back();
  CHECK_THROWS_WITH(host::validate_policy(p, caps8()), Contains("7 tenants, the NIC has 8"));
  auto two_slots = caps8();
  two_slots.crypto_slots = 2;
  CHECK(host::default_policy(two_slots).tenants[0].crypto_quota == 2);  // capped at the slots there are
}

namespace {

// The default nicsched_top's TX sources (CAPS1.SOURCES).
host::Capabilities caps8_sources() {
  host::Capabilities c = caps8();
  c.sources = 8;
  return c;
}

}  // namespace

TEST_CASE("policy file: tx_identity binds sources to tenants with keep or drop per source", "[policy][trust]") {
  const host::Policy p = parse(R"(
tx_identity:
  mode: source
  sources:
    - {source: 0, tenant: 2, on_spoof: drop}
    - {source: 5, tenant: 7}
)",
                               caps8_sources());
  REQUIRE(p.tx_identity);
  CHECK(p.tx_identity->source_mode);
  REQUIRE(p.tx_identity->sources.size() == 8);  // every source of the NIC; the others unbound
  CHECK(p.tx_identity->sources[0] == host::SourceBinding{true, 2, true});
  CHECK(p.tx_identity->sources[5] == host::SourceBinding{true, 7, false});
  for (const std::size_t s : std::vector<std::size_t>{1, 2, 3, 4, 6, 7}) CHECK_FALSE(p.tx_identity->sources[s].bound);
  // Written back and loaded again: the same binding.
  CHECK(parse(host::policy_to_yaml(p, caps8_sources()), caps8_sources()) == p);
  // Header-only mode keeps a table (written, not in force).
  const host::Policy h = parse("tx_identity: {mode: headers, sources: [{source: 1, tenant: 3}]}\n", caps8_sources());
  CHECK_FALSE(h.tx_identity->source_mode);
  CHECK(h.tx_identity->sources[1] == host::SourceBinding{true, 3, false});
  CHECK(h.tx_identity->in_force().empty());
}

TEST_CASE("policy file: a file without tx_identity loads header-only and says so, naming the file", "[policy][trust]") {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
  auto logger = std::make_shared<spdlog::logger>("policy-test", sink);
  logger->set_level(spdlog::level::info);
  const auto previous = spdlog::default_logger();
  spdlog::set_default_logger(logger);
  const host::Policy p = host::parse_policy("scheduler: {arb_mode: dwrr}\n", "old.yaml", caps8_sources());
  spdlog::set_default_logger(previous);
  REQUIRE(p.tx_identity);
  CHECK_FALSE(p.tx_identity->source_mode);
  CHECK(p.tx_identity->sources == nic::SourceTable(8));  // every source unbound
  const auto lines = sink->last_formatted();
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines.front(), Contains("old.yaml: no tx_identity"));
  CHECK_THAT(lines.front(), Contains("header-only"));
  // Every shipped example predates the binding: each loads header-only.
  for (const auto& entry : std::filesystem::directory_iterator(NICSCHED_POLICY_DIR)) {
    INFO(entry.path());
    const host::Policy e = host::load_policy(entry.path().string(), caps8_sources());
    CHECK(e.tx_identity->in_force().empty());
  }
}

TEST_CASE("policy file: tx_identity mistakes name the entry and key", "[policy][trust]") {
  const host::Capabilities c = caps8_sources();
  auto refused = [&](const std::string& text, int line, const std::string& key, const std::string& says) {
    INFO(text);
    try {
      (void)parse(text, c);
    } catch (const host::PolicyError& e) {
      INFO(e.what());
      CHECK(e.line() == line);
      CHECK(e.key() == key);
      CHECK_THAT(e.what(), Contains(says));
      return;
    }
    FAIL("no PolicyError");
  };
  refused("tx_identity: {sources: []}\n", 1, "tx_identity.mode", "missing");
  refused("tx_identity: {mode: vlan}\n", 1, "tx_identity.mode", "'vlan' is not one of: headers, source");
  refused("tx_identity:\n  mode: source\n  sources:\n    - {source: 8, tenant: 1}\n", 4, "tx_identity.sources[0].source",
          "the NIC has 8 TX sources");
  refused("tx_identity:\n  mode: source\n  sources:\n    - {source: 1, tenant: 8}\n", 4, "tx_identity.sources[0].tenant",
          "the NIC has 8 tenants");
  refused("tx_identity:\n  mode: source\n  sources:\n    - {source: 1, tenant: 2}\n    - {source: 1, tenant: 3}\n", 5,
          "tx_identity.sources[1].source", "source 1 is already bound at line 4");
  refused("tx_identity:\n  mode: source\n  sources:\n    - {source: 1, tenant: 2, on_spoof: log}\n", 4,
          "tx_identity.sources[0].on_spoof", "'log' is not one of: keep, drop");
  refused("tx_identity:\n  mode: source\n  sources:\n    - {tenant: 2}\n", 4, "tx_identity.sources[0].source", "missing");
  // A NIC without a source table (CAPS1.SOURCES 0) cannot bind.
  try {
    (void)parse("tx_identity: {mode: source}\n", caps8());
    FAIL("source mode accepted on a NIC without sources");
  } catch (const host::PolicyError& e) {
    CHECK(e.line() == 1);
    CHECK_THAT(e.what(), Contains("CAPS1.SOURCES is 0"));
  }
}
