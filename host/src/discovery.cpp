#include "nicsched/host/discovery.hpp"

#include <fmt/format.h>

namespace nicsched::host {

namespace rm = nicsched::regmap;

std::uint32_t supported_major_version() { return rm::VERSION::MAJOR.get(rm::VERSION::kReset); }

Capabilities discover(drivers::RegisterBus& bus) {
  Capabilities c;
  std::uint32_t head[4] = {};
  bus.read_block(rm::ID::kOffset, head);  // ID, VERSION, CAPS0, CAPS1 are consecutive words
  static_assert(rm::VERSION::kOffset == rm::ID::kOffset + 4 && rm::CAPS0::kOffset == rm::ID::kOffset + 8 &&
                rm::CAPS1::kOffset == rm::ID::kOffset + 12);
  c.id = rm::ID::VALUE.get(head[0]);
  const std::uint32_t expected_id = rm::ID::VALUE.get(rm::ID::kReset);
  if (c.id != expected_id) {
    throw IncompatibleHardware(fmt::format(
        "{}: ID register reads 0x{:08x}, expected 0x{:08x} (\"NSCH\"): not a nicsched NIC, or it is not "
        "responding", bus.describe(), c.id, expected_id));
  }
  c.version_major = rm::VERSION::MAJOR.get(head[1]);
  c.version_minor = rm::VERSION::MINOR.get(head[1]);
  if (c.version_major != supported_major_version()) {
    throw IncompatibleHardware(fmt::format(
        "{}: register interface version {}.{}; this software speaks major version {} only",
        bus.describe(), c.version_major, c.version_minor, supported_major_version()));
  }
  c.tenants = rm::CAPS0::TENANTS.get(head[2]);
  c.classes = rm::CAPS0::CLASSES.get(head[2]);
  c.prio_levels = rm::CAPS0::PRIO_LEVELS.get(head[2]);
  c.crypto_slots = rm::CAPS0::CRYPTO_SLOTS.get(head[2]);
  c.cls_entries = rm::CAPS0::CLS_ENTRIES.get(head[2]);
  c.data_bytes = rm::CAPS1::DATA_BYTES.get(head[3]);
  c.buffer_kib = rm::CAPS1::BUFFER_KIB.get(head[3]);
  c.sources = rm::CAPS1::SOURCES.get(head[3]);  // 0 on a core before VERSION.MINOR 2 (no SOURCE block)

  auto check = [&](const char* what, std::uint32_t v, std::uint32_t lo, std::uint32_t hi) {
    if (v < lo || v > hi) {
      throw IncompatibleHardware(fmt::format("{}: CAPS reports {} {}, outside {}..{}: the capability registers are "
                                             "not plausible", bus.describe(), what, v, lo, hi));
    }
  };
  check("tenants", c.tenants, 1, rm::kNumTenantsMax);
  check("classes", c.classes, 2, 2);
  check("priority levels", c.prio_levels, 1, rm::T_CTRL::PRIORITY.max() + 1);
  check("classifier entries", c.cls_entries, 0, rm::kNumClsEntriesMax);
  return c;
}

std::uint32_t instance_count(const regmap::RegisterInfo& reg, const Capabilities& caps) {
  if (!reg.is_array()) return 1;
  if (reg.count_param == "NumTenants") return caps.tenants;
  if (reg.count_param == "NumQueues") return caps.queues();
  if (reg.count_param == "NumClsEntries") return caps.cls_entries;
  if (reg.count_param == "NumSources") return caps.sources;
  if (reg.count_param.empty()) return reg.max_count;
  throw HostError(fmt::format("register {} is counted by parameter {}, which no capability register reports",
                              reg.name, reg.count_param));
}

}  // namespace nicsched::host
