// nicctl reset-counters: zero every telemetry counter (COUNTER_CLEAR).
#include <fmt/format.h>

#include <iostream>

#include "nicsched/regmap.hpp"

#include "commands.hpp"

namespace nicsched::nicctl {

namespace rm = nicsched::regmap;

int cmd_reset_counters(const Global& g) {
  Session s = connect(g);
  s.bus->write32(rm::COUNTER_CLEAR::kOffset, rm::COUNTER_CLEAR::GO.set(0, 1));
  std::cout << fmt::format("{}: telemetry counters cleared\n", s.bus->describe());
  return kOk;
}

}  // namespace nicsched::nicctl
