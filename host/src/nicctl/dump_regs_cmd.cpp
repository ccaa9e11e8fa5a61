// nicctl dump-regs: every readable register of the map, with address and value.
#include <fmt/format.h>

#include <iostream>

#include "nicsched/host/discovery.hpp"
#include "nicsched/regmap.hpp"

#include "commands.hpp"

namespace nicsched::nicctl {

namespace rm = nicsched::regmap;

int cmd_dump_regs(const Global& g, bool snapshot_first) {
  Session s = connect(g);
  if (snapshot_first) s.bus->write32(rm::SNAPSHOT::kOffset, rm::SNAPSHOT::GO.set(0, 1));
  for (const rm::RegisterInfo& reg : rm::kRegisters) {
    const std::uint32_t n = host::instance_count(reg, s.caps);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::string name = reg.is_array() ? fmt::format("{}[{}]", reg.name, i) : std::string(reg.name);
      const std::uint32_t addr = reg.address(i);
      if (!reg.readable()) {
        std::cout << fmt::format("0x{:04x}  {:<22} (write-only)\n", addr, name);
        continue;
      }
      if (reg.width == 64) {
        const std::uint64_t v = s.bus->read64(addr);
        std::cout << fmt::format("0x{:04x}  {:<22} 0x{:016x}  {}\n", addr, name, v, v);
      } else {
        const std::uint32_t v = s.bus->read32(addr);
        std::cout << fmt::format("0x{:04x}  {:<22} 0x{:08x}          {}\n", addr, name, v, v);
      }
    }
  }
  return kOk;
}

}  // namespace nicsched::nicctl
