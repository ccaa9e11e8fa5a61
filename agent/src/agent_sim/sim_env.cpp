#include "nicsched/control/sim_env.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "nicsched/control/thread_clock.hpp"
#include "nicsched/control/vec_env.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"
#include "nicsched/sim/scenario_policy.hpp"

namespace nicsched::control {
namespace {

sim::Scenario seeded(const sim::Scenario& s, std::uint64_t seed) {
  sim::Scenario out = s;
  out.seed = seed == 0 ? s.seed : mix_seed(s.seed ^ seed);
  return out;
}

}  // namespace

SimEnvTarget::SimEnvTarget(const ScenarioEntry& entry, std::uint64_t seed, const std::string& policy_name) {
  sim::SimOptions opts;
  opts.baseline = "fifo";
  opts.cycles = entry.cycles;
  opts.solo = entry.solo;
  if (!policy_name.empty()) opts.policy_name = policy_name;
  sim_ = std::make_unique<sim::Simulation>(seeded(entry.scenario, seed), opts);
  link_ = entry.scenario.link_bytes_per_cycle();
  const auto tenants = sim_->capabilities().tenants;
  info_.resize(tenants);
  slot_.assign(tenants, -1);
  for (std::size_t i = 0; i < sim_->tenant_count(); ++i) {
    const auto& spec = sim_->tenant(i).spec;
    if (spec.index >= tenants) continue;
    slot_[spec.index] = static_cast<int>(i);
    auto& p = info_[spec.index];
    p.training = spec.kind == sim::WorkloadKind::kDdp || spec.kind == sim::WorkloadKind::kFl;
    p.solo_rate = i < entry.solo.size() && entry.solo[i] ? entry.solo[i]->progress_rate : 0.0;
    p.control_deadline_cycles = spec.control.enabled ? spec.control.deadline_cycles : 0;
  }
}

std::vector<TenantProgress> SimEnvTarget::progress() {
  const std::uint64_t now = sim_->cycle();
  for (std::size_t t = 0; t < info_.size(); ++t) {
    if (slot_[t] < 0) continue;
    const auto& tenant = sim_->tenant(static_cast<std::size_t>(slot_[t]));
    info_[t].units = tenant.progress().units();
    const std::uint64_t stop = std::min(now, tenant.spec.stop_cycle);
    info_[t].present_cycles = stop > tenant.spec.start_cycle ? stop - tenant.spec.start_cycle : 0;
  }
  return info_;
}

ScenarioEntry load_scenario_entry(const std::filesystem::path& file, std::optional<std::uint64_t> cycles,
                                  std::optional<sim::NicBackend> backend) {
  return make_scenario_entry(sim::load_scenario(file), cycles, backend);
}

ScenarioEntry make_scenario_entry(sim::Scenario scenario, std::optional<std::uint64_t> cycles,
                                  std::optional<sim::NicBackend> backend, std::uint64_t solo_iterations,
                                  const std::filesystem::path& cache_dir) {
  ScenarioEntry e;
  e.scenario = std::move(scenario);
  if (backend) e.scenario.backend = *backend;
  e.cycles = cycles;
  e.solo = sim::solo_baselines(e.scenario, cache_dir, cycles, solo_iterations);
  return e;
}

std::vector<ScenarioEntry> family_entries(const sim::Family& family, std::uint64_t first, std::uint32_t count,
                                          std::optional<std::uint64_t> cycles,
                                          std::optional<sim::NicBackend> backend) {
  std::vector<ScenarioEntry> out;
  for (std::uint64_t k = 0; k < count; ++k) out.push_back(make_scenario_entry(family.draw(first + k), cycles, backend));
  return out;
}

std::unique_ptr<EnvTarget> make_sim_target(const ScenarioEntry& entry, std::uint64_t seed) {
  return std::make_unique<SimEnvTarget>(entry, seed);
}

TargetFactory sim_target_factory(std::shared_ptr<const std::vector<ScenarioEntry>> scenarios, std::size_t env_index) {
  if (!scenarios || scenarios->empty()) throw EnvError("sim_target_factory: no scenarios");
  return [scenarios, env_index](std::uint64_t seed) {
    return make_sim_target((*scenarios)[env_index % scenarios->size()], seed);
  };
}

SeedRange validation_seeds(const sim::Family& family) {
  const std::uint64_t span = family.seed_last - family.seed_first + 1;
  if (span < 2) {
    throw EnvError(family.file.string() + ": seeds " + std::to_string(family.seed_first) + ".." +
                   std::to_string(family.seed_last) + ": training and validation need at least 2 seeds");
  }
  const std::uint64_t held_out = (span + 9) / 10;  // a tenth, rounded up
  return {family.seed_last - held_out + 1, family.seed_last};
}

SeedRange training_seeds(const sim::Family& family) {
  return {family.seed_first, validation_seeds(family).first - 1};
}

TargetFactory family_target_factory(std::shared_ptr<const sim::Family> family, std::optional<std::uint64_t> cycles,
                                    std::optional<sim::NicBackend> backend, DrawCallback on_draw) {
  if (!family) throw EnvError("family_target_factory: no family");
  const SeedRange seeds = training_seeds(*family);
  return [family, cycles, backend, seeds, on_draw = std::move(on_draw)](std::uint64_t seed) {
    if (seed == 0) {  // NicEnv's probe of the NIC's shape: no solo baselines needed
      ScenarioEntry probe;
      probe.scenario = family->draw(seeds.first);
      if (backend) probe.scenario.backend = *backend;
      probe.cycles = cycles;
      probe.solo.resize(probe.scenario.tenants.size());
      return make_sim_target(probe, 0);
    }
    const std::uint64_t family_seed = seeds.first + seed % (seeds.last - seeds.first + 1);
    const ScenarioEntry entry = make_scenario_entry(family->draw(family_seed), cycles, backend, 6, {});
    if (on_draw) on_draw(family_seed, entry);
    return make_sim_target(entry, seed);
  };
}

std::vector<RunResult> run_seeds(const ScenarioEntry& entry, std::uint32_t seeds,
                                 const std::function<std::unique_ptr<Controller>()>& make,
                                 std::uint64_t interval_cycles, std::optional<std::uint64_t> min_iterations,
                                 ParallelFor& pool, const std::optional<NicEnvConfig>& reward) {
  std::vector<RunResult> runs(seeds);
  pool.run(seeds, [&](std::size_t s) {
    auto ctl = make();
    runs[s] = run_controller(entry, s + 1, *ctl, interval_cycles, min_iterations, reward);
  });
  return runs;
}

double mean_norm_time(const std::vector<RunResult>& runs, const sim::Scenario& scenario) {
  std::vector<double> scores;
  for (const auto& r : runs) {
    const double v = score_run(r, scenario).norm_time;
    if (!std::isnan(v)) scores.push_back(v);
  }
  return sim::mean(scores).value_or(NAN);
}

double validation_score(const std::vector<ScenarioEntry>& scenarios, std::uint32_t seeds,
                        const std::function<std::unique_ptr<Controller>()>& make, std::uint64_t interval_cycles,
                        std::optional<std::uint64_t> min_iterations, ParallelFor& pool) {
  std::vector<double> per;
  for (const auto& e : scenarios) {
    const double v = mean_norm_time(run_seeds(e, seeds, make, interval_cycles, min_iterations, pool), e.scenario);
    if (!std::isnan(v)) per.push_back(v);
  }
  return sim::mean(per).value_or(NAN);
}

std::unique_ptr<Controller> make_scenario_baseline(const std::string& name, const sim::Scenario& scenario) {
  return make_baseline(name, sim::scenario_priorities(scenario, scenario.nic_tenants));
}

BaselineChoice best_baseline(const ScenarioEntry& entry, const std::vector<std::string>& candidates,
                             std::uint32_t seeds, std::uint64_t interval_cycles,
                             std::optional<std::uint64_t> min_iterations, ParallelFor& pool) {
  if (candidates.empty()) throw EnvError("best_baseline: no candidates");
  const std::vector<ScenarioEntry> alone{entry};
  BaselineChoice out;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const double score = validation_score(
        alone, seeds, [&] { return make_scenario_baseline(candidates[c], entry.scenario); }, interval_cycles,
        min_iterations, pool);
    out.scores.push_back(score);
    const double best = out.scores[out.best];
    if (!std::isnan(score) && (std::isnan(best) || score < best)) out.best = c;
  }
  return out;
}

RunScore score_run(const RunResult& run, const sim::Scenario& scenario) {
  std::vector<double> norm;
  std::vector<double> speed;
  std::vector<TenantScore> tenants;
  for (std::size_t i = 0; i < run.metrics.tenants.size() && i < scenario.tenants.size(); ++i) {
    const auto& t = run.metrics.tenants[i];
    const auto& spec = scenario.tenants[i];
    const bool training = spec.kind == sim::WorkloadKind::kDdp || spec.kind == sim::WorkloadKind::kFl;
    if (!training || !t.solo_iter_mean_us || *t.solo_iter_mean_us <= 0) continue;
    double iter_us = 0;
    if (t.iter_mean_us) {
      iter_us = *t.iter_mean_us;
    } else {
      const std::uint64_t stop = std::min(run.metrics.cycles, spec.stop_cycle);
      if (stop <= spec.start_cycle) continue;  // never there
      iter_us = static_cast<double>(stop - spec.start_cycle) / scenario.clock_mhz;
    }
    norm.push_back(iter_us / *t.solo_iter_mean_us);
    speed.push_back(*t.solo_iter_mean_us / iter_us);
    tenants.push_back({i, norm.back(), t.iter_mean_us.has_value()});
  }
  return {sim::mean(norm).value_or(NAN), sim::mean(speed).value_or(NAN), std::move(tenants)};
}

bool every_tenant_done(const sim::Simulation& sim, std::uint64_t min_iterations) {
  for (std::size_t i = 0; i < sim.tenant_count(); ++i) {
    const auto& t = sim.tenant(i);
    if (t.spec.kind != sim::WorkloadKind::kDdp && t.spec.kind != sim::WorkloadKind::kFl) continue;
    const auto& p = t.progress();
    if (p.completed < min_iterations && p.phase != sim::Phase::kLeft) return false;
  }
  return true;
}

ControlledRun::ControlledRun(const ScenarioEntry& entry, std::uint64_t seed, std::unique_ptr<Controller> controller,
                             std::uint64_t interval_cycles, std::optional<std::uint64_t> min_iterations,
                             std::optional<NicEnvConfig> reward)
    : target_(entry, seed, controller->name()),
      caps_(host::discover(target_.simulation())),
      base_(read_controller_base(target_.simulation(), caps_)),
      tracker_(caps_, entry.scenario.link_bytes_per_cycle()),
      controller_(std::move(controller)),
      interval_cycles_(interval_cycles),
      min_iterations_(min_iterations),
      reward_(std::move(reward)),
      clock_mhz_(entry.scenario.clock_mhz) {
  sim::Simulation& sim = target_.simulation();
  tracker_.reset(host::read_snapshot(sim, caps_));
  controller_->reset();
  out_.controller = controller_->name();
  out_.interval_cycles = interval_cycles;
  out_.tenant_names.assign(caps_.tenants, "");
  for (std::size_t i = 0; i < sim.tenant_count(); ++i) {
    const auto idx = sim.tenant(i).spec.index;
    if (idx < caps_.tenants) out_.tenant_names[idx] = sim.tenant(i).spec.name;
  }
  // The reward NicEnv would give each interval (compute_reward), summed over the intervals
  // that follow a decision, as an episode's return is.
  start_cycle_ = sim.cycle();
  if (reward_) {
    start_progress_ = last_progress_ = target_.progress();
    out_.episode_return.emplace();
  }
}

ControlledRun::ControlledRun(const ControlledRun&) = default;
ControlledRun::~ControlledRun() = default;

std::unique_ptr<ControlledRun> ControlledRun::fork() const {
  return std::unique_ptr<ControlledRun>(new ControlledRun(*this));  // the copy constructor is private
}

void ControlledRun::set_controller(std::unique_ptr<Controller> controller) {
  if (!controller) throw EnvError("ControlledRun::set_controller: no controller");
  controller_ = std::move(controller);
}

bool ControlledRun::step() {
  sim::Simulation& sim = target_.simulation();
  if (done_ || sim.finished()) {
    done_ = true;
    return false;
  }
  sim.step(std::min<std::uint64_t>(interval_cycles_, sim.end_cycle() - sim.cycle()));
  tracker_.update(host::read_snapshot(sim, caps_));
  if (reward_) {
    const auto now_progress = target_.progress();
    if (out_.decisions > 0) {
      *out_.episode_return += compute_reward(*reward_, start_progress_, last_progress_, now_progress,
                                             tracker_.interval_cycles(), sim.cycle() - start_cycle_, tracker_);
      ++out_.reward_steps;
    }
    last_progress_ = now_progress;
  }
  const double gbps_per_byte_cycle = clock_mhz_ * 8.0 / 1e3;
  std::vector<double> bw(caps_.tenants), crypto(caps_.tenants);
  const double cycles = static_cast<double>(std::max<std::uint64_t>(1, tracker_.interval_cycles()));
  for (std::size_t t = 0; t < caps_.tenants; ++t) {
    bw[t] = tracker_.tenants()[t].bytes / cycles * gbps_per_byte_cycle;
    crypto[t] = tracker_.tenants()[t].crypto_busy_fraction;
  }
  out_.bandwidth_gbps.push_back(std::move(bw));
  out_.crypto_share.push_back(std::move(crypto));
  out_.time_us.push_back(static_cast<double>(tracker_.now()) / clock_mhz_);
  if (sim.finished() || (min_iterations_ && every_tenant_done(sim, *min_iterations_))) {
    done_ = true;
    return false;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_us();
  const host::Policy p = controller_->decide(tracker_, base_);
  out_.decide_cpu_us.push_back(thread_cpu_us() - c0);
  out_.decide_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  host::apply_policy(sim, caps_, p);
  ++out_.decisions;
  return true;
}

RunResult ControlledRun::result() {
  RunResult r = out_;
  r.metrics = target_.simulation().metrics();
  return r;
}

RunResult run_controller(const ScenarioEntry& entry, std::uint64_t seed, Controller& controller,
                         std::uint64_t interval_cycles, std::optional<std::uint64_t> min_iterations,
                         const std::optional<NicEnvConfig>& reward) {
  ControlledRun run(entry, seed, controller.clone(), interval_cycles, min_iterations, reward);
  while (run.step()) {
  }
  return run.result();
}

}  // namespace nicsched::control
