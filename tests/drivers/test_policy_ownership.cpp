// Who may change the NIC's policy through `nicsim serve`: a client's shadow writes are its
// own until its COMMIT; a client that goes away before COMMIT leaves nothing behind; a
// second writer meanwhile is told who holds the NIC. Against StandInNic (shadow and active
// copies per the register map) with the host library's apply_policy, as `nicctl` uses it.
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/drivers/sim_protocol.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/regmap.hpp"
#include "server_fixture.hpp"
#include "stand_in_nic.hpp"

using namespace nicsched;
using namespace std::chrono_literals;
namespace rm = nicsched::regmap;
using drivers::proto::ErrorCode;
using drivers::proto::FrameWriter;
using drivers::proto::MsgType;
using test::expect_error;
using test::RawConn;
using test::ServerFixture;
using test::StandInNic;
using test::wait_until;

namespace {

drivers::BusOptions named(const std::string& name) {
  drivers::BusOptions o;
  o.timeout = 3000ms;
  o.connect_attempts = 2;
  o.reconnect_backoff = 50ms;
  o.client_name = name;
  return o;
}

// Tenant 0 at priority 3, weight 7777, crypto quota 1: the half-written policy of the issue.
std::vector<drivers::RegWrite> tenant0_writes() {
  std::uint32_t ctrl = rm::T_CTRL::ENABLE.set(0, 1);
  ctrl = rm::T_CTRL::PRIORITY.set(ctrl, 3);
  ctrl = rm::T_CTRL::CRYPTO_QUOTA.set(ctrl, 1);
  return {{rm::T_CTRL::offset(0), ctrl}, {rm::T_WEIGHT::offset(0), 7777}};
}

// What `nicctl set 5 --weight 3000` does: read the policy, change tenant 5, apply it.
void set_weight(drivers::RegisterBus& bus, std::uint32_t tenant, std::uint32_t weight) {
  const host::Capabilities caps = host::discover(bus);
  host::Policy p = host::read_policy(bus, caps);
  p.tenants.at(tenant).weight = weight;
  (void)host::apply_policy(bus, caps, p);
}

// A stand-in NIC behind a SimServer on TCP; clients connect to `uri` under a name.
struct SharedNic {
  explicit SharedNic(drivers::ServerOptions o = {})
      : srv(std::move(o), &nic), uri(fmt::format("sim://127.0.0.1:{}", srv.port())) {}
  [[nodiscard]] std::unique_ptr<drivers::RegisterBus> client(const std::string& name) const {
    return drivers::open_bus(uri, named(name));
  }
  StandInNic nic;
  ServerFixture srv;
  std::string uri;
};

}  // namespace

TEST_CASE_METHOD(SharedNic, "ownership: shadow writes of a client that disconnects before COMMIT never reach the NIC", "[ownership]") {
  const auto reset_ctrl = nic.active(rm::T_CTRL::offset(0));
  {
    auto writer = client("half-writer");
    writer->write_batch(tenant0_writes());
    CHECK(writer->read32(rm::T_WEIGHT::offset(0)) == 7777);  // it sees its own writes
  }  // gone without COMMIT
  REQUIRE(wait_until([&] { return srv.stats().discarded_holds == 1; }));
  auto nicctl = client("nicctl");
  set_weight(*nicctl, 5, 3000);
  CHECK(nic.active(rm::T_WEIGHT::offset(5)) == 3000);
  CHECK(nic.active(rm::T_CTRL::offset(0)) == reset_ctrl);
  CHECK(nic.active(rm::T_WEIGHT::offset(0)) == 1500);
  CHECK(srv.stats().discarded_writes == 2);
}

TEST_CASE_METHOD(SharedNic, "ownership: a client cut off in the middle of a frame or before COMMIT leaves the shadows as they were", "[ownership]") {
  {
    RawConn c(srv.port());
    c.hello();
    FrameWriter w(MsgType::kWriteBatch, 2);
    w.u32(2);
    for (const auto& rw : tenant0_writes()) w.u32(rw.addr).u32(rw.value);
    auto frame = w.finish();
    frame.resize(frame.size() - 3);  // cut mid-frame
    c.send(frame);
  }
  {
    RawConn c(srv.port());
    c.hello();
    FrameWriter w(MsgType::kWriteBatch, 2);
    w.u32(2);
    for (const auto& rw : tenant0_writes()) w.u32(rw.addr).u32(rw.value);
    c.send(w.finish());  // whole batch, then gone before its COMMIT
  }
  REQUIRE(wait_until([&] { return srv.stats().connections_now == 0; }));
  auto bus = client("checker");
  CHECK(bus->read32(rm::T_WEIGHT::offset(0)) == 1500);
  CHECK(bus->read32(rm::T_CTRL::offset(0)) == rm::T_CTRL::kReset);
  CHECK(nic.config_gen() == 0);
}

TEST_CASE_METHOD(SharedNic, "ownership: a second writer is refused with the holder's name, and gets in after its COMMIT", "[ownership]") {
  auto agent = client("nicagent serve");
  auto nicctl = client("nicctl");
  agent->write_batch(tenant0_writes());
  const auto writes_before = nic.writes();
  try {
    set_weight(*nicctl, 5, 3000);
    FAIL("a second writer got through while the first held uncommitted writes");
  } catch (const drivers::BusError& e) {
    CHECK_THAT(e.what(), Catch::Contains("NIC held by client 'nicagent serve'") &&
                             Catch::Contains("2 uncommitted shadow write"));
  }
  CHECK(nic.writes() == writes_before);  // refused as a whole: nothing of the batch written
  CHECK(srv.stats().held_refusals == 1);
  // Reads are never held; others see the shadows as they were before the hold, the
  // holder sees its own writes, in single reads, bursts and gathers alike.
  CHECK(nicctl->read32(rm::T_WEIGHT::offset(0)) == 1500);
  std::vector<std::uint32_t> block(6);  // T_CTRL .. T_QLIMIT_BULK of tenant 0
  nicctl->read_block(rm::T_CTRL::offset(0), block);
  CHECK(block[0] == rm::T_CTRL::kReset);
  CHECK(block[1] == 1500);
  std::vector<std::uint32_t> gathered(2);
  const std::vector<drivers::BlockRange> ranges = {{rm::T_WEIGHT::offset(1), 1}, {rm::T_WEIGHT::offset(0), 1}};
  nicctl->read_ranges(ranges, gathered);
  CHECK(gathered[1] == 1500);
  CHECK(agent->read32(rm::T_WEIGHT::offset(0)) == 7777);

  agent->write32(rm::COMMIT::kOffset, 1);
  CHECK(nic.active(rm::T_WEIGHT::offset(0)) == 7777);
  set_weight(*nicctl, 5, 3000);
  CHECK(nic.active(rm::T_WEIGHT::offset(5)) == 3000);
  CHECK(nic.active(rm::T_WEIGHT::offset(0)) == 7777);  // the committed policy stays
}

TEST_CASE_METHOD(SharedNic, "ownership: a COMMIT by another client cannot apply the holder's half-written policy", "[ownership]") {
  auto holder = client("holder");
  auto other = client("other");
  holder->write32(rm::T_WEIGHT::offset(0), 7777);
  CHECK_THROWS_WITH(other->write32(rm::COMMIT::kOffset, 1), Catch::Contains("NIC held by client 'holder'"));
  CHECK(nic.config_gen() == 0);
  CHECK(nic.active(rm::T_WEIGHT::offset(0)) == 1500);
  other->write32(rm::SCRATCH::kOffset, 5);  // registers outside the shadow set are not held
  CHECK(other->read32(rm::SCRATCH::kOffset) == 5);
}

TEST_CASE("ownership: a hold older than hold_timeout yields, and its owner is told its writes were discarded", "[ownership]") {
  drivers::ServerOptions o;
  o.hold_timeout = 200ms;
  SharedNic shared(o);
  auto& nic = shared.nic;
  auto slow = shared.client("slow writer");
  auto nicctl = shared.client("nicctl");
  slow->write_batch(tenant0_writes());
  std::this_thread::sleep_for(300ms);
  set_weight(*nicctl, 5, 3000);
  CHECK(nic.active(rm::T_WEIGHT::offset(0)) == 1500);
  CHECK(nic.active(rm::T_WEIGHT::offset(5)) == 3000);
  // The slow writer's COMMIT would apply whatever the shadows hold now: refused once.
  CHECK_THROWS_WITH(slow->write32(rm::COMMIT::kOffset, 1), Catch::Contains("discarded"));
  CHECK(nic.config_gen() == 1);
}
