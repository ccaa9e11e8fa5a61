// NicParams: the build parameters of a NIC under test (what CAPS0/CAPS1, ID and VERSION
// report), and the host::Capabilities that discovery reads from such a NIC. The defaults
// are those of the default nicsched_top: 8 tenants, 16 classifier entries, 4 priority
// levels, 4 crypto slots, 64-byte beats, 256 KiB of buffer.
#pragma once

#include <cstdint>

#include "nicsched/host/types.hpp"
#include "nicsched/nic/types.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::test {

struct NicParams {
  std::uint32_t tenants = 8, cls_entries = 16, prio_levels = 4, crypto_slots = 4, data_bytes = 64,
                buffer_kib = 256, version_major = regmap::VERSION::MAJOR.get(regmap::VERSION::kReset);
  std::uint32_t id = regmap::ID::VALUE.get(regmap::ID::kReset);
};

// The capabilities of a NIC built with `p` (version_minor left 0).
inline host::Capabilities capabilities(const NicParams& p = {}) {
  host::Capabilities c;
  c.id = p.id;
  c.version_major = p.version_major;
  c.tenants = p.tenants;
  c.classes = nic::kNumClasses;
  c.prio_levels = p.prio_levels;
  c.crypto_slots = p.crypto_slots;
  c.cls_entries = p.cls_entries;
  c.data_bytes = p.data_bytes;
  c.buffer_kib = p.buffer_kib;
  return c;
}

}  // namespace nicsched::test
