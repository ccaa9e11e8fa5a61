// Telemetry: the snapshot decodes every counter from its own register, sees the values
// latched at SNAPSHOT (not later ones), works through the socket in one exchange, and
// rates are computed from deltas.
#include <catch2/catch.hpp>
#include <thread>

#include "nicsched/drivers/sim_client.hpp"
#include "nicsched/drivers/sim_server.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/telemetry.hpp"
#include "stand_in_nic.hpp"

using namespace nicsched;
namespace rm = nicsched::regmap;
using test::StandInNic;

namespace {

// Distinct values in every counter, with HI words set, so a swapped or shifted field shows.
std::uint64_t pattern(std::uint32_t reg, std::uint32_t element) {
  return (std::uint64_t{element + 1} << 32) | (reg * 1000 + element);
}

void fill_counters(StandInNic& nic, const host::Capabilities& caps) {
  for (std::uint32_t q = 0; q < caps.queues(); ++q) {
    nic.set_live(rm::Q_ENQ_PKTS::offset(q), pattern(1, q));
    nic.set_live(rm::Q_ENQ_BYTES::offset(q), pattern(2, q));
    nic.set_live(rm::Q_TX_PKTS::offset(q), pattern(3, q));
    nic.set_live(rm::Q_TX_BYTES::offset(q), pattern(4, q));
    nic.set_live(rm::Q_DROP_PKTS::offset(q), pattern(5, q));
    nic.set_live(rm::Q_DROP_BYTES::offset(q), pattern(6, q));
    nic.set_live(rm::Q_LAT_SUM::offset(q), pattern(7, q));
    nic.set_live(rm::Q_LAT_COUNT::offset(q), pattern(8, q));
    nic.set_live(rm::Q_LAT_MAX::offset(q), 900 + q);
    nic.set_live(rm::Q_DEPTH::offset(q), 1900 + q);
    nic.set_live(rm::Q_DEPTH_HWM::offset(q), 2900 + q);
    nic.set_live(rm::Q_DEPTH_PKTS::offset(q), 3900 + q);
  }
  for (std::uint32_t t = 0; t < caps.tenants; ++t) {
    nic.set_live(rm::CR_TX_BUSY::offset(t), pattern(11, t));
    nic.set_live(rm::CR_TX_WAIT::offset(t), pattern(12, t));
    nic.set_live(rm::CR_TX_BYTES::offset(t), pattern(13, t));
    nic.set_live(rm::CR_TX_PKTS::offset(t), pattern(14, t));
    nic.set_live(rm::CR_RX_BUSY::offset(t), pattern(15, t));
    nic.set_live(rm::CR_RX_WAIT::offset(t), pattern(16, t));
    nic.set_live(rm::CR_RX_BYTES::offset(t), pattern(17, t));
    nic.set_live(rm::CR_RX_PKTS::offset(t), pattern(18, t));
    nic.set_live(rm::CR_SLOTS_HELD::offset(t), t % 3);
  }
  for (std::uint32_t d = 0; d < 2; ++d) {
    nic.set_live(rm::PRS_FRAMES::offset(d), pattern(21, d));
    nic.set_live(rm::PRS_RUNT::offset(d), pattern(22, d));
    nic.set_live(rm::PRS_TRUNCATED::offset(d), pattern(23, d));
    nic.set_live(rm::PRS_BAD_IHL::offset(d), pattern(24, d));
    nic.set_live(rm::PRS_UNKNOWN_ETYPE::offset(d), pattern(25, d));
    nic.set_live(rm::PRS_BUF_DROP::offset(d), pattern(26, d));
  }
  nic.set_live(rm::CRYPTO_BUSY::kOffset, 3);
}

void check_decoded(const host::Telemetry& t, const host::Capabilities& caps) {
  REQUIRE(t.queues.size() == caps.queues());
  REQUIRE(t.crypto.size() == caps.tenants);
  for (std::uint32_t q = 0; q < caps.queues(); ++q) {
    const auto& c = t.queues[q];
    CHECK(c.enq_pkts == pattern(1, q));
    CHECK(c.enq_bytes == pattern(2, q));
    CHECK(c.tx_pkts == pattern(3, q));
    CHECK(c.tx_bytes == pattern(4, q));
    CHECK(c.drop_pkts == pattern(5, q));
    CHECK(c.drop_bytes == pattern(6, q));
    CHECK(c.lat_sum == pattern(7, q));
    CHECK(c.lat_count == pattern(8, q));
    CHECK(c.lat_max == 900 + q);
    CHECK(c.depth_bytes == 1900 + q);
    CHECK(c.depth_hwm == 2900 + q);
    CHECK(c.depth_pkts == 3900 + q);
  }
  for (std::uint32_t n = 0; n < caps.tenants; ++n) {
    const auto& c = t.crypto[n];
    CHECK(c.tx_busy == pattern(11, n));
    CHECK(c.tx_wait == pattern(12, n));
    CHECK(c.tx_bytes == pattern(13, n));
    CHECK(c.tx_pkts == pattern(14, n));
    CHECK(c.rx_busy == pattern(15, n));
    CHECK(c.rx_wait == pattern(16, n));
    CHECK(c.rx_bytes == pattern(17, n));
    CHECK(c.rx_pkts == pattern(18, n));
    CHECK(c.slots_held == n % 3);
  }
  for (std::uint32_t d = 0; d < 2; ++d) {
    CHECK(t.parser[d].frames == pattern(21, d));
    CHECK(t.parser[d].runt == pattern(22, d));
    CHECK(t.parser[d].truncated == pattern(23, d));
    CHECK(t.parser[d].bad_ihl == pattern(24, d));
    CHECK(t.parser[d].unknown_etype == pattern(25, d));
    CHECK(t.parser[d].buf_drop == pattern(26, d));
  }
  CHECK(t.crypto_busy_slots == 3);
}

}  // namespace

TEST_CASE("read_snapshot: every counter is decoded from its own register", "[telemetry]") {
  for (std::uint32_t tenants : {8u, 64u}) {
    StandInNic::Params p;
    p.tenants = tenants;
    StandInNic nic(p);
    const auto caps = host::discover(nic);
    fill_counters(nic, caps);
    nic.step(123456);
    const host::Telemetry t = host::read_snapshot(nic, caps);
    CHECK(t.cycle == 123456);
    check_decoded(t, caps);
  }
}

TEST_CASE("read_snapshot: values change only at the next SNAPSHOT", "[telemetry]") {
  StandInNic nic;
  const auto caps = host::discover(nic);
  nic.set_live(rm::Q_TX_BYTES::offset(3), 100);
  const auto first = host::read_snapshot(nic, caps);
  nic.set_live(rm::Q_TX_BYTES::offset(3), 200);
  CHECK(nic.read32(rm::Q_TX_BYTES::offset(3)) == 100);  // still the latched copy
  const auto second = host::read_snapshot(nic, caps);
  CHECK(first.queues[3].tx_bytes == 100);
  CHECK(second.queues[3].tx_bytes == 200);
}

TEST_CASE("read_snapshot: through the nicsim protocol it is one SNAPSHOT exchange with the same result",
          "[telemetry]") {
  StandInNic::Params p;
  p.tenants = 64;
  StandInNic nic(p);
  drivers::ServerOptions o;
  o.handle_signals = false;
  drivers::SimServer server(nic, o);
  std::thread th([&] { server.run(); });
  {
    auto client = drivers::SimClient::connect_tcp("127.0.0.1", server.tcp_port());
    const auto caps = host::discover(*client);
    fill_counters(nic, caps);  // the server is idle in lock-step: no concurrent access
    const std::uint64_t writes_before = nic.writes();
    const host::Telemetry t = host::read_snapshot(*client, caps);
    check_decoded(t, caps);
    CHECK(nic.writes() == writes_before + 1);  // exactly one SNAPSHOT write
  }
  server.stop();
  th.join();
}

namespace {

// Two all-zero snapshots of a NIC with `tenants` tenants, for compute_rates; tests take it
// apart with `auto& [caps, a, b] = s;`.
struct TwoSnapshots {
  explicit TwoSnapshots(std::uint32_t tenants) {
    caps.tenants = tenants;
    caps.classes = 2;
    for (host::Telemetry* t : {&a, &b}) {
      t->queues.resize(caps.queues());
      t->crypto.resize(tenants);
    }
  }
  host::Capabilities caps;
  host::Telemetry a, b;
};

}  // namespace

TEST_CASE("compute_rates: Gbit/s, shares, latency and crypto wait from two snapshots", "[telemetry]") {
  TwoSnapshots s(2);
  auto& [caps, a, b] = s;
  a.cycle = 1000;
  b.cycle = 1000 + 250000;  // 1 ms at 250 MHz
  // tenant 0: 1,000,000 bytes in 1 ms = 8 Gbit/s (split over both classes)
  a.queues[0].tx_bytes = 50;
  b.queues[0].tx_bytes = 50 + 250000;
  b.queues[1].tx_bytes = 750000;
  // tenant 1: 3,000,000 bytes = 24 Gbit/s
  b.queues[3].tx_bytes = 3000000;
  b.queues[3].tx_pkts = 2000;
  // control latency of tenant 0: 10 packets, 500 cycles in all
  a.queues[0].lat_sum = 100;
  a.queues[0].lat_count = 1;
  b.queues[0].lat_sum = 600;
  b.queues[0].lat_count = 11;
  // tenant 1 waited 25000 cycles for crypto slots (TX + RX) = 10 % of the interval
  b.crypto[1].tx_wait = 20000;
  b.crypto[1].rx_wait = 5000;
  const host::Rates r = host::compute_rates(a, b, caps, 250e6);
  CHECK(r.cycles == 250000);
  CHECK(r.seconds == Approx(1e-3));
  CHECK(r.tenants[0].tx_gbps == Approx(8.0));
  CHECK(r.tenants[1].tx_gbps == Approx(24.0));
  CHECK(r.tenants[1].tx_pps == Approx(2e6));
  CHECK(r.tenants[0].tx_share == Approx(0.25));
  CHECK(r.tenants[1].tx_share == Approx(0.75));
  CHECK(r.link_gbps == Approx(32.0));
  CHECK(r.tenants[0].control_lat_cycles == Approx(50.0));
  CHECK(r.tenants[1].crypto_wait_frac == Approx(0.1));
}

TEST_CASE("compute_rates: cleared counters count from zero and no elapsed cycles give zero rates", "[telemetry]") {
  TwoSnapshots s(1);
  auto& [caps, a, b] = s;
  a.cycle = 0;
  b.cycle = 250000;
  a.queues[1].tx_bytes = 5000000;  // cleared in between
  b.queues[1].tx_bytes = 125000;
  CHECK(host::compute_rates(a, b, caps, 250e6).tenants[0].tx_gbps == Approx(1.0));
  CHECK(host::compute_rates(b, b, caps, 250e6).tenants[0].tx_gbps == 0.0);
  CHECK_THROWS_AS(host::compute_rates(a, b, caps, 0), host::HostError);
}
