// Register-level configuration and telemetry of the simulated NIC, through the generated
// register map (include/nicsched/regmap.hpp): discovery, a complete policy with one
// COMMIT, and one SNAPSHOT of the counters.
#pragma once

#include <filesystem>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::sim::nic_io {

[[nodiscard]] host::Capabilities discover(drivers::RegisterBus& bus);
// Writes every shadow register of the policy, then COMMIT. Throws SimError for a policy
// the capabilities cannot hold.
void apply(drivers::RegisterBus& bus, const host::Capabilities& caps, const host::Policy& p);
// A policy file, validated against the capabilities (nicsched::host's loader; errors are
// host::PolicyError naming file, line and key).
[[nodiscard]] host::Policy load_policy(const std::filesystem::path& file, const host::Capabilities& caps);
[[nodiscard]] host::Telemetry snapshot(drivers::RegisterBus& bus, const host::Capabilities& caps);

}  // namespace nicsched::sim::nic_io
