// Scenario files: the shipped set loads; each kind of error names file, line and key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "nicsched/sim/error.hpp"
#include "refused.hpp"
#include "nicsched/sim/scenario.hpp"

using namespace nicsched::sim;
using nicsched::test::check_refused;

namespace {

const std::string kBase =
    "name: t\n"              // 1
    "duration_s: 1\n"        // 2
    "tenants:\n"             // 3
    "  - name: a\n"          // 4
    "    type: ddp\n"        // 5
    "    model: resnet50\n"; // 6

// Parses text expected to fail; returns the error.
ScenarioError fails(const std::string& text) { return nicsched::test::refused(parse_scenario, text); }

}  // namespace

TEST_CASE("every shipped scenario loads and fits its NIC", "[scenario]") {
  const std::filesystem::path dir = std::filesystem::path(NICSCHED_SOURCE_DIR) / "sim" / "scenarios";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    INFO(e.path());
    const Scenario s = load_scenario(e.path());
    CHECK(!s.tenants.empty());
    CHECK(s.tenants.size() <= s.nic_tenants);
    CHECK(s.duration_cycles > 0);
    ++n;
  }
  CHECK(n >= 7);
}

TEST_CASE("time scaling divides job sizes and times by the scale factor", "[scenario]") {
  const Scenario s = parse_scenario(kBase, "t.yaml");
  REQUIRE(s.tenants.size() == 1);
  const TenantSpec& t = s.tenants[0];
  // resnet50 preset: 100 MB, 120 ms; 8 workers: burst 2*7/8*100 MB = 175 MB, / 1000.
  CHECK(t.burst_bytes == 175000);
  CHECK(t.compute_cycles == 120 * 250);  // 120 ms / 1000 at 250 MHz = 120 us = 30000 cycles
  CHECK(s.duration_cycles == 250000);    // 1 s / 1000 = 1 ms
  CHECK(s.link_bytes_per_cycle() == Approx(50.0));
}

TEST_CASE("an unknown key is named with its line", "[scenario]") {
  const auto e = fails(kBase + "    colour: red\n");
  CHECK(e.line() == 7);
  CHECK(e.key() == "tenants[0].colour");
  CHECK(std::string(e.what()).find("unknown key") != std::string::npos);
  CHECK(std::string(e.what()).rfind("bad.yaml:7:", 0) == 0);
}

TEST_CASE("a wrong type is named with its line and the expected type", "[scenario]") {
  check_refused(parse_scenario,
                {
                    {kBase + "    workers: many\n", 7, "tenants[0].workers", "integer"},
                    {"name: t\nduration_s: [1]\ntenants: []\n", 2, "duration_s", ""},
                });
}

TEST_CASE("impossible values are rejected with the allowed range", "[scenario]") {
  const std::string bert = "  - {name: a, type: ddp, model: bert}\n";
  check_refused(
      parse_scenario,
      {
          // negative rate
          {"name: t\nduration_s: 1\ntenants:\n  - {name: b, type: background, rate_gbps: -5}\n", 4,
           "tenants[0].rate_gbps", ""},
          // link faster than the datapath
          {"name: t\nduration_s: 1\nlink_gbps: 400\ntenants:\n" + bert, 3, "link_gbps", ""},
          // a clock faster than the board shell runs the core (no synthesised core reaches it)
          {"name: t\nduration_s: 1\nclock_mhz: 400\ntenants:\n" + bert, 3, "clock_mhz", "shell"},
          // stop before start
          {kBase + "    start_ms: 10\n    stop_ms: 5\n", 8, "tenants[0].stop_ms", ""},
          // more tenants than the NIC has
          {"name: t\nduration_s: 1\nnic: {tenants: 1}\ntenants:\n" + bert + "  - {name: b, type: ddp, model: bert}\n",
           0, "tenants", ""},
          // unknown enum value
          {"name: t\nduration_s: 1\ntenants:\n  - {name: a, type: torrent}\n", 0, "tenants[0].type",
           "ddp, fl, background, pcap"},
          // two tenants on one VLAN
          {"name: t\nduration_s: 1\ntenants:\n  - {name: a, type: ddp, model: bert, vlan: 7}\n"
           "  - {name: b, type: ddp, model: bert, vlan: 7}\n",
           5, "tenants[1].vlan", ""},
      });
}

TEST_CASE("a missing required key names the mapping that lacks it", "[scenario]") {
  check_refused(parse_scenario,
                {
                    {"name: t\nduration_s: 1\ntenants:\n  - {name: a, type: fl, update_mb: 10}\n", 4,
                     "tenants[0].train_ms", ""},
                    {"name: t\ntenants:\n  - {name: a, type: ddp, model: bert}\n", 0, "duration_s", ""},
                });
}

TEST_CASE("a YAML syntax error carries its line", "[scenario]") {
  const auto e = fails("name: t\nduration_s: 1\ntenants: [\n  {name: a\n");
  CHECK(e.line() >= 3);
}

TEST_CASE("solo scenario keeps the tenant's index and identity", "[scenario]") {
  const Scenario s = load_scenario(std::filesystem::path(NICSCHED_SOURCE_DIR) / "sim/scenarios/default.yaml");
  const Scenario solo = solo_scenario(s, 2);
  REQUIRE(solo.tenants.size() == 1);
  CHECK(solo.tenants[0].index == 2);
  CHECK(solo.tenants[0].vlan == s.tenants[2].vlan);
  CHECK(solo.nic_tenants == s.nic_tenants);
}

TEST_CASE("nic.tx_identity: headers by default, source with on_spoof keep or drop", "[scenario][tx-identity]") {
  const std::string tenants = "tenants:\n  - {name: a, type: ddp, model: resnet50}\n";
  const Scenario plain = parse_scenario("name: t\nduration_s: 1\n" + tenants, "x.yaml");
  CHECK(plain.tx_identity == TxIdentity::kHeaders);
  CHECK_FALSE(plain.tx_identity_set);  // an older file: header-only, said at run time
  const Scenario keep = parse_scenario("name: t\nduration_s: 1\nnic: {tx_identity: source}\n" + tenants, "x.yaml");
  CHECK(keep.tx_identity == TxIdentity::kSource);
  CHECK_FALSE(keep.drop_spoofed);
  const Scenario drop =
      parse_scenario("name: t\nduration_s: 1\nnic: {tx_identity: source, on_spoof: drop}\n" + tenants, "x.yaml");
  CHECK(drop.drop_spoofed);
  check_refused(parse_scenario,
                {
                    {"name: t\nduration_s: 1\nnic: {tx_identity: vlan}\n" + tenants, 3, "nic.tx_identity",
                     "headers, source"},
                    {"name: t\nduration_s: 1\nnic: {on_spoof: drop}\n" + tenants, 3, "nic.on_spoof",
                     "only allowed with tx_identity: source"},
                });
}

TEST_CASE("spoof_as claims another tenant's VLAN and port, bulk_dscp marks a DDP tenant's bulk",
          "[scenario][tx-identity]") {
  const std::string head = "name: t\nduration_s: 1\ntenants:\n";
  const Scenario s = parse_scenario(head +
                                        "  - {name: a, type: background, rate_gbps: 10, spoof_as: v}\n"
                                        "  - {name: v, type: ddp, model: resnet50, vlan: 300, port: 7000, bulk_dscp: 46}\n",
                                    "x.yaml");
  CHECK(s.tenants[0].spoofs);
  CHECK(s.tenants[0].spoof_vlan == 300);
  CHECK(s.tenants[0].spoof_port == 7000);
  CHECK_FALSE(s.tenants[1].spoofs);
  CHECK(s.tenants[1].bulk_dscp == 46);
  check_refused(parse_scenario,
                {
                    {head + "  - {name: a, type: background, rate_gbps: 10, spoof_as: nobody}\n", 4,
                     "tenants[0].spoof_as", "another tenant"},
                    {head + "  - {name: a, type: background, rate_gbps: 10, spoof_as: a}\n", 4, "tenants[0].spoof_as",
                     "another tenant"},
                    {head + "  - {name: a, type: background, rate_gbps: 10, direction: rx, spoof_as: v}\n"
                            "  - {name: v, type: ddp, model: resnet50}\n",
                     4, "tenants[0].spoof_as", "direction: tx"},
                    {head + "  - {name: a, type: ddp, model: resnet50, spoof_as: v}\n"
                            "  - {name: v, type: ddp, model: resnet50}\n",
                     4, "tenants[0].spoof_as", "unknown key"},
                    {head + "  - {name: a, type: ddp, model: resnet50, bulk_dscp: 64}\n", 4, "tenants[0].bulk_dscp",
                     "DSCP"},
                });
}
