// The simulator behind NicEnv and the evaluation harness: scenarios with their solo
// baselines (the normalisers of the reward), EnvTargets built on sim::Simulation, and the
// closed control loop that runs any Controller on a scenario and collects its metrics.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nicsched/clone_ptr.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/vec_env.hpp"
#include "nicsched/sim/family.hpp"
#include "nicsched/sim/metrics.hpp"
#include "nicsched/sim/scenario.hpp"
#include "nicsched/sim/simulation.hpp"
#include "nicsched/sim/solo.hpp"

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
// The same for a scenario already in memory (e.g. drawn from a family); the solo baselines
// are measured over `solo_iterations` iterations / rounds per tenant and cached in
// `cache_dir` (empty: not cached).
[[nodiscard]] ScenarioEntry make_scenario_entry(sim::Scenario scenario, std::optional<std::uint64_t> cycles,
                                                std::optional<sim::NicBackend> backend,
                                                std::uint64_t solo_iterations = 6,
                                                const std::filesystem::path& cache_dir = sim::default_cache_dir());
// The scenarios of a family's seeds first .. first + count - 1, with their solo baselines.
[[nodiscard]] std::vector<ScenarioEntry> family_entries(const sim::Family& family, std::uint64_t first,
                                                        std::uint32_t count, std::optional<std::uint64_t> cycles,
                                                        std::optional<sim::NicBackend> backend);

// An EnvTarget on a sim::Simulation of the scenario whose workload seed is derived from
// `seed`. A copy forks the simulation (sim::Simulation::fork): it continues exactly as the
// original would and shares nothing with it.
class SimEnvTarget final : public EnvTarget {
 public:
  // policy_name: what the run's metrics call the controller (RunMetrics::policy).
  SimEnvTarget(const ScenarioEntry& entry, std::uint64_t seed, const std::string& policy_name = {});
  drivers::RegisterBus& bus() override { return *sim_; }
  drivers::SimControl& clock() override { return *sim_; }
  [[nodiscard]] double link_bytes_per_cycle() const override { return link_; }
  std::vector<TenantProgress> progress() override;
  bool finished() override { return sim_->finished(); }
  [[nodiscard]] std::unique_ptr<EnvTarget> clone() const override { return std::make_unique<SimEnvTarget>(*this); }
  [[nodiscard]] sim::Simulation& simulation() { return *sim_; }
  [[nodiscard]] const sim::Simulation& simulation() const { return *sim_; }

 private:
  ClonePtr<sim::Simulation, &sim::Simulation::fork> sim_;
  double link_ = 0;
  std::vector<TenantProgress> info_;
  std::vector<int> slot_;
};

// A fresh SimEnvTarget.
[[nodiscard]] std::unique_ptr<EnvTarget> make_sim_target(const ScenarioEntry& entry, std::uint64_t seed);

// Env k of a vectorised run trains on scenarios[k % size] (all must have the same NIC).
[[nodiscard]] TargetFactory sim_target_factory(std::shared_ptr<const std::vector<ScenarioEntry>> scenarios,
                                               std::size_t env_index);

// Training over a scenario family (docs/agent.md, "Training over a family"): the top tenth
// of the family's seed range is held out for validation draws (model selection), training
// draws from the rest, so the two never share a scenario.
struct SeedRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};
[[nodiscard]] SeedRange training_seeds(const sim::Family& family);
[[nodiscard]] SeedRange validation_seeds(const sim::Family& family);
// Every episode draws a fresh scenario: family seed = training_seeds().first + (episode
// seed mod their count), simulated for `cycles` (its solo baselines measured over the same
// cycles, not cached: a draw hardly ever repeats); `on_draw` (may be empty) is told the
// family seed and the scenario of each episode, before the episode's target is built.
// Episode seed 0, NicEnv's probe of the NIC's shape, gives the first training seed's
// scenario without solo baselines (not an episode, not told).
using DrawCallback = std::function<void(std::uint64_t family_seed, const ScenarioEntry& draw)>;
[[nodiscard]] TargetFactory family_target_factory(std::shared_ptr<const sim::Family> family,
                                                  std::optional<std::uint64_t> cycles,
                                                  std::optional<sim::NicBackend> backend, DrawCallback on_draw = {});

// One controller on one scenario and seed, from reset to the scenario's end.
struct RunResult {
  std::string controller;
  sim::RunMetrics metrics;
  std::uint64_t interval_cycles = 0;
  std::vector<std::string> tenant_names;           // NIC tenant order
  std::vector<std::vector<double>> bandwidth_gbps;  // per interval, per NIC tenant
  std::vector<std::vector<double>> crypto_share;    // per interval, per NIC tenant: slot-busy cycles / (cycles x slots)
  std::vector<double> time_us;                     // end of each interval, simulated us
  std::vector<double> decide_us;                   // wall time of each decide()
  std::vector<double> decide_cpu_us;               // its CPU time (the deciding thread's)
  std::uint64_t decisions = 0;
  // With a reward config: the sum of each reward term (compute_reward, as NicEnv gives it)
  // over the intervals that followed a decision (reward_steps of them), i.e. the run's
  // return as an episode of that length (undiscounted).
  std::optional<RewardTerms> episode_return;
  std::uint64_t reward_steps = 0;
};
// One controller on one scenario and seed, interval by interval: the closed loop that
// run_controller runs from reset to the end, kept as an object so that it can be forked
// at a decision (docs/simulation.md, "Forking a simulation"): a lookahead oracle forks the
// run, lets each candidate decide in its copy for a horizon and compares them. fork()
// copies the simulation (sim::Simulation::fork: NIC, workloads, host queues, frames in
// flight, random streams, metric accumulators), the telemetry tracker, the controller
// (Controller::clone: its guard counts and observation history), the base policy, the
// reward's progress and what the run has recorded; the copy continues exactly as the
// original would, and nothing done to the copy (set_controller, stepping) changes the
// original. The model backend only (the rtl backend's fork throws sim::SimError).
class ControlledRun {
 public:
  // Builds the simulation and reads the NIC's base policy and first snapshot; the first
  // decision comes after the first interval (arguments as run_controller's).
  ControlledRun(const ScenarioEntry& entry, std::uint64_t seed, std::unique_ptr<Controller> controller,
                std::uint64_t interval_cycles, std::optional<std::uint64_t> min_iterations = std::nullopt,
                std::optional<NicEnvConfig> reward = std::nullopt);
  ControlledRun& operator=(const ControlledRun&) = delete;
  ~ControlledRun();

  // One control interval: the simulation runs it, its telemetry is folded in (and its
  // reward), then, unless the run is over, the controller decides and its policy is
  // committed. Returns false once the run is over (nothing more happens then).
  bool step();
  [[nodiscard]] bool done() const { return done_; }
  // A copy that continues exactly as this run would; between steps.
  [[nodiscard]] std::unique_ptr<ControlledRun> fork() const;
  // `controller` decides from the next decision on, in the state it is in (a candidate
  // in a forked run; call its reset() first for a fresh one).
  void set_controller(std::unique_ptr<Controller> controller);
  [[nodiscard]] Controller& controller() { return *controller_; }
  [[nodiscard]] sim::Simulation& simulation() { return target_.simulation(); }
  [[nodiscard]] const TelemetryTracker& tracker() const { return tracker_; }
  // What the run has recorded, with the metrics as of now.
  [[nodiscard]] RunResult result();

 private:
  ControlledRun(const ControlledRun&);  // fork(): every member's own copy (defaulted)

  SimEnvTarget target_;
  host::Capabilities caps_;
  host::Policy base_;
  TelemetryTracker tracker_;
  ClonePtr<Controller> controller_;
  std::uint64_t interval_cycles_;
  std::optional<std::uint64_t> min_iterations_;
  std::optional<NicEnvConfig> reward_;
  std::vector<TenantProgress> start_progress_, last_progress_;
  std::uint64_t start_cycle_ = 0;
  double clock_mhz_ = 0;
  bool done_ = false;
  RunResult out_;
};

// The run decides with a clone of `controller`, which it leaves as it was (to read the
// state of the controller that ran, step a ControlledRun and read its controller()).
// min_iterations: stop at the end of the first interval where every_tenant_done() holds
// (whole-scenario evaluation) instead of at the scenario's end (or entry.cycles).
// reward: also sum the reward of this env config over the run (RunResult::episode_return).
// Its reward fields apply (episode_steps as the slowdown term's scale too); the run's own
// interval and length do, not its interval_cycles, nor episode_steps as a length.
[[nodiscard]] RunResult run_controller(const ScenarioEntry& entry, std::uint64_t seed, Controller& controller,
                                       std::uint64_t interval_cycles,
                                       std::optional<std::uint64_t> min_iterations = std::nullopt,
                                       const std::optional<NicEnvConfig>& reward = std::nullopt);

// `make` (a fresh controller per run) on seeds 1 .. seeds of `entry`, the seeds in parallel
// on `pool` (eval, and the validation runs of model selection in train).
[[nodiscard]] std::vector<RunResult> run_seeds(const ScenarioEntry& entry, std::uint32_t seeds,
                                               const std::function<std::unique_ptr<Controller>()>& make,
                                               std::uint64_t interval_cycles,
                                               std::optional<std::uint64_t> min_iterations, ParallelFor& pool,
                                               const std::optional<NicEnvConfig>& reward = std::nullopt);

// The stopping rule of whole-scenario evaluation: every training tenant (DDP, FL) has
// finished at least `min_iterations` iterations / rounds, or has left the scenario.
// Background and pcap tenants never hold a run open.
[[nodiscard]] bool every_tenant_done(const sim::Simulation& sim, std::uint64_t min_iterations);

// What one run scores in whole-scenario evaluation: per training tenant (DDP, FL), its
// iteration (round) time over its solo one, averaged over the tenants. A tenant that
// finished no iteration while it was there counts with the time it was there (a lower
// bound of its iteration time), so starving a tenant never looks good. Tenants without a
// solo iteration time are left out; NaN when none is left.
struct TenantScore {
  std::size_t tenant = 0;  // index in the scenario's (and the run's) tenant list
  double norm_time = NAN;  // iteration (round) time / solo; the time it was there if none finished
  bool finished = false;   // it finished at least one iteration (round) in the run
};
struct RunScore {
  double norm_time = NAN;  // mean normalised iteration time (1 = solo speed; lower is better)
  double speed = NAN;      // mean of solo / iteration time (the fraction of solo speed)
  // The scored tenants, each one's term of the mean (eval's tenants.csv; the worst of them
  // is what starvation looks like).
  std::vector<TenantScore> tenants;
};
[[nodiscard]] RunScore score_run(const RunResult& run, const sim::Scenario& scenario);
// The mean over runs of score_run().norm_time, runs without a score left out (NaN if none).
[[nodiscard]] double mean_norm_time(const std::vector<RunResult>& runs, const sim::Scenario& scenario);
// Model selection's score (nicagent train --validation-family): on every scenario, the
// mean_norm_time of `seeds` runs of `make` (run_seeds), then the mean over scenarios (NaN
// ones left out; NaN if none has a score). Lower is better.
[[nodiscard]] double validation_score(const std::vector<ScenarioEntry>& scenarios, std::uint32_t seeds,
                                      const std::function<std::unique_ptr<Controller>()>& make,
                                      std::uint64_t interval_cycles, std::optional<std::uint64_t> min_iterations,
                                      ParallelFor& pool);

// A baseline as whole-scenario evaluation runs it on `scenario`: make_baseline(name), `sp`
// with the scenario's priorities (sim::scenario_priorities), as nicagent eval builds it.
[[nodiscard]] std::unique_ptr<Controller> make_scenario_baseline(const std::string& name,
                                                                 const sim::Scenario& scenario);

// The best of several baselines on one scenario: behaviour cloning's per-draw teacher
// (nicagent train --bc-teacher best:a,b,...; docs/agent.md). Each candidate
// (make_scenario_baseline) is scored on `entry` alone exactly as model selection scores a
// policy (validation_score, `seeds` runs); the lowest score wins, the first candidate on a
// tie; a NaN score (no training tenant) never wins unless all are NaN (then the first).
struct BaselineChoice {
  std::size_t best = 0;        // index into the candidates
  std::vector<double> scores;  // per candidate, lower is better
};
[[nodiscard]] BaselineChoice best_baseline(const ScenarioEntry& entry, const std::vector<std::string>& candidates,
                                           std::uint32_t seeds, std::uint64_t interval_cycles,
                                           std::optional<std::uint64_t> min_iterations, ParallelFor& pool);

}  // namespace nicsched::control
