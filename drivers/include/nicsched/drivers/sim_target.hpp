// SimTarget: what `nicsim serve` exposes over its socket: the register bus, simulated
// time, and the scenario's metrics. Implemented by nicsched::sim::Simulation; served by
// the drivers' protocol server; reached by clients through the sim:// and unix:// URIs.
#pragma once

#include <string>

#include "nicsched/drivers/register_bus.hpp"

namespace nicsched::drivers {

class SimTarget : public RegisterBus, public SimControl {
 public:
  // The scenario's metrics so far, as one JSON object (see docs/simulation.md).
  [[nodiscard]] virtual std::string metrics_json() = 0;
};

}  // namespace nicsched::drivers
