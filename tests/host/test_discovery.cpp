// Discovery: capabilities come from the registers, and unknown hardware is refused.
#include <catch2/catch.hpp>

#include "nicsched/host/discovery.hpp"
#include "stand_in_nic.hpp"

using namespace nicsched;
using test::StandInNic;

TEST_CASE("discover: capabilities are read from CAPS0 and CAPS1", "[discovery]") {
  StandInNic nic(
      {.tenants = 64, .cls_entries = 32, .prio_levels = 3, .crypto_slots = 6, .data_bytes = 8, .buffer_kib = 512});
  const host::Capabilities c = host::discover(nic);
  CHECK(c.id == 0x4E534348);
  CHECK(c.version_major == host::supported_major_version());
  CHECK(c.tenants == 64);
  CHECK(c.classes == 2);
  CHECK(c.queues() == 128);
  CHECK(c.prio_levels == 3);
  CHECK(c.crypto_slots == 6);
  CHECK(c.cls_entries == 32);
  CHECK(c.buffer_kib == 512);
  CHECK(c.data_bytes == 8);
}

TEST_CASE("discover: a device that is not a nicsched NIC is refused with the ID it read", "[discovery]") {
  StandInNic::Params p;
  p.id = 0xFFFFFFFF;  // what an absent PCIe device reads
  StandInNic nic(p);
  CHECK_THROWS_AS(host::discover(nic), host::IncompatibleHardware);
  CHECK_THROWS_WITH(host::discover(nic), Catch::Contains("0xffffffff") && Catch::Contains("not a nicsched NIC"));
}

TEST_CASE("discover: an unknown major version is refused", "[discovery]") {
  StandInNic::Params p;
  p.version_major = host::supported_major_version() + 1;
  StandInNic nic(p);
  CHECK_THROWS_WITH(host::discover(nic), Catch::Contains(fmt::format("version {}.", p.version_major)) &&
                                             Catch::Contains("major version"));
}

TEST_CASE("discover: impossible capabilities are refused", "[discovery]") {
  StandInNic nic({.tenants = 0});
  CHECK_THROWS_WITH(host::discover(nic), Catch::Contains("tenants 0"));
}

TEST_CASE("instance_count: arrays follow the capabilities, fixed arrays their map count", "[discovery]") {
  StandInNic nic({.tenants = 5, .cls_entries = 3});
  const auto caps = host::discover(nic);
  CHECK(host::instance_count(*regmap::find_register("T_WEIGHT"), caps) == 5);
  CHECK(host::instance_count(*regmap::find_register("Q_TX_BYTES"), caps) == 10);
  CHECK(host::instance_count(*regmap::find_register("CLS_ACTION"), caps) == 3);
  CHECK(host::instance_count(*regmap::find_register("PRS_FRAMES"), caps) == 2);
  CHECK(host::instance_count(*regmap::find_register("CTRL"), caps) == 1);
}
