// The simulator behind NicEnv and the evaluation harness: scenarios with their solo
// baselines (the normalisers of the reward), EnvTargets built on sim::Simulation, and the
// closed control loop that runs any Controller on a scenario and collects its metrics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/sim/metrics.hpp"
#include "nicsched/sim/scenario.hpp"
#include "nicsched/sim/simulation.hpp"

namespace nicsched::control {

struct ScenarioEntry {
  sim::Scenario scenario;
  std::vector<std::optional<sim::SoloResult>> solo;  // per scenario tenant
  std::optional<std::uint64_t> cycles;               // run length override
};

// Loads the scenario and its solo baselines (computed once, cached under
// sim::default_cache_dir()). cycles: shorter runs than the scenario's duration.
// backend: simulate the NIC with this backend instead of the scenario's (the solo
// baselines are then measured on it too).
[[nodiscard]] ScenarioEntry load_scenario_entry(const std::filesystem::path& file,
                                                std::optional<std::uint64_t> cycles = std::nullopt,
                                                std::optional<sim::NicBackend> backend = std::nullopt);

// A fresh Simulation of the scenario whose workload seed is derived from `seed`.
[[nodiscard]] std::unique_ptr<EnvTarget> make_sim_target(const ScenarioEntry& entry, std::uint64_t seed);

// Env k of a vectorised run trains on scenarios[k % size] (all must have the same NIC).
[[nodiscard]] TargetFactory sim_target_factory(std::shared_ptr<const std::vector<ScenarioEntry>> scenarios,
                                               std::size_t env_index);

// One controller on one scenario and seed, from reset to the scenario's end.
struct RunResult {
  std::string controller;
  sim::RunMetrics metrics;
  std::uint64_t interval_cycles = 0;
  std::vector<std::string> tenant_names;           // NIC tenant order
  std::vector<std::vector<double>> bandwidth_gbps;  // per interval, per NIC tenant
  std::vector<double> time_us;                     // end of each interval, simulated us
  std::vector<double> decide_us;                   // wall time of each decide()
  std::uint64_t decisions = 0;
};
[[nodiscard]] RunResult run_controller(const ScenarioEntry& entry, std::uint64_t seed, Controller& controller,
                                       std::uint64_t interval_cycles);

}  // namespace nicsched::control
