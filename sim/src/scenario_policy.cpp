// Scenario -> policy (scenario_policy.hpp): the static baselines through the one set of
// controllers, and the scenario's classifier table and TX identity.
#include "nicsched/sim/scenario_policy.hpp"

#include <algorithm>
#include <optional>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/tracker.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/frame.hpp"

namespace nicsched::sim {

std::vector<std::uint32_t> scenario_priorities(const Scenario& s, std::uint32_t nic_tenants) {
  std::vector<std::uint32_t> levels(nic_tenants, nic_tenants);
  for (const auto& t : s.tenants) {
    if (t.index < levels.size()) levels[t.index] = t.priority;
  }
  return levels;
}

host::Policy baseline_policy(const std::string& baseline, const Scenario& s, const host::Capabilities& caps) {
  if (!control::is_static_baseline(baseline)) {
    std::string known;
    for (const auto& n : control::static_baseline_names()) known += (known.empty() ? "" : ", ") + n;
    throw SimError("unknown static baseline '" + baseline + "' (expected " + known + ")");
  }
  host::Policy base;
  base.enable = true;
  // A static baseline reads only the capabilities: a tracker that has seen no snapshot.
  const control::TelemetryTracker no_telemetry(caps, s.link_bytes_per_cycle());
  return control::make_baseline(baseline, scenario_priorities(s, caps.tenants))->decide(no_telemetry, base);
}

host::Policy with_scenario_classifier(host::Policy p, const Scenario& s) {
  // Classifier: per tenant, control first (VLAN + DSCP EF), then bulk (VLAN + port).
  std::vector<host::ClassifierEntry> entries;
  std::optional<host::ClassifierAction> deflt;
  for (const auto& t : s.tenants) {
    host::ClassifierEntry e;
    e.vlan = t.vlan;
    e.vlan_mask = 0xFFF;
    e.action.tenant = t.index;
    switch (t.kind) {
      case WorkloadKind::kDdp:
        if (t.control.enabled) {
          e.dscp = kDscpControl;
          e.dscp_mask = 0x3F;
          e.action.cls = 0;
          entries.push_back(e);
          e.dscp = e.dscp_mask = 0;
        }
        e.action.cls = 1;
        entries.push_back(e);
        break;
      case WorkloadKind::kFl:
        e.action.cls = 1;
        e.port_mask = 0xFFFF;
        e.port = t.port;
        e.action.crypto_op = host::CryptoOp::kEncrypt;
        entries.push_back(e);
        e.port = static_cast<std::uint32_t>(t.port + 1);
        e.action.crypto_op = host::CryptoOp::kDecrypt;
        entries.push_back(e);
        break;
      case WorkloadKind::kBackground:
        e.action.cls = 1;
        entries.push_back(e);
        break;
      case WorkloadKind::kPcap:
        if (t.classify) {
          e.action.cls = 1;
          entries.push_back(e);
        } else {
          deflt = host::ClassifierAction{t.index, 1, host::CryptoOp::kNone};
        }
        break;
    }
  }
  p.classifier = entries;
  if (!deflt) deflt = host::ClassifierAction{s.tenants.back().index, 1, host::CryptoOp::kNone};
  p.default_action = deflt;
  p.tx_identity = scenario_tx_identity(s);
  return p;
}

host::TxIdentityConfig scenario_tx_identity(const Scenario& s) {
  host::TxIdentityConfig id;
  id.source_mode = s.tx_identity == TxIdentity::kSource;
  if (!id.source_mode) return id;
  id.sources.resize(s.nic_tenants);
  for (const auto& t : s.tenants) id.sources[t.index] = {true, t.index, s.drop_spoofed};
  return id;
}

}  // namespace nicsched::sim
