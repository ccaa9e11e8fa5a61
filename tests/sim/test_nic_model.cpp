// NicModel against the Verilated top: registers, frames in = frames out (intact and
// attributed by the RTL's own classifier), the MAC's link rate and pauses.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "nicsched/regmap.hpp"
#include "nicsched/sim/frame.hpp"
#include "nicsched/sim/nic_model.hpp"

using namespace nicsched;
using namespace nicsched::sim;
namespace rm = nicsched::regmap;

namespace {

struct ListSource : FrameSource {
  std::vector<std::vector<std::uint8_t>> frames[2];
  std::size_t next[2] = {0, 0};
  bool loop = false;
  bool next_frame(Direction d, std::uint64_t, std::vector<std::uint8_t>& f) override {
    auto& list = frames[static_cast<int>(d)];
    auto& i = next[static_cast<int>(d)];
    if (i >= list.size()) {
      if (!loop || list.empty()) return false;
      i = 0;
    }
    f = list[i++];
    return true;
  }
};

struct Out {
  std::vector<std::uint8_t> bytes;
  std::uint32_t tenant, cls, crypto_op;
  std::uint64_t cycle;
};
struct ListSink : FrameSink {
  std::vector<Out> out[2];
  void frame_out(const OutFrame& f) override {
    out[static_cast<int>(f.dir)].push_back({{f.data, f.data + f.len}, f.tenant, f.cls, f.crypto_op, f.cycle});
  }
};

// Entry t: VLAN 100+t -> tenant t, bulk, crypto op `op` for crypto_tenant; FIFO arbitration; then COMMIT.
void classify_by_vlan(NicModel& nic, std::uint32_t tenants, std::uint32_t crypto_tenant, std::uint32_t op = 1) {
  nic.write32(rm::CTRL::kOffset, rm::CTRL::ARB_MODE.set(rm::CTRL::ENABLE.set(0, 1), rm::ArbMode::kFifo));
  for (std::uint32_t t = 0; t < tenants; ++t) {
    nic.write32(rm::CLS_VLAN::offset(t), rm::CLS_VLAN::MASK.set(rm::CLS_VLAN::VALUE.set(0, 100 + t), 0xFFF));
    nic.write32(rm::CLS_DSCP_PROTO::offset(t), 0);
    nic.write32(rm::CLS_PORT::offset(t), 0);
    std::uint32_t a = rm::CLS_ACTION::VALID.set(0, 1);
    a = rm::CLS_ACTION::TENANT.set(a, t);
    a = rm::CLS_ACTION::CLASS.set(a, 1);
    a = rm::CLS_ACTION::CRYPTO_OP.set(a, t == crypto_tenant ? op : 0U);
    nic.write32(rm::CLS_ACTION::offset(t), a);
  }
  nic.write32(rm::COMMIT::kOffset, 1);
}

std::vector<std::uint8_t> frame(FrameBuilder& fb, std::uint32_t tenant, std::uint32_t len, std::uint64_t id) {
  std::vector<std::uint8_t> f(len);
  fb.build(f.data(), len, {static_cast<std::uint16_t>(100 + tenant), 0, 40000, 5000}, {id, 0, len, static_cast<std::uint8_t>(tenant), 1});
  return f;
}

}  // namespace

TEST_CASE("NicModel: registers answer through AXI4-Lite", "[nic_model]") {
  NicModel nic(NicConfig{});
  CHECK(nic.read32(rm::ID::kOffset) == 0x4E534348U);
  const std::uint32_t caps0 = nic.read32(rm::CAPS0::kOffset);
  CHECK(rm::CAPS0::TENANTS.get(caps0) == 8);
  CHECK(rm::CAPS0::CLS_ENTRIES.get(caps0) == 16);
  nic.write32(rm::SCRATCH::kOffset, 0xCAFEF00D);
  CHECK(nic.read32(rm::SCRATCH::kOffset) == 0xCAFEF00D);
  const std::uint64_t c0 = nic.cycle();
  nic.step(100);
  CHECK(nic.cycle() == c0 + 100);
  CHECK_THROWS_AS(nic.read32(0xFFFC), drivers::BusResponseError);
  CHECK_THROWS_AS(nic.read32(0x0002), drivers::BusError);
}

TEST_CASE("NicModel: frames come out intact and attributed to the tenant the classifier chose",
          "[nic_model]") {
  NicModel nic(NicConfig{});
  classify_by_vlan(nic, 4, 99);
  FrameBuilder fb;
  ListSource src;
  ListSink sink;
  std::map<std::uint64_t, std::pair<std::uint32_t, std::vector<std::uint8_t>>> sent;
  std::uint64_t id = 1;
  for (std::uint32_t len : {78U, 64U * 2, 129U, 1000U, 1518U, 200U, 333U, 1517U}) {
    for (std::uint32_t t = 0; t < 4; ++t) {
      auto f = frame(fb, t, len, id);
      sent[id] = {t, f};
      src.frames[0].push_back(std::move(f));
      ++id;
    }
  }
  nic.attach(&src, &sink);
  nic.notify_pending(Direction::kTx);
  nic.step(5000);
  REQUIRE(sink.out[0].size() == sent.size());
  std::map<std::uint32_t, std::uint64_t> last_id;
  for (const auto& o : sink.out[0]) {
    const auto tag = parse_tag(o.bytes.data(), static_cast<std::uint32_t>(o.bytes.size()));
    REQUIRE(tag.has_value());
    const auto& [tenant, bytes] = sent.at(tag->id);
    CHECK(o.bytes == bytes);
    CHECK(o.tenant == tenant);
    CHECK(o.cls == 1);
    CHECK(last_id[tenant] < tag->id);  // per-tenant order kept
    last_id[tenant] = tag->id;
  }
  CHECK(nic.mac_stats().frames_out[0] == sent.size());
}

TEST_CASE("NicModel: RX frames reach the host with crypto-classified frames flagged", "[nic_model]") {
  NicModel nic(NicConfig{});
  classify_by_vlan(nic, 2, 1, 2);  // tenant 1 needs decryption
  FrameBuilder fb;
  ListSource src;
  ListSink sink;
  for (std::uint64_t i = 0; i < 10; ++i) src.frames[1].push_back(frame(fb, static_cast<std::uint32_t>(i % 2), 700, i + 1));
  nic.attach(&src, &sink);
  nic.notify_pending(Direction::kRx);
  nic.step(4000);
  REQUIRE(sink.out[1].size() == 10);
  for (const auto& o : sink.out[1]) {
    const auto tag = parse_tag(o.bytes.data(), static_cast<std::uint32_t>(o.bytes.size()));
    REQUIRE(tag.has_value());
    CHECK(o.tenant == tag->tenant);
    CHECK(o.crypto_op == (tag->tenant == 1 ? 2U : 0U));
    CHECK(o.bytes == frame(fb, tag->tenant, 700, tag->id));
  }
}

TEST_CASE("NicModel: the MAC drains at the link rate and stops during a pause", "[nic_model]") {
  NicConfig cfg;
  cfg.link_bytes_per_cycle = 25.0;  // 50 Gbit/s at 250 MHz
  cfg.pauses = {{30000, 5000}};
  NicModel nic(cfg);
  classify_by_vlan(nic, 1, 99);
  FrameBuilder fb;
  ListSource src;
  src.loop = true;
  src.frames[0].push_back(frame(fb, 0, 1000, 1));
  ListSink sink;
  nic.attach(&src, &sink);
  nic.notify_pending(Direction::kTx);
  nic.step(5000);  // fill the queues
  const std::uint64_t wire0 = nic.mac_stats().wire_bytes_out_tx;
  const std::uint64_t c0 = nic.cycle();
  nic.step(20000);
  const double rate = static_cast<double>(nic.mac_stats().wire_bytes_out_tx - wire0) / static_cast<double>(nic.cycle() - c0);
  CHECK(rate == Approx(25.0).epsilon(0.02));
  const std::size_t before = sink.out[0].size();
  nic.step(30000 + 10 - nic.cycle());
  const std::size_t at_pause = sink.out[0].size();
  nic.step(4900);
  CHECK(sink.out[0].size() == at_pause);  // nothing leaves while paused
  nic.step(2000);
  CHECK(sink.out[0].size() > at_pause);
  CHECK(at_pause > before);
  CHECK(nic.mac_stats().paused_cycles >= 4990);
}
