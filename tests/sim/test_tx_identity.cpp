// TX identity in the simulator (sim.*, [tx-identity]): nic.tx_identity / on_spoof and the
// adversarial tenant (spoof_as) of sim/scenarios/spoofing.yaml, on both backends: the RTL
// core takes each frame's source on s_axis_tx_tuser, the model its source field; either
// takes the binding from TX_IDENTITY/SRC_BIND at COMMIT (docs/trust.md).
#include <catch2/catch.hpp>

#include <string>

#include "nicsched/host/discovery.hpp"
#include "nicsched/host/telemetry.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/simulation.hpp"

using namespace nicsched;
using namespace nicsched::sim;

namespace {

Scenario spoofing(NicBackend backend = NicBackend::kModel) {
  Scenario s = load_scenario(std::string(NICSCHED_SOURCE_DIR) + "/sim/scenarios/spoofing.yaml");
  s.backend = backend;
  return s;
}

const char* name(NicBackend b) { return b == NicBackend::kRtl ? "rtl" : "model"; }

struct Run {
  std::uint64_t misattributed = 0;
  std::uint64_t integrity = 0;
  RunMetrics m;
  host::Telemetry t;
};

Run run(Scenario s, std::uint64_t cycles = 60000) {
  SimOptions o;
  o.baseline = "fair";
  o.cycles = cycles;
  Simulation sim(s, o);
  sim.run_to_end();
  const host::Capabilities caps = host::discover(sim);
  return Run{sim.misattributed(), sim.integrity_errors(), sim.metrics(), host::read_snapshot(sim, caps)};
}

}  // namespace

TEST_CASE("spoofing scenario: header-only believes the attacker, it lands in the victim's control queue",
          "[tx-identity]") {
  const NicBackend backend = GENERATE(NicBackend::kModel, NicBackend::kRtl);
  INFO("backend " << name(backend));
  const Run r = run(spoofing(backend));
  CHECK(r.integrity == 0);
  CHECK(r.misattributed == 0);  // the attacker's frames leave as resnet50's: the attack working, not counted
  // resnet50's control queue takes the attacker's frames (far beyond its own: one per 20 us = 5000 cycles).
  CHECK(r.t.queues.at(0).enq_pkts + r.t.queues.at(0).drop_pkts > 100);
  CHECK(r.m.tenants.at(2).spoofed_frames == 0);  // nothing is bound: nothing is a spoof
}

TEST_CASE("spoofing scenario: with source binding no frame leaves as another tenant's, spoofs are counted",
          "[tx-identity]") {
  const NicBackend backend = GENERATE(NicBackend::kModel, NicBackend::kRtl);
  for (const bool drop : {false, true}) {
    INFO("backend " << name(backend) << ", on_spoof " << (drop ? "drop" : "keep"));
    Scenario s = spoofing(backend);
    s.tx_identity = TxIdentity::kSource;
    s.drop_spoofed = drop;
    // The attacker stops well before the end, so no frame of it is between the classifier
    // (where it is counted as a spoof) and its queue (where it is counted again) at the end.
    s.tenants.at(2).stop_cycle = 40000;
    const Run r = run(s);
    CHECK(r.integrity == 0);
    CHECK(r.misattributed == 0);
    const TenantMetrics& attacker = r.m.tenants.at(2);
    CHECK(attacker.spoofed_frames > 100);
    CHECK(r.m.tenants.at(0).spoofed_frames == 0);
    CHECK(r.m.tenants.at(1).spoofed_frames == 0);
    // resnet50's control queue holds only its own control frames (one per 20 us = 5000 cycles).
    CHECK(r.t.queues.at(0).enq_pkts <= 60000 / 5000 + 1);
    // Kept: the attacker's frames are its own bulk (queue 2*2+1); dropped: none queue.
    if (drop) {
      CHECK(r.t.queues.at(5).enq_pkts == 0);
    } else {
      CHECK(r.t.queues.at(5).enq_pkts + r.t.queues.at(5).drop_pkts == attacker.spoofed_frames);
      CHECK(r.t.spoofed.at(2) == attacker.spoofed_frames);
    }
  }
}

TEST_CASE("tx_identity source is refused for a tenant beyond the NIC's sources, naming the file and tenant",
          "[tx-identity]") {
  Scenario s = spoofing();
  s.tx_identity = TxIdentity::kSource;
  s.nic_tenants = 16;
  s.tenants.at(2).index = 9;  // the NIC has 8 sources (nicsched_top's NumSources)
  SimOptions o;
  o.cycles = 1000;
  CHECK_THROWS_WITH(Simulation(s, o), Catch::Contains("spoofing.yaml") && Catch::Contains("attacker") &&
                                          Catch::Contains("index 9") && Catch::Contains("CAPS1.SOURCES"));
}
