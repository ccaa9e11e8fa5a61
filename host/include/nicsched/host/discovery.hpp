// Hardware discovery: what the NIC is, from ID / VERSION / CAPS0 / CAPS1.
#pragma once

#include <cstdint>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/errors.hpp"
#include "nicsched/host/types.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::host {

// The register-interface major version this software speaks (from the register map).
[[nodiscard]] std::uint32_t supported_major_version();

// Reads ID, VERSION and the capabilities. Throws IncompatibleHardware when ID is not
// "NSCH", the major version is not supported_major_version(), or the capabilities are
// impossible (zero tenants, more than the map allows, ...).
[[nodiscard]] Capabilities discover(drivers::RegisterBus& bus);

// Elements of an array register in this instance (the count named by its count_param,
// from the capabilities); 1 for a single register.
[[nodiscard]] std::uint32_t instance_count(const regmap::RegisterInfo& reg, const Capabilities& caps);

}  // namespace nicsched::host
