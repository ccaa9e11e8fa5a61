// What `nicsim run` and `nicsim serve` share: the scenario and policy options, the
// Simulation's options from them, the solo baselines through their cache.
#include <filesystem>

#include "commands.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/solo.hpp"

namespace nicsched::nicsim_cli {

void add_scenario_options(CLI::App* sub, ScenarioOptions& o) {
  sub->add_option("scenario", o.scenario, "Scenario YAML file (sim/scenarios/)")->required();
  sub->add_option("--policy", o.policy, "Static policy file (YAML, the nicctl format)");
  sub->add_option("--cycles", o.cycles, "Simulated cycles instead of the scenario's duration");
  sub->add_option("--cache-dir", o.cache_dir, "Where solo-baseline results are cached");
  sub->add_flag("--no-cache", o.no_cache, "Recompute the solo baselines");
  sub->add_option("--backend", o.backend,
                  "What simulates the NIC: rtl (Verilated nicsched_top) or model (the reference model, "
                  "faster; docs/simulation.md); default: the scenario's nic.backend, else rtl")
      ->check(CLI::IsMember({"rtl", "model"}));
  sub->add_option("--control-level", o.control_level,
                  "on | off: the control level (CTRL.CONTROL_LEVEL, docs/rtl.md \"Control class\") whatever the "
                  "policy says; default: the policy's (on unless it says otherwise)")
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("--tx-identity", o.tx_identity,
                  "headers | source: who says whose a TX frame is (docs/trust.md); default: the scenario's "
                  "nic.tx_identity, else headers")
      ->check(CLI::IsMember({"headers", "source"}));
  sub->add_option("--on-spoof", o.on_spoof,
                  "keep | drop: what a bound source's frame that claims another tenant becomes; default: the "
                  "scenario's nic.on_spoof, else keep")
      ->check(CLI::IsMember({"keep", "drop"}));
}

sim::Scenario load_scenario(const ScenarioOptions& o) {
  sim::Scenario s = sim::load_scenario(o.scenario);
  if (!o.backend.empty()) s.backend = sim::parse_backend(o.backend);
  if (!o.tx_identity.empty()) {
    s.tx_identity = o.tx_identity == "source" ? sim::TxIdentity::kSource : sim::TxIdentity::kHeaders;
    s.tx_identity_set = true;
  }
  if (!o.on_spoof.empty()) {
    if (s.tx_identity != sim::TxIdentity::kSource) {
      throw sim::SimError("--on-spoof " + o.on_spoof + ": only with tx_identity source (--tx-identity source)");
    }
    s.drop_spoofed = o.on_spoof == "drop";
  }
  return s;
}

sim::SimOptions sim_options(const ScenarioOptions& o, const std::string& baseline) {
  sim::SimOptions so;
  so.cycles = o.cycles;
  if (!o.control_level.empty()) so.control_level = o.control_level == "on";
  if (!o.policy.empty()) {
    so.policy_file = o.policy;
  } else {
    so.baseline = baseline;
  }
  return so;
}

std::vector<std::optional<sim::SoloResult>> solo_baselines(const ScenarioOptions& o, const sim::Scenario& s) {
  const std::filesystem::path dir = o.no_cache            ? std::filesystem::path{}
                                    : o.cache_dir.empty() ? sim::default_cache_dir()
                                                          : std::filesystem::path(o.cache_dir);
  return sim::solo_baselines(s, dir, o.cycles);
}

}  // namespace nicsched::nicsim_cli
