// Scenario -> policy: what the simulator writes into the NIC before the first cycle. The
// policy comes from a static baseline (the controllers of nicsched::controllers, each
// defined once there) or from the caller; the classifier table always comes from the
// scenario, because tenant identity is the scenario's (VLAN, DSCP, UDP port).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nicsched/host/types.hpp"
#include "nicsched/sim/scenario.hpp"

namespace nicsched::sim {

// The scenario's strict-priority levels by NIC tenant (tenant.priority; NIC tenants the
// scenario does not use: nic_tenants, which the sp baseline clamps to the lowest level).
[[nodiscard]] std::vector<std::uint32_t> scenario_priorities(const Scenario& s, std::uint32_t nic_tenants);

// The policy a static baseline (control::static_baseline_names(): fifo, fair, sp) stands
// for on a scenario: the controller's one decision on an enabled default policy, sp with
// the scenario's priorities. Classifier not included. Throws SimError for another name.
[[nodiscard]] host::Policy baseline_policy(const std::string& baseline, const Scenario& s,
                                           const host::Capabilities& caps);

// `p` with the scenario's classifier table (per tenant: control entry VLAN + DSCP EF,
// bulk entry VLAN [+ UDP port for FL upload/download with encrypt/decrypt]), default
// action and TX identity (scenario_tx_identity). A controller that writes policies (the
// agent) keeps them by leaving Policy::classifier / tx_identity unset, or by passing its
// policy through this.
[[nodiscard]] host::Policy with_scenario_classifier(host::Policy p, const Scenario& s);

// The scenario's TX identity (nic.tx_identity, nic.on_spoof; docs/trust.md): each tenant
// sends from its own source, numbered as the tenant. Header-only: no source bound. Source:
// each tenant's source bound to it, spoofs dropped or kept as nic.on_spoof says.
[[nodiscard]] host::TxIdentityConfig scenario_tx_identity(const Scenario& s);

}  // namespace nicsched::sim
