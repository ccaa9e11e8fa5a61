// Controllers: something that looks at the tracked telemetry every control interval and
// returns the scheduler policy to commit. Every controller of the project is defined once,
// here (the baselines, no learning) or in nicsched::ppo (the learned policy), and is used
// by nicsim (the static baselines, written once before the first cycle), nicagent (eval,
// serve, the behaviour-cloning teacher) and the tests. All are compared by the same harness.
//
//   fifo          one FIFO across all queues (a plain NIC)                     static
//   fair          DWRR with equal weights, one priority level                  static
//   sp            static strict priority (tenant order, or the levels given),  static
//                 DWRR inside a level
//   stagger       cyclic staggering: tenants in a burst get priority by burst start,
//                 earliest first; idle tenants lowest
//   las           least attained service (multi-level feedback, Tiresias-like): a burst
//                 starts at the top level and sinks one level per 4x more bytes sent
//   progress      least remaining burst first (estimated from the previous burst's size)
//   crypto-equal  fair, and crypto slots split equally among tenants that use crypto
//   crypto-prop   fair, and crypto slots split in proportion to each tenant's demand
//   progress+guard  progress with the starvation guard (below)
//   select        online selector: tries candidate baselines during the run and keeps the
//                 one whose measured progress is best (selector.hpp); select:A,B,... with
//                 its own candidates
//
// NAME+guard (NAME+guardN): the baseline with the starvation guard over its decisions,
// lifting a tenant held back for kDefaultGuardIntervals (N) intervals (guard.hpp).
//
// Every baseline gives each tenant the same DWRR quantum, kBaseQuantum, unless it controls
// weights (none does today).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nicsched/control/tracker.hpp"
#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/host/types.hpp"
#include "nicsched/interface.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::control {

// DWRR quantum of a tenant of weight level 0: the register map's reset value (1500 bytes).
inline constexpr std::uint32_t kBaseQuantum = regmap::T_WEIGHT::QUANTUM.get(regmap::T_WEIGHT::kReset);

class Controller : public Interface {
 public:
  [[nodiscard]] virtual std::string name() const = 0;
  // A copy in the same state that decides from now on exactly as this one would (its
  // telemetry history, guard counts, observation frames): what a forked run continues
  // with (ControlledRun::fork, docs/simulation.md "Forking a simulation").
  [[nodiscard]] virtual std::unique_ptr<Controller> clone() const = 0;
  // Called at the start of a run.
  virtual void reset() {}
  // `base` is the NIC's configuration at the start of the run (engine settings, queue
  // limits, classifier); the result changes only what the controller controls.
  [[nodiscard]] virtual host::Policy decide(const TelemetryTracker& tracker, const host::Policy& base) = 0;
};

// The starvation guard's interval count of NAME+guard (guard.hpp, docs/agent.md).
inline constexpr std::uint32_t kDefaultGuardIntervals = 32;

// The baseline names above, in that order.
[[nodiscard]] const std::vector<std::string>& baseline_names();
// The static ones (fifo, fair, sp): their decision depends on the capabilities and the sp
// levels only, never on telemetry, so one decision before the first cycle stands for the
// whole run (nicsim run --baseline).
[[nodiscard]] const std::vector<std::string>& static_baseline_names();
[[nodiscard]] bool is_static_baseline(const std::string& name);
// What a controller's decide() gets as `base`: the NIC's policy as read back, less the
// classifier table and default action (tenant identity stays what the scenario or the
// operator wrote; no controller changes it).
[[nodiscard]] host::Policy read_controller_base(drivers::RegisterBus& bus, const host::Capabilities& caps);
// A baseline by name; throws EnvError naming the unknown name and the known ones.
// sp_levels: static priorities for `sp` (by tenant; empty: tenant index order).
[[nodiscard]] std::unique_ptr<Controller> make_baseline(const std::string& name,
                                                         std::vector<std::uint32_t> sp_levels = {});

// Levels 0..levels-1 to tenants ranked by key (ascending), rank r -> min(r, levels-2);
// unranked tenants (key < 0) get the lowest level. Shared by the phase-aware baselines.
[[nodiscard]] std::vector<std::uint32_t> rank_to_levels(const std::vector<double>& key,
                                                        std::uint32_t levels);

}  // namespace nicsched::control
