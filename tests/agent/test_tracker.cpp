// TelemetryTracker: interval rates, shares and the phase estimated from counters alone.
#include <catch2/catch.hpp>

#include "nicsched/control/env.hpp"
#include "telemetry_fixture.hpp"

using namespace nicsched::control;
using namespace nicsched::testing;

TEST_CASE("tracker: bytes, shares and link fractions of one interval", "[tracker]") {
  TrackedNic nic;
  auto& [caps, s, tr] = nic;  // 50 bytes/cycle (100 Gbit/s at 250 MHz)
  tr.update(s.bulk(0, 30000).bulk(1, 10000).drops(1, 3).crypto(2, 2000, 500).next(1000));
  CHECK(tr.interval_cycles() == 1000);
  CHECK(tr.tenants()[0].bytes == 30000);
  CHECK(tr.tenants()[0].share == Approx(0.75));
  CHECK(tr.tenants()[1].share == Approx(0.25));
  CHECK(tr.tenants()[0].link_fraction == Approx(0.6));  // 30000 / (1000 * 50)
  CHECK(tr.link_fraction() == Approx(0.8));
  CHECK(tr.tenants()[1].drops == 3);
  CHECK(tr.tenants()[2].crypto_busy_fraction == Approx(0.5));  // 2000 / (1000 * 4 slots)
  CHECK(tr.tenants()[2].crypto_wait_fraction == Approx(0.5));  // 500 / 1000
  CHECK(tr.tenants()[0].present);
  CHECK_FALSE(tr.tenants()[3].present);
  CHECK(tr.present_count() == 3);
}

TEST_CASE("tracker: bursts, their size and the period between them", "[tracker]") {
  TrackedNic nic;
  auto& [caps, s, tr] = nic;
  // burst 1: intervals starting at 0 and 1000; idle 2000..4000; burst 2 from 4000
  tr.update(s.bulk(0, 5000).next(1000));
  CHECK(tr.tenants()[0].in_burst);
  CHECK(tr.tenants()[0].burst_start_cycle == 0);
  tr.update(s.bulk(0, 7000).next(1000));
  CHECK(tr.tenants()[0].burst_bytes == 12000);
  CHECK(tr.tenants()[0].burst_age(tr.now()) == 2000);
  tr.update(s.next(1000));
  CHECK_FALSE(tr.tenants()[0].in_burst);
  CHECK(tr.tenants()[0].last_burst_bytes == 12000);
  tr.update(s.next(1000));
  tr.update(s.bulk(0, 4000).next(1000));
  const auto& t0 = tr.tenants()[0];
  CHECK(t0.in_burst);
  CHECK(t0.burst_start_cycle == 4000);
  CHECK(t0.period_cycles == 4000);
  CHECK(t0.bursts == 2);
  CHECK(t0.remaining_burst_bytes() == 8000);  // 12000 expected, 4000 sent
  CHECK(t0.attained_bytes == 16000);
}

TEST_CASE("tracker: a queue still holding bytes keeps the burst going", "[tracker]") {
  TrackedNic nic;
  auto& [caps, s, tr] = nic;
  tr.update(s.bulk(0, 5000).next(1000));
  tr.update(s.depth(0, 3000).next(1000));  // nothing sent, but queued
  CHECK(tr.tenants()[0].in_burst);
  CHECK(tr.tenants()[0].bulk_depth_bytes == 3000);
}

TEST_CASE("tracker: control latency is the interval's mean", "[tracker]") {
  TrackedNic nic;
  auto& [caps, s, tr] = nic;
  tr.update(s.control_latency(1, 4, 400).next(1000));
  CHECK(tr.tenants()[1].control_latency_cycles == Approx(100.0));
  CHECK(tr.tenants()[1].present);
  CHECK_FALSE(tr.tenants()[1].in_burst);  // control traffic is not a burst
}

TEST_CASE("tracker: snapshots of the wrong shape are rejected", "[tracker]") {
  const auto caps = test_caps();
  TelemetryTracker tr(caps, 50.0);
  nicsched::host::Telemetry bad;
  bad.queues.resize(3);
  CHECK_THROWS_AS(tr.reset(bad), nicsched::control::EnvError);
  auto zero = caps;
  zero.tenants = 0;
  CHECK_THROWS_AS(TelemetryTracker(zero, 50.0), nicsched::control::EnvError);
}
